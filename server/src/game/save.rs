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
use super::party::Party;
use super::player::Player;

/// Bumped when the saved shape or meaning changes. Format 1 is still read (see
/// [`from_format_1`]); anything else older or newer is refused with a clear error.
///
/// - 1: a death held its cause as a sentence ("killed by a Rabid Mouse on floor 6").
/// - 2: a death holds the killer's name; the view words it.
/// - 3: the party's shared state ([`Party`]: away players, the fallen who can be brought back,
///   marked spots, monsters grown for a party) follows everything format 2 saved. A format-2
///   save is format 3 without it, and loads with an empty one.
pub const SAVE_FORMAT: u32 = 3;

#[derive(Serialize)]
struct SaveRef<'a> {
    format: u32,
    seed: u64,
    params: &'a GenParams,
    floors: &'a [Option<Floor>],
    players: &'a BTreeMap<EntityId, Player>,
    next_id: EntityId,
    party: &'a Party,
}

/// What every format from 1 on saves first (format 3 adds the party after it).
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
        let super::dungeon::Parts {
            seed,
            params,
            floors,
            players,
            next_id,
            party,
        } = self.parts();
        let save = SaveRef {
            format: SAVE_FORMAT,
            seed,
            params,
            floors,
            players,
            next_id,
            party,
        };
        // Most of a save is a byte per map cell and per sight flag: room for those (and some
        // for the rest) up front, rather than a buffer doubled and copied a dozen times over as
        // it grows (the engine fuzzer saves worlds thousands of times a second).
        let floor_cells: usize = floors.iter().flatten().map(|f| f.map.cells().len()).sum();
        let player_cells: usize = (players.values())
            .map(|p| p.memory.cells() + p.fov.covered() + 256)
            .sum();
        let room = Vec::with_capacity(floor_cells + player_cells + 4096);
        // Serializing plain data into a Vec cannot fail.
        postcard::to_extend(&save, room).unwrap_or_default()
    }

    /// A world from [`Dungeon::save`]'s bytes, playing by `content`.
    pub fn load(bytes: &[u8], content: Arc<Content>) -> Result<Dungeon, LoadError> {
        let damaged = |e: postcard::Error| LoadError::Damaged(e.to_string());
        let (s, rest): (SaveOwned, &[u8]) = postcard::take_from_bytes(bytes).map_err(damaged)?;
        let mut players = s.players;
        let (party, rest) = match s.format {
            SAVE_FORMAT => postcard::take_from_bytes::<Party>(rest).map_err(damaged)?,
            2 => (Party::default(), rest),
            1 => {
                from_format_1(&mut players);
                (Party::default(), rest)
            }
            other => return Err(LoadError::Format(other)),
        };
        if !rest.is_empty() {
            return Err(LoadError::Damaged(format!(
                "{} bytes after the end of the save",
                rest.len()
            )));
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
            s.seed, s.params, content, floors, players, s.next_id, party,
        ))
    }

    /// SHA-256 of the save, in hex: equal hashes, equal worlds.
    pub fn state_hash(&self) -> String {
        hash_of_save(&self.save())
    }
}

/// Format 1 saved the same shape, with a death's sentence where format 2 keeps the killer's
/// name: "killed by a Rabid Mouse on floor 6" becomes "Rabid Mouse".
fn from_format_1(players: &mut BTreeMap<EntityId, Player>) {
    for death in players.values_mut().filter_map(|p| p.death.as_mut()) {
        let cause = death.killer.as_str();
        let who = cause
            .strip_prefix("killed by ")
            .and_then(|c| c.rsplit_once(" on floor "))
            .map_or(cause, |(who, _)| who);
        let name = ["a ", "an ", "the "]
            .iter()
            .find_map(|article| who.strip_prefix(article))
            .unwrap_or(who);
        death.killer = name.to_owned();
    }
}

