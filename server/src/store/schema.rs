//! Opening the database file safely, and its versioned schema.
//!
//! The schema version lives in `PRAGMA user_version`; [`MIGRATIONS`] lists the SQL that takes the
//! file from one version to the next, each step applied in its own transaction together with the
//! new version number, so a crash mid-migration leaves the previous version intact.
//!
//! Opening is ordered so that nothing is written before the file has been judged ours and sound:
//! read the header (`user_version`, `application_id`), run `PRAGMA quick_check`, refuse a newer
//! schema or a foreign database, and only then switch to WAL, migrate and probe a write.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::error::StoreError;
use super::{StoreOptions, Synchronous};

/// `PRAGMA application_id` of a Delve database: "DLVE" in ASCII. Written by the first migration.
pub const APPLICATION_ID: i64 = 0x444C_5645;

/// The SQL of each schema version: `MIGRATIONS[i]` takes the file from version `i` to `i + 1`.
/// Append new steps; never edit a released one.
pub const MIGRATIONS: &[&str] = &[
    // Version 1.
    "
    CREATE TABLE dungeons (
        id            INTEGER PRIMARY KEY,
        key           TEXT    NOT NULL UNIQUE,  -- the name lowercased: names are unique ignoring case
        name          TEXT    NOT NULL,         -- the name as first written
        seed          INTEGER NOT NULL,         -- a u64 stored as the i64 of the same bits
        password_hash TEXT,
        settings      TEXT    NOT NULL,         -- JSON, as the caller gave it
        content_hash  TEXT    NOT NULL,
        created_at    INTEGER NOT NULL          -- unix seconds
    );
    CREATE TABLE snapshots (
        dungeon_id INTEGER NOT NULL REFERENCES dungeons(id) ON DELETE CASCADE,
        seq        INTEGER NOT NULL,            -- the journal seq this snapshot includes
        data       BLOB    NOT NULL,
        state_hash TEXT    NOT NULL,
        taken_at   INTEGER NOT NULL,
        PRIMARY KEY (dungeon_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE journal (
        dungeon_id INTEGER NOT NULL REFERENCES dungeons(id) ON DELETE CASCADE,
        seq        INTEGER NOT NULL,
        entry      BLOB    NOT NULL,
        PRIMARY KEY (dungeon_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE characters (
        dungeon_id INTEGER NOT NULL REFERENCES dungeons(id) ON DELETE CASCADE,
        player_id  INTEGER NOT NULL,
        name       TEXT    NOT NULL,
        token_hash BLOB    NOT NULL CHECK (length(token_hash) = 32),
        PRIMARY KEY (dungeon_id, player_id)
    ) WITHOUT ROWID;
    CREATE TABLE scores (
        id       INTEGER PRIMARY KEY,
        name     TEXT    NOT NULL,
        score    INTEGER NOT NULL,
        level    INTEGER NOT NULL,
        deepest  INTEGER NOT NULL,
        kills    INTEGER NOT NULL,
        turns    INTEGER NOT NULL,
        outcome  TEXT    NOT NULL,  -- 'killed by a Rabid Mouse on floor 6' or 'won'
        dungeon  TEXT    NOT NULL,
        ended_at INTEGER NOT NULL   -- unix seconds
    );
    CREATE INDEX scores_by_score ON scores (score DESC, ended_at ASC);
    ",
    // Version 2: the deepest floor reached in each dungeon, for the lobby's list of dungeons
    // that are saved but not loaded.
    "
    ALTER TABLE dungeons ADD COLUMN deepest INTEGER NOT NULL DEFAULT 1;
    ",
    // Version 3: the seq of each dungeon's newest snapshot, kept beside the dungeon so that a
    // snapshot gone missing is noticed at load instead of the world being rebuilt from its seed.
    "
    ALTER TABLE dungeons ADD COLUMN saved_seq INTEGER NOT NULL DEFAULT 0;
    UPDATE dungeons SET saved_seq =
        COALESCE((SELECT MAX(seq) FROM snapshots WHERE dungeon_id = dungeons.id), 0);
    ",
    // Version 4: where each character was made from (the address, an IPv6 /64 as one) and when
    // its player was last there, so that a full dungeon can retire the characters away longest
    // and those of the addresses holding the most (README, "A public dungeon stays open").
    "
    ALTER TABLE characters ADD COLUMN origin TEXT;
    ALTER TABLE characters ADD COLUMN last_seen INTEGER;
    ",
    // Version 5: the record of finished games (issue 28). `games` takes over from `scores`
    // (its rows are copied, with no dump and no replay) and holds each game's character dump;
    // `replays` what a game needs to be played back; `characters.start_seq` the journal entry
    // that made each living character, which keeps its journal from being compacted away
    // until its game ends and is copied into `replays` (see `store::games`).
    "
    CREATE TABLE games (
        id          INTEGER PRIMARY KEY,
        dungeon_id  INTEGER REFERENCES dungeons(id) ON DELETE SET NULL,
        dungeon     TEXT    NOT NULL,           -- the dungeon's name
        player_id   INTEGER,                    -- the character's id in its dungeon
        name        TEXT    NOT NULL,
        name_key    TEXT    NOT NULL,           -- the name lowercased, for looking it up
        score       INTEGER NOT NULL,
        level       INTEGER NOT NULL,
        deepest     INTEGER NOT NULL,
        kills       INTEGER NOT NULL,
        turns       INTEGER NOT NULL,
        outcome     TEXT    NOT NULL,           -- 'killed by a Rabid Mouse on floor 6' or 'won'
        victory     INTEGER NOT NULL DEFAULT 0,
        started_at  INTEGER,                    -- unix seconds, when known
        ended_at    INTEGER NOT NULL,           -- unix seconds
        start_seq   INTEGER,                    -- the journal entry that made the character
        end_seq     INTEGER,                    -- the journal entry of its last turn
        view_key    TEXT,                       -- opens its pages when its dungeon is private
        engine      TEXT,                       -- what played it (server version, content)
        end_hash    TEXT,                       -- the world's state hash after end_seq
        dump        TEXT                        -- the character dump (JSON), once written
    );
    INSERT INTO games (dungeon_id, dungeon, name, name_key, score, level, deepest, kills, turns,
                       outcome, victory, ended_at)
        SELECT (SELECT id FROM dungeons WHERE key = lower(s.dungeon)), s.dungeon, s.name,
               lower(s.name), s.score, s.level, s.deepest, s.kills, s.turns, s.outcome,
               s.outcome = 'won', s.ended_at
        FROM scores s ORDER BY s.id;
    DROP TABLE scores;
    CREATE INDEX games_by_score ON games (score DESC, ended_at ASC);
    CREATE INDEX games_by_dungeon ON games (dungeon_id, id);
    CREATE INDEX games_by_name ON games (name_key, id);
    CREATE TABLE replays (
        game_id  INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
        seed     INTEGER NOT NULL,              -- the dungeon's seed (a u64 as i64 bits)
        base_seq INTEGER NOT NULL,              -- the snapshot it starts from; 0: the seed
        data     BLOB    NOT NULL,              -- deflated: that snapshot and the entries after it
        bytes    INTEGER NOT NULL,              -- length(data)
        kept_at  INTEGER NOT NULL               -- unix seconds
    ) WITHOUT ROWID;
    CREATE INDEX replays_by_age ON replays (kept_at);
    ALTER TABLE characters ADD COLUMN start_seq INTEGER;
    ALTER TABLE characters ADD COLUMN started_at INTEGER;
    ",
];

/// The schema version this server writes and understands.
pub fn latest_version() -> i64 {
    // The list is tiny; the cast cannot truncate.
    MIGRATIONS.len() as i64
}

/// Opens the write connection to `path`, checks the file, switches it to WAL and migrates it.
pub(crate) fn open_writer(path: &Path, options: &StoreOptions) -> Result<Connection, StoreError> {
    let conn = open_connection(path, options.busy_timeout)?;
    let sync = match options.synchronous {
        Synchronous::Normal => "NORMAL",
        Synchronous::Full => "FULL",
    };
    // Connection settings only: none of these touch the file.
    conn.pragma_update(None, "foreign_keys", true)
        .and_then(|()| conn.pragma_update(None, "synchronous", sync))
        .map_err(|e| StoreError::at_open(path, "configure the connection", e))?;

    if conn
        .is_readonly(rusqlite::MAIN_DB)
        .map_err(|e| StoreError::at_open(path, "check the open mode", e))?
    {
        return Err(StoreError::Unwritable {
            path: path.to_path_buf(),
            reason: "SQLite could only open it read-only (the file is not writable by this user)"
                .into(),
        });
    }

    let version = check_existing(&conn, path)?;

    // From here on the file is known to be a sound Delve database (or a new, empty one).
    let mode: String = conn
        .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
        .map_err(|e| StoreError::at_open(path, "switch to write-ahead logging", e))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Unwritable {
            path: path.to_path_buf(),
            reason: format!("SQLite refused write-ahead logging (journal mode stays {mode:?})"),
        });
    }
    migrate(&conn, path, version)?;
    probe_write(&conn, path)?;
    Ok(conn)
}

/// Opens a second connection for reads. It never writes (`query_only`).
pub(crate) fn open_reader(path: &Path, options: &StoreOptions) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags)
        .map_err(|e| StoreError::at_open(path, "open a read connection", e))?;
    conn.busy_timeout(options.busy_timeout)
        .and_then(|()| conn.pragma_update(None, "query_only", true))
        .map_err(|e| StoreError::at_open(path, "configure the read connection", e))?;
    Ok(conn)
}

