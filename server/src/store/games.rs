//! The record of finished games: the `games` table (one row per game that ended, with its
//! character dump) and the `replays` table (what a game needs to be played back).
//!
//! # How a game's replay is kept
//! A living character's row in `characters` holds `start_seq`, the journal entry that made it.
//! While it is set, a snapshot's compaction keeps the newest snapshot at or before it and every
//! journal entry after that snapshot ([`COMPACT_JOURNAL`], [`COMPACT_SNAPSHOTS`]). When the game
//! ends, [`Store::add_game`] copies that snapshot and those entries up to the game's last one into
//! one deflated blob (a [`ReplaySlice`]) in `replays`, clears `start_seq`, and hands the slice
//! back to the caller (who replays it to write the dump) — all in the writer thread, so no
//! compaction can come between. A dungeon with several players has one journal for all of them:
//! each game's slice holds every entry of the dungeon over its span (the world is one), and the
//! replayer shows one character's view of it.
//!
//! The slice is opaque bytes to the store, like snapshots and journal entries. Rows of `replays`
//! go when they are older than the operator allows or over the byte budget
//! ([`Store::expire_replays`]); the game's row and dump stay.

use std::io::{Read, Write};

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};

use super::error::StoreError;
use super::rows::{DungeonId, ScoreRow};
use super::{Pending, Store, get_u64};

/// A game's id in the database: what `/games/ID` names.
pub type GameId = i64;

/// What compaction deletes of a dungeon's journal when a snapshot at `?2` is saved: the entries
/// that snapshot covers, except those a living character's game still needs (from the newest
/// snapshot at or before the entry that made it).
pub(super) const COMPACT_JOURNAL: &str = "
    WITH bases(b) AS (
        SELECT COALESCE((SELECT MAX(s.seq) FROM snapshots s
                         WHERE s.dungeon_id = ?1 AND s.seq <= c.start_seq), 0)
        FROM characters c WHERE c.dungeon_id = ?1 AND c.start_seq IS NOT NULL)
    DELETE FROM journal WHERE dungeon_id = ?1
        AND seq <= MIN(?2, COALESCE((SELECT MIN(b) FROM bases), ?2))";

/// What compaction deletes of a dungeon's snapshots: those older than the new one at `?2`,
/// except the one each living character's game starts from.
pub(super) const COMPACT_SNAPSHOTS: &str = "
    WITH bases(b) AS (
        SELECT COALESCE((SELECT MAX(s.seq) FROM snapshots s
                         WHERE s.dungeon_id = ?1 AND s.seq <= c.start_seq), 0)
        FROM characters c WHERE c.dungeon_id = ?1 AND c.start_seq IS NOT NULL)
    DELETE FROM snapshots WHERE dungeon_id = ?1 AND seq < ?2
        AND seq NOT IN (SELECT b FROM bases)";

/// A game that just ended, for [`Store::add_game`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewGame {
    /// Its numbers, as the high-score table shows them.
    pub score: ScoreRow,
    pub dungeon_id: DungeonId,
    /// The character's id in its dungeon.
    pub player_id: u32,
    pub victory: bool,
    /// Unix seconds, when known.
    pub started_at: Option<i64>,
    /// The journal entry that made the character (its `characters.start_seq`), if known.
    pub start_seq: Option<u64>,
    /// The journal entry of its last turn.
    pub end_seq: u64,
    /// The key that opens the game's pages when its dungeon is private (kept as it is: it
    /// only shows this one game, and the pages of a visitor who gave the dungeon's password
    /// link to its games with it).
    pub view_key: Option<String>,
    /// What played it: server version, save format, content (see `record::engine`).
    pub engine: String,
    /// The world's state hash after `end_seq`, which a replay must reach.
    pub end_hash: String,
    /// Keep what the replay needs (the operator may turn replays off); the slice is handed
    /// back either way, for the dump.
    pub keep_replay: bool,
}

/// What [`Store::add_game`] made: the game's id, and its slice of the journal when one could be
/// cut (the character's journal was kept from its start).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddedGame {
    pub id: GameId,
    /// The journal entry that made the character, and when (from its `characters` row when
    /// the game did not say).
    pub start_seq: Option<u64>,
    pub started_at: Option<i64>,
    pub slice: Option<ReplaySlice>,
}

/// Everything needed to play a game back: the world at `base_seq` (a snapshot, or the dungeon's
/// seed when `base` is `None` and `base_seq` is 0) and every journal entry after it, in order,
/// up to the game's last.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplaySlice {
    pub seed: u64,
    pub base_seq: u64,
    pub base: Option<Vec<u8>>,
    /// Entries `base_seq + 1`, `base_seq + 2`, ...
    pub entries: Vec<Vec<u8>>,
}

