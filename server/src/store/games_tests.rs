//! Tests of the record of games against the real SQLite: what compaction keeps for a living
//! character, the slice cut when its game ends, who sees which game, and expiry.

use rusqlite::Connection;
use tempfile::TempDir;

use super::super::schema::{APPLICATION_ID, MIGRATIONS};
use super::super::*;
use super::*;

fn open(dir: &std::path::Path) -> Store {
    Store::open(dir, StoreOptions::default()).expect("open the store")
}

fn row(name: &str, dungeon: &str, score: u64, ended_at: i64) -> ScoreRow {
    ScoreRow {
        name: name.into(),
        score,
        level: 2,
        deepest: 3,
        kills: 4,
        turns: 50,
        outcome: "killed by a Micro Mouse on floor 3".into(),
        dungeon: dungeon.into(),
        ended_at,
    }
}

fn game(dungeon: DungeonId, name: &str, player_id: u32, end_seq: u64) -> NewGame {
    NewGame {
        score: row(name, "crypt", 10, 100),
        dungeon_id: dungeon,
        player_id,
        victory: false,
        started_at: None,
        start_seq: None,
        end_seq,
        view_key: None,
        engine: "test engine".into(),
        end_hash: "h".into(),
        keep_replay: true,
    }
}

fn count(dir: &std::path::Path, sql: &str) -> i64 {
    Connection::open(db_path(dir))
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_living_characters_journal_outlives_snapshots_and_is_cut_into_its_replay() {
    let tmp = TempDir::new().unwrap();
    let store = open(tmp.path());
    let d = store
        .create_dungeon("crypt", 7, None, "{}", "c")
        .unwrap()
        .id;
    let token = token_hash("t");
    for seq in 1..=4 {
        store
            .append_journal(d, seq, vec![seq as u8])
            .wait()
            .unwrap();
    }
    store
        .save_snapshot(d, 4, b"world@4".to_vec(), "h4".into(), true)
        .wait()
        .unwrap();
    // Entry 6 makes Ann.
    for seq in 5..=6 {
        store
            .append_journal(d, seq, vec![seq as u8])
            .wait()
            .unwrap();
    }
    store
        .put_new_character(d, 1, "Ann".into(), token, None, Some(6))
        .wait()
        .unwrap();
    for seq in 7..=12 {
        store
            .append_journal(d, seq, vec![seq as u8])
            .wait()
            .unwrap();
    }
    // Two more snapshots: neither may take what Ann's game needs (the snapshot at 4, which is
    // at or before her start, and everything after it).
    for at in [8, 12] {
        store
            .save_snapshot(d, at, format!("world@{at}").into_bytes(), "h".into(), true)
            .wait()
            .unwrap();
    }
    let q = format!("SELECT count(*) FROM journal WHERE dungeon_id = {d}");
    assert_eq!(count(tmp.path(), &q), 8, "entries 5 to 12 are kept");
    let q = format!("SELECT group_concat(seq) FROM snapshots WHERE dungeon_id = {d}");
    let kept: String = Connection::open(db_path(tmp.path()))
        .unwrap()
        .query_row(&q, [], |r| r.get(0))
        .unwrap();
    assert_eq!(kept, "4,12", "her base and the newest; the one at 8 went");
    // The dungeon still loads from its newest snapshot.
    let saved = store.load(d).unwrap();
    assert_eq!(saved.snapshot.as_ref().map(|s| s.0), Some(12));
    assert_eq!(saved.check(), Ok(()));

    // Ann dies in entry 14.
    for seq in 13..=14 {
        store
            .append_journal(d, seq, vec![seq as u8])
            .wait()
            .unwrap();
    }
    let added = store.add_game(game(d, "Ann", 1, 14)).wait().unwrap();
    assert_eq!(added.start_seq, Some(6));
    assert!(added.started_at.is_some_and(|t| t > 0));
    let slice = added.slice.expect("the slice is cut");
    assert_eq!(slice.seed, 7);
    assert_eq!(slice.base_seq, 4);
    assert_eq!(slice.base.as_deref(), Some(&b"world@4"[..]));
    assert_eq!(
        slice.entries,
        (5..=14).map(|s| vec![s as u8]).collect::<Vec<_>>()
    );
    assert_eq!(store.replay(added.id).unwrap(), Some(slice.clone()));
    let g = store.game(added.id).unwrap().unwrap();
    assert_eq!(g.replay_bytes, Some(slice.pack().len() as u64));
    assert_eq!((g.start_seq, g.end_seq), (Some(6), Some(14)));

    // Her game is recorded: the next snapshot compacts as if she had never been.
    store
        .save_snapshot(d, 14, b"world@14".to_vec(), "h".into(), true)
        .wait()
        .unwrap();
    let q = format!("SELECT count(*) FROM journal WHERE dungeon_id = {d}");
    assert_eq!(count(tmp.path(), &q), 0);
    let q = format!("SELECT count(*) FROM snapshots WHERE dungeon_id = {d}");
    assert_eq!(count(tmp.path(), &q), 1);
    // The replay stays.
    assert_eq!(store.replay(added.id).unwrap(), Some(slice));
}

#[test]
fn a_game_without_a_kept_journal_is_recorded_without_a_replay() {
    let tmp = TempDir::new().unwrap();
    let store = open(tmp.path());
    let d = store.create_dungeon("old", 1, None, "{}", "c").unwrap().id;
    // A character from before schema 5: no start_seq, and its journal compacted away.
    store
        .put_character(d, 3, "Cy".into(), token_hash("x"), None)
        .wait()
        .unwrap();
    let added = store.add_game(game(d, "Cy", 3, 40)).wait().unwrap();
    assert_eq!((added.start_seq, added.slice), (None, None));
    // One that says where it started, but whose entries are gone, gets none either.
    let mut g = game(d, "Dee", 4, 40);
    g.start_seq = Some(10);
    let added = store.add_game(g).wait().unwrap();
    assert_eq!(added.slice, None);
    assert_eq!(store.replay(added.id).unwrap(), None);
    assert_eq!(store.game(added.id).unwrap().unwrap().replay_bytes, None);
}

#[test]
fn games_are_listed_newest_or_best_filtered_paged_and_private_ones_kept_back() {
    let tmp = TempDir::new().unwrap();
    let store = open(tmp.path());
    let open_d = store
        .create_dungeon("Crypt", 1, None, "{}", "c")
        .unwrap()
        .id;
    let vault = store
        .create_dungeon("vault", 2, Some("$argon2id$x"), "{}", "c")
        .unwrap()
        .id;
    let mut ids = Vec::new();
    for (k, (name, d, score)) in [
        ("Ann", open_d, 30),
        ("Bob", open_d, 50),
        ("ann", vault, 90),
        ("Zoë", open_d, 10),
    ]
    .into_iter()
    .enumerate()
    {
        let mut g = game(d, name, k as u32, 1);
        g.score = row(
            name,
            if d == vault { "vault" } else { "Crypt" },
            score,
            k as i64,
        );
        ids.push(store.add_game(g).wait().unwrap().id);
    }
    let names = |q: GameQuery| -> Vec<String> {
        store
            .games(&q)
            .unwrap()
            .into_iter()
            .map(|g| g.score.name)
            .collect()
    };
    let all = GameQuery {
        limit: 10,
        ..GameQuery::default()
    };
    assert_eq!(
        names(all.clone()),
        ["Zoë", "Bob", "Ann"],
        "newest first, no private"
    );
    let best = GameQuery {
        order: Order::Best,
        ..all.clone()
    };
    assert_eq!(names(best.clone()), ["Bob", "Ann", "Zoë"]);
    let with_vault = GameQuery {
        private_ok: Some("VAULT".into()),
        ..best.clone()
    };
    assert_eq!(names(with_vault), ["ann", "Bob", "Ann", "Zoë"]);
    let by_name = GameQuery {
        name: Some("ANN".into()),
        private_ok: Some("vault".into()),
        ..all.clone()
    };
    assert_eq!(names(by_name), ["ann", "Ann"], "any case");
    let by_name = GameQuery {
        name: Some("zoë".into()),
        ..all.clone()
    };
    assert_eq!(names(by_name), ["Zoë"], "not only ASCII");
    let crypt = GameQuery {
        dungeon: Some("crypt".into()),
        ..all.clone()
    };
    assert_eq!(names(crypt), ["Zoë", "Bob", "Ann"]);
    let vault_only = GameQuery {
        dungeon: Some("vault".into()),
        ..all.clone()
    };
    assert!(names(vault_only).is_empty(), "not without its password");
    // Pages: two at a time, then what is older than the last.
    let first = store
        .games(&GameQuery {
            limit: 2,
            ..all.clone()
        })
        .unwrap();
    assert_eq!(first.len(), 2);
    let next = GameQuery {
        limit: 2,
        before: Some(first[1].id),
        ..all.clone()
    };
    assert_eq!(names(next), ["Ann"]);
    let g = store.game(ids[2]).unwrap().unwrap();
    assert!(g.private && g.dungeon_id == Some(vault));
}

#[test]
fn scores_of_a_version_4_database_become_games() {
    let tmp = TempDir::new().unwrap();
    let db = db_path(tmp.path());
    {
        let conn = Connection::open(&db).unwrap();
        for m in &MIGRATIONS[..4] {
            conn.execute_batch(m).unwrap();
        }
        conn.pragma_update(None, "application_id", APPLICATION_ID)
            .unwrap();
        conn.pragma_update(None, "user_version", 4).unwrap();
        conn.execute_batch(
            "INSERT INTO dungeons (id, key, name, seed, password_hash, settings, content_hash,
                                   created_at)
             VALUES (1, 'crypt', 'Crypt', 5, NULL, '{}', 'c', 1),
                    (2, 'vault', 'vault', 6, '$argon2id$x', '{}', 'c', 1);
             INSERT INTO scores (name, score, level, deepest, kills, turns, outcome, dungeon,
                                 ended_at)
             VALUES ('Ann', 40, 2, 3, 4, 100, 'killed by a Rat on floor 3', 'Crypt', 10),
                    ('Cy', 6005, 4, 1, 1, 18, 'won', 'vault', 20);",
        )
        .unwrap();
    }
    let store = open(tmp.path());
    assert_eq!(
        store
            .top_scores(10)
            .unwrap()
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>(),
        ["Cy", "Ann"],
        "the operator sees every game"
    );
    let public = store
        .games(&GameQuery {
            limit: 10,
            ..GameQuery::default()
        })
        .unwrap();
    assert_eq!(public.len(), 1, "the private dungeon's game is kept back");
    assert_eq!(public[0].score, row_like("Ann"));
    assert_eq!(public[0].dump, None);
    let cy = store
        .games(&GameQuery {
            limit: 10,
            private_ok: Some("vault".into()),
            ..GameQuery::default()
        })
        .unwrap()
        .into_iter()
        .find(|g| g.score.name == "Cy")
        .unwrap();
    assert!(cy.victory && cy.private);
    let tables = count(
        tmp.path(),
        "SELECT count(*) FROM sqlite_schema WHERE name = 'scores'",
    );
    assert_eq!(tables, 0, "the old table is gone");
}

