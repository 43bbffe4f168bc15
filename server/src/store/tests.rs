//! Tests of the store against the real SQLite, each in its own temporary directory.

use std::fs;
use std::path::Path;
use std::time::Duration;

use rusqlite::Connection;
use tempfile::TempDir;

use super::schema::{APPLICATION_ID, MIGRATIONS, latest_version};
use super::*;

fn open(dir: &Path) -> Store {
    Store::open(dir, StoreOptions::default()).expect("open the store")
}

fn new_dungeon(store: &Store, name: &str) -> DungeonId {
    store
        .create_dungeon(name, 42, None, "{}", "content-v1")
        .expect("create dungeon")
        .id
}

/// A plain connection to the store's file, to look at it behind the store's back.
fn raw(dir: &Path) -> Connection {
    Connection::open(db_path(dir)).expect("raw connection")
}

fn count(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |row| row.get(0)).expect("count")
}

/// Takes SQLite's write lock from another connection, so that the writer thread blocks on its
/// next BEGIN and commands pile up in its channel. Roll back to release it.
fn hold_write_lock(dir: &Path) -> Connection {
    let conn = raw(dir);
    conn.execute_batch("BEGIN IMMEDIATE")
        .expect("take the write lock");
    conn
}

/// Deterministic noise (an LCG), so failures reproduce.
fn noise(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..len)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 56) as u8
        })
        .collect()
}

/// Whether this process may write into a directory whose mode forbids it (root may).
#[cfg(unix)]
fn permissions_are_bypassed(dir: &Path) -> bool {
    fs::write(dir.join(".probe"), b"x").is_ok()
}

#[test]
fn handles_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Store>();
    check::<Ack>();
    check::<StoreError>();
}

#[test]
fn creates_the_directory_and_reopening_keeps_every_kind_of_row() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("a").join("b");
    let token = token_hash("secret token");
    {
        let store = open(&dir);
        let d = store
            .create_dungeon(
                "Mouse Hole",
                u64::MAX,
                Some("$argon2id$x"),
                r#"{"turn":2}"#,
                "c1",
            )
            .unwrap();
        store.append_journal(d.id, 1, vec![1, 2, 3]).wait().unwrap();
        store
            .save_snapshot(d.id, 1, vec![9; 10], "h1".into(), true)
            .wait()
            .unwrap();
        store.append_journal(d.id, 2, vec![4]).wait().unwrap();
        store
            .put_character(d.id, 7, "Ann".into(), token, None)
            .wait()
            .unwrap();
        store.add_score(score("Ann", 10, 5)).wait().unwrap();
    }
    assert!(
        db_path(&dir).is_file(),
        "the database file is in the data dir"
    );

    let store = open(&dir);
    let d = store
        .find_dungeon("mouse hole")
        .unwrap()
        .expect("dungeon kept");
    assert_eq!(d.name, "Mouse Hole");
    assert_eq!(d.key, "mouse hole");
    assert_eq!(d.seed, u64::MAX, "a u64 seed survives the i64 column");
    assert_eq!(d.password_hash.as_deref(), Some("$argon2id$x"));
    assert_eq!(d.settings, r#"{"turn":2}"#);
    assert_eq!(d.content_hash, "c1");
    assert!(d.created_at > 1_600_000_000, "created_at is unix seconds");
    assert_eq!(
        store.load(d.id).unwrap(),
        Saved {
            snapshot: Some((1, vec![9; 10], "h1".into())),
            journal: vec![(2, vec![4])],
            saved_seq: 1,
        }
    );
    let rows = store.characters(d.id).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows[0],
        CharacterRow {
            player_id: 7,
            name: "Ann".into(),
            token_hash: token,
            origin: None,
            last_seen: rows[0].last_seen,
        }
    );
    assert!(
        rows[0].last_seen.is_some_and(|t| t > 0),
        "put notes when it was seen"
    );
    assert_eq!(store.top_scores(10).unwrap(), vec![score("Ann", 10, 5)]);
}