impl ReplaySlice {
    /// The slice as kept: postcard, deflated (a 6,000-turn game is a few kilobytes).
    pub fn pack(&self) -> Vec<u8> {
        let raw = postcard::to_stdvec(self).unwrap_or_default();
        let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        // Writing into a Vec cannot fail.
        let _ = z.write_all(&raw);
        z.finish().unwrap_or_default()
    }

    /// A slice from [`ReplaySlice::pack`]'s bytes.
    pub fn unpack(data: &[u8]) -> Result<ReplaySlice, String> {
        let mut raw = Vec::new();
        flate2::read::DeflateDecoder::new(data)
            .read_to_end(&mut raw)
            .map_err(|e| format!("it does not inflate ({e})"))?;
        postcard::from_bytes(&raw).map_err(|e| format!("it does not decode ({e})"))
    }

    /// The seq of the last entry.
    pub fn end_seq(&self) -> u64 {
        self.base_seq + self.entries.len() as u64
    }
}

/// One row of `games`, as read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRow {
    pub id: GameId,
    pub score: ScoreRow,
    pub victory: bool,
    /// The dungeon's row, when it is known (games recorded before schema 5 may not say).
    pub dungeon_id: Option<DungeonId>,
    pub player_id: Option<u32>,
    /// Whether its dungeon is private (has a password).
    pub private: bool,
    pub started_at: Option<i64>,
    pub start_seq: Option<u64>,
    pub end_seq: Option<u64>,
    pub view_key: Option<String>,
    pub engine: Option<String>,
    pub end_hash: Option<String>,
    /// The character dump (JSON), once written.
    pub dump: Option<String>,
    /// Bytes its replay takes, if it still has one.
    pub replay_bytes: Option<u64>,
}

/// Which games [`Store::games`] lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameQuery {
    /// Only this dungeon's (its name, any case).
    pub dungeon: Option<String>,
    /// Only characters of this name (any case).
    pub name: Option<String>,
    /// Newest first (by id): only games older than this one. Best first: ignored.
    pub before: Option<GameId>,
    /// At most this many.
    pub limit: usize,
    pub order: Order,
    /// Games of private dungeons are left out, except those of the dungeon of this name (any
    /// case): one whose password the asker gave, or that it plays in.
    pub private_ok: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Order {
    /// The most recently ended first (by id).
    #[default]
    Newest,
    /// The highest score first; equal scores by the earlier end.
    Best,
}

const SELECT_GAME: &str = "SELECT g.id, g.name, g.score, g.level, g.deepest, g.kills, g.turns,
    g.outcome, g.dungeon, g.ended_at, g.victory, g.dungeon_id, g.player_id,
    d.password_hash IS NOT NULL, g.started_at, g.start_seq, g.end_seq, g.view_key, g.engine,
    g.end_hash, g.dump, r.bytes
    FROM games g LEFT JOIN dungeons d ON d.id = g.dungeon_id
    LEFT JOIN replays r ON r.game_id = g.id";

fn game_row(row: &Row<'_>) -> rusqlite::Result<GameRow> {
    let opt_u64 = |i: usize| -> rusqlite::Result<Option<u64>> {
        Ok(row
            .get::<_, Option<i64>>(i)?
            .and_then(|v| u64::try_from(v).ok()))
    };
    Ok(GameRow {
        id: row.get(0)?,
        score: ScoreRow {
            name: row.get(1)?,
            score: get_u64(row, 2)?,
            level: row.get(3)?,
            deepest: row.get(4)?,
            kills: row.get(5)?,
            turns: get_u64(row, 6)?,
            outcome: row.get(7)?,
            dungeon: row.get(8)?,
            ended_at: row.get(9)?,
        },
        victory: row.get(10)?,
        dungeon_id: row.get(11)?,
        player_id: row.get(12)?,
        private: row.get(13)?,
        started_at: row.get(14)?,
        start_seq: opt_u64(15)?,
        end_seq: opt_u64(16)?,
        view_key: row.get(17)?,
        engine: row.get(18)?,
        end_hash: row.get(19)?,
        dump: row.get(20)?,
        replay_bytes: opt_u64(21)?,
    })
}

impl Store {
    /// Records a game that just ended (see the module docs): its id, and its replay slice
    /// when the character's journal reaches back to its start.
    pub fn add_game(&self, game: NewGame) -> Pending<AddedGame> {
        let checked = self
            .fit(game.score.score, "the score")
            .and_then(|_| self.fit(game.score.turns, "the turn count"))
            .and_then(|_| self.seq(game.end_seq));
        match checked {
            Ok(_) => self.ask_game(super::writer::Op::AddGame {
                game: Box::new(game),
                kept_at: super::now(),
            }),
            Err(e) => Store::failed_with(self, e),
        }
    }