fn row_like(name: &str) -> ScoreRow {
    ScoreRow {
        name: name.into(),
        score: 40,
        level: 2,
        deepest: 3,
        kills: 4,
        turns: 100,
        outcome: "killed by a Rat on floor 3".into(),
        dungeon: "Crypt".into(),
        ended_at: 10,
    }
}

#[test]
fn replays_expire_by_age_then_the_oldest_over_the_budget() {
    let tmp = TempDir::new().unwrap();
    let store = open(tmp.path());
    let d = store
        .create_dungeon("crypt", 7, None, "{}", "c")
        .unwrap()
        .id;
    let mut ids = Vec::new();
    for player in 0..4u32 {
        let seq = u64::from(player) + 1;
        store.append_journal(d, seq, vec![0; 64]).wait().unwrap();
        store
            .put_new_character(
                d,
                player,
                format!("P{player}"),
                token_hash("t"),
                None,
                Some(seq),
            )
            .wait()
            .unwrap();
    }
    for player in 0..4u32 {
        let g = game(d, &format!("P{player}"), player, 4);
        ids.push(store.add_game(g).wait().unwrap().id);
    }
    // Kept at different times, oldest first.
    let conn = Connection::open(db_path(tmp.path())).unwrap();
    for (k, id) in ids.iter().enumerate() {
        conn.execute(
            "UPDATE replays SET kept_at = ?1 WHERE game_id = ?2",
            [1000 + k as i64 * 100, *id],
        )
        .unwrap();
    }
    let (n, bytes) = store.replay_totals().unwrap();
    assert_eq!(n, 4);
    // Older than 1050: the first goes.
    assert_eq!(store.expire_replays(1050, u64::MAX).wait().unwrap(), 1);
    // A budget for two: the oldest of the three left goes.
    let each = bytes / 4;
    assert_eq!(store.expire_replays(0, 2 * each + 1).wait().unwrap(), 1);
    let kept: Vec<bool> = ids
        .iter()
        .map(|id| store.replay(*id).unwrap().is_some())
        .collect();
    assert_eq!(kept, [false, false, true, true]);
    // The games stay, only their replays went.
    assert!(store.game(ids[0]).unwrap().is_some());
}

#[test]
fn a_slice_packs_small_and_unpacks_the_same() {
    let slice = ReplaySlice {
        seed: u64::MAX,
        base_seq: 9,
        base: Some(vec![7; 5000]),
        entries: (0..1000).map(|k| vec![1, 2, (k % 7) as u8]).collect(),
    };
    let packed = slice.pack();
    assert!(packed.len() < 600, "{} bytes", packed.len());
    assert_eq!(ReplaySlice::unpack(&packed).unwrap(), slice);
    assert!(ReplaySlice::unpack(b"nonsense").is_err());
}
