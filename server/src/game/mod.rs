//! The engine: pure and deterministic. Given a seed and the same inputs it always yields the same
//! world. No IO, no clock, no global random generator live here (CI greps for them).

pub mod action;
pub mod dungeon;
pub mod event;
pub mod floor;
pub mod fov;
pub mod mapgen;
pub mod player;
pub mod rng;

pub use action::{Action, ActionError};
pub use dungeon::{Dungeon, FLOORS, JoinError, TurnReport};
pub use event::Event;
pub use floor::Floor;
pub use player::Player;

/// Identifies a character (and later any entity) within one dungeon.
pub type EntityId = u32;
