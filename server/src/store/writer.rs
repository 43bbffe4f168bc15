//! The writer thread: the only code that writes to the database.
//!
//! It owns the write connection and takes [`Command`]s from a channel. Each round it takes every
//! command waiting (up to [`MAX_BATCH`]) and applies them in one transaction — group commit — so
//! a burst of journal entries from many dungeons costs one commit (and, with `synchronous=FULL`,
//! one fsync) instead of one each. Only after the COMMIT succeeds is each command acknowledged.
//!
//! One failing command must not sink the others of its batch: the batch is first tried as a
//! whole; if a command fails, the transaction is rolled back and the batch is run again with a
//! savepoint around each command, so the failing ones are undone alone and reported to their own
//! callers while the rest still commit together.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};

use rusqlite::{Connection, Statement, params};
use tokio::sync::oneshot;

use super::error::StoreError;
use super::games::{self, AddedGame, COMPACT_JOURNAL, COMPACT_SNAPSHOTS, GameId, NewGame};
use super::rows::{DungeonId, DungeonRow};

/// The most commands committed in one transaction; bounds a transaction's size and the wait of
/// the first command in it.
pub const MAX_BATCH: usize = 4096;

/// A write for the writer thread, and where to send its outcome.
pub struct Command {
    pub op: Op,
    pub reply: Reply,
}

/// What a command does. Sequence numbers and scores are already checked to fit an `i64`.
pub enum Op {
    AppendJournal {
        dungeon: DungeonId,
        seq: i64,
        entry: Vec<u8>,
    },
    SaveSnapshot {
        dungeon: DungeonId,
        seq: i64,
        data: Vec<u8>,
        state_hash: String,
        taken_at: i64,
        /// Delete the journal entries the snapshot covers and the older snapshots, except what
        /// living characters' games still need (see `games`).
        compact: bool,
    },
    PutCharacter {
        dungeon: DungeonId,
        player_id: u32,
        name: String,
        token_hash: [u8; 32],
        origin: Option<String>,
        seen: i64,
        /// The journal entry that made the character: its journal is kept from there on.
        start_seq: Option<i64>,
        /// When it was made (with `start_seq`).
        started_at: Option<i64>,
    },
    TouchCharacter {
        dungeon: DungeonId,
        player_id: u32,
        seen: i64,
    },
    DeleteCharacter {
        dungeon: DungeonId,
        player_id: u32,
    },
    SetDeepest {
        dungeon: DungeonId,
        deepest: u32,
    },
    AddScore {
        name: String,
        score: i64,
        level: u32,
        deepest: u32,
        kills: u32,
        turns: i64,
        outcome: String,
        dungeon: String,
        ended_at: i64,
    },
    /// A finished game, its replay cut from the journal (see `games`).
    AddGame {
        game: Box<NewGame>,
        kept_at: i64,
    },
    SetDump {
        id: GameId,
        dump: String,
    },
    ExpireReplays {
        cutoff: i64,
        budget: i64,
    },
    /// `row.id` is ignored: the database assigns it.
    CreateDungeon {
        row: DungeonRow,
    },
    /// Writes nothing: answered once everything sent before it is committed.
    Flush,
}

/// Where a command's outcome goes.
pub enum Reply {
    Unit(oneshot::Sender<Result<(), StoreError>>),
    Dungeon(oneshot::Sender<Result<DungeonRow, StoreError>>),
    Game(oneshot::Sender<Result<AddedGame, StoreError>>),
    Count(oneshot::Sender<Result<u64, StoreError>>),
}

/// Counts of the writer's work, shared with the [`Store`](super::Store) handles.
#[derive(Debug, Default)]
pub struct Counters {
    pub transactions: AtomicU64,
    pub commands: AtomicU64,
}

/// What applying one op made, for its reply.
#[derive(Clone)]
enum Made {
    Nothing,
    Dungeon(DungeonRow),
    Game(AddedGame),
    Count(u64),
}

type Outcome = Result<Made, StoreError>;

