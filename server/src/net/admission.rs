//! Who gets one of the server's connection slots, and who gives one up.
//!
//! Every TCP connection holds a [`Slot`] from its accept until it ends (the slot is released
//! when it drops, so no exit path can leak one), counted in all and per address ([`subject`]:
//! an IPv6 /64 counts as one). A slot is *pending* until its connection has finished its
//! handshake (a `hello` that joined a dungeon), and *playing* after.
//!
//! **When the server is full, pending connections give way first.** A newcomer then takes the
//! slot of a pending connection, the oldest of the address holding the most pending ones, if
//! that address holds at least two more than the newcomer's: a flood of handshakes that never
//! finish (slowloris: HTTP headers trickled a byte at a time) takes places from itself, never
//! from players, and a newcomer from a fresh address gets in, because its single pending
//! connection is never the one of the address holding the most. Addresses holding equal shares
//! do not take from each other (they would only trade places, as fast as they reconnect): such a
//! connection is refused. The connection that gives way is told so (its [`Slot::evicted`]
//! resolves) and closes at once. When every slot is a playing one, or the flood's shares are
//! even, the newcomer from a flooding address is refused (`server_full`).
//!
//! **Refusals are explained per address.** A refused connection is told why (error
//! `server_full`, close 1013, or HTTP 503), for a few seconds at most; at most
//! [`POLITE_PER_ADDRESS`] at a time per address and [`POLITE_IN_ALL`] in all are explained, and
//! past that a connection is closed unanswered. One address flooding the server therefore uses
//! up its own explanations, not everyone's.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

use super::limits::subject;

/// Refused connections told why at the same time, from one address.
pub const POLITE_PER_ADDRESS: usize = 4;
/// Refused connections told why at the same time, in all.
pub const POLITE_IN_ALL: usize = 64;

/// The connection slots of one server.
#[derive(Debug, Default)]
pub struct Admission {
    inner: Mutex<Table>,
}

#[derive(Debug, Default)]
struct Table {
    total: usize,
    per_ip: HashMap<IpAddr, usize>,
    /// Every slot held now, by id.
    live: HashMap<u64, Held>,
    /// The pending slots of each address, oldest first. Ids of slots that have since finished
    /// their handshake or ended are skipped (and dropped) when met.
    queues: HashMap<IpAddr, VecDeque<u64>>,
    /// How many pending slots each address holds (exact, unlike the queues).
    pending: HashMap<IpAddr, usize>,
    pending_total: usize,
    next_id: u64,
    /// Refusals being explained now, in all and per address.
    polite: usize,
    polite_per_ip: HashMap<IpAddr, usize>,
}

#[derive(Debug)]
struct Held {
    ip: IpAddr,
    /// Told when the slot is taken for a newcomer; `None` once the handshake is done.
    evict: Option<oneshot::Sender<()>>,
}

/// Why a connection was not given a slot.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum SlotRefused {
    /// Every slot is held by a connection that finished its handshake.
    ServerFull,
    /// The address holds as many connections as one address may.
    AddressFull,
}

/// What became of a slot that gave way: the address it was taken from, for the operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GaveWay {
    pub from: IpAddr,
}

impl Admission {
    /// A slot for a connection from `ip`: a free one, or the slot of a pending connection of the
    /// address holding the most (see the module's docs), which is told to go. `Ok` carries who
    /// gave way, if anyone did.
    pub fn admit(
        self: &Arc<Self>,
        ip: IpAddr,
        max_total: usize,
        max_per_ip: usize,
    ) -> Result<(Slot, Option<GaveWay>), SlotRefused> {
        let ip = subject(ip);
        let mut t = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if t.per_ip.get(&ip).copied().unwrap_or(0) >= max_per_ip {
            return Err(SlotRefused::AddressFull);
        }
        let mut gave_way = None;
        if t.total >= max_total {
            gave_way = Some(t.evict_one(ip).ok_or(SlotRefused::ServerFull)?);
            // Another limit may still hold (max_total 0): never go over it.
            if t.total >= max_total {
                return Err(SlotRefused::ServerFull);
            }
        }
        let id = t.next_id;
        t.next_id += 1;
        let (tx, rx) = oneshot::channel();
        t.live.insert(
            id,
            Held {
                ip,
                evict: Some(tx),
            },
        );
        t.total += 1;
        *t.per_ip.entry(ip).or_insert(0) += 1;
        t.queues.entry(ip).or_default().push_back(id);
        *t.pending.entry(ip).or_insert(0) += 1;
        t.pending_total += 1;
        Ok((
            Slot {
                admission: Arc::clone(self),
                id,
                evicted: Some(rx),
            },
            gave_way,
        ))
    }

