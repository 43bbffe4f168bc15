//! What a connection asks of its dungeon task ([`Command`]), and what others may read of a
//! running dungeon without asking it ([`DungeonStats`]).

use std::net::IpAddr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, AtomicUsize};

use delve_protocol::{ErrorCode, LivePlayer, Stat};
use tokio::sync::oneshot;

use super::Outlet;
use crate::game::{Action, EntityId};

/// Identifies one WebSocket connection for the server's lifetime.
pub type ConnId = u64;

pub(super) type Refusal = (ErrorCode, String);

/// What a connection asks of its dungeon. After joining, commands name only the connection:
/// the character it drives can change (a new one after a death), and the dungeon knows which.
#[derive(Debug)]
pub enum Command {
    Join {
        name: String,
        token: Option<String>,
        /// Where the connection comes from, for the budget of new characters per address.
        from: IpAddr,
        conn: ConnId,
        out: Outlet,
        reply: oneshot::Sender<Result<EntityId, Refusal>>,
    },
    /// Join as a watcher of the player called `target`, with no character of one's own.
    JoinWatching {
        name: String,
        target: String,
        conn: ConnId,
        out: Outlet,
        reply: oneshot::Sender<Result<EntityId, Refusal>>,
    },
    Act {
        conn: ConnId,
        action: Action,
    },
    Resync {
        conn: ConnId,
    },
    /// Spend a stat point (takes no turn).
    LevelUp {
        conn: ConnId,
        stat: Stat,
    },
    /// Mark a cell for the friends on one's floor (takes no turn).
    Mark {
        conn: ConnId,
        at: delve_protocol::Pos,
    },
    /// Start a new character after this one died.
    NewCharacter {
        conn: ConnId,
    },
    Chat {
        conn: ConnId,
        text: String,
    },
    /// Follow the view of the player called `name`, or one's own (`None`).
    Follow {
        conn: ConnId,
        name: Option<String>,
    },
    Disconnect {
        conn: ConnId,
    },
}

/// What the registry and lobby can read about a running dungeon without asking its task.
#[derive(Debug, Default)]
pub struct DungeonStats {
    /// Players online (watchers not counted).
    pub online: AtomicUsize,
    /// The deepest floor any character has reached.
    pub deepest: AtomicU8,
    /// Whether the dungeon has a password: its games' pages then need a key.
    pub private: bool,
    /// Who plays there now and who watches them, for the lobby (kept up to date by the task
    /// when it lists live games).
    pub live: Mutex<Vec<LivePlayer>>,
}
