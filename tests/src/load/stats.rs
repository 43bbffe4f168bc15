//! Latency percentiles and the other figures a run prints.

use std::time::Duration;

/// Percentiles of a set of latencies (nearest rank: the smallest sample at or above which
/// `p` of the samples lie).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub count: usize,
    pub p50: Duration,
    pub p99: Duration,
    pub p999: Duration,
    pub max: Duration,
}

impl Summary {
    /// Sorts `samples` and summarises them.
    pub fn of(samples: &mut [Duration]) -> Summary {
        samples.sort_unstable();
        Summary {
            count: samples.len(),
            p50: percentile(samples, 0.50),
            p99: percentile(samples, 0.99),
            p999: percentile(samples, 0.999),
            max: samples.last().copied().unwrap_or_default(),
        }
    }
}

/// The nearest-rank percentile `p` (0 < p ≤ 1) of `sorted`; zero when there are no samples.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// `a / b`, or NaN when there is no baseline.
pub fn ratio(a: f64, b: f64) -> f64 {
    if b == 0.0 { f64::NAN } else { a / b }
}

/// A duration in the unit that reads best.
pub fn show(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1_000.0 {
        format!("{us:.0} µs")
    } else if us < 1_000_000.0 {
        format!("{:.2} ms", us / 1e3)
    } else {
        format!("{:.2} s", us / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(v: u64) -> Duration {
        Duration::from_micros(v)
    }

    #[test]
    fn nearest_rank_percentiles() {
        // 1..=1000 µs: p50 is the 500th sample, p99 the 990th, p99.9 the 999th.
        let mut samples: Vec<Duration> = (1..=1000).rev().map(us).collect();
        let s = Summary::of(&mut samples);
        assert_eq!(s.count, 1000);
        assert_eq!(s.p50, us(500));
        assert_eq!(s.p99, us(990));
        assert_eq!(s.p999, us(999));
        assert_eq!(s.max, us(1000));
    }

    #[test]
    fn one_slow_sample_in_a_hundred_is_the_p99() {
        let mut samples = vec![us(10); 99];
        samples.push(us(5000));
        let s = Summary::of(&mut samples);
        assert_eq!(s.p50, us(10));
        assert_eq!(s.p99, us(10), "99 of 100 samples are at or below 10 µs");
        assert_eq!(s.p999, us(5000));
    }

    #[test]
    fn small_and_empty_sets() {
        assert_eq!(percentile(&[], 0.99), Duration::ZERO);
        assert_eq!(percentile(&[us(7)], 0.5), us(7));
        assert_eq!(percentile(&[us(1), us(2)], 0.5), us(1));
        assert_eq!(percentile(&[us(1), us(2)], 0.51), us(2));
        assert!(ratio(1.0, 0.0).is_nan());
        assert_eq!(ratio(3.0, 2.0), 1.5);
    }
}