    /// Leave to tell a refused connection from `ip` why, if the address (and the server) are
    /// not explaining too many refusals already; `None`: close it unanswered.
    pub fn explain(self: &Arc<Self>, ip: IpAddr) -> Option<Explaining> {
        let ip = subject(ip);
        let mut t = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let mine = t.polite_per_ip.get(&ip).copied().unwrap_or(0);
        if t.polite >= POLITE_IN_ALL || mine >= POLITE_PER_ADDRESS {
            return None;
        }
        t.polite += 1;
        *t.polite_per_ip.entry(ip).or_insert(0) += 1;
        Some(Explaining {
            admission: Arc::clone(self),
            ip,
        })
    }

    /// Open connections right now (including any that gave way and are closing).
    pub fn total(&self) -> usize {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).total
    }

    /// Connections that have not finished their handshake.
    pub fn pending(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pending_total
    }
}

impl Table {
    /// For a newcomer from `for_ip`: takes the slot of the oldest pending connection of the
    /// address holding the most pending ones and tells it to go; its address. `None` if no
    /// address holds at least two pending connections more than `for_ip` does: taking from an
    /// equal would only move the unfairness around (a flood whose addresses hold equal shares
    /// would cut itself down as fast as it reconnects, thousands of times a second).
    fn evict_one(&mut self, for_ip: IpAddr) -> Option<GaveWay> {
        let mine = self.pending.get(&for_ip).copied().unwrap_or(0);
        loop {
            let (&ip, &most) = self
                .pending
                .iter()
                .filter(|(_, n)| **n > 0)
                .max_by_key(|(ip, n)| (**n, std::cmp::Reverse(**ip)))?;
            if most < mine + 2 {
                return None;
            }
            let id = self.queues.get_mut(&ip)?.pop_front();
            let Some(id) = id else {
                // The count said one was there; keep the books straight and look again.
                self.pending.remove(&ip);
                continue;
            };
            let still_pending = self.live.get(&id).is_some_and(|h| h.evict.is_some());
            if !still_pending {
                continue;
            }
            let held = self.release(id)?;
            if let Some(tx) = held.evict {
                let _ = tx.send(());
            }
            return Some(GaveWay { from: held.ip });
        }
    }

    /// Forgets slot `id` and gives its place back.
    fn release(&mut self, id: u64) -> Option<Held> {
        let held = self.live.remove(&id)?;
        self.total = self.total.saturating_sub(1);
        if let Some(n) = self.per_ip.get_mut(&held.ip) {
            *n -= 1;
            if *n == 0 {
                self.per_ip.remove(&held.ip);
            }
        }
        if held.evict.is_some() {
            self.unpend(held.ip);
        }
        Some(held)
    }

    fn unpend(&mut self, ip: IpAddr) {
        self.pending_total = self.pending_total.saturating_sub(1);
        let Some(n) = self.pending.get_mut(&ip) else {
            return;
        };
        *n -= 1;
        let left = *n;
        if left == 0 {
            self.pending.remove(&ip);
            self.queues.remove(&ip);
        } else if let Some(q) = self.queues.get_mut(&ip)
            && q.len() > 2 * left + 16
        {
            // An address that always has someone connecting (a busy router) never empties its
            // queue: drop the ids that are no longer pending now and then.
            let live = &self.live;
            q.retain(|id| live.get(id).is_some_and(|h| h.evict.is_some()));
        }
    }
}

/// One connection's place on the server. Released when dropped.
#[derive(Debug)]
pub struct Slot {
    admission: Arc<Admission>,
    id: u64,
    evicted: Option<oneshot::Receiver<()>>,
}

impl Slot {
    /// The handshake is done (the connection joined a dungeon): the slot no longer gives way.
    pub fn established(&mut self) {
        self.evicted = None;
        let mut t = self
            .admission
            .inner
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let ip = match t.live.get_mut(&self.id) {
            Some(held) if held.evict.is_some() => {
                held.evict = None;
                held.ip
            }
            _ => return,
        };
        t.unpend(ip);
    }

