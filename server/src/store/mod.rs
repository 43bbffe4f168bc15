//! Storage: one SQLite file, `delve.sqlite3`, in the server's data directory.
//!
//! # What is stored
//! - `dungeons`: each dungeon's name, seed, password hash, settings (JSON) and content hash;
//! - `snapshots`: the newest world snapshot of each dungeon, tagged with the journal sequence
//!   number it includes, and its state hash;
//! - `journal`: every resolved turn's actions, one entry per `(dungeon, seq)`, since that snapshot;
//! - `characters`: the players of each dungeon with the SHA-256 of their resume token
//!   ([`token_hash`]; the token itself is never stored);
//! - `games`: every finished game, with its character dump, and `replays`: what each needs to
//!   be played back (see [`games`]); the high-score table is read from `games`.
//!
//! The store knows nothing about the game. Snapshots and journal entries are opaque byte blobs
//! (the engine picks their encoding, postcard for instance) and rows are plain values: the engine
//! can change how it encodes a world without a schema migration, and this module can be tested
//! without a dungeon. Because the engine is deterministic, the newest snapshot plus the journal
//! entries after it ([`Store::load`]) restore a dungeon exactly.
//!
//! # Durability
//! When an [`Ack`] resolves `Ok`, its write is committed. The file is in WAL mode. With the
//! default [`Synchronous::Normal`], a commit has been written to the WAL (handed to the operating
//! system) but not fsynced: a process that is killed, even by SIGKILL, loses nothing
//! acknowledged; only a power loss or an operating-system crash can lose the last transactions
//! (never corrupting the file). [`Synchronous::Full`] fsyncs the WAL at every commit and survives
//! power loss too, at the cost of one fsync per transaction.
//!
//! # Why a writer thread with group commit
//! rusqlite is synchronous, and a commit costs a write system call (and, with `Full`, an fsync).
//! Dungeon tasks run on tokio and must not block on the disk, so every write goes as a command to
//! one dedicated thread that owns the write connection (`writer.rs`); callers get an [`Ack`] they
//! can `.await` (or [`Pending::wait`] on, outside async code). SQLite allows one writer at a time
//! anyway, and the thread takes every command waiting in its channel and commits them in ONE
//! transaction, so under load the cost of a commit is shared by all the turns of all the dungeons
//! that resolved meanwhile. [`Store::stats`] counts transactions against commands. Reads use a
//! second connection: in WAL mode readers run beside the writer and see every committed write.
//!
//! # Refusing bad files
//! [`Store::open`] never overwrites, truncates or deletes existing data. A data directory that
//! cannot be created or written, a file that is not a SQLite database or fails `PRAGMA
//! quick_check`, a database of another program and a schema newer than this server all give a
//! [`StoreError`] whose message names the path and says what to do; the checks only read, and
//! the file is changed (switched to WAL, migrated) only after all of them pass (see [`schema`]).
//! `quick_check` reads the whole file, which takes about a second per gigabyte at start.

mod ack;
mod error;
pub mod games;
mod rows;
pub mod schema;
mod token;
mod writer;

#[cfg(test)]
mod tests;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension, Row, params};
use tokio::sync::oneshot;

pub use ack::{Ack, Pending};
pub use error::StoreError;
pub use games::{AddedGame, GameId, GameQuery, GameRow, NewGame, Order, ReplaySlice};
pub use rows::{CharacterRow, DungeonId, DungeonRow, Saved, ScoreRow};
pub use token::{hashes_equal, token_hash, token_matches};

use writer::{Command, Counters, Op, Reply};

/// The locks that keep a data directory to one server: `delve.lock` (what older servers look
/// for) and the directory itself, which no file removed from it can release.
#[derive(Debug)]
struct DirLock {
    _file: std::fs::File,
    _dir: std::fs::File,
}

