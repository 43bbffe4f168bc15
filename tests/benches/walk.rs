//! A four-player walk through a crowded floor, timed turn by turn: the distributions criterion
//! does not give (p99 and the tail), each beside a baseline from the same run.
//!
//! cargo bench -p delve-tests --bench walk
//!
//! - **turn**: one floor's turn with 4 players and 40 monsters, all alive for every turn of the
//!   walk (players and monsters are given hit points nobody can exhaust, so the fights go on
//!   and nobody dies), against the same walk on the same floor with no monsters. Each turn is
//!   run twice from identical copies of the world and the faster time kept, so the tail is the
//!   engine's and not the scheduler's;
//! - **update**: every player's update (its view diffed against the last one, with the turn's
//!   events) over a 1,000-turn walk (on the real floor 1, and among 40 monsters nobody can kill), in bytes against that player's full snapshot at the same
//!   turn, and in time against building and encoding that snapshot;
//! - **floor**: generating a whole floor (map, doors, items, monsters) against the map alone.
//!
//! Results: docs/BENCHMARKS.md. The numbers are printed; nothing is asserted.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use delve_protocol::{Dir, Pos, ServerMsg, Tile, View, encode};
use delve_server::game::mapgen::{GenParams, generate};
use delve_server::game::path::nearest_route;
use delve_server::game::{Action, Content, Dungeon, Floor, Input};
use delve_server::view::{events_for, party, view_of};

const PLAYERS: [&str; 4] = ["Ann", "Bob", "Cy", "Di"];
const MONSTERS: u32 = 40;
const WARM_UP_TURNS: usize = 300;
const TURNS: usize = 1_000;
const FLOORS: u64 = 2_000;

/// The dungeon of the walk: floor 1 with `monsters` monsters that nobody can kill, or (`None`)
/// the real floor 1 with its own monsters, which die as usual. The players cannot die.
fn dungeon(monsters: Option<u32>) -> (Dungeon, Vec<u32>) {
    let mut content = Content::builtin();
    content.player.hp = 1_000_000;
    if let Some(n) = monsters {
        content.spawn.count = n;
        for m in &mut content.monsters {
            m.hp = [1_000_000, 1_000_000];
        }
    }
    let mut d = Dungeon::new(99, Arc::new(content));
    let ids = PLAYERS
        .iter()
        .map(|n| {
            let joined = d.step(&Input::Join {
                name: n.to_string(),
            });
            joined.expect("joins").character.expect("a character")
        })
        .collect();
    (d, ids)
}

/// Turn `t`'s choices: each player explores, stepping towards the nearest place its map does
/// not know yet (walking into a monster in the way attacks it); once its floor is all known it
/// keeps a heading for a few turns, then turns. A refused step waits.
fn choose(d: &mut Dungeon, ids: &[u32], t: usize) {
    for (k, &id) in ids.iter().enumerate() {
        let dir = explore(d, id).unwrap_or(Dir::ALL[(t / 7 + k * 3) % 8]);
        if d.step(&Input::Choose {
            id,
            action: Action::Move { dir },
        })
        .is_err()
        {
            let _ = d.step(&Input::Choose {
                id,
                action: Action::Wait,
            });
        }
    }
}

/// The first step towards the nearest known floor cell next to an unknown one.
fn explore(d: &Dungeon, id: u32) -> Option<Dir> {
    let v = view_of(d, id)?;
    let map = &v.map;
    let frontier = |p: Pos| {
        map.get(p).is_walkable()
            && Dir::ALL
                .iter()
                .any(|&s| map.get(p.step(s)) == Tile::Unknown)
    };
    let route = nearest_route(map, v.me.pos, frontier)?;
    let next = *route.last()?;
    Dir::from_delta(next.x - v.me.pos.x, next.y - v.me.pos.y)
}

/// Resolves floor 1's turn and returns how long the engine took.
fn turn(d: &mut Dungeon) -> (Duration, Vec<delve_server::game::Event>) {
    let actions = d.choices(1);
    let input = Input::Turn { depth: 1, actions };
    let start = Instant::now();
    let done = d.step(&input).expect("a turn always resolves");
    (start.elapsed(), done.events)
}

fn percentile<T: Copy + Ord>(sorted: &[T], p: f64) -> T {
    let k = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[k.min(sorted.len() - 1)]
}

struct Spread {
    p50: f64,
    p99: f64,
    p999: f64,
    max: f64,
}

