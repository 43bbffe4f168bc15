//! The plain rows the store hands out and takes in.

/// A dungeon's id in the database (its `INTEGER PRIMARY KEY`).
pub type DungeonId = i64;

/// One row of `dungeons`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DungeonRow {
    pub id: DungeonId,
    /// The name lowercased: two dungeons cannot have names that differ only in case.
    pub key: String,
    /// The name as it was first written.
    pub name: String,
    pub seed: u64,
    pub password_hash: Option<String>,
    /// JSON, exactly as the caller gave it.
    pub settings: String,
    /// Identifies the content file the dungeon was created with.
    pub content_hash: String,
    /// Unix seconds.
    pub created_at: i64,
    /// The deepest floor any of its characters reached.
    pub deepest: u32,
}

/// What [`Store::load`](super::Store::load) found of a dungeon: the newest snapshot, and every
/// journal entry after it in order. Replaying `journal` onto `snapshot` (or onto a new world of
/// the dungeon's seed when there is none) restores the dungeon.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Saved {
    /// `(seq, data, state_hash)`: the snapshot includes every journal entry up to `seq`.
    pub snapshot: Option<(u64, Vec<u8>, String)>,
    /// `(seq, entry)` for every entry with a `seq` above the snapshot's, in ascending order.
    pub journal: Vec<(u64, Vec<u8>)>,
    /// The seq of the newest snapshot ever saved for the dungeon (0: none yet), as recorded
    /// beside the dungeon: `snapshot` must be that one.
    pub saved_seq: u64,
}

impl Saved {
    /// Whether what was read can be trusted to rebuild the world: the snapshot is the newest
    /// one saved, and the journal goes on from it with no entry missing. The reason if not.
    /// (The snapshot's own hash is the engine's to check.)
    pub fn check(&self) -> Result<(), String> {
        let from = match &self.snapshot {
            Some((seq, _, _)) if *seq != self.saved_seq => {
                return Err(format!(
                    "its newest snapshot is at entry {seq}, but one at entry {} was saved",
                    self.saved_seq
                ));
            }
            Some((seq, _, _)) => *seq,
            None if self.saved_seq > 0 => {
                return Err(format!(
                    "its snapshot at entry {} is missing",
                    self.saved_seq
                ));
            }
            None => 0,
        };
        for (want, (seq, _)) in (from + 1..).zip(&self.journal) {
            if *seq != want {
                return Err(format!(
                    "its journal jumps from entry {} to entry {seq}",
                    want - 1
                ));
            }
        }
        Ok(())
    }
}

/// One row of `characters`: a player of a dungeon and the hash of its resume token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CharacterRow {
    pub player_id: u32,
    pub name: String,
    /// SHA-256 of the resume token ([`token_hash`](super::token_hash)); the token itself is never
    /// stored.
    pub token_hash: [u8; 32],
    /// The address the character was made from (an IPv6 /64 written as its network), if known
    /// (characters stored before schema version 4 have none).
    pub origin: Option<String>,
    /// Unix seconds when its player was last there (joined or left), if known.
    pub last_seen: Option<i64>,
}

/// One entry of the high-score table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoreRow {
    pub name: String,
    pub score: u64,
    pub level: u32,
    pub deepest: u32,
    pub kills: u32,
    pub turns: u64,
    /// "killed by a Rabid Mouse on floor 6", or "won".
    pub outcome: String,
    /// The dungeon's name.
    pub dungeon: String,
    /// Unix seconds.
    pub ended_at: i64,
}