/// Takes the data directory's exclusive locks, or says who has them.
fn lock_dir(data_dir: &Path) -> Result<DirLock, StoreError> {
    let file = lock_file(data_dir)?;
    // An OS lock on the directory (flock on Unix): removing `delve.lock` cannot let a second
    // server in, and SQLite never locks the directory, so this cannot disturb its own locks.
    let dir = std::fs::File::open(data_dir).map_err(|e| StoreError::Unwritable {
        path: data_dir.to_path_buf(),
        reason: e.to_string(),
    })?;
    match dir.try_lock() {
        Ok(()) => Ok(DirLock {
            _file: file,
            _dir: dir,
        }),
        Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::InUse {
            path: data_dir.to_path_buf(),
        }),
        Err(std::fs::TryLockError::Error(e)) => Err(StoreError::Unwritable {
            path: data_dir.to_path_buf(),
            reason: e.to_string(),
        }),
    }
}

/// Takes `delve.lock` in the data directory.
fn lock_file(data_dir: &Path) -> Result<std::fs::File, StoreError> {
    let path = data_dir.join("delve.lock");
    let unwritable = |e: std::io::Error| StoreError::Unwritable {
        path: path.clone(),
        reason: e.to_string(),
    };
    let file = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(unwritable)?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::InUse {
            path: data_dir.to_path_buf(),
        }),
        Err(std::fs::TryLockError::Error(e)) => Err(unwritable(e)),
    }
}

/// The database's file name inside the data directory.
pub const DB_FILE: &str = "delve.sqlite3";

/// How hard a commit tries to reach the disk (SQLite's `PRAGMA synchronous`, in WAL mode).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Synchronous {
    /// No fsync at commit. Loses nothing when the process is killed; a power loss or OS crash
    /// may lose the last commits (the file stays consistent).
    #[default]
    Normal,
    /// fsync the WAL at every commit: survives power loss, one fsync per transaction.
    Full,
}

/// Options of [`Store::open`].
#[derive(Debug, Clone)]
pub struct StoreOptions {
    pub synchronous: Synchronous,
    /// Hold the data directory's lock (`delve.lock`) while open, so a second server cannot use
    /// it at the same time. The offline commands (`scores`, `replay`) read without it.
    pub exclusive: bool,
    /// How long a connection waits for a lock held by another connection before failing.
    pub busy_timeout: Duration,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            synchronous: Synchronous::Normal,
            exclusive: true,
            busy_timeout: Duration::from_secs(5),
        }
    }
}

/// Counts of the writer thread's work since the store was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreStats {
    /// Transactions committed.
    pub transactions: u64,
    /// Writes committed (not counting flushes or failed writes).
    pub commands: u64,
    /// Reads done (each query of the read connection).
    pub reads: u64,
}

/// A handle on the open database. Cheap to clone, `Send + Sync`. When the last handle is
/// dropped, the writer thread commits every command sent so far, closes the file and is joined.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

struct Inner {
    /// The database file.
    path: Arc<Path>,
    /// `None` only while dropping, to close the channel before joining the writer.
    tx: Option<mpsc::Sender<Command>>,
    writer: Option<JoinHandle<()>>,
    reader: Mutex<Connection>,
    /// Reads done on `reader`, for tests and tools.
    reads: std::sync::atomic::AtomicU64,
    counters: Arc<Counters>,
    /// Held while open (released when the file is closed, also if the process dies).
    _lock: Option<DirLock>,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.inner.path)
            .finish_non_exhaustive()
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // The writer drains the channel, then sees it closed and returns.
        drop(self.tx.take());
        if let Some(handle) = self.writer.take()
            && handle.join().is_err()
        {
            tracing::error!(path = %self.path.display(), "the storage writer thread panicked");
        }
    }
}

impl Store {
    /// Opens (or creates) `data_dir/delve.sqlite3`, creating `data_dir` if missing. See the module
    /// docs for the checks; on any error, existing files are left as they were.
    pub fn open(data_dir: &Path, options: StoreOptions) -> Result<Store, StoreError> {
        let dir_error = |source| StoreError::DataDir {
            path: data_dir.to_path_buf(),
            source: Arc::new(source),
        };
        std::fs::create_dir_all(data_dir).map_err(dir_error)?;
        if !data_dir.is_dir() {
            return Err(dir_error(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                "it exists but is not a directory",
            )));
        }
        let path: Arc<Path> = Arc::from(data_dir.join(DB_FILE));