fn spread(times: &mut [Duration]) -> Spread {
    times.sort_unstable();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    Spread {
        p50: us(percentile(times, 0.50)),
        p99: us(percentile(times, 0.99)),
        p999: us(percentile(times, 0.999)),
        max: us(times[times.len() - 1]),
    }
}

fn print_spread(what: &str, s: &Spread) {
    println!(
        "{what:<52} p50 {:>7.1} µs  p99 {:>7.1} µs  p99.9 {:>7.1} µs  max {:>7.1} µs",
        s.p50, s.p99, s.p999, s.max
    );
}

/// Times every turn of a `TURNS`-turn walk after a warm-up. Returns the times and, for the
/// crowded floor, how many monsters were alive and hunting at the first and last timed turn.
fn walk(monsters: u32) -> (Vec<Duration>, Vec<(usize, usize)>) {
    let (mut d, ids) = dungeon(Some(monsters));
    for t in 0..WARM_UP_TURNS {
        choose(&mut d, &ids, t);
        turn(&mut d);
    }
    let census = |d: &Dungeon| {
        let f = d.floor(1).expect("floor 1");
        let alive = f.monsters().len();
        let hunting = f.monsters().values().filter(|m| m.hunting()).count();
        (alive, hunting)
    };
    let mut seen = vec![census(&d)];
    let mut times = Vec::with_capacity(TURNS);
    for t in WARM_UP_TURNS..WARM_UP_TURNS + TURNS {
        choose(&mut d, &ids, t);
        // The same turn twice, from two copies of the world: the engine is deterministic, so
        // the work is the same, and the faster of the two leaves out the times another process
        // took the core (this machine is shared; a preemption costs ~4 ms).
        let mut twin = d.clone();
        let once = turn(&mut twin).0;
        let again = turn(&mut d).0;
        times.push(once.min(again));
    }
    seen.push(census(&d));
    (times, seen)
}

fn bench_turns() {
    // Interleaved, so both feel the same machine: quiet, crowded, quiet, crowded.
    let mut quiet = Vec::new();
    let mut crowded = Vec::new();
    let mut census = Vec::new();
    for _ in 0..2 {
        quiet.extend(walk(0).0);
        let (t, c) = walk(MONSTERS);
        crowded.extend(t);
        census.extend(c);
    }
    let q = spread(&mut quiet);
    let c = spread(&mut crowded);
    println!(
        "\n== a turn of floor 1, 4 players ({} turns each)",
        quiet.len()
    );
    println!("monsters alive, hunting (at the start and end of each timed walk): {census:?}");
    print_spread("baseline: no monsters", &q);
    print_spread(&format!("{MONSTERS} monsters, all alive"), &c);
    println!(
        "ratio: p50 {:.1}x  p99 {:.1}x   (target: p99 <= 100 µs)",
        c.p50 / q.p50,
        c.p99 / q.p99
    );
}

/// A player's view as the server sends it: with the party panel (nobody watches here).
fn full_view(d: &Dungeon, id: u32) -> View {
    let mut v = view_of(d, id).expect("view");
    v.party = party(d);
    v
}

/// The frame a player is sent for a turn: its update, or a snapshot when its floor changed.
fn update_frame(before: &View, after: &View, events: Vec<delve_protocol::Event>) -> String {
    match before.diff(after) {
        Some(diff) => encode(&ServerMsg::Update {
            seq: 2,
            turn: after.turn,
            diff,
            events,
        }),
        None => encode(&ServerMsg::Snapshot {
            seq: 2,
            view: after.clone(),
        }),
    }
}