#[test]
fn migrations_set_the_version_the_application_id_and_wal() {
    let tmp = TempDir::new().unwrap();
    drop(open(tmp.path()));
    let conn = raw(tmp.path());
    let version: i64 = conn.pragma_query_one(None, "user_version").unwrap();
    let app_id: i64 = conn.pragma_query_one(None, "application_id").unwrap();
    let mode: String = conn.pragma_query_one(None, "journal_mode").unwrap();
    assert_eq!(version, latest_version());
    assert_eq!(version, MIGRATIONS.len() as i64);
    assert_eq!(app_id, APPLICATION_ID);
    assert_eq!(mode, "wal");
    for table in [
        "dungeons",
        "snapshots",
        "journal",
        "characters",
        "games",
        "replays",
    ] {
        let n = conn
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1",
                [table],
                |row| row.get::<_, i64>(0),
            )
            .unwrap();
        assert_eq!(n, 1, "table {table} exists");
    }
    drop(conn);
    // Reopening an up-to-date file applies nothing and keeps the version.
    drop(open(tmp.path()));
    let version: i64 = raw(tmp.path())
        .pragma_query_one(None, "user_version")
        .unwrap();
    assert_eq!(version, latest_version());
}

#[test]
fn journal_is_loaded_in_sequence_order_and_per_dungeon() {
    let tmp = TempDir::new().unwrap();
    let store = open(tmp.path());
    let a = new_dungeon(&store, "a");
    let b = new_dungeon(&store, "b");
    for seq in [3u64, 1, 2, 5, 4] {
        store
            .append_journal(a, seq, vec![seq as u8; 3])
            .wait()
            .unwrap();
    }
    store.append_journal(b, 1, vec![200]).wait().unwrap();

    let saved = store.load(a).unwrap();
    assert_eq!(saved.snapshot, None);
    let seqs: Vec<u64> = saved.journal.iter().map(|(s, _)| *s).collect();
    assert_eq!(seqs, [1, 2, 3, 4, 5]);
    assert!(saved.journal.iter().all(|(s, e)| *e == vec![*s as u8; 3]));
    assert_eq!(store.load(b).unwrap().journal, vec![(1, vec![200])]);
    assert_eq!(store.load(999).unwrap(), Saved::default());

    // A sequence number is written once.
    let again = store.append_journal(a, 3, vec![0]).wait();
    assert!(matches!(again, Err(StoreError::Sqlite { .. })), "{again:?}");
    assert_eq!(store.load(a).unwrap().journal[2], (3, vec![3; 3]));
}

#[test]
fn snapshot_compacts_the_journal_and_older_snapshots() {
    let tmp = TempDir::new().unwrap();
    let store = open(tmp.path());
    let d = new_dungeon(&store, "d");
    let other = new_dungeon(&store, "other");
    for seq in 1..=10 {
        store
            .append_journal(d, seq, vec![seq as u8])
            .wait()
            .unwrap();
    }
    store.append_journal(other, 1, vec![1]).wait().unwrap();
    store
        .save_snapshot(other, 1, vec![0], "o".into(), true)
        .wait()
        .unwrap();

    store
        .save_snapshot(d, 6, b"world@6".to_vec(), "h6".into(), true)
        .wait()
        .unwrap();
    let saved = store.load(d).unwrap();
    assert_eq!(saved.snapshot, Some((6, b"world@6".to_vec(), "h6".into())));
    assert_eq!(
        saved.journal,
        (7..=10).map(|s| (s, vec![s as u8])).collect::<Vec<_>>()
    );
    let conn = raw(tmp.path());
    let q = format!("SELECT count(*) FROM journal WHERE dungeon_id = {d}");
    assert_eq!(count(&conn, &q), 4, "entries up to 6 were deleted");

    store
        .save_snapshot(d, 9, b"world@9".to_vec(), "h9".into(), true)
        .wait()
        .unwrap();
    store.append_journal(d, 11, vec![11]).wait().unwrap();
    let q = format!("SELECT count(*) FROM snapshots WHERE dungeon_id = {d}");
    assert_eq!(count(&conn, &q), 1, "the older snapshot was deleted");
    let saved = store.load(d).unwrap();
    assert_eq!(saved.snapshot, Some((9, b"world@9".to_vec(), "h9".into())));
    assert_eq!(saved.journal, vec![(10, vec![10]), (11, vec![11])]);

    // Another dungeon's rows are untouched by this one's compaction.
    let o = store.load(other).unwrap();
    assert_eq!(o.snapshot, Some((1, vec![0], "o".into())));
    assert!(o.journal.is_empty());

    // Without compaction the journal keeps everything; `load` still starts at the snapshot.
    store
        .save_snapshot(d, 11, b"world@11".to_vec(), "h11".into(), false)
        .wait()
        .unwrap();
    let saved = store.load(d).unwrap();
    assert_eq!(
        saved.snapshot,
        Some((11, b"world@11".to_vec(), "h11".into()))
    );
    assert!(saved.journal.is_empty());
    assert_eq!(
        store.journal(d).unwrap(),
        vec![(10, vec![10]), (11, vec![11])],
        "entries 10 and 11 were kept"
    );
}

