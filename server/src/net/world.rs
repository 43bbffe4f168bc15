//! A dungeon's world and its journal: every input the engine takes goes through here, and is in
//! the database before the method returns — so before the dungeon task sends anyone the
//! outcome. That is the write-ahead rule: no client ever sees a turn a crash could lose.
//!
//! A write that fails (a full disk, a database locked by another program) is written again,
//! and again, until it is stored: the dungeon waits meanwhile, its players told why
//! ([`Stalls`]). A write that is only slow is waited for the same way, and told once it has
//! taken long enough for a player to wonder. The dungeon goes on by itself once storage works.
//!
//! Reads go straight to the [`Dungeon`] (`World` derefs to it); every input goes through
//! [`World::step`], which records exactly the [`Input`] that replays it. Every `snapshot_every` entries the
//! whole world is saved too, and the journal before it compacted, so loading never replays much.

use std::ops::Deref;
use std::time::Duration;

use prometheus_client::metrics::histogram::Histogram;
use tracing::{error, info, warn};

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
    /// The newest entry until its write is acknowledged, to write it again if it fails.
    unstored: Option<(u64, Vec<u8>)>,
    /// Where the time from queueing an entry to its commit is counted (`GET /metrics`).
    latency: Option<Histogram>,
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
            unstored: None,
            latency: None,
        }
    }

    /// Counts the time each entry takes to be stored in `latency`.
    pub fn timed(mut self, latency: Histogram) -> Journal {
        self.latency = Some(latency);
        self
    }
}

/// Told when a dungeon starts waiting for storage and when it goes on (the dungeon task tells
/// its players).
pub trait Stalls {
    /// The newest input is not stored yet, for `why`; nothing more happens until it is.
    fn paused(&mut self, why: &str);
    /// It is stored; play goes on.
    fn resumed(&mut self);
}

/// Nobody to tell (tools, benchmarks, tests of the engine's shell).
impl Stalls for () {
    fn paused(&mut self, _: &str) {}
    fn resumed(&mut self) {}
}

/// How long a write may take before players are told the dungeon is waiting for it.
const SLOW_WRITE: Duration = Duration::from_secs(2);
/// The wait before writing a failed entry again, doubling up to [`RETRY_MAX`].
const RETRY_FIRST: Duration = Duration::from_millis(250);
const RETRY_MAX: Duration = Duration::from_secs(5);
/// What players are told while their dungeon waits.
pub const STALLED: &str = "The server cannot save the game right now, so it is paused. It goes on by itself as soon as it can save again.";

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
        j.unstored = Some((j.seq, entry.clone()));
        let ack = j.store.append_journal(j.dungeon, j.seq, entry);
        j.since_snapshot += 1;
        if j.snapshot_every > 0 && j.since_snapshot >= j.snapshot_every {
            // Not waited for: it is ordered after the entries it covers, and until it lands the
            // journal still holds them.
            drop(self.snapshot());
        }
        Some(ack)
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

    /// Tells the world `input` (the one way in) and, if it changed the world, has it stored
    /// in the journal before returning: written again for as long as writing fails, with
    /// `stalls` told while the dungeon waits. The commit is awaited, so the async thread serves
    /// other tasks meanwhile.
    pub async fn step(
        &mut self,
        input: Input,
        stalls: &mut impl Stalls,
    ) -> Result<Outcome, Refusal> {
        let (outcome, ack) = self.take(input)?;
        if let Some(ack) = ack {
            self.store(ack, stalls).await;
        }
        Ok(outcome)
    }

    /// Waits until the newest entry is stored, writing it again after each failure.
    async fn store(&mut self, mut ack: Ack, stalls: &mut impl Stalls) {
        let queued = tokio::time::Instant::now();
        let mut paused = false;
        let mut retry = RETRY_FIRST;
        let mut failures = 0u32;
        loop {
            let result = if paused {
                (&mut ack).await
            } else {
                tokio::select! {
                    result = &mut ack => result,
                    () = tokio::time::sleep(SLOW_WRITE) => {
                        self.log_stall("the database is slow to answer");
                        stalls.paused(STALLED);
                        paused = true;
                        (&mut ack).await
                    }
                }
            };
            match result {
                Ok(()) => break,
                Err(e) => {
                    failures += 1;
                    // The first failure and then every tenth, so a long outage does not flood
                    // the log.
                    if failures == 1 || failures.is_multiple_of(10) {
                        self.log_stall(&format!("{e} (try {failures})"));
                    }
                    if !paused {
                        stalls.paused(STALLED);
                        paused = true;
                    }
                    tokio::time::sleep(retry).await;
                    retry = (retry * 2).min(RETRY_MAX);
                    match self.write_again() {
                        Some(again) => ack = again,
                        None => break,
                    }
                }
            }
        }
        if let Some(j) = self.journal.as_mut() {
            j.unstored = None;
            if let Some(latency) = &j.latency {
                latency.observe(queued.elapsed().as_secs_f64());
            }
            if paused {
                info!(
                    dungeon = j.dungeon,
                    seq = j.seq,
                    failures,
                    "journal stored again; the dungeon goes on"
                );
            }
        }
        if paused {
            stalls.resumed();
        }
    }

    fn log_stall(&self, why: &str) {
        if let Some(j) = &self.journal {
            error!(dungeon = j.dungeon, seq = j.seq, error = %why, "cannot store the journal; the dungeon waits until it can");
        }
    }

    /// Queues the entry that is not stored yet once more.
    fn write_again(&mut self) -> Option<Ack> {
        let j = self.journal.as_mut()?;
        let (seq, entry) = j.unstored.clone()?;
        Some(j.store.append_journal(j.dungeon, seq, entry))
    }

    /// [`World::step`] for code outside an async runtime (benchmarks, tools): it blocks its
    /// thread until the commit, and only logs a failed write (nobody plays there).
    pub fn step_blocking(&mut self, input: Input) -> Result<Outcome, Refusal> {
        let (outcome, ack) = self.take(input)?;
        if let Some(ack) = ack
            && let Err(e) = ack.wait()
        {
            warn!(error = %e, "journal write failed");
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
    pub async fn resolve_turn(&mut self, depth: u8, stalls: &mut impl Stalls) -> Outcome {
        let actions = self.dungeon.choices(depth);
        self.step(Input::Turn { depth, actions }, stalls)
            .await
            .unwrap_or_default()
    }
}