    /// Resolves when the slot was taken for a newcomer (never, once established).
    pub async fn evicted(&mut self) {
        match self.evicted.as_mut() {
            Some(rx) => {
                if rx.await.is_err() {
                    // The table dropped the sender without a word: the slot is established
                    // or gone, and nobody will come for it.
                    std::future::pending::<()>().await;
                }
            }
            None => std::future::pending().await,
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut t = self
            .admission
            .inner
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        t.release(self.id);
    }
}

/// Leave to explain one refusal; given back when dropped.
#[derive(Debug)]
pub struct Explaining {
    admission: Arc<Admission>,
    ip: IpAddr,
}

impl Drop for Explaining {
    fn drop(&mut self) {
        let mut t = self
            .admission
            .inner
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        t.polite = t.polite.saturating_sub(1);
        if let Some(n) = t.polite_per_ip.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                t.polite_per_ip.remove(&self.ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(last: u8) -> IpAddr {
        [10, 0, 0, last].into()
    }

    #[test]
    fn slots_are_limited_and_released_on_drop() {
        let a = Arc::new(Admission::default());
        let (mut s1, _) = a.admit(ip(1), 3, 2).unwrap();
        let (mut s2, _) = a.admit(ip(1), 3, 2).unwrap();
        s1.established();
        s2.established();
        assert_eq!(a.admit(ip(1), 3, 2).unwrap_err(), SlotRefused::AddressFull);
        let (mut s3, _) = a.admit(ip(2), 3, 2).unwrap();
        s3.established();
        assert_eq!(a.admit(ip(2), 3, 2).unwrap_err(), SlotRefused::ServerFull);
        drop(s1);
        assert_eq!(a.total(), 2);
        assert!(a.admit(ip(1), 3, 2).is_ok());
    }

    #[tokio::test]
    async fn a_full_server_takes_the_oldest_pending_slot_of_the_address_holding_most() {
        let a = Arc::new(Admission::default());
        // Address 1 holds three pending slots, address 2 one, address 3 a playing one.
        let (mut first, _) = a.admit(ip(1), 5, 10).unwrap();
        let (second, _) = a.admit(ip(1), 5, 10).unwrap();
        let (_third, _) = a.admit(ip(1), 5, 10).unwrap();
        let (_lone, _) = a.admit(ip(2), 5, 10).unwrap();
        let (mut player, _) = a.admit(ip(3), 5, 10).unwrap();
        player.established();
        assert_eq!((a.total(), a.pending()), (5, 4));
        // A newcomer from a fresh address takes address 1's oldest.
        let (_newcomer, gave) = a.admit(ip(9), 5, 10).unwrap();
        assert_eq!(gave, Some(GaveWay { from: ip(1) }));
        tokio::time::timeout(std::time::Duration::from_secs(5), first.evicted())
            .await
            .expect("the oldest was told to go");
        assert_eq!(a.total(), 5, "the newcomer took its place");
        // Its drop gives nothing back twice.
        drop(first);
        assert_eq!(a.total(), 5);
        // Address 1 now holds two pending and 2 holds one: the next gives way from 1 again.
        let (_next, gave) = a.admit(ip(8), 5, 10).unwrap();
        assert_eq!(gave, Some(GaveWay { from: ip(1) }));
        drop(second);
        assert_eq!(a.total(), 5);
    }

    #[test]
    fn addresses_holding_equal_shares_do_not_take_from_each_other() {
        let a = Arc::new(Admission::default());
        let mut held = Vec::new();
        for n in [1, 1, 2, 2] {
            held.push(a.admit(ip(n), 4, 10).unwrap());
        }
        // Address 1 holds two pending, as does 2: a third from 1 would only trade places.
        assert_eq!(a.admit(ip(1), 4, 10).unwrap_err(), SlotRefused::ServerFull);
        // One more from an address holding one would leave it with two, and 2 with one: no.
        drop(held.remove(0));
        let _one = a.admit(ip(3), 4, 10).unwrap();
        assert_eq!(a.admit(ip(3), 4, 10).unwrap_err(), SlotRefused::ServerFull);
        // A fresh address takes from the address holding two.
        let (_fresh, gave) = a.admit(ip(4), 4, 10).unwrap();
        assert_eq!(gave, Some(GaveWay { from: ip(2) }));
    }

    #[test]
    fn players_never_give_way() {
        let a = Arc::new(Admission::default());
        let mut held = Vec::new();
        for n in 0..4 {
            let (mut s, _) = a.admit(ip(n), 4, 10).unwrap();
            s.established();
            held.push(s);
        }
        assert_eq!(a.admit(ip(9), 4, 10).unwrap_err(), SlotRefused::ServerFull);
        assert_eq!(a.pending(), 0);
    }

    #[test]
    fn refusals_are_explained_per_address() {
        let a = Arc::new(Admission::default());
        let flood: Vec<_> = (0..POLITE_PER_ADDRESS)
            .map(|_| a.explain(ip(1)).expect("within the address's share"))
            .collect();
        assert!(a.explain(ip(1)).is_none(), "the flooding address is out");
        assert!(a.explain(ip(2)).is_some(), "another address is still told");
        drop(flood);
        assert!(a.explain(ip(1)).is_some());
    }
}