        let conn = schema::open_writer(&path, &options)?;
        let reader = schema::open_reader(&path, &options)?;
        // Taken once the file is known to be ours and sound, so a refused directory gains no
        // lock file.
        let lock = if options.exclusive {
            Some(lock_dir(data_dir)?)
        } else {
            None
        };

        let counters = Arc::new(Counters::default());
        let (tx, rx) = mpsc::channel();
        let (ready_tx, ready_rx) = mpsc::sync_channel(1);
        let writer = std::thread::Builder::new()
            .name("delve-store-writer".into())
            .spawn({
                let path = path.clone();
                let counters = counters.clone();
                move || writer::run(conn, path, rx, counters, ready_tx)
            })
            .map_err(|e| StoreError::Unwritable {
                path: path.to_path_buf(),
                reason: format!("could not start the writer thread: {e}"),
            })?;
        let started = ready_rx.recv().unwrap_or_else(|_| {
            Err(StoreError::Closed {
                path: path.to_path_buf(),
            })
        });
        if let Err(e) = started {
            // The thread has returned (or panicked); reap it.
            let _ = writer.join();
            return Err(e);
        }
        tracing::info!(path = %path.display(), "database open");
        Ok(Store {
            inner: Arc::new(Inner {
                path,
                tx: Some(tx),
                writer: Some(writer),
                reader: Mutex::new(reader),
                reads: Default::default(),
                counters,
                _lock: lock,
            }),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// What the writer thread has done so far.
    pub fn stats(&self) -> StoreStats {
        StoreStats {
            transactions: self.inner.counters.transactions.load(Ordering::Relaxed),
            commands: self.inner.counters.commands.load(Ordering::Relaxed),
            reads: self.inner.reads.load(Ordering::Relaxed),
        }
    }

    // ----- writes (through the writer thread) -----

    /// Appends a journal entry. Errors (through the ack) if `(dungeon, seq)` is already there or
    /// the dungeon does not exist.
    pub fn append_journal(&self, dungeon: DungeonId, seq: u64, entry: Vec<u8>) -> Ack {
        match self.seq(seq) {
            Ok(seq) => self.write(Op::AppendJournal {
                dungeon,
                seq,
                entry,
            }),
            Err(e) => self.failed(e),
        }
    }

    /// Saves a snapshot that includes every journal entry up to `seq`, and in the same
    /// transaction deletes the dungeon's older snapshots and (with `compact`) its journal entries
    /// up to `seq`.
    pub fn save_snapshot(
        &self,
        dungeon: DungeonId,
        seq: u64,
        data: Vec<u8>,
        state_hash: String,
        compact: bool,
    ) -> Ack {
        match self.seq(seq) {
            Ok(seq) => self.write(Op::SaveSnapshot {
                dungeon,
                seq,
                data,
                state_hash,
                taken_at: now(),
                compact,
            }),
            Err(e) => self.failed(e),
        }
    }

    /// Adds a character, or replaces its name, token hash and origin (the address it was made
    /// from); either way its player is seen now.
    pub fn put_character(
        &self,
        dungeon: DungeonId,
        player_id: u32,
        name: String,
        token_hash: [u8; 32],
        origin: Option<String>,
    ) -> Ack {
        self.put_new_character(dungeon, player_id, name, token_hash, origin, None)
    }

    /// [`Store::put_character`] for a character just made by journal entry `start_seq`: its
    /// journal is kept from there until its game ends and is recorded ([`Store::add_game`]).
    pub fn put_new_character(
        &self,
        dungeon: DungeonId,
        player_id: u32,
        name: String,
        token_hash: [u8; 32],
        origin: Option<String>,
        start_seq: Option<u64>,
    ) -> Ack {
        let start_seq = match start_seq.map(|s| self.seq(s)).transpose() {
            Ok(s) => s,
            Err(e) => return self.failed(e),
        };
        self.write(Op::PutCharacter {
            dungeon,
            player_id,
            name,
            token_hash,
            origin,
            seen: now(),
            started_at: start_seq.map(|_| now()),
            start_seq,
        })
    }

    /// Notes that a character's player is there now (joined, or just left).
    pub fn touch_character(&self, dungeon: DungeonId, player_id: u32) -> Ack {
        self.write(Op::TouchCharacter {
            dungeon,
            player_id,
            seen: now(),
        })
    }

    /// Removes a character (nothing happens if there is none).
    pub fn delete_character(&self, dungeon: DungeonId, player_id: u32) -> Ack {
        self.write(Op::DeleteCharacter { dungeon, player_id })
    }

    /// Records that a character of `dungeon` reached floor `deepest` (kept if deeper than before).
    pub fn set_deepest(&self, dungeon: DungeonId, deepest: u32) -> Ack {
        self.write(Op::SetDeepest { dungeon, deepest })
    }

    /// Adds an entry to the high-score table.
    pub fn add_score(&self, row: ScoreRow) -> Ack {
        let checked = self
            .fit(row.score, "the score")
            .and_then(|score| Ok((score, self.fit(row.turns, "the turn count")?)));
        match checked {
            Ok((score, turns)) => self.write(Op::AddScore {
                name: row.name,
                score,
                level: row.level,
                deepest: row.deepest,
                kills: row.kills,
                turns,
                outcome: row.outcome,
                dungeon: row.dungeon,
                ended_at: row.ended_at,
            }),
            Err(e) => self.failed(e),
        }
    }

    /// Resolves once every write sent before it has been committed (or has failed: its own ack
    /// says so).
    pub fn flush(&self) -> Ack {
        self.write(Op::Flush)
    }

    /// Creates a dungeon and returns its row; fails with [`StoreError::DungeonExists`] if a
    /// dungeon's name equals `name` ignoring case. `settings` must be JSON. Blocks until the
    /// writer has committed it (a few milliseconds at most, unless the disk is stalled).
    pub fn create_dungeon(
        &self,
        name: &str,
        seed: u64,
        password_hash: Option<&str>,
        settings: &str,
        content_hash: &str,
    ) -> Result<DungeonRow, StoreError> {
        if let Err(e) = serde_json::from_str::<serde_json::Value>(settings) {
            return Err(StoreError::Invalid {
                path: self.inner.path.to_path_buf(),
                what: format!("the settings of dungeon {name:?}"),
                reason: format!("they are not JSON ({e})"),
            });
        }
        let row = DungeonRow {
            id: 0,
            key: dungeon_key(name),
            name: name.to_owned(),
            seed,
            password_hash: password_hash.map(str::to_owned),
            settings: settings.to_owned(),
            content_hash: content_hash.to_owned(),
            created_at: now(),
            deepest: 1,
        };
        let (tx, rx) = oneshot::channel();
        self.send(Command {
            op: Op::CreateDungeon { row },
            reply: Reply::Dungeon(tx),
        });
        Pending::new(rx, self.inner.path.clone()).wait()
    }

    // ----- reads (on the read connection) -----

    /// The dungeon whose name equals `name` ignoring case.
    pub fn find_dungeon(&self, name: &str) -> Result<Option<DungeonRow>, StoreError> {
        self.read(&format!("find dungeon {name:?}"), |conn| {
            conn.query_row(
                &format!("{SELECT_DUNGEON} WHERE key = ?1"),
                [dungeon_key(name)],
                dungeon_row,
            )
            .optional()
        })
    }

    /// Every dungeon, oldest first.
    pub fn list_dungeons(&self) -> Result<Vec<DungeonRow>, StoreError> {
        self.read("list the dungeons", |conn| {
            let mut stmt = conn.prepare(&format!("{SELECT_DUNGEON} ORDER BY id"))?;
            let rows = stmt.query_map([], dungeon_row)?;
            rows.collect()
        })
    }

    /// The `limit` most recently created dungeons, newest first: read through the primary key
    /// alone, however many dungeons there are.
    pub fn newest_dungeons(&self, limit: usize) -> Result<Vec<DungeonRow>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.read("list the newest dungeons", |conn| {
            let mut stmt = conn.prepare(&format!("{SELECT_DUNGEON} ORDER BY id DESC LIMIT ?1"))?;
            let rows = stmt.query_map([limit], dungeon_row)?;
            rows.collect()
        })
    }

    /// The newest snapshot of a dungeon and every journal entry after it, in order, read in one
    /// transaction so that a concurrent compaction cannot tear them apart.
    pub fn load(&self, dungeon: DungeonId) -> Result<Saved, StoreError> {
        self.read(&format!("load dungeon {dungeon}"), |conn| {
            let tx = conn.transaction()?;
            let snapshot = tx
                .query_row(
                    "SELECT seq, data, state_hash FROM snapshots WHERE dungeon_id = ?1
                     ORDER BY seq DESC LIMIT 1",
                    [dungeon],
                    |row| Ok((get_u64(row, 0)?, row.get(1)?, row.get(2)?)),
                )
                .optional()?;
            let after = snapshot.as_ref().map_or(-1, |(seq, _, _)| *seq as i64);
            let journal = {
                let mut stmt = tx.prepare(
                    "SELECT seq, entry FROM journal WHERE dungeon_id = ?1 AND seq > ?2
                     ORDER BY seq",
                )?;
                let rows = stmt.query_map(params![dungeon, after], |row| {
                    Ok((get_u64(row, 0)?, row.get(1)?))
                })?;
                rows.collect::<rusqlite::Result<Vec<_>>>()?
            };
            let saved_seq = tx
                .query_row(
                    "SELECT saved_seq FROM dungeons WHERE id = ?1",
                    [dungeon],
                    |row| get_u64(row, 0),
                )
                .optional()?
                .unwrap_or(0);
            tx.commit()?;
            Ok(Saved {
                snapshot,
                journal,
                saved_seq,
            })
        })
    }

    /// Every journal entry a dungeon still has, in order (all of them, from its seed on, if it
    /// was never compacted).
    pub fn journal(&self, dungeon: DungeonId) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        self.read(&format!("read the journal of dungeon {dungeon}"), |conn| {
            let mut stmt =
                conn.prepare("SELECT seq, entry FROM journal WHERE dungeon_id = ?1 ORDER BY seq")?;
            let rows = stmt.query_map([dungeon], |row| Ok((get_u64(row, 0)?, row.get(1)?)))?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
        })
    }

