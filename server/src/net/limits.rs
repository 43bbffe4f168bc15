//! Rate limiting and per-address budgets (governor's limiters over tokio's clock). The
//! connection slots are [`admission`](super::admission)'s.

use std::convert::Infallible;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use governor::Quota;
use governor::clock::Clock;
use governor::nanos::Nanos;
use governor::state::keyed::{HashMapStateStore, ShrinkableKeyedStateStore};
use governor::state::{InMemoryState, NotKeyed, StateStore};

/// Where the limiters read the time: tokio's clock, so a test that pauses tokio's time
/// governs the limits too, and the server itself reads the same monotonic clock as its timers.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioClock;

impl Clock for TokioClock {
    type Instant = std::time::Instant;

    fn now(&self) -> Self::Instant {
        tokio::time::Instant::now().into_std()
    }
}

/// `n` as governor's non-zero count; a zero in the config means one, as it always has.
fn at_least_one(n: u32) -> NonZeroU32 {
    NonZeroU32::MIN.saturating_add(n.saturating_sub(1))
}

/// `rate` messages per second sustained, `burst` at once: one per connection for messages,
/// one per session for chat.
#[derive(Debug)]
pub struct RateLimiter {
    inner: governor::RateLimiter<NotKeyed, InMemoryState, TokioClock>,
}

impl RateLimiter {
    pub fn new(rate: u32, burst: u32) -> Self {
        let quota = Quota::per_second(at_least_one(rate)).allow_burst(at_least_one(burst));
        RateLimiter {
            inner: governor::RateLimiter::direct_with_clock(quota, TokioClock),
        }
    }

    /// Takes one token; `false` means the message must be dropped.
    pub fn allow(&self) -> bool {
        self.inner.check().is_ok()
    }
}

/// Things one address ([`subject`]) may do `n` times in a row, earning one back every
/// `refill`: new characters in one dungeon (friends behind one router share it, so the default
/// leaves room for a whole party; a script making characters by the dozen is held to a
/// trickle), new dungeons on the server.
///
/// Whether one is left is asked first ([`AddressBudget::wait`]) and one is taken only once the
/// thing is done ([`AddressBudget::take`]), so a refusal for another reason (a name taken, no
/// room) spends nothing. Between the two, nobody else may take from the same budget: each
/// dungeon's budget is only used by its own task, and the server's dungeon budget is only taken
/// under the registry's lock.
#[derive(Debug)]
pub struct AddressBudget {
    inner: governor::RateLimiter<Probe, Budgets, TokioClock>,
}

impl AddressBudget {
    pub fn new(n: u32, refill: Duration) -> Self {
        let quota = Quota::with_period(refill.max(Duration::from_millis(1)))
            .unwrap_or_else(|| Quota::per_second(NonZeroU32::MIN))
            .allow_burst(at_least_one(n));
        AddressBudget {
            inner: governor::RateLimiter::new(quota, Budgets::default(), TokioClock),
        }
    }

    /// `Ok` if `ip` has one left, or how long until it has; takes nothing.
    pub fn wait(&self, ip: IpAddr) -> Result<(), Duration> {
        self.prune();
        self.inner
            .check_key(&Probe::Look(subject(ip)))
            .map_err(|later| later.wait_time_from(TokioClock.now()))
    }

    /// Takes one from `ip`'s budget, or says how long until one is there.
    pub fn take(&self, ip: IpAddr) -> Result<(), Duration> {
        self.prune();
        self.inner
            .check_key(&Probe::Take(subject(ip)))
            .map_err(|later| later.wait_time_from(TokioClock.now()))
    }

    fn prune(&self) {
        if self.inner.len() > GUARD_PRUNE_AT {
            self.inner.retain_recent();
        }
    }
}

/// Password tries, counted per address ([`subject`]: an IPv6 /64 counts as one) rather than per
/// connection, so reconnecting does not reset the count. An address may try `tries` times and
/// earns one try back every `refill`. A try is taken *before* the password is checked, in one
/// atomic step, so parallel hellos cannot all slip through one check (32 at once used to try 31
/// wrong passwords against a limit of 5); a right password spends its try too, which costs a
/// player who knows it nothing at a human pace. Taking it before any hashing also keeps a
/// guesser from holding the hashing threads for everyone else.
///
/// Each try takes one cell from the address's budget in a keyed governor limiter. Whether any
/// try is left (to tell a wrong password from the last one) must not take one, and governor has
/// no "look without taking", so the store below can answer a [`Probe::Look`] without keeping the
/// result.
#[derive(Debug)]
pub struct PasswordGuard {
    misses: governor::RateLimiter<Probe, Budgets, TokioClock>,
}

