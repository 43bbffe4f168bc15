//! The Delve server as a library. The `delve-server` binary and the client's `--solo` mode both
//! start it through [`net::Server`]. Its modules, from the inside out:
//!
//! - [`game`]: the engine, pure and deterministic: the content file, map generation, sight,
//!   monsters and their AI, turns, combat, levels, items, doors, status effects, scores, and
//!   saving and replaying a world. No IO, clock or global randomness (CI greps for them).
//! - [`view`]: each player's view of the world after a turn, and the turn's events told in that
//!   player's words (every sentence a client shows).
//! - [`record`]: finished games: their character dumps, and playing one back from its slice of
//!   the journal as its character saw it (no IO: the shell and the store feed it).
//! - [`net`]: the tokio WebSocket shell: the accept loop, one task per connection and one per
//!   loaded dungeon, the limits, passwords, and the journaled world every input goes through.
//! - [`store`]: the SQLite database in the data directory (dungeons, journals, snapshots, token
//!   hashes, the high-score table) and the one thread that writes it.
//! - [`logs`]: the binary's log, which never shows what a client sent (passwords, tokens).
//! - [`sim`]: the balance simulation: whole games played by a careful bot straight through the
//!   engine (`delve-server simulate`, docs/BALANCE.md).

pub mod game;
pub mod logs;
pub mod net;
pub mod record;
pub mod sim;
pub mod store;
pub mod view;
