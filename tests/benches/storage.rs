//! What the write-ahead journal costs a turn: the same turns resolved through the server's
//! `World` without storage (the baseline), with the journal in SQLite (WAL, synchronous=NORMAL,
//! the default: durable against the process being killed), and with synchronous=FULL (durable
//! against power loss too). Each turn's entry is committed before the call returns, as in the
//! server. Results: docs/BENCHMARKS.md.
//!
//! cargo bench -p delve-tests --bench storage

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use delve_protocol::Dir;
use delve_server::game::{Action, Content, Dungeon, Input};
use delve_server::net::world::{Journal, World};
use delve_server::store::{Store, StoreOptions, Synchronous};

/// A world with four characters on floor 1 and monsters about, journaled as given.
fn world(journal: Option<Journal>) -> World {
    let mut content = Content::builtin();
    content.player.hp = 1_000_000;
    let mut w = World::new(Dungeon::new(99, Arc::new(content)), journal);
    for name in ["Ann", "Bob", "Cy", "Di"] {
        w.step_blocking(Input::Join { name: name.into() })
            .expect("room on floor 1");
    }
    w
}

/// One turn: everyone steps the first way open to it (or waits), then the floor resolves.
fn turn(w: &mut World, k: usize) {
    let ids: Vec<u32> = w.players().map(|p| p.id()).collect();
    for (i, id) in ids.into_iter().enumerate() {
        let dir = Dir::ALL[(k + i) % Dir::ALL.len()];
        if w.step_blocking(Input::Choose {
            id,
            action: Action::Move { dir },
        })
        .is_err()
        {
            let _ = w.step_blocking(Input::Choose {
                id,
                action: Action::Wait,
            });
        }
    }
    let actions = w.choices(1);
    black_box(w.step_blocking(Input::Turn { depth: 1, actions }).ok());
}

fn journaled(sync: Synchronous) -> (tempfile::TempDir, World) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let store = Store::open(
        dir.path(),
        StoreOptions {
            synchronous: sync,
            ..StoreOptions::default()
        },
    )
    .expect("the database opens");
    let row = store
        .create_dungeon("bench", 99, None, "{}", "")
        .expect("a dungeon row");
    // No periodic snapshots: this measures the journal alone (snapshots are measured below).
    let journal = Journal::new(store, row.id, 0, 0, false);
    (dir, world(Some(journal)))
}

fn bench_journal(c: &mut Criterion) {
    let mut g = c.benchmark_group("turn");
    let mut k = 0;
    let mut plain = world(None);
    g.bench_function("no storage (baseline)", |b| {
        b.iter(|| {
            k += 1;
            turn(&mut plain, k);
        })
    });
    let (_dir, mut normal) = journaled(Synchronous::Normal);
    g.bench_function("journal, synchronous=NORMAL", |b| {
        b.iter(|| {
            k += 1;
            turn(&mut normal, k);
        })
    });
    let (_dir2, mut full) = journaled(Synchronous::Full);
    g.bench_function("journal, synchronous=FULL", |b| {
        b.iter(|| {
            k += 1;
            turn(&mut full, k);
        })
    });
    g.finish();

    let mut g = c.benchmark_group("snapshot");
    let (_dir3, mut w) = journaled(Synchronous::Normal);
    for i in 0..500 {
        turn(&mut w, i);
    }
    g.bench_function("save + hash the world", |b| {
        b.iter(|| black_box((w.save(), w.state_hash())))
    });
    g.bench_function("snapshot committed (save, hash, write, compact)", |b| {
        b.iter(|| {
            w.snapshot()
                .expect("journaled")
                .0
                .wait()
                .expect("committed")
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(4));
    targets = bench_journal
}
criterion_main!(benches);
