//! The record of finished games: what the server publishes about them (issue 28).
//!
//! - [`dump`]: the character dump ([`GameDump`]), as JSON, text or the numbers of a page;
//! - [`replay`]: a finished game played back from its slice of the journal, one character's
//!   view turn by turn ([`Replayer`]), which also gathers what the dump tells.
//!
//! The dungeon task records a game when it ends (`net::dungeon_task::games`), the store keeps
//! it (`store::games`), and the web pages and replay sessions read it (`net::pages`,
//! `net::replay_session`). Nothing here does IO: it takes the slice and gives views and dumps.

pub mod dump;
pub mod replay;

use std::sync::Arc;

pub use dump::GameDump;
pub use replay::{Chronicle, GameFacts, ReplayError, Replayer, Shown};

use crate::game::Content;
use crate::store::ReplaySlice;

/// What plays the games this server records: its version, the save format and the content file.
/// Stored with each game, and named when a game recorded by another cannot be replayed (the
/// decisive test is the world's state hash at the game's end: see [`replay`]).
pub fn engine(content: &Content) -> String {
    format!(
        "delve-server {} (save format {}, content {})",
        env!("CARGO_PKG_VERSION"),
        crate::game::save::SAVE_FORMAT,
        content.source_hash.chars().take(12).collect::<String>()
    )
}

/// Replays a finished game to write its dump: the dump, and the replayer that is then open at
/// no extra cost.
pub fn dump_of(
    slice: &ReplaySlice,
    content: Arc<Content>,
    facts: &GameFacts,
    dungeon: &str,
) -> Result<(GameDump, Replayer), ReplayError> {
    let (replayer, chronicle, end) = Replayer::open(slice, content, facts)?;
    let dump = chronicle
        .dump(&end, facts.player, dungeon)
        .ok_or_else(|| ReplayError::Damaged("the character is not in its world".into()))?;
    Ok((dump, replayer))
}

#[cfg(test)]
mod tests;
