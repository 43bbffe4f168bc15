//! Rate limiting and connection counting.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A token bucket: `rate` messages per second sustained, `burst` at once.
#[derive(Debug)]
pub struct RateLimiter {
    rate: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
}

impl RateLimiter {
    pub fn new(rate: u32, burst: u32, now: Instant) -> Self {
        let burst = f64::from(burst.max(1));
        RateLimiter {
            rate: f64::from(rate.max(1)),
            burst,
            tokens: burst,
            last: now,
        }
    }

    /// Takes one token; `false` means the message must be dropped.
    pub fn allow(&mut self, now: Instant) -> bool {
        let dt = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + dt * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Counts open connections, in all and per address. A slot is held by a [`ConnectionSlot`] and
/// released when it drops, so no exit path can leak one.
#[derive(Debug, Default)]
pub struct ConnectionCounter {
    inner: Mutex<Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    total: usize,
    per_ip: HashMap<IpAddr, usize>,
}

/// Why a connection was not given a slot.
#[derive(Debug, PartialEq, Eq)]
pub enum SlotRefused {
    ServerFull,
    AddressFull,
}

impl ConnectionCounter {
    pub fn try_acquire(
        self: &Arc<Self>,
        ip: IpAddr,
        max_total: usize,
        max_per_ip: usize,
    ) -> Result<ConnectionSlot, SlotRefused> {
        let mut c = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if c.total >= max_total {
            return Err(SlotRefused::ServerFull);
        }
        let n = c.per_ip.entry(ip).or_insert(0);
        if *n >= max_per_ip {
            return Err(SlotRefused::AddressFull);
        }
        *n += 1;
        c.total += 1;
        Ok(ConnectionSlot {
            counter: Arc::clone(self),
            ip,
        })
    }

    pub fn total(&self) -> usize {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).total
    }
}

#[derive(Debug)]
pub struct ConnectionSlot {
    counter: Arc<ConnectionCounter>,
    ip: IpAddr,
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        let mut c = self.counter.inner.lock().unwrap_or_else(|e| e.into_inner());
        c.total = c.total.saturating_sub(1);
        if let Some(n) = c.per_ip.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                c.per_ip.remove(&self.ip);
            }
        }
    }
}

/// Wrong dungeon passwords, counted per address rather than per connection, so reconnecting
/// does not reset the count. An address may miss `tries` times and earns one try back every
/// `refill`. It is asked before any hashing, so a guesser cannot keep the hashing threads busy
/// for everyone else either.
#[derive(Debug)]
pub struct PasswordGuard {
    tries: u32,
    refill: Duration,
    misses: Mutex<HashMap<IpAddr, Misses>>,
}

#[derive(Debug, Clone, Copy)]
struct Misses {
    count: f64,
    at: Instant,
}

impl Misses {
    /// The count as it stands at `now`, after the tries earned back since `at`.
    fn at(&self, now: Instant, refill: Duration) -> f64 {
        let earned = now.saturating_duration_since(self.at).as_secs_f64() / refill.as_secs_f64();
        (self.count - earned).max(0.0)
    }
}

/// Past this many addresses, forgiven ones are dropped from the map on the next miss.
const GUARD_PRUNE_AT: usize = 4096;

impl PasswordGuard {
    pub fn new(tries: u32, refill: Duration) -> Self {
        PasswordGuard {
            tries: tries.max(1),
            refill: refill.max(Duration::from_millis(1)),
            misses: Mutex::default(),
        }
    }

    /// Whether `ip` may try a password now.
    pub fn may_try(&self, ip: IpAddr, now: Instant) -> bool {
        let map = self.misses.lock().unwrap_or_else(|e| e.into_inner());
        map.get(&ip)
            .is_none_or(|m| m.at(now, self.refill) + 1.0 <= f64::from(self.tries))
    }

    /// Records a wrong password from `ip`; `false` when that was its last try for now.
    pub fn missed(&self, ip: IpAddr, now: Instant) -> bool {
        let mut map = self.misses.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= GUARD_PRUNE_AT {
            let refill = self.refill;
            map.retain(|_, m| m.at(now, refill) > 0.0);
        }
        let count = map.get(&ip).map_or(0.0, |m| m.at(now, self.refill)) + 1.0;
        map.insert(ip, Misses { count, at: now });
        count + 1.0 <= f64::from(self.tries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_allows_the_burst_then_the_rate() {
        let t0 = Instant::now();
        let mut r = RateLimiter::new(10, 5, t0);
        assert_eq!((0..8).filter(|_| r.allow(t0)).count(), 5);
        // 0.3 s later three more tokens have dripped in.
        let t1 = t0 + Duration::from_millis(300);
        assert_eq!((0..8).filter(|_| r.allow(t1)).count(), 3);
        // The bucket never holds more than the burst.
        let t2 = t1 + Duration::from_secs(60);
        assert_eq!((0..20).filter(|_| r.allow(t2)).count(), 5);
    }

    #[test]
    fn slots_are_limited_and_released_on_drop() {
        let c = Arc::new(ConnectionCounter::default());
        let a: IpAddr = [10, 0, 0, 1].into();
        let b: IpAddr = [10, 0, 0, 2].into();
        let s1 = c.try_acquire(a, 3, 2).unwrap();
        let _s2 = c.try_acquire(a, 3, 2).unwrap();
        assert_eq!(
            c.try_acquire(a, 3, 2).unwrap_err(),
            SlotRefused::AddressFull
        );
        let _s3 = c.try_acquire(b, 3, 2).unwrap();
        assert_eq!(c.try_acquire(b, 3, 2).unwrap_err(), SlotRefused::ServerFull);
        drop(s1);
        assert_eq!(c.total(), 2);
        assert!(c.try_acquire(a, 3, 2).is_ok());
    }

    #[test]
    fn password_misses_are_counted_per_address_and_forgiven_slowly() {
        let g = PasswordGuard::new(3, Duration::from_secs(10));
        let a: IpAddr = [10, 0, 0, 1].into();
        let b: IpAddr = [10, 0, 0, 2].into();
        let t0 = Instant::now();
        assert!(g.may_try(a, t0));
        assert!(g.missed(a, t0));
        assert!(g.missed(a, t0));
        // The third miss is the last one allowed.
        assert!(!g.missed(a, t0));
        assert!(!g.may_try(a, t0));
        // Another address is not affected.
        assert!(g.may_try(b, t0));
        // Five seconds earn half a try back: still shut.
        assert!(!g.may_try(a, t0 + Duration::from_secs(5)));
        // Ten seconds earn one.
        let t1 = t0 + Duration::from_secs(10);
        assert!(g.may_try(a, t1));
        assert!(!g.missed(a, t1));
        assert!(!g.may_try(a, t1));
        // Long enough and it is all forgiven.
        let t2 = t1 + Duration::from_secs(60);
        assert!(g.missed(a, t2));
    }
}
