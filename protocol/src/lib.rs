//! The Delve wire protocol: every message between client and server, as plain serde data.
//!
//! JSON text frames, one message per frame, internally tagged by `"type"`. The client sends
//! [`ClientMsg`]s (a `hello`, then intents); the server answers with [`ServerMsg`]s (a `welcome`
//! holding a full [`View`], then one `update` with a [`ViewDiff`] per resolved turn). See
//! `docs/PROTOCOL.md` for the whole conversation with examples, and `docs/RULES.md` for the game
//! the messages carry.
//!
//! This crate holds types, the codec and the diff rules only: no IO, no game logic. Its modules:
//!
//! - [`action`]: what a character does with a turn ([`Action`]): sent by clients, queued by the
//!   server's engine, chosen by monsters and journaled, one type for all of them.
//! - [`msg`]: the messages both ways ([`ClientMsg`], [`ServerMsg`]), the lobby and high-score
//!   rows, the error codes, and the UTC date of a score.
//! - [`codec`]: messages to JSON text frames and back, with the frame size limits both sides
//!   enforce and the decode errors that map to error codes (its JSON is read by `strict_json`,
//!   which refuses a key named twice).
//! - [`view`]: what one character knows ([`View`]): tiles, the visible set, entities, its own
//!   stats, the party, the watchers and the pack, with the stats and effects they name.
//! - [`digest`]: a short fingerprint of a view, to tell that two views are the same (a replay
//!   shows what the player was sent).
//! - [`diff`]: [`ViewDiff`], the change from one view to the next, and the rule that applies it.
//! - [`patch`]: the changed fields of a record (the player's own, an entity's, a party
//!   member's) that a diff carries instead of the whole record.
//! - [`event`]: what happened in a turn, for animation and the message log ([`Event`], and the
//!   four [`MessageKind`]s).
//! - [`geom`]: positions and the eight directions of movement.

pub mod action;
pub mod close;
pub mod codec;
pub mod diff;
pub mod digest;
pub mod event;
pub mod geom;
pub mod line;
pub mod msg;
pub mod patch;
pub mod stats;
mod strict_json;
pub mod view;

pub use action::Action;
pub use codec::{
    DecodeError, MAX_CLIENT_FRAME, MAX_SERVER_FRAME, decode_client, decode_server, encode,
};
pub use diff::{TileSpan, ViewDiff};
pub use digest::view_digest;
pub use event::{Event, MessageKind};
pub use geom::{Dir, Pos};
pub use line::line;
pub use msg::{
    ClientMsg, Descriptions, DungeonInfo, ErrorCode, LivePlayer, MAX_SCORES, Reason, ScoreEntry,
    ServerMsg, StatGain, utc_date,
};
pub use patch::{EntityPatch, PartyPatch, SelfPatch};
pub use stats::Stats;
pub use view::{
    Bonus, CellSet, Effect, EntityKind, EntityView, ItemUse, ItemView, MarkedSpot, PartyMember,
    SelfView, Slot, Stat, Tile, TileGrid, View, ViewError, Watcher,
};

/// The protocol version this build speaks. A client with another version is refused with an
/// error naming both.
pub const PROTOCOL_VERSION: u32 = 3;

/// Longest player name, in characters.
pub const MAX_NAME_CHARS: usize = 20;

/// Longest dungeon name, in characters.
pub const MAX_DUNGEON_CHARS: usize = 32;

/// Longest dungeon password, in characters.
pub const MAX_PASSWORD_CHARS: usize = 64;

/// How many items a pack holds *(given)*.
pub const INVENTORY_SLOTS: usize = 26;

/// Longest chat line, in characters.
pub const MAX_CHAT_CHARS: usize = 200;