/// A question to the password budgets: take a try from `ip`, or only see whether one is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Probe {
    Take(IpAddr),
    Look(IpAddr),
}

/// governor's own per-key store, keyed by address; a [`Probe::Look`] runs governor's decision
/// on the address's state and then leaves that state as it was.
#[derive(Debug, Default)]
struct Budgets(HashMapStateStore<IpAddr>);

impl StateStore for Budgets {
    type Key = Probe;

    fn measure_and_replace<T, F, E>(&self, key: &Probe, f: F) -> Result<T, E>
    where
        F: Fn(Option<Nanos>) -> Result<(T, Nanos), E>,
    {
        match *key {
            Probe::Take(ip) => self.0.measure_and_replace(&ip, f),
            // Carry the decision out as the "refused" side, so the store never writes it.
            Probe::Look(ip) => {
                let looked: Result<Infallible, Result<T, E>> =
                    self.0.measure_and_replace(&ip, |tat| match f(tat) {
                        Ok((t, _)) => Err(Ok(t)),
                        Err(e) => Err(Err(e)),
                    });
                match looked {
                    Ok(never) => match never {},
                    Err(decision) => decision,
                }
            }
        }
    }
}

impl ShrinkableKeyedStateStore<Probe> for Budgets {
    fn retain_recent(&self, drop_below: Nanos) {
        self.0.retain_recent(drop_below);
    }

    fn shrink_to_fit(&self) {
        self.0.shrink_to_fit();
    }

    fn len(&self) -> usize {
        ShrinkableKeyedStateStore::len(&self.0)
    }

    fn is_empty(&self) -> bool {
        ShrinkableKeyedStateStore::is_empty(&self.0)
    }
}