/// The writer thread's body. Reports on `ready` whether it could start, then serves commands
/// until every sender is gone and the channel is drained.
pub fn run(
    conn: Connection,
    path: Arc<Path>,
    rx: Receiver<Command>,
    counters: Arc<Counters>,
    ready: SyncSender<Result<(), StoreError>>,
) {
    let mut writer = match Writer::new(&conn, &path, &counters) {
        Ok(writer) => {
            // If open() is no longer listening, there is nobody to serve; the loop below ends
            // as soon as the channel is found closed.
            let _ = ready.send(Ok(()));
            writer
        }
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(command) => batch.push(command),
                Err(_) => break,
            }
        }
        writer.commit(batch);
    }
    drop(writer);
    // Closing the last connection checkpoints the WAL into the main file.
    if let Err((_, e)) = conn.close() {
        tracing::warn!(path = %path.display(), error = %e, "closing the database failed");
    }
}

struct Writer<'c> {
    conn: &'c Connection,
    path: &'c Path,
    counters: &'c Counters,
    insert_journal: Statement<'c>,
    insert_snapshot: Statement<'c>,
    compact_journal: Statement<'c>,
    compact_snapshots: Statement<'c>,
    mark_saved: Statement<'c>,
    put_character: Statement<'c>,
    touch_character: Statement<'c>,
    delete_character: Statement<'c>,
    set_deepest: Statement<'c>,
    insert_score: Statement<'c>,
    insert_dungeon: Statement<'c>,
}

