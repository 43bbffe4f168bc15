//! Rate limiting and connection counting.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

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
}
