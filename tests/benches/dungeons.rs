//! The dungeon side of a loaded server, without the network: many dungeons taking their turns
//! one after another on one core, each turn followed by its four players' updates (view, diff
//! against the last one sent, events, JSON), against one dungeon doing the same work alone.
//!
//! cargo bench -p delve-tests --bench dungeons            # or: ... -- DUNGEONS ROUNDS
//!
//! In `delve-load` a thousand clients keep 250 dungeons busy, and every dungeon's state (its
//! floor, its monsters, each player's memory and last view) has gone cold in the cache by the
//! time its next turn comes round. That costs as much as the work: profiles of the load runs
//! show the hottest instructions of the diff, the fields of view and the monsters' walks waiting
//! on memory. This bench measures that part alone, and steadily enough to compare two builds
//! of the engine or the view code, which a load run on this machine cannot (its rounds move by
//! more than such a change is worth):
//!
//! - **taking turns**: `DUNGEONS` dungeons (250 by default), each with four players and floor 1's
//!   own monsters, played round after round, every dungeon one turn a round (`ROUNDS`, 40 by
//!   default), as a server's dungeons are;
//! - **one after another**, the baseline: the same dungeons and the same turns, each dungeon
//!   playing all its turns before the next starts, so its state stays warm in the cache.
//!
//! The players act like `delve-load`'s bots (they hit a monster beside them, else step at
//! random, one turn in ten they wait) and cannot die, so every round is the same work. Each
//! walk is played three times from the same seeds and the fastest kept: the work is identical
//! each time (the engine is deterministic), so this leaves out what other processes take.
//! Results: docs/BENCHMARKS.md. The numbers are printed; nothing is asserted.

use std::sync::Arc;
use std::time::{Duration, Instant};

use delve_protocol::{ServerMsg, View, encode};
use delve_server::game::{Action, Content, Dungeon, Input};
use delve_server::view::{Spare, events_for, party, set_party, view_in, view_of};
use delve_tests::load::bot::choose;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const PLAYERS: [&str; 4] = ["Ann", "Bob", "Cy", "Di"];
const WARM_UP_ROUNDS: usize = 20;
const RUNS: usize = 3;

/// One dungeon of the walk: its four players and the last view each was sent.
struct Game {
    dungeon: Dungeon,
    players: Vec<(u32, View)>,
    rng: ChaCha8Rng,
}

thread_local! {
    /// The lists of the last view replaced, emptied, as the dungeon task keeps them.
    static SPARE: std::cell::Cell<Spare> = std::cell::Cell::default();
}

impl Game {
    fn new(seed: u64) -> Game {
        let mut content = Content::builtin();
        content.player.hp = 1_000_000;
        let mut dungeon = Dungeon::new(seed, Arc::new(content));
        let players = PLAYERS
            .iter()
            .map(|n| {
                let joined = dungeon.step(&Input::Join {
                    name: n.to_string(),
                });
                let id = joined.expect("joins").character.expect("a character");
                (id, view_of(&dungeon, id).expect("a view"))
            })
            .collect();
        Game {
            dungeon,
            players,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// Each player's choice, made from the last view it was sent, as `delve-load`'s bots do.
    fn choose(&mut self) {
        for (id, view) in &self.players {
            let action = choose(view, &mut self.rng);
            let chosen = self.dungeon.step(&Input::Choose { id: *id, action });
            if chosen.is_err() {
                let wait = Action::Wait;
                let _ = self.dungeon.step(&Input::Choose {
                    id: *id,
                    action: wait,
                });
            }
        }
    }

    /// The timed part: floor 1's turn, then each player's update, as the dungeon task makes
    /// them (the view with the party panel, built in the lists of the last view it replaced;
    /// the diff against the last one sent, the events it saw, the frame's JSON; the new view kept
    /// in place of the old). The frames' bytes.
    fn turn(&mut self) -> usize {
        let actions = self.dungeon.choices(1);
        let done = (self.dungeon)
            .step(&Input::Turn { depth: 1, actions })
            .expect("a turn always resolves");
        let panel = party(&self.dungeon);
        let mut bytes = 0;
        for (id, last) in &mut self.players {
            let mut view = view_in(&self.dungeon, *id, SPARE.take()).expect("a view");
            set_party(&panel, &mut view);
            let mut events = events_for(&self.dungeon, *id, 1, &done.events);
            delve_protocol::event::trim_moves(&mut events, &view);
            let frame = match last.diff(&view) {
                Some(diff) => encode(&ServerMsg::Update {
                    seq: view.turn,
                    turn: view.turn,
                    diff,
                    events,
                }),
                None => encode(&ServerMsg::Snapshot {
                    seq: view.turn,
                    view: view.clone(),
                }),
            };
            bytes += frame.len();
            let spent = std::mem::replace(last, view);
            SPARE.set(Spare::from_view(spent));
        }
        bytes
    }
}

/// Plays `dungeons` dungeons (seeds 1, 2, ...) for `rounds` timed turns each after a warm-up:
/// round after round, every dungeon one turn a round (`taking_turns`), or each dungeon all its
/// turns before the next one starts. Either way the work is the same, turn for turn. The time
/// of the turns and updates alone, the updates, and their bytes.
fn play(dungeons: u64, rounds: usize, taking_turns: bool) -> (Duration, usize, usize) {
    let mut games: Vec<Game> = (1..=dungeons).map(Game::new).collect();
    let (mut spent, mut updates, mut bytes) = (Duration::ZERO, 0, 0);
    let mut one_turn = |g: &mut Game, timed: bool| {
        g.choose();
        let start = Instant::now();
        let b = g.turn();
        if timed {
            spent += start.elapsed();
            updates += g.players.len();
            bytes += b;
        }
    };
    if taking_turns {
        for round in 0..WARM_UP_ROUNDS + rounds {
            for g in &mut games {
                one_turn(g, round >= WARM_UP_ROUNDS);
            }
        }
    } else {
        for g in &mut games {
            for round in 0..WARM_UP_ROUNDS + rounds {
                one_turn(g, round >= WARM_UP_ROUNDS);
            }
        }
    }
    (spent, updates, bytes)
}

/// The fastest of [`RUNS`] identical walks, in µs per update, with the bytes per update.
fn fastest(dungeons: u64, rounds: usize, taking_turns: bool) -> (f64, f64) {
    let mut best = f64::MAX;
    let mut per_update = 0.0;
    for _ in 0..RUNS {
        let (spent, updates, bytes) = play(dungeons, rounds, taking_turns);
        best = best.min(spent.as_secs_f64() * 1e6 / updates as f64);
        per_update = bytes as f64 / updates as f64;
    }
    (best, per_update)
}

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .map(|a| a.parse::<u64>().expect("DUNGEONS ROUNDS: numbers"));
    let dungeons = args.next().unwrap_or(250);
    let rounds = args.next().unwrap_or(40) as usize;
    let (many, bytes) = fastest(dungeons, rounds, true);
    let (alone, _) = fastest(dungeons, rounds, false);
    println!(
        "{dungeons} dungeons, {rounds} turns each after {WARM_UP_ROUNDS} unmeasured, fastest of {RUNS} \
         walks; {bytes:.0} B per update"
    );
    println!("  taking turns (a turn each a round): {many:.2} µs per update");
    println!("  one after another (each all its turns): {alone:.2} µs per update");
    println!("  taking turns / one after another: {:.2}x", many / alone);
}