    /// Stores the character dump of game `id` (JSON).
    pub fn set_dump(&self, id: GameId, dump: String) -> super::Ack {
        self.write(super::writer::Op::SetDump { id, dump })
    }

    /// Deletes the replays kept before `cutoff` (unix seconds), then the oldest until those left
    /// take at most `budget` bytes: how many went.
    pub fn expire_replays(&self, cutoff: i64, budget: u64) -> Pending<u64> {
        self.ask_count(super::writer::Op::ExpireReplays {
            cutoff,
            budget: i64::try_from(budget).unwrap_or(i64::MAX),
        })
    }

    /// The games `query` asks for.
    pub fn games(&self, query: &GameQuery) -> Result<Vec<GameRow>, StoreError> {
        let limit = i64::try_from(query.limit).unwrap_or(i64::MAX);
        let order = match query.order {
            Order::Newest => "g.id DESC",
            Order::Best => "g.score DESC, g.ended_at ASC, g.id ASC",
        };
        let before = match query.order {
            Order::Newest => query.before.unwrap_or(i64::MAX),
            Order::Best => i64::MAX,
        };
        // Only the order is formatted in, from the two above; everything else is bound.
        let sql = format!(
            "{SELECT_GAME} WHERE g.id < ?1
               AND (?2 IS NULL OR g.dungeon_id = (SELECT id FROM dungeons WHERE key = ?2)
                    OR (g.dungeon_id IS NULL AND lower(g.dungeon) = ?2))
               AND (?3 IS NULL OR g.name_key = ?3)
               AND (d.password_hash IS NULL OR d.key = ?5)
             ORDER BY {order} LIMIT ?4"
        );
        let dungeon = query.dungeon.as_deref().map(str::to_lowercase);
        let name = query.name.as_deref().map(str::to_lowercase);
        let allowed = query.private_ok.as_deref().map(str::to_lowercase);
        self.read("list the games", |conn| {
            let mut stmt = conn.prepare(&sql)?;
            let rows = stmt.query_map(params![before, dungeon, name, limit, allowed], game_row)?;
            rows.collect()
        })
    }

    /// Game `id`, whoever may see it (the caller decides).
    pub fn game(&self, id: GameId) -> Result<Option<GameRow>, StoreError> {
        self.read(&format!("read game {id}"), |conn| {
            conn.query_row(&format!("{SELECT_GAME} WHERE g.id = ?1"), [id], game_row)
                .optional()
        })
    }

    /// What game `id` needs to be played back, if it is still kept.
    pub fn replay(&self, id: GameId) -> Result<Option<ReplaySlice>, StoreError> {
        let data: Option<(i64, Vec<u8>)> =
            self.read(&format!("read the replay of game {id}"), |c| {
                c.query_row(
                    "SELECT seed, data FROM replays WHERE game_id = ?1",
                    [id],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )
                .optional()
            })?;
        let Some((seed, data)) = data else {
            return Ok(None);
        };
        let mut slice = ReplaySlice::unpack(&data).map_err(|why| StoreError::Invalid {
            path: self.path().to_path_buf(),
            what: format!("the replay of game {id}"),
            reason: why,
        })?;
        slice.seed = seed as u64; // the same 64 bits
        Ok(Some(slice))
    }

    /// Games with no dump yet that still have a replay (a server stopped before writing them).
    pub fn games_without_dump(&self) -> Result<Vec<GameId>, StoreError> {
        self.read("list the games without a dump", |conn| {
            let mut stmt = conn.prepare(
                "SELECT g.id FROM games g JOIN replays r ON r.game_id = g.id
                 WHERE g.dump IS NULL ORDER BY g.id",
            )?;
            let rows = stmt.query_map([], |row| row.get(0))?;
            rows.collect()
        })
    }

    /// How many replays are kept, and the bytes they take.
    pub fn replay_totals(&self) -> Result<(u64, u64), StoreError> {
        self.read("count the replays", |conn| {
            conn.query_row(
                "SELECT count(*), COALESCE(SUM(bytes), 0) FROM replays",
                [],
                |row| Ok((get_u64(row, 0)?, get_u64(row, 1)?)),
            )
        })
    }
}

#[cfg(test)]
#[path = "games_tests.rs"]
mod tests;

