//! `GET /metrics`: the server's numbers in the Prometheus (OpenMetrics) text format, from
//! `prometheus-client`, the Prometheus project's own Rust library. Each server has its own
//! registry (no global recorder: the tests run many servers in one process).
//!
//! Counters only ever grow, so a rate is Prometheus's to take (`rate(delve_turns_total[1m])`
//! is turns per second); gauges that are cheaper to read than to keep up (players online,
//! dungeons loaded, connections, resident memory) are read when a scrape comes.

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};

use super::Cut;

/// What a scrape reads from the server at that moment.
#[derive(Debug, Clone, Copy, Default)]
pub struct Now {
    pub players_online: usize,
    pub dungeons_loaded: usize,
    pub connections: usize,
    pub handshaking: usize,
}

type Labels = Vec<(&'static str, &'static str)>;

#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    players_online: Gauge,
    dungeons_loaded: Gauge,
    connections: Family<Labels, Gauge>,
    resident_memory: Gauge,
    pub turns: Counter,
    pub updates: Counter,
    pub fell_behind: Counter,
    refusals: Family<Labels, Counter>,
    pub journal_write: Histogram,
    pub loop_stalls: Histogram,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("delve");
        let players_online = Gauge::default();
        registry.register(
            "players_online",
            "Players connected to a dungeon (watchers not counted)",
            players_online.clone(),
        );
        let dungeons_loaded = Gauge::default();
        registry.register(
            "dungeons_loaded",
            "Dungeons loaded in memory",
            dungeons_loaded.clone(),
        );
        let connections = Family::<Labels, Gauge>::default();
        registry.register(
            "connections",
            "Open connections: state=\"handshake\" not joined yet (the lobby included), state=\"playing\" joined",
            connections.clone(),
        );
        let resident_memory = Gauge::default();
        registry.register_with_unit(
            "resident_memory",
            "Resident memory of the server process",
            Unit::Bytes,
            resident_memory.clone(),
        );
        let turns = Counter::default();
        registry.register(
            "turns",
            "Turns resolved, every floor of every dungeon",
            turns.clone(),
        );
        let updates = Counter::default();
        registry.register(
            "updates",
            "View messages queued for connections (updates and snapshots)",
            updates.clone(),
        );
        let fell_behind = Counter::default();
        registry.register(
            "fell_behind",
            "Times a connection's backlog was full, so its frames were dropped until it caught up (then it got a snapshot): clients too slow to read",
            fell_behind.clone(),
        );
        let refusals = Family::<Labels, Counter>::default();
        registry.register(
            "refusals",
            "Connections, hellos and characters refused or cut off, by reason",
            refusals.clone(),
        );
        // 0.5 ms to 16 s: a commit normally takes a millisecond or two; a dungeon waiting on a
        // locked or full disk shows in the top buckets.
        let journal_write = Histogram::new(exponential_buckets(0.0005, 2.0, 16));
        registry.register_with_unit(
            "journal_write",
            "Time from a journal entry being queued to its commit, as a dungeon waits for it",
            Unit::Seconds,
            journal_write.clone(),
        );
        // 50 ms (the least that counts as a stall) to about 13 s.
        let loop_stalls = Histogram::new(exponential_buckets(0.05, 2.0, 9));
        registry.register_with_unit(
            "event_loop_stall",
            "How late the event loop's 100 ms watch timer fired, for each time it was 50 ms or more late",
            Unit::Seconds,
            loop_stalls.clone(),
        );
        // Every reason is listed from the start, at 0, so a rate over it is defined.
        for cut in Cut::ALL {
            let _ = refusals.get_or_create(&vec![("reason", cut.label())]);
        }
        Metrics {
            registry,
            players_online,
            dungeons_loaded,
            connections,
            resident_memory,
            turns,
            updates,
            fell_behind,
            refusals,
            journal_write,
            loop_stalls,
        }
    }
}

impl Metrics {
    pub fn refused(&self, cut: Cut) {
        self.refusals
            .get_or_create(&vec![("reason", cut.label())])
            .inc();
    }

    /// The text a scrape gets.
    pub fn render(&self, now: Now) -> String {
        let set = |g: &Gauge, n: usize| {
            g.set(i64::try_from(n).unwrap_or(i64::MAX));
        };
        set(&self.players_online, now.players_online);
        set(&self.dungeons_loaded, now.dungeons_loaded);
        set(
            &self
                .connections
                .get_or_create(&vec![("state", "handshake")]),
            now.handshaking,
        );
        set(
            &self.connections.get_or_create(&vec![("state", "playing")]),
            now.connections.saturating_sub(now.handshaking),
        );
        set(&self.resident_memory, resident_bytes().unwrap_or(0));
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = encode(&mut text, &self.registry);
        text
    }
}

/// The OpenMetrics text type a scrape is answered with (Prometheus reads it, and the plain
/// `text/plain; version=0.0.4` format too).
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The process's resident memory, from the `VmRSS` line of `/proc/self/status` (Linux); `None`
/// elsewhere.
fn resident_bytes() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: usize = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scrape_names_every_number_an_operator_watches() {
        let m = Metrics::default();
        m.turns.inc();
        m.updates.inc_by(4);
        m.refused(Cut::HandshakeTimeout);
        m.journal_write.observe(0.002);
        let text = m.render(Now {
            players_online: 3,
            dungeons_loaded: 2,
            connections: 10,
            handshaking: 4,
        });
        for line in [
            "delve_players_online 3",
            "delve_dungeons_loaded 2",
            "delve_connections{state=\"handshake\"} 4",
            "delve_connections{state=\"playing\"} 6",
            "delve_turns_total 1",
            "delve_updates_total 4",
            "delve_refusals_total{reason=\"handshake_timeout\"} 1",
            "delve_refusals_total{reason=\"server_full\"} 0",
            "delve_journal_write_seconds_count 1",
            "delve_event_loop_stall_seconds_count 0",
        ] {
            assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
        }
        assert!(text.contains("delve_resident_memory_bytes "), "{text}");
        assert!(text.ends_with("# EOF\n"));
    }
}
