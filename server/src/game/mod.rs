//! The engine: pure and deterministic. Given a seed and the same inputs it always yields the same
//! world. No IO, no clock, no global random generator live here (CI greps for them).

pub mod action;
pub mod ai;
pub mod content;
pub mod dungeon;
pub mod event;
pub mod floor;
pub mod fov;
pub mod furnish;
pub mod input;
pub mod item;
pub mod mapgen;
pub mod monster;
pub mod party;
pub mod path;
pub mod patrol;
pub mod player;
pub mod rng;
pub mod save;
pub mod score;
pub mod script;
pub mod sight;
pub mod stats;

pub use action::{Action, ActionError};
pub use content::Content;
pub use dungeon::{Dungeon, JoinError};
pub use event::Event;
pub use floor::Floor;
pub use input::{Input, Outcome, Refusal};
pub use player::Player;

/// Identifies a character or monster within one dungeon.
pub type EntityId = u32;