#[tokio::test]
async fn group_commit_puts_many_waiting_commands_in_one_transaction() {
    let tmp = TempDir::new().unwrap();
    let store = open(tmp.path());
    let d = new_dungeon(&store, "d");
    let before = store.stats();

    // The writer blocks on the lock after taking at most the first command; the other 999 wait
    // in the channel and must then be committed together.
    let lock = hold_write_lock(tmp.path());
    let acks: Vec<Ack> = (1..=1000u64)
        .map(|seq| store.append_journal(d, seq, seq.to_le_bytes().to_vec()))
        .collect();
    tokio::time::sleep(Duration::from_millis(100)).await;
    lock.execute_batch("ROLLBACK").unwrap();
    for ack in acks {
        ack.await.expect("every append is committed");
    }

    let after = store.stats();
    let transactions = after.transactions - before.transactions;
    assert_eq!(after.commands - before.commands, 1000);
    assert!(
        transactions <= 3,
        "1000 queued appends took {transactions} transactions; group commit should need 1 or 2"
    );
    let journal = store.load(d).unwrap().journal;
    assert_eq!(journal.len(), 1000);
    assert!(
        journal
            .iter()
            .zip(1u64..)
            .all(|((seq, entry), want)| *seq == want && *entry == want.to_le_bytes())
    );
}

#[test]
fn a_failing_command_does_not_sink_the_rest_of_its_batch() {
    let tmp = TempDir::new().unwrap();
    let store = open(tmp.path());
    let d = new_dungeon(&store, "d");

    let lock = hold_write_lock(tmp.path());
    let first = store.append_journal(d, 1, vec![1]);
    let unknown_dungeon = store.append_journal(d + 1000, 1, vec![1]);
    let duplicate = store.append_journal(d, 1, vec![99]);
    let second = store.append_journal(d, 2, vec![2]);
    let character = store.put_character(d, 1, "Bo".into(), [7; 32], None);
    let score = store.add_score(score("Bo", 3, 1));
    std::thread::sleep(Duration::from_millis(100));
    lock.execute_batch("ROLLBACK").unwrap();

    first.wait().unwrap();
    let err = unknown_dungeon.wait().unwrap_err();
    assert!(err.to_string().contains("FOREIGN KEY"), "{err}");
    assert!(duplicate.wait().is_err(), "seq 1 is taken");
    second.wait().unwrap();
    character.wait().unwrap();
    score.wait().unwrap();

    assert_eq!(
        store.load(d).unwrap().journal,
        vec![(1, vec![1]), (2, vec![2])],
        "the good writes committed, the duplicate did not overwrite"
    );
    assert_eq!(store.characters(d).unwrap().len(), 1);
    assert_eq!(store.top_scores(5).unwrap().len(), 1);
    assert!(store.load(d + 1000).unwrap().journal.is_empty());
}