fn open_connection(path: &Path, busy_timeout: Duration) -> Result<Connection, StoreError> {
    // No SQLITE_OPEN_URI: a data directory named "file:..." must stay a plain path.
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags)
        .map_err(|e| StoreError::at_open(path, "open the file", e))?;
    conn.busy_timeout(busy_timeout)
        .map_err(|e| StoreError::at_open(path, "set the busy timeout", e))?;
    Ok(conn)
}

/// Reads only: returns the schema version after checking that the file is a SQLite database,
/// passes `quick_check`, is not newer than this server and is Delve's (or empty).
fn check_existing(conn: &Connection, path: &Path) -> Result<i64, StoreError> {
    // The first read of the header is where "file is not a database" shows up.
    let version: i64 = conn
        .pragma_query_one(None, "user_version")
        .map_err(|e| StoreError::at_open(path, "read the schema version", e))?;
    let app_id: i64 = conn
        .pragma_query_one(None, "application_id")
        .map_err(|e| StoreError::at_open(path, "read the application id", e))?;

    let mut problems = Vec::new();
    conn.pragma_query(None, "quick_check", |row| {
        let line: String = row.get(0)?;
        if problems.len() < 5 {
            problems.push(line);
        }
        Ok(())
    })
    .map_err(|e| StoreError::at_open(path, "run quick_check", e))?;
    if problems != ["ok"] {
        return Err(StoreError::Corrupt {
            path: path.to_path_buf(),
            report: problems.join("; "),
        });
    }

    let supported = latest_version();
    if version > supported {
        return Err(StoreError::TooNew {
            path: path.to_path_buf(),
            found: version,
            supported,
        });
    }
    if version < 0 || (version > 0 && app_id != APPLICATION_ID) {
        return Err(StoreError::Foreign {
            path: path.to_path_buf(),
            detail: format!(
                "its application id is {app_id:#x}, not Delve's {APPLICATION_ID:#x}, \
                 though its schema version is {version}"
            ),
        });
    }
    if version == 0 {
        let tables: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_schema", [], |row| row.get(0))
            .map_err(|e| StoreError::at_open(path, "list the tables", e))?;
        if tables > 0 || app_id != 0 {
            return Err(StoreError::Foreign {
                path: path.to_path_buf(),
                detail: format!(
                    "it already holds tables of its own ({tables} in its schema) and no Delve \
                     schema version; application id {app_id:#x}"
                ),
            });
        }
    }
    Ok(version)
}

