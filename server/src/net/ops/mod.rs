//! The operator's window: what the server refused or cut off, counted for `GET /metrics`
//! ([`metrics`]) and summed up in the log every ten seconds ([`tally`]), so that an attack shows
//! as a few lines that say what, how often and from how many addresses, never as silence or as
//! a line per connection.
//!
//! Everything that refuses or cuts off calls [`Ops::cut`] with its [`Cut`]; the rest of the
//! numbers (turns, updates, journal writes, event-loop stalls) are counted where they happen.

pub mod metrics;
pub mod tally;

use std::net::IpAddr;
use std::sync::Arc;

use tracing::warn;

use metrics::Metrics;
use tally::{REPORT_EVERY, Tally};

/// Something refused or cut off, by why. Its `label` is the `reason` of the
/// `delve_refusals_total` metric, and its `what` the words of the summary line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cut {
    /// A connection refused because every slot was held by players (`server_full`).
    ServerFull,
    /// A connection refused because its address held as many as one address may.
    AddressFull,
    /// A refused connection closed without an answer (its address, or the server, was already
    /// explaining as many refusals as it may).
    Unanswered,
    /// An unfinished handshake that gave its slot to a newcomer on a full server.
    GaveWay,
    /// A handshake that did not finish in time (HTTP headers, the upgrade, or the `hello`).
    HandshakeTimeout,
    /// A joined connection that answered nothing to pings: a dead link.
    DeadLink,
    /// A connection closed for a flood of messages.
    MessageFlood,
    /// A `hello` refused because the server holds as many dungeons as it may.
    DungeonCap,
    /// A `hello` refused because its dungeon was full.
    DungeonFull,
    /// A new character refused by the address's budget.
    NewCharacterLimit,
    /// A new dungeon refused by the address's budget.
    NewDungeonLimit,
    /// A connection closed for too many wrong passwords from its address.
    PasswordShutOut,
    /// A character retired to make room for a newcomer in a full dungeon.
    Retired,
}

impl Cut {
    pub const ALL: [Cut; 13] = [
        Cut::ServerFull,
        Cut::AddressFull,
        Cut::Unanswered,
        Cut::GaveWay,
        Cut::HandshakeTimeout,
        Cut::DeadLink,
        Cut::MessageFlood,
        Cut::DungeonCap,
        Cut::DungeonFull,
        Cut::NewCharacterLimit,
        Cut::NewDungeonLimit,
        Cut::PasswordShutOut,
        Cut::Retired,
    ];

    /// The metric's `reason` label.
    pub fn label(self) -> &'static str {
        match self {
            Cut::ServerFull => "server_full",
            Cut::AddressFull => "address_full",
            Cut::Unanswered => "unanswered",
            Cut::GaveWay => "handshake_gave_way",
            Cut::HandshakeTimeout => "handshake_timeout",
            Cut::DeadLink => "dead_link",
            Cut::MessageFlood => "message_flood",
            Cut::DungeonCap => "dungeon_cap",
            Cut::DungeonFull => "dungeon_full",
            Cut::NewCharacterLimit => "new_character_limit",
            Cut::NewDungeonLimit => "new_dungeon_limit",
            Cut::PasswordShutOut => "password_shut_out",
            Cut::Retired => "character_retired",
        }
    }

    /// What the summary line says happened (after its count).
    pub fn what(self) -> &'static str {
        match self {
            Cut::ServerFull => "connections refused: the server is full of players",
            Cut::AddressFull => "connections refused: too many from one address",
            Cut::Unanswered => {
                "refused connections closed unanswered (their address was told enough already)"
            }
            Cut::GaveWay => "unfinished handshakes closed to make room for newcomers",
            Cut::HandshakeTimeout => "unfinished handshakes cut off",
            Cut::DeadLink => "silent connections dropped (no answer to pings)",
            Cut::MessageFlood => "connections closed for a flood of messages",
            Cut::DungeonCap => "hellos refused: as many dungeons loaded as allowed",
            Cut::DungeonFull => "hellos refused: the dungeon was full",
            Cut::NewCharacterLimit => "new characters refused: the address made its share",
            Cut::NewDungeonLimit => "new dungeons refused: the address made its share",
            Cut::PasswordShutOut => "connections closed for too many wrong passwords",
            Cut::Retired => "characters retired to make room in full dungeons",
        }
    }
}

/// The numbers and the summary lines of one server.
#[derive(Debug, Default)]
pub struct Ops {
    pub metrics: Metrics,
    tally: Tally,
}

impl Ops {
    /// Counts `cut`, from `ip` if known.
    pub fn cut(&self, cut: Cut, ip: Option<IpAddr>) {
        self.metrics.refused(cut);
        self.tally.add(cut, ip.map(super::limits::subject));
    }

    /// Writes the summary lines every [`REPORT_EVERY`], for as long as the task runs.
    pub async fn report(self: Arc<Self>) {
        let mut every = tokio::time::interval(REPORT_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        every.tick().await;
        loop {
            every.tick().await;
            self.write_summary();
        }
    }

    /// Writes one line for each kind of cut counted since the last time.
    pub fn write_summary(&self) {
        for s in self.tally.take() {
            let line = s.line(REPORT_EVERY);
            warn!(
                reason = s.cut.label(),
                count = s.count,
                addresses = s.addresses,
                "{line}"
            );
        }
    }
}