#[test]
fn flush_waits_for_earlier_writes_and_drop_commits_pending_ones() {
    let tmp = TempDir::new().unwrap();
    {
        let store = open(tmp.path());
        let d = new_dungeon(&store, "d");
        for seq in 1..=300 {
            // Nobody waits for these acks.
            drop(store.append_journal(d, seq, vec![0; 16]));
        }
        store.flush().wait().unwrap();
        assert_eq!(
            count(&raw(tmp.path()), "SELECT count(*) FROM journal"),
            300,
            "flush resolved only after the earlier appends were committed"
        );
        for seq in 301..=600 {
            drop(store.append_journal(d, seq, vec![0; 16]));
        }
        let clone = store.clone();
        drop(store);
        drop(clone); // the last handle: drains the channel and joins the writer
    }
    assert_eq!(
        count(&raw(tmp.path()), "SELECT count(*) FROM journal"),
        600,
        "dropping the store committed what was still queued"
    );
}

#[test]
fn ack_wait_works_inside_a_tokio_runtime() {
    let tmp = TempDir::new().unwrap();
    let store = open(tmp.path());
    let d = new_dungeon(&store, "d");
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        // tokio's blocking_recv would panic here; Pending::wait must not.
        store.append_journal(d, 1, vec![1]).wait().unwrap();
        store.append_journal(d, 2, vec![2]).await.unwrap();
    });
    assert_eq!(store.load(d).unwrap().journal.len(), 2);
}

#[test]
fn create_dungeon_refuses_a_name_taken_in_any_case_and_bad_settings() {
    let tmp = TempDir::new().unwrap();
    let store = open(tmp.path());
    let first = store.create_dungeon("The Pit", 1, None, "{}", "c").unwrap();
    let second = store.create_dungeon("Cellar", 2, None, "{}", "c").unwrap();
    assert_ne!(first.id, second.id);

    let err = store
        .create_dungeon("the PIT", 3, None, "{}", "c")
        .unwrap_err();
    assert!(matches!(err, StoreError::DungeonExists { .. }), "{err:?}");
    assert!(err.to_string().contains("the PIT"), "{err}");
    assert_eq!(store.find_dungeon("THE PIT").unwrap(), Some(first.clone()));
    assert_eq!(store.find_dungeon("nowhere").unwrap(), None);

    let err = store
        .create_dungeon("Bad", 3, None, "{not json", "c")
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid { .. }), "{err:?}");
    assert_eq!(store.find_dungeon("bad").unwrap(), None);

    let names: Vec<String> = store
        .list_dungeons()
        .unwrap()
        .into_iter()
        .map(|d| d.name)
        .collect();
    assert_eq!(names, ["The Pit", "Cellar"]);
}

fn score(name: &str, score: u64, ended_at: i64) -> ScoreRow {
    ScoreRow {
        name: name.into(),
        score,
        level: 3,
        deepest: 6,
        kills: 12,
        turns: 4321,
        outcome: "killed by a Rabid Mouse on floor 6".into(),
        dungeon: "The Pit".into(),
        ended_at,
    }
}

#[test]
fn scores_come_highest_first_ties_by_earlier_end_and_limited() {
    let tmp = TempDir::new().unwrap();
    let store = open(tmp.path());
    for row in [
        score("low", 5, 1),
        score("tie-late", 50, 300),
        score("top", 90, 2),
        score("tie-early", 50, 100),
        score("mid", 20, 3),
    ] {
        store.add_score(row).wait().unwrap();
    }
    let names = |limit| -> Vec<String> {
        store
            .top_scores(limit)
            .unwrap()
            .into_iter()
            .map(|s| s.name)
            .collect()
    };
    assert_eq!(names(10), ["top", "tie-early", "tie-late", "mid", "low"]);
    assert_eq!(names(2), ["top", "tie-early"]);
    assert!(names(0).is_empty());
    let mut victory = score("winner", 1000, 5);
    victory.outcome = "victory".into();
    store.add_score(victory.clone()).wait().unwrap();
    assert_eq!(store.top_scores(1).unwrap(), vec![victory]);
}