impl<'c> Writer<'c> {
    fn new(
        conn: &'c Connection,
        path: &'c Path,
        counters: &'c Counters,
    ) -> Result<Self, StoreError> {
        let prepare = |sql: &str| {
            conn.prepare(sql)
                .map_err(|e| StoreError::sqlite(path, "prepare the writer's statements", e))
        };
        Ok(Writer {
            conn,
            path,
            counters,
            insert_journal: prepare(
                "INSERT INTO journal (dungeon_id, seq, entry) VALUES (?1, ?2, ?3)",
            )?,
            insert_snapshot: prepare(
                "INSERT OR REPLACE INTO snapshots (dungeon_id, seq, data, state_hash, taken_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?,
            compact_journal: prepare(COMPACT_JOURNAL)?,
            compact_snapshots: prepare(COMPACT_SNAPSHOTS)?,
            mark_saved: prepare(
                "UPDATE dungeons SET saved_seq = MAX(saved_seq, ?2) WHERE id = ?1",
            )?,
            put_character: prepare(
                "INSERT INTO characters
                    (dungeon_id, player_id, name, token_hash, origin, last_seen, start_seq,
                     started_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT (dungeon_id, player_id)
                 DO UPDATE SET name = excluded.name, token_hash = excluded.token_hash,
                    origin = excluded.origin, last_seen = excluded.last_seen,
                    start_seq = COALESCE(excluded.start_seq, start_seq),
                    started_at = COALESCE(excluded.started_at, started_at)",
            )?,
            touch_character: prepare(
                "UPDATE characters SET last_seen = ?3 WHERE dungeon_id = ?1 AND player_id = ?2",
            )?,
            delete_character: prepare(
                "DELETE FROM characters WHERE dungeon_id = ?1 AND player_id = ?2",
            )?,
            set_deepest: prepare("UPDATE dungeons SET deepest = max(deepest, ?2) WHERE id = ?1")?,
            insert_score: prepare(
                "INSERT INTO games
                 (name, name_key, score, level, deepest, kills, turns, outcome, victory, dungeon,
                  dungeon_id, ended_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8 = 'won', ?9,
                    (SELECT id FROM dungeons WHERE key = lower(?9)), ?10)",
            )?,
            insert_dungeon: prepare(
                "INSERT INTO dungeons
                 (key, name, seed, password_hash, settings, content_hash, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?,
        })
    }

    /// Commits a batch in one transaction (see the module docs) and answers every command.
    fn commit(&mut self, batch: Vec<Command>) {
        let n = batch.len();
        let outcomes: Vec<Outcome> = if batch.iter().all(|c| matches!(c.op, Op::Flush)) {
            vec![Ok(Made::Nothing); n]
        } else {
            let tried = match self.transaction(&batch, false) {
                Ok(None) => self.transaction(&batch, true),
                other => other,
            };
            match tried {
                Ok(Some(outcomes)) => outcomes,
                // The isolated run never gives up on a single command.
                Ok(None) => vec![
                    Err(StoreError::Closed {
                        path: self.path.to_path_buf()
                    });
                    n
                ],
                Err(e) => {
                    tracing::error!(error = %e, commands = n, "a storage transaction failed");
                    vec![Err(e); n]
                }
            }
        };
        let committed = outcomes.iter().filter(|o| o.is_ok()).count() as u64;
        self.counters
            .commands
            .fetch_add(committed, Ordering::Relaxed);
        for (command, outcome) in batch.into_iter().zip(outcomes) {
            // A caller that dropped its Ack does not want the answer; that is fine.
            match command.reply {
                Reply::Unit(tx) => {
                    let _ = tx.send(outcome.map(|_| ()));
                }
                Reply::Dungeon(tx) => {
                    let _ = tx.send(outcome.and_then(|made| match made {
                        Made::Dungeon(row) => Ok(row),
                        _ => Err(self.closed()),
                    }));
                }
                Reply::Game(tx) => {
                    let _ = tx.send(outcome.and_then(|made| match made {
                        Made::Game(game) => Ok(game),
                        _ => Err(self.closed()),
                    }));
                }
                Reply::Count(tx) => {
                    let _ = tx.send(outcome.and_then(|made| match made {
                        Made::Count(n) => Ok(n),
                        _ => Err(self.closed()),
                    }));
                }
            }
        }
    }

    /// Runs `batch` in one transaction. Without `isolate`, the first failing command rolls the
    /// whole transaction back and `Ok(None)` asks for an isolated run — except for a batch of one,
    /// whose error is simply its outcome. With `isolate`, each command runs in a savepoint and a
    /// failure undoes only that command. `Err` means the transaction itself failed.
    fn transaction(
        &mut self,
        batch: &[Command],
        isolate: bool,
    ) -> Result<Option<Vec<Outcome>>, StoreError> {
        self.exec("BEGIN IMMEDIATE", "begin a transaction")?;
        let mut outcomes = Vec::with_capacity(batch.len());
        for command in batch {
            if isolate {
                self.exec_or_rollback("SAVEPOINT command", "open a savepoint")?;
            }
            match self.apply(&command.op) {
                Ok(outcome) => {
                    if isolate {
                        self.exec_or_rollback("RELEASE command", "release a savepoint")?;
                    }
                    outcomes.push(Ok(outcome));
                }
                Err(e) if isolate => {
                    self.exec_or_rollback(
                        "ROLLBACK TO command; RELEASE command",
                        "roll back a savepoint",
                    )?;
                    outcomes.push(Err(e));
                }
                Err(e) => {
                    self.rollback();
                    return Ok((batch.len() == 1).then(|| vec![Err(e)]));
                }
            }
        }
        self.exec_or_rollback("COMMIT", "commit a transaction")?;
        self.counters.transactions.fetch_add(1, Ordering::Relaxed);
        Ok(Some(outcomes))
    }

    fn closed(&self) -> StoreError {
        StoreError::Closed {
            path: self.path.to_path_buf(),
        }
    }

    fn exec(&self, sql: &str, action: &str) -> Result<(), StoreError> {
        self.conn
            .execute_batch(sql)
            .map_err(|e| StoreError::sqlite(self.path, action, e))
    }

    fn exec_or_rollback(&self, sql: &str, action: &str) -> Result<(), StoreError> {
        self.exec(sql, action).inspect_err(|_| self.rollback())
    }

    fn rollback(&self) {
        // Fails harmlessly when SQLite already ended the transaction itself.
        if !self.conn.is_autocommit()
            && let Err(e) = self.conn.execute_batch("ROLLBACK")
        {
            tracing::warn!(error = %e, "rolling back a storage transaction failed");
        }
    }

    fn apply(&mut self, op: &Op) -> Outcome {
        let path = self.path;
        match op {
            Op::AppendJournal {
                dungeon,
                seq,
                entry,
            } => {
                self.insert_journal
                    .execute(params![dungeon, seq, entry])
                    .map_err(|e| {
                        StoreError::sqlite(
                            path,
                            format!("append journal entry {seq} of dungeon {dungeon}"),
                            e,
                        )
                    })?;
            }
            Op::SaveSnapshot {
                dungeon,
                seq,
                data,
                state_hash,
                taken_at,
                compact,
            } => {
                let action = || format!("save the snapshot at {seq} of dungeon {dungeon}");
                self.insert_snapshot
                    .execute(params![dungeon, seq, data, state_hash, taken_at])
                    .and_then(|_| {
                        if *compact {
                            self.compact_journal.execute(params![dungeon, seq])?;
                            self.compact_snapshots.execute(params![dungeon, seq])
                        } else {
                            Ok(0)
                        }
                    })
                    .and_then(|_| self.mark_saved.execute(params![dungeon, seq]))
                    .map_err(|e| StoreError::sqlite(path, action(), e))?;
            }
            Op::PutCharacter {
                dungeon,
                player_id,
                name,
                token_hash,
                origin,
                seen,
                start_seq,
                started_at,
            } => {
                self.put_character
                    .execute(params![
                        dungeon, player_id, name, token_hash, origin, seen, start_seq, started_at
                    ])
                    .map_err(|e| {
                        StoreError::sqlite(
                            path,
                            format!("save character {player_id} of dungeon {dungeon}"),
                            e,
                        )
                    })?;
            }
            Op::TouchCharacter {
                dungeon,
                player_id,
                seen,
            } => {
                self.touch_character
                    .execute(params![dungeon, player_id, seen])
                    .map_err(|e| {
                        StoreError::sqlite(
                            path,
                            format!(
                                "note when character {player_id} of dungeon {dungeon} was seen"
                            ),
                            e,
                        )
                    })?;
            }
            Op::DeleteCharacter { dungeon, player_id } => {
                self.delete_character
                    .execute(params![dungeon, player_id])
                    .map_err(|e| {
                        StoreError::sqlite(
                            path,
                            format!("delete character {player_id} of dungeon {dungeon}"),
                            e,
                        )
                    })?;
            }
            Op::SetDeepest { dungeon, deepest } => {
                self.set_deepest
                    .execute(params![dungeon, deepest])
                    .map_err(|e| {
                        StoreError::sqlite(
                            path,
                            format!("record the deepest floor of dungeon {dungeon}"),
                            e,
                        )
                    })?;
            }
            Op::AddScore {
                name,
                score,
                level,
                deepest,
                kills,
                turns,
                outcome,
                dungeon,
                ended_at,
            } => {
                self.insert_score
                    .execute(params![
                        name,
                        name.to_lowercase(),
                        score,
                        level,
                        deepest,
                        kills,
                        turns,
                        outcome,
                        dungeon,
                        ended_at
                    ])
                    .map_err(|e| {
                        StoreError::sqlite(path, format!("add the high score of {name:?}"), e)
                    })?;
            }
            Op::CreateDungeon { row } => {
                self.insert_dungeon
                    .execute(params![
                        row.key,
                        row.name,
                        row.seed as i64, // the same 64 bits; read back with `as u64`
                        row.password_hash,
                        row.settings,
                        row.content_hash,
                        row.created_at
                    ])
                    .map_err(|e| {
                        let unique = e.sqlite_error().map(|f| f.extended_code)
                            == Some(rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE);
                        if unique {
                            StoreError::DungeonExists {
                                path: path.to_path_buf(),
                                name: row.name.clone(),
                            }
                        } else {
                            StoreError::sqlite(path, format!("create dungeon {:?}", row.name), e)
                        }
                    })?;
                let id = self.conn.last_insert_rowid();
                return Ok(Made::Dungeon(DungeonRow { id, ..row.clone() }));
            }
            Op::AddGame { game, kept_at } => {
                let added = games::add_game(self.conn, game, *kept_at).map_err(|e| {
                    StoreError::sqlite(path, format!("record the game of {:?}", game.score.name), e)
                })?;
                return Ok(Made::Game(added));
            }
            Op::SetDump { id, dump } => {
                self.conn
                    .prepare("UPDATE games SET dump = ?2 WHERE id = ?1")
                    .and_then(|mut s| s.execute(params![id, dump]))
                    .map_err(|e| {
                        StoreError::sqlite(path, format!("store the dump of game {id}"), e)
                    })?;
            }
            Op::ExpireReplays { cutoff, budget } => {
                let gone = games::expire_replays(self.conn, *cutoff, *budget)
                    .map_err(|e| StoreError::sqlite(path, "delete old replays", e))?;
                return Ok(Made::Count(gone as u64));
            }
            Op::Flush => {}
        }
        Ok(Made::Nothing)
    }
}
