//! A dungeon's world and its journal: every input the engine takes goes through here, and is in
//! the database before the method returns — so before the dungeon task sends anyone the
//! outcome. That is the write-ahead rule: no client ever sees a turn a crash could lose.
//!
//! Reads go straight to the [`Dungeon`] (`World` derefs to it); every input goes through
//! [`World::step`], which records exactly the [`Input`] that replays it. Every `snapshot_every` entries the
//! whole world is saved too, and the journal before it compacted, so loading never replays much.

use std::ops::Deref;

use tracing::error;

use crate::game::Dungeon;
use crate::game::input::{Input, Outcome, Refusal};
use crate::game::save::hash_of_save;
use crate::store::{Ack, DungeonId, Store};

/// Where and how a world is journaled.
#[derive(Debug)]
pub struct Journal {
    pub store: Store,
    pub dungeon: DungeonId,
    /// The last entry's sequence number (0 before the first).
    pub seq: u64,
    /// Entries between snapshots; 0 takes none but the ones asked for.
    pub snapshot_every: u64,
    /// Keep the journal entries a snapshot covers (for replays from the seed).
    pub keep: bool,
    since_snapshot: u64,
}

impl Journal {
    pub fn new(
        store: Store,
        dungeon: DungeonId,
        seq: u64,
        snapshot_every: u64,
        keep: bool,
    ) -> Journal {
        Journal {
            store,
            dungeon,
            seq,
            snapshot_every,
            keep,
            since_snapshot: 0,
        }
    }
}

#[derive(Debug)]
pub struct World {
    dungeon: Dungeon,
    journal: Option<Journal>,
}

impl Deref for World {
    type Target = Dungeon;
    fn deref(&self) -> &Dungeon {
        &self.dungeon
    }
}

impl World {
    /// A world journaled to `journal`, or kept in memory only.
    pub fn new(dungeon: Dungeon, journal: Option<Journal>) -> World {
        World { dungeon, journal }
    }

    pub fn journal(&self) -> Option<&Journal> {
        self.journal.as_ref()
    }

    /// Queues `input` for the journal: the write's acknowledgement, to be awaited before
    /// anyone is told the outcome. `None` when nothing is journaled.
    fn record(&mut self, input: Input) -> Option<Ack> {
        let j = self.journal.as_mut()?;
        j.seq += 1;
        let entry = postcard::to_stdvec(&input).unwrap_or_default();
        let ack = j.store.append_journal(j.dungeon, j.seq, entry);
        j.since_snapshot += 1;
        if j.snapshot_every > 0 && j.since_snapshot >= j.snapshot_every {
            // Not waited for: it is ordered after the entries it covers, and until it lands the
            // journal still holds them.
            drop(self.snapshot());
        }
        Some(ack)
    }

    /// Logs a journal write that failed. The game goes on: players keep playing what the
    /// server can no longer keep (issue 13 pauses the dungeon instead).
    fn failed(&self, e: &crate::store::StoreError) {
        if let Some(j) = &self.journal {
            error!(dungeon = j.dungeon, seq = j.seq, error = %e, "journal write failed");
        }
    }

    /// Saves the whole world now (compacting the journal before it): the write's ack, and the
    /// state hash saved with it. `None` when nothing is journaled.
    pub fn snapshot(&mut self) -> Option<(Ack, String)> {
        let j = self.journal.as_mut()?;
        j.since_snapshot = 0;
        let save = self.dungeon.save();
        let hash = hash_of_save(&save);
        let ack = j
            .store
            .save_snapshot(j.dungeon, j.seq, save, hash.clone(), !j.keep);
        Some((ack, hash))
    }

    /// Tells the world `input` (the one way in) and, if it changed the world, has it
    /// committed to the journal before returning. The commit is awaited, so the async thread
    /// serves other tasks meanwhile.
    pub async fn step(&mut self, input: Input) -> Result<Outcome, Refusal> {
        let (outcome, ack) = self.take(input)?;
        if let Some(ack) = ack
            && let Err(e) = ack.await
        {
            self.failed(&e);
        }
        Ok(outcome)
    }

    /// [`World::step`] for code outside an async runtime (benchmarks, tools): it blocks its
    /// thread until the commit.
    pub fn step_blocking(&mut self, input: Input) -> Result<Outcome, Refusal> {
        let (outcome, ack) = self.take(input)?;
        if let Some(ack) = ack
            && let Err(e) = ack.wait()
        {
            self.failed(&e);
        }
        Ok(outcome)
    }

    /// Gives the world `input` and queues its journal entry: the outcome, and the entry's
    /// acknowledgement when one was written.
    fn take(&mut self, input: Input) -> Result<(Outcome, Option<Ack>), Refusal> {
        let outcome = self.dungeon.step(&input)?;
        let ack = if input.journaled() {
            self.record(input)
        } else {
            None
        };
        Ok((outcome, ack))
    }

    /// Resolves floor `depth`'s turn with the choices made for it.
    pub async fn resolve_turn(&mut self, depth: u8) -> Outcome {
        let actions = self.dungeon.choices(depth);
        self.step(Input::Turn { depth, actions })
            .await
            .unwrap_or_default()
    }
}