#[test]
fn put_character_replaces_and_delete_removes() {
    let tmp = TempDir::new().unwrap();
    let store = open(tmp.path());
    let d = new_dungeon(&store, "d");
    let e = new_dungeon(&store, "e");
    store
        .put_character(d, 2, "Cy".into(), token_hash("one"), None)
        .wait()
        .unwrap();
    store
        .put_character(d, 1, "Al".into(), token_hash("two"), None)
        .wait()
        .unwrap();
    store
        .put_character(e, 1, "Other".into(), token_hash("x"), None)
        .wait()
        .unwrap();
    store
        .put_character(
            d,
            2,
            "Cyd".into(),
            token_hash("three"),
            Some("192.0.2.1".into()),
        )
        .wait()
        .unwrap();

    let rows = store.characters(d).unwrap();
    assert_eq!(rows.len(), 2, "the second put replaced the first");
    assert_eq!((rows[0].player_id, rows[0].name.as_str()), (1, "Al"));
    assert_eq!((rows[1].player_id, rows[1].name.as_str()), (2, "Cyd"));
    assert!(token_matches("three", &rows[1].token_hash));
    assert!(!token_matches("one", &rows[1].token_hash));
    assert_eq!(rows[1].origin.as_deref(), Some("192.0.2.1"));
    let seen = rows[1].last_seen.expect("seen when put");
    store.touch_character(d, 2).wait().unwrap();
    let touched = store.characters(d).unwrap()[1].last_seen;
    assert!(
        touched.is_some_and(|t| t >= seen),
        "{touched:?} after {seen}"
    );

    store.delete_character(d, 1).wait().unwrap();
    store.delete_character(d, 42).wait().unwrap();
    let rows = store.characters(d).unwrap();
    assert_eq!(rows.iter().map(|r| r.player_id).collect::<Vec<_>>(), [2]);
    assert_eq!(store.characters(e).unwrap().len(), 1);
}

#[test]
fn token_hash_is_sha256_and_comparison_is_exact() {
    let abc = token_hash("abc");
    let hex: String = abc.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        hex,
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert!(hashes_equal(&abc, &token_hash("abc")));
    assert!(!hashes_equal(&abc, &token_hash("abd")));
    let mut last_bit = abc;
    last_bit[31] ^= 1;
    assert!(!hashes_equal(&abc, &last_bit));
    assert!(token_matches("abc", &abc));
}

#[test]
fn values_beyond_i64_are_refused_not_wrapped() {
    let tmp = TempDir::new().unwrap();
    let store = open(tmp.path());
    let d = new_dungeon(&store, "d");
    let err = store
        .append_journal(d, u64::MAX, vec![])
        .wait()
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid { .. }), "{err:?}");
    let mut s = score("big", u64::MAX, 1);
    assert!(store.add_score(s.clone()).wait().is_err());
    s.score = 1;
    s.turns = u64::MAX;
    assert!(store.add_score(s).wait().is_err());
    assert!(store.load(d).unwrap().journal.is_empty());
    assert!(store.top_scores(10).unwrap().is_empty());
}

// ----- refusing bad storage -----

#[test]
fn a_data_dir_under_a_regular_file_is_refused() {
    let tmp = TempDir::new().unwrap();
    let file = tmp.path().join("not-a-dir");
    fs::write(&file, b"keep me").unwrap();
    let dir = file.join("data");
    let err = Store::open(&dir, StoreOptions::default()).unwrap_err();
    assert!(matches!(err, StoreError::DataDir { .. }), "{err:?}");
    assert!(err.to_string().contains(&*dir.to_string_lossy()), "{err}");
    assert_eq!(fs::read(&file).unwrap(), b"keep me");

    // The data dir itself being a file is refused the same way.
    let err = Store::open(&file, StoreOptions::default()).unwrap_err();
    assert!(matches!(err, StoreError::DataDir { .. }), "{err:?}");
    assert_eq!(fs::read(&file).unwrap(), b"keep me");
}