/// The writer's half of [`Store::add_game`]: the row, the replay slice, the pin released.
pub(super) fn add_game(
    conn: &Connection,
    game: &NewGame,
    kept_at: i64,
) -> rusqlite::Result<AddedGame> {
    let s = &game.score;
    let (start_seq, started_at) = match game.start_seq {
        Some(seq) => (Some(seq), game.started_at),
        None => conn
            .prepare(
                "SELECT start_seq, started_at FROM characters
                 WHERE dungeon_id = ?1 AND player_id = ?2",
            )?
            .query_row(params![game.dungeon_id, game.player_id], |row| {
                Ok((
                    row.get::<_, Option<i64>>(0)?
                        .and_then(|v| u64::try_from(v).ok()),
                    row.get::<_, Option<i64>>(1)?,
                ))
            })
            .optional()?
            .unwrap_or((None, game.started_at)),
    };
    conn.prepare(
        "INSERT INTO games (dungeon_id, dungeon, player_id, name, name_key, score, level, deepest,
             kills, turns, outcome, victory, started_at, ended_at, start_seq, end_seq, view_key,
             engine, end_hash)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
             ?19)",
    )?
    .execute(params![
        game.dungeon_id,
        s.dungeon,
        game.player_id,
        s.name,
        s.name.to_lowercase(),
        s.score as i64,
        s.level,
        s.deepest,
        s.kills,
        s.turns as i64,
        s.outcome,
        game.victory,
        started_at,
        s.ended_at,
        start_seq.map(|v| v as i64),
        game.end_seq as i64,
        game.view_key,
        game.engine,
        game.end_hash,
    ])?;
    let id = conn.last_insert_rowid();
    let slice = match start_seq {
        Some(start) => cut_slice(conn, game.dungeon_id, start, game.end_seq)?,
        None => None,
    };
    if let (Some(slice), true) = (&slice, game.keep_replay) {
        let data = slice.pack();
        conn.prepare(
            "INSERT INTO replays (game_id, seed, base_seq, data, bytes, kept_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![
            id,
            slice.seed as i64,
            slice.base_seq as i64,
            data,
            data.len() as i64,
            kept_at
        ])?;
    }
    conn.prepare(
        "UPDATE characters SET start_seq = NULL WHERE dungeon_id = ?1 AND player_id = ?2",
    )?
    .execute(params![game.dungeon_id, game.player_id])?;
    Ok(AddedGame {
        id,
        start_seq,
        started_at,
        slice,
    })
}

/// The snapshot at or before `start` and every entry after it up to `end`; `None` if the
/// journal no longer holds them all (a character made before its journal was kept).
fn cut_slice(
    conn: &Connection,
    dungeon: DungeonId,
    start: u64,
    end: u64,
) -> rusqlite::Result<Option<ReplaySlice>> {
    let seed: i64 = conn
        .prepare("SELECT seed FROM dungeons WHERE id = ?1")?
        .query_row([dungeon], |row| row.get(0))?;
    let base: Option<(u64, Vec<u8>)> = conn
        .prepare(
            "SELECT seq, data FROM snapshots WHERE dungeon_id = ?1 AND seq <= ?2
             ORDER BY seq DESC LIMIT 1",
        )?
        .query_row(params![dungeon, start as i64], |row| {
            Ok((get_u64(row, 0)?, row.get(1)?))
        })
        .optional()?;
    let base_seq = base.as_ref().map_or(0, |(seq, _)| *seq);
    let mut stmt = conn.prepare(
        "SELECT seq, entry FROM journal WHERE dungeon_id = ?1 AND seq > ?2 AND seq <= ?3
         ORDER BY seq",
    )?;
    let rows = stmt.query_map(params![dungeon, base_seq as i64, end as i64], |row| {
        Ok((get_u64(row, 0)?, row.get::<_, Vec<u8>>(1)?))
    })?;
    let mut entries = Vec::new();
    for (want, row) in (base_seq + 1..).zip(rows) {
        let (seq, entry) = row?;
        if seq != want {
            return Ok(None);
        }
        entries.push(entry);
    }
    if base_seq + entries.len() as u64 != end {
        return Ok(None);
    }
    Ok(Some(ReplaySlice {
        seed: seed as u64,
        base_seq,
        base: base.map(|(_, data)| data),
        entries,
    }))
}

/// The writer's half of [`Store::expire_replays`]: how many replays were deleted.
pub(super) fn expire_replays(conn: &Connection, cutoff: i64, budget: i64) -> rusqlite::Result<i64> {
    let old = conn
        .prepare("DELETE FROM replays WHERE kept_at < ?1")?
        .execute([cutoff])?;
    // Over the budget: the oldest go first, until what is left fits.
    let over = conn
        .prepare(
            "DELETE FROM replays WHERE game_id IN (
                 SELECT game_id FROM (
                     SELECT game_id, SUM(bytes) OVER (ORDER BY kept_at DESC, game_id DESC) AS upto
                     FROM replays)
                 WHERE upto > ?1)",
        )?
        .execute([budget])?;
    Ok((old + over) as i64)
}