fn bench_updates(monsters: Option<u32>) {
    let (mut d, ids) = dungeon(monsters);
    for t in 0..WARM_UP_TURNS {
        choose(&mut d, &ids, t);
        turn(&mut d);
    }
    let mut last: Vec<View> = ids.iter().map(|&id| full_view(&d, id)).collect();
    let mut ratios = Vec::new();
    let mut bytes = Vec::new();
    let mut snapshot_bytes = Vec::new();
    let mut update_time = Vec::new();
    let mut snapshot_time = Vec::new();
    let mut with_events = 0usize;
    // Where the bytes go: each part of the updates, encoded on its own.
    let mut parts: Vec<(&str, usize)> = [
        "tiles",
        "visible",
        "entities",
        "changed",
        "removed",
        "me",
        "party",
        "party_changed",
        "watchers",
        "inventory",
        "events",
    ]
    .iter()
    .map(|n| (*n, 0))
    .collect();
    for t in WARM_UP_TURNS..WARM_UP_TURNS + TURNS {
        choose(&mut d, &ids, t);
        let (_, events) = turn(&mut d);
        for (k, &id) in ids.iter().enumerate() {
            let start = Instant::now();
            let view = full_view(&d, id);
            let mut told = events_for(&d, id, 1, &events);
            delve_protocol::event::trim_moves(&mut told, &view);
            if !told.is_empty() {
                with_events += 1;
            }
            if let Some(diff) = last[k].diff(&view) {
                let json = serde_json::to_value(&diff).expect("a diff encodes");
                for (name, n) in parts.iter_mut() {
                    if let Some(v) = json.get(*name) {
                        *n += v.to_string().len();
                    }
                }
                parts[10].1 += serde_json::to_string(&told).expect("events encode").len();
            }
            let frame = update_frame(&last[k], &view, told);
            if std::env::var_os("DELVE_SHOW_UPDATE").is_some() && t == WARM_UP_TURNS + 500 {
                println!("{frame}");
            }
            update_time.push(start.elapsed());
            let start = Instant::now();
            let snap = encode(&ServerMsg::Snapshot {
                seq: 2,
                view: full_view(&d, id),
            });
            snapshot_time.push(start.elapsed());
            black_box(&snap);
            ratios.push((frame.len() * 10_000 / snap.len()) as u64);
            bytes.push(frame.len() as u64);
            snapshot_bytes.push(snap.len() as u64);
            last[k] = view;
        }
    }
    ratios.sort_unstable();
    bytes.sort_unstable();
    snapshot_bytes.sort_unstable();
    let pct = |r: u64| r as f64 / 100.0;
    let floor = match monsters {
        Some(n) => format!("{n} monsters nobody can kill"),
        None => "the real floor 1 and its monsters".to_string(),
    };
    println!(
        "\n== every player's update over a {TURNS}-turn walk, 4 players, {floor} ({} updates, {with_events} with events)",
        ratios.len()
    );
    println!(
        "update size: p50 {} B  p99 {} B  max {} B;  snapshot p50 {} B",
        percentile(&bytes, 0.5),
        percentile(&bytes, 0.99),
        bytes[bytes.len() - 1],
        percentile(&snapshot_bytes, 0.5)
    );
    println!(
        "update / snapshot of the same view: p50 {:.1}%  p99 {:.1}%  max {:.1}%   (target: p50 <= 10%, p99 <= 35%)",
        pct(percentile(&ratios, 0.5)),
        pct(percentile(&ratios, 0.99)),
        pct(ratios[ratios.len() - 1])
    );
    let total: usize = bytes.iter().sum::<u64>() as usize;
    let shares: Vec<String> = parts
        .iter()
        .map(|(n, b)| format!("{n} {:.0}%", 100.0 * *b as f64 / total as f64))
        .collect();
    println!("where the bytes go: {}", shares.join(", "));
    let u = spread(&mut update_time);
    let s = spread(&mut snapshot_time);
    print_spread("baseline: build + encode a snapshot", &s);
    print_spread("update: build + diff + events + encode", &u);
    println!(
        "ratio: p50 {:.2}x  p99 {:.2}x",
        u.p50 / s.p50,
        u.p99 / s.p99
    );
}

fn bench_floors() {
    let content = Content::builtin();
    let params = GenParams::default();
    let mut map = Vec::new();
    let mut whole = Vec::new();
    for seed in 0..FLOORS {
        let depth = (seed % 10) as u8 + 1;
        let start = Instant::now();
        black_box(generate(seed, depth, depth < 10, &params));
        map.push(start.elapsed());
        let start = Instant::now();
        black_box(Floor::generate(seed, depth, depth < 10, &params, &content));
        whole.push(start.elapsed());
    }
    let m = spread(&mut map);
    let w = spread(&mut whole);
    println!("\n== generating a floor ({FLOORS} seeds, floors 1 to 10)");
    print_spread("baseline: the map alone", &m);
    print_spread("the whole floor: map, doors, items, monsters", &w);
    println!(
        "ratio: p50 {:.2}x  p99 {:.2}x",
        w.p50 / m.p50,
        w.p99 / m.p99
    );
}

fn main() {
    // `cargo bench` passes `--bench`; a filter word picks one part.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let run = |name: &str| only.is_empty() || only.iter().any(|o| name.contains(o.as_str()));
    if run("turn") {
        bench_turns();
    }
    if run("update") {
        bench_updates(None);
        bench_updates(Some(MONSTERS));
    }
    if run("floor") {
        bench_floors();
    }
}
