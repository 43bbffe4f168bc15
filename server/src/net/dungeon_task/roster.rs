//! Who may take which character back: the resume tokens of a dungeon's characters. A saved
//! dungeon knows only their SHA-256 hashes; the tokens themselves are known for the characters
//! whose token this process issued or was shown (a welcome repeats it).

use std::collections::HashMap;

use crate::game::EntityId;
use crate::net::validate::new_token;
use crate::store::{token_hash, token_matches};

/// What the database kept of a character: its token's hash, where it was made from and when
/// its player was last here.
#[derive(Debug, Clone)]
pub struct Kept {
    pub token_hash: [u8; 32],
    pub origin: Option<std::net::IpAddr>,
    /// Unix seconds.
    pub seen: Option<i64>,
}

impl From<crate::store::CharacterRow> for Kept {
    fn from(row: crate::store::CharacterRow) -> Kept {
        Kept {
            token_hash: row.token_hash,
            origin: row.origin.and_then(|o| o.parse().ok()),
            seen: row.last_seen,
        }
    }
}

#[derive(Debug, Default)]
pub(super) struct Roster {
    hashes: HashMap<EntityId, [u8; 32]>,
    plain: HashMap<EntityId, String>,
}

impl Roster {
    /// The roster of a loaded dungeon, from the hashes the database kept.
    pub fn new(hashes: HashMap<EntityId, [u8; 32]>) -> Roster {
        Roster {
            hashes,
            plain: HashMap::new(),
        }
    }

    /// The character `token` resumes. Every stored hash is compared, in constant time each,
    /// without stopping at a match, so the time taken says nothing about which matched.
    pub fn find(&self, token: &str) -> Option<EntityId> {
        self.hashes.iter().fold(None, |hit, (id, stored)| {
            if token_matches(token, stored) {
                Some(*id)
            } else {
                hit
            }
        })
    }

    /// Notes that `id`'s player showed `token` (it resumed), so a welcome can repeat it.
    pub fn shown(&mut self, id: EntityId, token: String) {
        self.plain.insert(id, token);
    }

    /// Keeps `token` as `id`'s; returns its hash, for the database.
    pub fn keep(&mut self, id: EntityId, token: String) -> [u8; 32] {
        let hash = token_hash(&token);
        self.hashes.insert(id, hash);
        self.plain.insert(id, token);
        hash
    }

    /// The token of `id`, if this process knows it.
    pub fn token(&self, id: EntityId) -> Option<&String> {
        self.plain.get(&id)
    }

    /// Forgets `id`'s token: its character is gone and nobody goes on with it.
    pub fn forget(&mut self, id: EntityId) {
        self.hashes.remove(&id);
        self.plain.remove(&id);
    }

    /// Forgets `old` and returns its token (a new one if it is not known), for the character
    /// its player goes on with: the token belongs to the player, not the character.
    pub fn hand_over(&mut self, old: EntityId) -> String {
        self.hashes.remove(&old);
        self.plain.remove(&old).unwrap_or_else(new_token)
    }
}
