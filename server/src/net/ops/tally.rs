//! Summary lines for the log: what was refused or cut off, how often, and from how many
//! addresses, one line per kind every [`REPORT_EVERY`], instead of one line per connection. An
//! operator under attack sees "3,464 unfinished handshakes cut off in the last 10 s, from 20
//! addresses (most from 192.0.2.7: 180)" rather than nothing, or a flood.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Duration;

use super::Cut;

/// How often the summary lines are written (only for kinds that happened meanwhile).
pub const REPORT_EVERY: Duration = Duration::from_secs(10);

/// Addresses remembered per kind and period; past this the count goes on without them (the
/// line then says "at least").
const MAX_ADDRESSES: usize = 10_000;

#[derive(Debug, Default)]
pub struct Tally {
    inner: Mutex<BTreeMap<Cut, Counts>>,
}

#[derive(Debug, Default)]
struct Counts {
    total: u64,
    by_address: HashMap<IpAddr, u64>,
    /// Some addresses were not remembered (too many).
    overflow: bool,
}

/// One summary line's numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub cut: Cut,
    pub count: u64,
    pub addresses: usize,
    /// Whether there were more addresses than were remembered.
    pub more: bool,
    /// The address it happened to most, and how often.
    pub top: Option<(IpAddr, u64)>,
}

impl Tally {
    pub fn add(&self, cut: Cut, ip: Option<IpAddr>) {
        let mut t = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let c = t.entry(cut).or_default();
        c.total += 1;
        if let Some(ip) = ip {
            if let Some(n) = c.by_address.get_mut(&ip) {
                *n += 1;
            } else if c.by_address.len() < MAX_ADDRESSES {
                c.by_address.insert(ip, 1);
            } else {
                c.overflow = true;
            }
        }
    }

    /// Everything counted since the last call, and a fresh start.
    pub fn take(&self) -> Vec<Summary> {
        let taken = std::mem::take(&mut *self.inner.lock().unwrap_or_else(|e| e.into_inner()));
        taken
            .into_iter()
            .map(|(cut, c)| Summary {
                cut,
                count: c.total,
                addresses: c.by_address.len(),
                more: c.overflow,
                top: c
                    .by_address
                    .iter()
                    .max_by_key(|(ip, n)| (**n, std::cmp::Reverse(**ip)))
                    .map(|(ip, n)| (*ip, *n)),
            })
            .collect()
    }
}

impl Summary {
    /// The line as the log shows it.
    pub fn line(&self, period: Duration) -> String {
        let secs = period.as_secs().max(1);
        let mut line = format!("{} {} in the last {secs} s", self.count, self.cut.what());
        if self.addresses > 0 {
            let at_least = if self.more { "at least " } else { "" };
            let s = if self.addresses == 1 && !self.more {
                ""
            } else {
                "es"
            };
            line.push_str(&format!(", from {at_least}{} address{s}", self.addresses));
            if let Some((ip, n)) = self.top.filter(|_| self.addresses > 1) {
                line.push_str(&format!(" (most from {ip}: {n})"));
            }
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_kind_with_its_addresses_and_the_worst_one() {
        let t = Tally::default();
        for n in 0..20u8 {
            for _ in 0..=n {
                t.add(Cut::HandshakeTimeout, Some([10, 0, 0, n].into()));
            }
        }
        t.add(Cut::DeadLink, Some([10, 0, 1, 1].into()));
        let lines: Vec<String> = t
            .take()
            .iter()
            .map(|s| s.line(Duration::from_secs(10)))
            .collect();
        assert_eq!(
            lines,
            [
                "210 unfinished handshakes cut off in the last 10 s, from 20 addresses (most from 10.0.0.19: 20)",
                "1 silent connections dropped (no answer to pings) in the last 10 s, from 1 address",
            ]
        );
        assert!(t.take().is_empty(), "each period starts afresh");
    }
}