#[cfg(unix)]
#[test]
fn a_read_only_data_dir_or_file_is_refused() {
    use std::os::unix::fs::PermissionsExt;

    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("ro");
    fs::create_dir(&dir).unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o500)).unwrap();
    if permissions_are_bypassed(&dir) {
        // Running as root: modes do not stop writes. The regular-file test covers this case.
        eprintln!("skipped: this process ignores file modes (root?)");
        return;
    }
    let err = Store::open(&dir, StoreOptions::default()).unwrap_err();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).unwrap();
    assert!(matches!(err, StoreError::Unwritable { .. }), "{err:?}");
    assert!(err.to_string().contains(&*dir.to_string_lossy()), "{err}");
    assert_eq!(
        fs::read_dir(&dir).unwrap().count(),
        0,
        "nothing was created"
    );

    // A database file this user may not write.
    let data = tmp.path().join("rofile");
    {
        let store = open(&data);
        new_dungeon(&store, "keep");
    }
    let db = db_path(&data);
    fs::set_permissions(&db, fs::Permissions::from_mode(0o400)).unwrap();
    let bytes = fs::read(&db).unwrap();
    let err = Store::open(&data, StoreOptions::default()).unwrap_err();
    assert!(matches!(err, StoreError::Unwritable { .. }), "{err:?}");
    assert_eq!(fs::read(&db).unwrap(), bytes, "the file is unchanged");
}

