//! Saving and restoring a whole world, and its state hash.
//!
//! A save is the dungeon's state in postcard (compact, and deterministic: maps are ordered), with
//! the content left out (the server supplies it) and what can be derived from the maps left out
//! too. The state hash is the SHA-256 of the save, so two worlds with the same hash are the
//! same world: the crash-recovery test and `delve-server replay` compare them.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::EntityId;
use super::content::Content;
use super::dungeon::Dungeon;
use super::floor::Floor;
use super::mapgen::GenParams;
use super::player::Player;

/// Bumped when the saved shape changes; an older save is refused with a clear error.
pub const SAVE_FORMAT: u32 = 1;

#[derive(Serialize)]
struct SaveRef<'a> {
    format: u32,
    seed: u64,
    params: &'a GenParams,
    floors: &'a [Option<Floor>],
    players: &'a BTreeMap<EntityId, Player>,
    next_id: EntityId,
}

#[derive(Deserialize)]
struct SaveOwned {
    format: u32,
    seed: u64,
    params: GenParams,
    floors: Vec<Option<Floor>>,
    players: BTreeMap<EntityId, Player>,
    next_id: EntityId,
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("the saved world is damaged: {0}")]
    Damaged(String),
    #[error("the saved world has format {0}, this server reads format {SAVE_FORMAT}")]
    Format(u32),
    #[error("the saved world has {saved} floors, the content file {wanted}")]
    Floors { saved: usize, wanted: u8 },
}

impl Dungeon {
    /// The world as bytes (see the module docs).
    pub fn save(&self) -> Vec<u8> {
        let (seed, params, floors, players, next_id) = self.parts();
        let save = SaveRef {
            format: SAVE_FORMAT,
            seed,
            params,
            floors,
            players,
            next_id,
        };
        // Serializing plain data into a Vec cannot fail.
        postcard::to_stdvec(&save).unwrap_or_default()
    }

    /// A world from [`Dungeon::save`]'s bytes, playing by `content`.
    pub fn load(bytes: &[u8], content: Arc<Content>) -> Result<Dungeon, LoadError> {
        let s: SaveOwned =
            postcard::from_bytes(bytes).map_err(|e| LoadError::Damaged(e.to_string()))?;
        if s.format != SAVE_FORMAT {
            return Err(LoadError::Format(s.format));
        }
        if s.floors.len() != usize::from(content.dungeon.floors) {
            return Err(LoadError::Floors {
                saved: s.floors.len(),
                wanted: content.dungeon.floors,
            });
        }
        let mut floors = s.floors;
        for f in floors.iter_mut().flatten() {
            f.rebuild_derived();
        }
        Ok(Dungeon::from_parts(
            s.seed, s.params, content, floors, s.players, s.next_id,
        ))
    }

    /// SHA-256 of the save, in hex: equal hashes, equal worlds.
    pub fn state_hash(&self) -> String {
        hash_of_save(&self.save())
    }
}

/// The state hash of a save's bytes (what [`Dungeon::state_hash`] gives for that world).
pub fn hash_of_save(save: &[u8]) -> String {
    hex(&Sha256::digest(save))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