/// Applies every migration after `from`, each in its own transaction with its version number.
fn migrate(conn: &Connection, path: &Path, from: i64) -> Result<(), StoreError> {
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(from.max(0) as usize) {
        let to = index as i64 + 1;
        let step = || -> rusqlite::Result<()> {
            conn.execute_batch("BEGIN IMMEDIATE")?;
            let applied = conn
                .execute_batch(sql)
                .and_then(|()| conn.pragma_update(None, "application_id", APPLICATION_ID))
                .and_then(|()| conn.pragma_update(None, "user_version", to))
                .and_then(|()| conn.execute_batch("COMMIT"));
            if applied.is_err() {
                // The transaction may already be gone; the error that matters is `applied`'s.
                let _ = conn.execute_batch("ROLLBACK");
            }
            applied
        };
        step().map_err(|e| {
            StoreError::at_open(path, &format!("migrate the schema to version {to}"), e)
        })?;
        tracing::info!(path = %path.display(), version = to, "database schema migrated");
    }
    Ok(())
}

/// Proves that a write can be committed now (not at the first journal entry of the first game):
/// rewrites the schema version with its own value.
fn probe_write(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let probe = || -> rusqlite::Result<()> {
        conn.execute_batch("BEGIN IMMEDIATE")?;
        let done = conn
            .pragma_query_one::<i64>(None, "user_version")
            .and_then(|v| conn.pragma_update(None, "user_version", v))
            .and_then(|()| conn.execute_batch("COMMIT"));
        if done.is_err() {
            let _ = conn.execute_batch("ROLLBACK");
        }
        done
    };
    probe().map_err(|e| StoreError::Unwritable {
        path: path.to_path_buf(),
        reason: format!("a test write failed: {e}"),
    })
}