    /// The characters of a dungeon, by player id.
    pub fn characters(&self, dungeon: DungeonId) -> Result<Vec<CharacterRow>, StoreError> {
        self.read(
            &format!("read the characters of dungeon {dungeon}"),
            |conn| {
                let mut stmt = conn.prepare(
                    "SELECT player_id, name, token_hash, origin, last_seen FROM characters
                     WHERE dungeon_id = ?1 ORDER BY player_id",
                )?;
                let rows = stmt.query_map([dungeon], |row| {
                    Ok(CharacterRow {
                        player_id: row.get(0)?,
                        name: row.get(1)?,
                        token_hash: row.get(2)?,
                        origin: row.get(3)?,
                        last_seen: row.get(4)?,
                    })
                })?;
                rows.collect()
            },
        )
    }

    /// The best `limit` scores of every dungeon, private ones too (for the operator), highest
    /// first; equal scores by earlier end.
    pub fn top_scores(&self, limit: usize) -> Result<Vec<ScoreRow>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.read("read the high scores", |conn| {
            let mut stmt = conn.prepare(
                "SELECT name, score, level, deepest, kills, turns, outcome, dungeon, ended_at
                 FROM games ORDER BY score DESC, ended_at ASC, id ASC LIMIT ?1",
            )?;
            let rows = stmt.query_map([limit], |row| {
                Ok(ScoreRow {
                    name: row.get(0)?,
                    score: get_u64(row, 1)?,
                    level: row.get(2)?,
                    deepest: row.get(3)?,
                    kills: row.get(4)?,
                    turns: get_u64(row, 5)?,
                    outcome: row.get(6)?,
                    dungeon: row.get(7)?,
                    ended_at: row.get(8)?,
                })
            })?;
            rows.collect()
        })
    }

    // ----- helpers -----

    fn read<T>(
        &self,
        action: &str,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
    ) -> Result<T, StoreError> {
        self.inner.reads.fetch_add(1, Ordering::Relaxed);
        // A panic while holding the lock leaves no half-done state in a read connection.
        let mut conn = self
            .inner
            .reader
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        f(&mut conn).map_err(|e| StoreError::sqlite(&self.inner.path, action, e))
    }

    fn write(&self, op: Op) -> Ack {
        let (tx, rx) = oneshot::channel();
        self.send(Command {
            op,
            reply: Reply::Unit(tx),
        });
        Pending::new(rx, self.inner.path.clone())
    }

    fn send(&self, command: Command) {
        // If the writer is gone, the command (and its reply sender) is dropped here and the
        // caller's Pending resolves to StoreError::Closed.
        if let Some(tx) = &self.inner.tx {
            let _ = tx.send(command);
        }
    }

    fn ask_game(&self, op: Op) -> Pending<AddedGame> {
        let (tx, rx) = oneshot::channel();
        self.send(Command {
            op,
            reply: Reply::Game(tx),
        });
        Pending::new(rx, self.inner.path.clone())
    }

    fn ask_count(&self, op: Op) -> Pending<u64> {
        let (tx, rx) = oneshot::channel();
        self.send(Command {
            op,
            reply: Reply::Count(tx),
        });
        Pending::new(rx, self.inner.path.clone())
    }

    /// An Ack that has already failed.
    fn failed(&self, e: StoreError) -> Ack {
        self.failed_with(e)
    }

    /// A [`Pending`] that has already failed.
    fn failed_with<T>(&self, e: StoreError) -> Pending<T> {
        let (tx, rx) = oneshot::channel();
        let _ = tx.send(Err(e));
        Pending::new(rx, self.inner.path.clone())
    }

    fn seq(&self, seq: u64) -> Result<i64, StoreError> {
        self.fit(seq, "a journal sequence number")
    }

    fn fit(&self, value: u64, what: &str) -> Result<i64, StoreError> {
        i64::try_from(value).map_err(|_| StoreError::Invalid {
            path: self.inner.path.to_path_buf(),
            what: format!("{what} {value}"),
            reason: format!("SQLite integers stop at {}", i64::MAX),
        })
    }
}

