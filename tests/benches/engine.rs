//! Engine hot paths, each beside a baseline measured in the same run (the machine is shared
//! and noisy, so only ratios are compared). Results: docs/BENCHMARKS.md. Turns, updates over a
//! walk and floor generation are timed one by one in `benches/walk.rs`, for their tails.
//!
//! cargo bench -p delve-tests --bench engine

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use delve_protocol::{Dir, ServerMsg, encode};
use delve_server::game::mapgen::{GenParams, generate};
use std::sync::Arc;

use delve_server::game::{Action, Content, Dungeon, Input, Outcome, fov};
use delve_server::view::view_of;

/// A real floor and every open cell on it, to cast sight from.
fn floor() -> (Vec<bool>, usize, usize, Vec<(i32, i32)>) {
    let l = generate(1234, 1, true, &GenParams::default());
    let (w, h) = (l.map.width(), l.map.height());
    let opaque: Vec<bool> = l.map.cells().iter().map(|t| !t.is_walkable()).collect();
    let origins = (0..w * h)
        .filter(|&i| !opaque[i])
        .step_by(7)
        .map(|i| ((i % w) as i32, (i / w) as i32))
        .collect();
    (opaque, w, h, origins)
}

fn bench_fov(c: &mut Criterion) {
    let (opaque, w, h, origins) = floor();
    let mut g = c.benchmark_group("fov");
    let mut vis = vec![false; w * h];
    g.bench_function("reference crate, whole floor", |b| {
        b.iter(|| {
            for &(x, y) in &origins {
                let mut n = 0usize;
                symmetric_shadowcasting::compute_fov(
                    (x as isize, y as isize),
                    &mut |(px, py)| {
                        px < 0
                            || py < 0
                            || px as usize >= w
                            || py as usize >= h
                            || opaque[py as usize * w + px as usize]
                    },
                    &mut |_| n += 1,
                );
                black_box(n);
            }
        });
    });
    g.bench_function("delve, whole floor", |b| {
        b.iter(|| {
            for &(x, y) in &origins {
                fov::compute(&opaque, w, h, x, y, -1, &mut vis);
                black_box(&vis);
            }
        });
    });
    g.bench_function("delve, radius 8", |b| {
        b.iter(|| {
            for &(x, y) in &origins {
                fov::compute(&opaque, w, h, x, y, 8, &mut vis);
                black_box(&vis);
            }
        });
    });
    g.finish();
}

/// `action` as `id`'s choice, or a wait if it is refused.
fn choose(d: &mut Dungeon, id: u32, action: Action) {
    if d.step(&Input::Choose { id, action }).is_err() {
        let _ = d.step(&Input::Choose {
            id,
            action: Action::Wait,
        });
    }
}

/// Floor 1's turn, with the choices made for it.
fn resolve(d: &mut Dungeon) -> Outcome {
    let actions = d.choices(1);
    d.step(&Input::Turn { depth: 1, actions })
        .expect("a turn always resolves")
}

/// A dungeon with four players who have walked for a while among the monsters of floor 1, so
/// their memories are real. They are made too tough to die, so every turn measures the same work.
fn busy_dungeon() -> (Dungeon, Vec<u32>) {
    let mut content = Content::builtin();
    content.player.hp = 1_000_000;
    // A crowded floor: the monster phase is what grows with depth.
    content.spawn.count = 40;
    let mut d = Dungeon::new(99, Arc::new(content));
    let ids: Vec<u32> = ["Ann", "Bob", "Cy", "Di"]
        .iter()
        .map(|n| {
            let joined = d.step(&Input::Join {
                name: n.to_string(),
            });
            joined.expect("joins").character.expect("a character")
        })
        .collect();
    for t in 0..200usize {
        for (k, &id) in ids.iter().enumerate() {
            let dir = Dir::ALL[(t / 5 + k * 3) % 8];
            choose(&mut d, id, Action::Move { dir });
        }
        resolve(&mut d);
    }
    let left = d.floor(1).map_or(0, |f| f.monsters().len());
    println!("busy dungeon: 4 players and {left} monsters on floor 1 after 200 turns");
    (d, ids)
}

fn bench_views(c: &mut Criterion) {
    let (mut d, ids) = busy_dungeon();
    let id = ids[0];
    let before = view_of(&d, id).expect("view");
    let dir = Dir::ALL
        .into_iter()
        .find(|&dir| d.check(id, Action::Move { dir }).is_ok())
        .expect("a way out");
    d.step(&Input::Choose {
        id,
        action: Action::Move { dir },
    })
    .expect("move");
    resolve(&mut d);
    let after = view_of(&d, id).expect("view");

    let mut g = c.benchmark_group("per player per turn");
    g.bench_function("full snapshot: build + encode (baseline)", |b| {
        b.iter(|| {
            let v = view_of(&d, id).expect("view");
            black_box(encode(&ServerMsg::Snapshot { seq: 1, view: v }))
        });
    });
    g.bench_function("update: build + diff + encode", |b| {
        b.iter(|| {
            let v = view_of(&d, id).expect("view");
            let diff = before.diff(&v).expect("same floor");
            black_box(encode(&ServerMsg::Update {
                seq: 2,
                turn: v.turn,
                diff,
                events: Vec::new(),
            }))
        });
    });
    g.finish();
    let snap = encode(&ServerMsg::Snapshot {
        seq: 1,
        view: after.clone(),
    })
    .len();
    let upd = encode(&ServerMsg::Update {
        seq: 2,
        turn: after.turn,
        diff: before.diff(&after).expect("same floor"),
        events: Vec::new(),
    })
    .len();
    println!(
        "frame sizes after one step: snapshot {snap} B, update {upd} B ({:.1}%)",
        100.0 * upd as f64 / snap as f64
    );
}

criterion_group!(benches, bench_fov, bench_views);
criterion_main!(benches);