#[test]
fn a_file_of_random_bytes_is_refused_and_left_untouched() {
    let tmp = TempDir::new().unwrap();
    let db = db_path(tmp.path());
    let bytes = noise(3 * 4096 + 17);
    fs::write(&db, &bytes).unwrap();

    let err = Store::open(tmp.path(), StoreOptions::default()).unwrap_err();
    assert!(matches!(err, StoreError::NotADatabase { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains(&*db.to_string_lossy()), "{message}");
    assert!(message.contains("not a database"), "{message}");
    assert_eq!(fs::read(&db).unwrap(), bytes, "the file is unchanged");
}

#[test]
fn a_database_with_damaged_pages_is_refused_and_left_untouched() {
    let tmp = TempDir::new().unwrap();
    {
        let store = open(tmp.path());
        let d = new_dungeon(&store, "d");
        for seq in 1..=200 {
            drop(store.append_journal(d, seq, vec![seq as u8; 200]));
        }
        store.flush().wait().unwrap();
    }
    let db = db_path(tmp.path());
    let good = fs::read(&db).unwrap();
    let page = 4096;
    let last = good.len() / page - 1;
    assert!(last >= 8, "several b-tree pages to damage");
    // Page 1 (header and schema) stays intact in both cases.
    let damages: [(&str, usize, &[u8]); 2] = [
        // SQLite fails the check itself: "database disk image is malformed".
        ("page headers overwritten", 2 * page, &noise(4 * page)),
        // quick_check reports rows ("Page N: free space corruption").
        ("one cell-area offset zeroed", last * page + 5, &[0, 0]),
    ];
    for (what, at, patch) in damages {
        let mut bytes = good.clone();
        bytes[at..at + patch.len()].copy_from_slice(patch);
        fs::write(&db, &bytes).unwrap();

        let err = Store::open(tmp.path(), StoreOptions::default()).unwrap_err();
        assert!(matches!(err, StoreError::Corrupt { .. }), "{what}: {err:?}");
        assert!(err.to_string().contains(&*db.to_string_lossy()), "{err}");
        assert_eq!(
            fs::read(&db).unwrap(),
            bytes,
            "{what}: the file is unchanged"
        );
    }
}

#[test]
fn an_older_schema_is_migrated_and_keeps_its_rows() {
    let tmp = TempDir::new().unwrap();
    let db = db_path(tmp.path());
    {
        // A version-1 database, as the first release wrote it.
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch(MIGRATIONS[0]).unwrap();
        conn.pragma_update(None, "application_id", APPLICATION_ID)
            .unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        conn.execute(
            "INSERT INTO dungeons (key, name, seed, settings, content_hash, created_at)
             VALUES ('old', 'Old', 5, '{}', 'c', 1)",
            [],
        )
        .unwrap();
    }
    let store = open(tmp.path());
    let row = store
        .find_dungeon("old")
        .unwrap()
        .expect("the row survived");
    assert_eq!((row.name.as_str(), row.seed, row.deepest), ("Old", 5, 1));
    store.set_deepest(row.id, 4).wait().unwrap();
    store.set_deepest(row.id, 2).wait().unwrap();
    assert_eq!(
        store.find_dungeon("old").unwrap().unwrap().deepest,
        4,
        "only deeper counts"
    );
    drop(store);
    let version: i64 = raw(tmp.path())
        .pragma_query_one(None, "user_version")
        .unwrap();
    assert_eq!(version, latest_version());
}

#[test]
fn a_version_2_database_learns_which_snapshot_is_its_newest() {
    let tmp = TempDir::new().unwrap();
    let db = db_path(tmp.path());
    {
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch(MIGRATIONS[0]).unwrap();
        conn.execute_batch(MIGRATIONS[1]).unwrap();
        conn.pragma_update(None, "application_id", APPLICATION_ID)
            .unwrap();
        conn.pragma_update(None, "user_version", 2).unwrap();
        conn.execute_batch(
            "INSERT INTO dungeons (id, key, name, seed, settings, content_hash, created_at)
             VALUES (1, 'a', 'A', 5, '{}', 'c', 1), (2, 'b', 'B', 6, '{}', 'c', 1);
             INSERT INTO snapshots VALUES (1, 40, x'00', 'h', 1), (1, 80, x'01', 'h', 2);
             INSERT INTO journal VALUES (1, 81, x'02');",
        )
        .unwrap();
    }
    let store = open(tmp.path());
    let a = store.load(1).unwrap();
    assert_eq!(
        (a.saved_seq, a.snapshot.as_ref().map(|s| s.0)),
        (80, Some(80))
    );
    assert_eq!(a.check(), Ok(()));
    let b = store.load(2).unwrap();
    assert_eq!(b.saved_seq, 0, "a dungeon that never saved a snapshot");
    // A snapshot saved from now on is recorded beside its dungeon.
    store
        .save_snapshot(2, 3, vec![7], "h3".into(), true)
        .wait()
        .unwrap();
    assert_eq!(store.load(2).unwrap().saved_seq, 3);
}

#[test]
fn a_newer_schema_is_refused_and_left_untouched() {
    let tmp = TempDir::new().unwrap();
    let db = db_path(tmp.path());
    {
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch(
            // Rollback-journal mode: switching it to WAL would change the header.
            "CREATE TABLE future (x BLOB);
             INSERT INTO future VALUES (x'00112233');
             PRAGMA user_version = 99;",
        )
        .unwrap();
        conn.pragma_update(None, "application_id", APPLICATION_ID)
            .unwrap();
    }
    let bytes = fs::read(&db).unwrap();

    let err = Store::open(tmp.path(), StoreOptions::default()).unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::TooNew {
                found: 99,
                supported,
                ..
            } if supported == latest_version()
        ),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains(&format!(
            "the database at {} has schema version 99, newer than this server's {}: upgrade the server",
            db.display(),
            latest_version()
        )),
        "{message}"
    );
    assert_eq!(fs::read(&db).unwrap(), bytes, "the file is unchanged");
    let version: i64 = Connection::open(&db)
        .unwrap()
        .pragma_query_one(None, "user_version")
        .unwrap();
    assert_eq!(version, 99);
}