/// The unique key of a dungeon name: names are compared ignoring case.
fn dungeon_key(name: &str) -> String {
    name.to_lowercase()
}

const SELECT_DUNGEON: &str = "SELECT id, key, name, seed, password_hash, settings, content_hash, created_at, deepest FROM dungeons";

fn dungeon_row(row: &Row<'_>) -> rusqlite::Result<DungeonRow> {
    Ok(DungeonRow {
        id: row.get(0)?,
        key: row.get(1)?,
        name: row.get(2)?,
        seed: row.get::<_, i64>(3)? as u64, // stored as the i64 of the same bits
        password_hash: row.get(4)?,
        settings: row.get(5)?,
        content_hash: row.get(6)?,
        created_at: row.get(7)?,
        deepest: row.get(8)?,
    })
}

/// Reads a non-negative integer column as u64.
fn get_u64(row: &Row<'_>, index: usize) -> rusqlite::Result<u64> {
    let value: i64 = row.get(index)?;
    u64::try_from(value).map_err(|_| rusqlite::Error::IntegralValueOutOfRange(index, value))
}

/// Unix seconds now (0 if the clock is before 1970).
pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// For tests and tools: the data directory's database path.
pub fn db_path(data_dir: &Path) -> PathBuf {
    data_dir.join(DB_FILE)
}