/// The state hash of a save's bytes (what [`Dungeon::state_hash`] gives for that world).
pub fn hash_of_save(save: &[u8]) -> String {
    hex(&Sha256::digest(save))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::player::Death;

    /// A world whose characters died in format 1's words, saved as format 1 would have.
    fn format_1_save(causes: &[&str]) -> (Vec<u8>, Vec<EntityId>, Arc<Content>) {
        let content = Arc::new(Content::builtin());
        let mut d = Dungeon::new(7, Arc::clone(&content));
        let mut ids = Vec::new();
        for k in 0..causes.len() {
            ids.push(d.join(&format!("p{k}")).unwrap().0);
        }
        let crate::game::dungeon::Parts {
            seed,
            params,
            floors,
            players,
            next_id,
            ..
        } = d.parts();
        let mut players = players.clone();
        for (id, cause) in ids.iter().zip(causes) {
            let p = players.get_mut(id).unwrap();
            p.alive = false;
            p.death = Some(Death {
                killer: (*cause).to_owned(),
                depth: 3,
            });
        }
        let (params, floors) = (params.clone(), floors.to_vec());
        let party = Party::default();
        let d = Dungeon::from_parts(
            seed,
            params,
            Arc::clone(&content),
            floors,
            players,
            next_id,
            party,
        );
        let mut bytes = d.save();
        // The format is the first field, a one-byte varint; formats 1 and 2 end before the
        // party (an empty one is five empty maps and sets: a zero byte each).
        assert_eq!(bytes[0], SAVE_FORMAT as u8);
        assert_eq!(bytes[bytes.len() - 5..], [0; 5]);
        bytes.truncate(bytes.len() - 5);
        bytes[0] = 1;
        (bytes, ids, content)
    }

    #[test]
    fn a_format_1_save_loads_with_its_deaths_told_as_before() {
        let causes = [
            "killed by a Rabid Mouse on floor 3",
            "killed by an Owl on floor 3",
            "killed by the Mouse King on floor 3",
        ];
        let (bytes, ids, content) = format_1_save(&causes);
        let d = Dungeon::load(&bytes, Arc::clone(&content)).unwrap();
        let killers: Vec<&str> = ids
            .iter()
            .map(|id| d.player(*id).unwrap().death().unwrap().killer.as_str())
            .collect();
        assert_eq!(killers, ["Rabid Mouse", "Owl", "Mouse King"]);
        for (id, cause) in ids.iter().zip(causes) {
            let death = d.player(*id).unwrap().death().unwrap();
            assert_eq!(crate::view::cause_of_death(&content, death), cause);
        }
    }

    #[test]
    fn a_format_2_save_loads_with_an_empty_party_and_format_3_keeps_it() {
        let (mut bytes, ids, content) = format_1_save(&["Rabid Mouse"]);
        bytes[0] = 2;
        let loaded = Dungeon::load(&bytes, Arc::clone(&content)).unwrap();
        assert_eq!(loaded.party(), &Party::default());
        assert_eq!(
            loaded.player(ids[0]).unwrap().death().unwrap().killer,
            "Rabid Mouse"
        );
        let crate::game::dungeon::Parts {
            seed,
            params,
            floors,
            players,
            next_id,
            party,
        } = loaded.parts();
        let mut party = party.clone();
        party.away.insert(ids[0]);
        party.fallen.insert(ids[0], 77);
        let d = Dungeon::from_parts(
            seed,
            params.clone(),
            Arc::clone(&content),
            floors.to_vec(),
            players.clone(),
            next_id,
            party,
        );
        let again = Dungeon::load(&d.save(), content).unwrap();
        assert_eq!(again.party(), d.party());
        assert_eq!(again.state_hash(), d.state_hash());
        // Anything after the party is damage, not a longer save.
        let mut longer = d.save();
        longer.push(0);
        assert!(Dungeon::load(&longer, Arc::new(Content::builtin())).is_err());
    }

    #[test]
    fn an_unknown_format_is_refused() {
        let (mut bytes, _, content) = format_1_save(&[]);
        bytes[0] = 9;
        assert!(matches!(
            Dungeon::load(&bytes, content),
            Err(LoadError::Format(9))
        ));
    }
}