#[test]
fn another_programs_database_is_refused_and_left_untouched() {
    let tmp = TempDir::new().unwrap();
    let db = db_path(tmp.path());
    Connection::open(&db)
        .unwrap()
        .execute_batch("CREATE TABLE accounts (id INTEGER); INSERT INTO accounts VALUES (1);")
        .unwrap();
    let bytes = fs::read(&db).unwrap();

    let err = Store::open(tmp.path(), StoreOptions::default()).unwrap_err();
    assert!(matches!(err, StoreError::Foreign { .. }), "{err:?}");
    assert_eq!(fs::read(&db).unwrap(), bytes, "the file is unchanged");
}

#[test]
fn the_write_connection_uses_the_chosen_synchronous_level() {
    let tmp = TempDir::new().unwrap();
    let path = db_path(tmp.path());
    for (synchronous, want) in [(Synchronous::Normal, 1), (Synchronous::Full, 2)] {
        let options = StoreOptions {
            synchronous,
            ..StoreOptions::default()
        };
        let conn = schema::open_writer(&path, &options).unwrap();
        let level: i64 = conn.pragma_query_one(None, "synchronous").unwrap();
        assert_eq!(level, want, "{synchronous:?}");
        let fk: i64 = conn.pragma_query_one(None, "foreign_keys").unwrap();
        assert_eq!(fk, 1);
    }
    let store = Store::open(
        tmp.path(),
        StoreOptions {
            synchronous: Synchronous::Full,
            ..StoreOptions::default()
        },
    )
    .unwrap();
    let d = new_dungeon(&store, "d");
    store.append_journal(d, 1, vec![1]).wait().unwrap();
    assert_eq!(count(&raw(tmp.path()), "SELECT count(*) FROM journal"), 1);
}

#[test]
fn a_second_server_on_the_same_data_dir_is_refused_until_the_first_closes() {
    let tmp = TempDir::new().unwrap();
    let first = open(tmp.path());
    let err = Store::open(tmp.path(), StoreOptions::default()).unwrap_err();
    assert!(matches!(err, StoreError::InUse { .. }), "{err:?}");
    assert!(err.to_string().contains("another Delve server"), "{err}");
    // A reader without the lock (the offline commands) may still look.
    let reader = Store::open(
        tmp.path(),
        StoreOptions {
            exclusive: false,
            ..StoreOptions::default()
        },
    )
    .unwrap();
    drop(reader);
    drop(first);
    drop(open(tmp.path()));
}

#[test]
fn a_saved_dungeon_is_trusted_only_whole() {
    let snap = |seq: u64| Some((seq, vec![1], "h".to_string()));
    let entries = |seqs: &[u64]| seqs.iter().map(|s| (*s, vec![0])).collect::<Vec<_>>();
    let whole = [
        Saved::default(),
        Saved {
            snapshot: None,
            journal: entries(&[1, 2, 3]),
            saved_seq: 0,
        },
        Saved {
            snapshot: snap(40),
            journal: entries(&[41, 42]),
            saved_seq: 40,
        },
    ];
    for saved in whole {
        assert_eq!(saved.check(), Ok(()), "{saved:?}");
    }
    let broken = [
        // The snapshot row was deleted: without the record beside the dungeon this would be
        // rebuilt from the seed.
        (
            Saved {
                snapshot: None,
                journal: entries(&[41]),
                saved_seq: 40,
            },
            "missing",
        ),
        (
            Saved {
                snapshot: snap(40),
                journal: entries(&[41, 43]),
                saved_seq: 40,
            },
            "jumps from entry 41 to entry 43",
        ),
        (
            Saved {
                snapshot: snap(40),
                journal: entries(&[42]),
                saved_seq: 40,
            },
            "jumps from entry 40 to entry 42",
        ),
        (
            Saved {
                snapshot: snap(40),
                journal: Vec::new(),
                saved_seq: 80,
            },
            "one at entry 80 was saved",
        ),
        (
            Saved {
                snapshot: None,
                journal: entries(&[2, 3]),
                saved_seq: 0,
            },
            "jumps from entry 0 to entry 2",
        ),
    ];
    for (saved, why) in broken {
        let err = saved.check().unwrap_err();
        assert!(err.contains(why), "{err}");
    }
}