/// Who a limit counts: the address itself for IPv4, and the whole /64 network for IPv6 (one
/// machine is routinely given a /64, so counting its single addresses would not limit it at
/// all). An IPv4 address written as IPv6 (`::ffff:a.b.c.d`) counts as that IPv4 address.
pub fn subject(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

/// Past this many addresses, forgiven ones are dropped from the map on the next question (a
/// look stores an entry for a new address too, so both ways in prune).
const GUARD_PRUNE_AT: usize = 4096;

impl PasswordGuard {
    pub fn new(tries: u32, refill: Duration) -> Self {
        let refill = refill.max(Duration::from_millis(1));
        // `with_period` is `None` only for a zero period, which the line above rules out.
        let quota = Quota::with_period(refill)
            .unwrap_or_else(|| Quota::per_second(NonZeroU32::MIN))
            .allow_burst(at_least_one(tries));
        PasswordGuard {
            misses: governor::RateLimiter::new(quota, Budgets::default(), TokioClock),
        }
    }

    /// Takes one try from `ip`'s budget before its password is checked; `false` (and nothing
    /// taken) when none is left.
    pub fn reserve(&self, ip: IpAddr) -> bool {
        self.prune();
        self.misses.check_key(&Probe::Take(subject(ip))).is_ok()
    }

    /// Whether `ip` has a try left, without taking it.
    pub fn has_tries(&self, ip: IpAddr) -> bool {
        self.prune();
        self.misses.check_key(&Probe::Look(subject(ip))).is_ok()
    }

    fn prune(&self) {
        if self.misses.len() >= GUARD_PRUNE_AT {
            self.misses.retain_recent();
        }
    }
}

/// A wait as a player reads it: "40 s", "3 min".
pub fn in_words(wait: Duration) -> String {
    let secs = wait.as_secs_f64().ceil() as u64;
    if secs < 120 {
        format!("{} s", secs.max(1))
    } else {
        format!("{} min", secs.div_ceil(60))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The limiters read tokio's clock, so these tests pause it and move it by hand.
    use tokio::time::advance;

    #[tokio::test(start_paused = true)]
    async fn bucket_allows_the_burst_then_the_rate() {
        let r = RateLimiter::new(10, 5);
        assert_eq!((0..8).filter(|_| r.allow()).count(), 5);
        // 0.3 s later three more tokens have dripped in.
        advance(Duration::from_millis(300)).await;
        assert_eq!((0..8).filter(|_| r.allow()).count(), 3);
        // The bucket never holds more than the burst.
        advance(Duration::from_secs(60)).await;
        assert_eq!((0..20).filter(|_| r.allow()).count(), 5);
    }

    #[tokio::test(start_paused = true)]
    async fn password_tries_are_counted_per_address_and_forgiven_slowly() {
        let g = PasswordGuard::new(3, Duration::from_secs(10));
        let a: IpAddr = [10, 0, 0, 1].into();
        let b: IpAddr = [10, 0, 0, 2].into();
        assert!(g.reserve(a) && g.reserve(a));
        assert!(g.has_tries(a));
        // The third try is the last one allowed.
        assert!(g.reserve(a));
        assert!(!g.has_tries(a));
        assert!(!g.reserve(a));
        // Another address is not affected.
        assert!(g.reserve(b));
        // Five seconds earn half a try back: still shut.
        advance(Duration::from_secs(5)).await;
        assert!(!g.reserve(a));
        // Ten seconds earn one.
        advance(Duration::from_secs(5)).await;
        assert!(g.reserve(a));
        assert!(!g.reserve(a));
        // Long enough and it is all forgiven.
        advance(Duration::from_secs(60)).await;
        assert!((0..3).all(|_| g.reserve(a)));
    }

    #[tokio::test(start_paused = true)]
    async fn looking_costs_no_try() {
        let g = PasswordGuard::new(2, Duration::from_secs(10));
        let a: IpAddr = [10, 0, 0, 1].into();
        for _ in 0..10 {
            assert!(g.has_tries(a));
        }
        assert!(g.reserve(a) && g.reserve(a));
        assert!(!g.reserve(a));
    }

    #[tokio::test(start_paused = true)]
    async fn one_ipv6_network_shares_one_budget() {
        let g = PasswordGuard::new(2, Duration::from_secs(10));
        let one: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let same_64: IpAddr = "2001:db8:1:2:ffff:1:2:3".parse().unwrap();
        let other_64: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert!(g.reserve(one) && g.reserve(same_64));
        assert!(!g.reserve("2001:db8:1:2::99".parse().unwrap()));
        assert!(g.reserve(other_64));
        // An IPv4 address written as IPv6 is that IPv4 address.
        let v4: IpAddr = [192, 0, 2, 7].into();
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert!(g.reserve(v4) && g.reserve(mapped));
        assert!(!g.reserve(v4));
    }

    #[tokio::test(start_paused = true)]
    async fn forgiven_addresses_are_pruned() {
        let g = PasswordGuard::new(2, Duration::from_secs(10));
        for n in 0..GUARD_PRUNE_AT as u32 {
            assert!(g.has_tries(IpAddr::from(n.to_be_bytes())));
        }
        let a: IpAddr = [10, 0, 0, 1].into();
        assert!(g.reserve(a));
        // Every address above was fresh, so only the one that tried is still remembered.
        advance(Duration::from_secs(1)).await;
        assert!(g.has_tries([10, 0, 0, 2].into()));
        assert!(g.misses.len() <= 3, "{}", g.misses.len());
        assert!(g.reserve(a));
        assert!(!g.reserve(a));
    }

    #[tokio::test(start_paused = true)]
    async fn new_characters_are_counted_per_address_and_come_back_slowly() {
        let b = AddressBudget::new(3, Duration::from_secs(600));
        let a: IpAddr = "2001:db8::1".parse().unwrap();
        let same_64: IpAddr = "2001:db8::ffff:2".parse().unwrap();
        let other: IpAddr = [192, 0, 2, 1].into();
        assert!(b.take(a).is_ok() && b.take(same_64).is_ok() && b.take(a).is_ok());
        let wait = b.take(same_64).expect_err("the /64 spent its three");
        assert!(wait > Duration::from_secs(590) && wait <= Duration::from_secs(600));
        assert!(b.take(other).is_ok(), "another address has its own budget");
        advance(Duration::from_secs(601)).await;
        assert!(b.take(a).is_ok(), "one came back");
        assert!(b.take(a).is_err());
    }

    #[tokio::test(start_paused = true)]
    async fn asking_whether_one_is_left_takes_none() {
        let b = AddressBudget::new(2, Duration::from_secs(600));
        let a: IpAddr = [192, 0, 2, 1].into();
        for _ in 0..10 {
            assert!(b.wait(a).is_ok());
        }
        assert!(b.take(a).is_ok() && b.take(a).is_ok());
        let wait = b.wait(a).expect_err("both taken");
        assert!(wait > Duration::from_secs(590), "{wait:?}");
    }
}
