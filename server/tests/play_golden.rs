//! Pins the engine's behaviour: a seeded dungeon played by four scripted players for 4,000 rounds
//! (every floor with someone on it resolves once a round) that fight, pick up, equip, use and
//! throw items, rest, open doors, suffer effects, take the stairs, die and start again, join late, drop
//! their connection, are lifted out and come back. Everything the players were shown (each one's
//! full view at checkpoints, and every turn's events as told to each of them) and the state of
//! every floor (monsters, items, clocks) feeds one running hash; the hash at each checkpoint is
//! committed in `tests/golden/play_seed*.txt`.
//!
//! The hash is taken from what the game shows and holds, not from the engine's save format, so
//! reshaping the engine's insides leaves it unchanged while any change of behaviour (a rule, a
//! sentence, a dice roll, a dependency that changes the random generator's output) moves it.
//! If behaviour is changed on purpose, regenerate with
//! `DELVE_BLESS=1 cargo test -p delve-server --test play_golden` and say why in the commit.
//!
//! The same run also proves that the inputs it gave the engine, replayed from the seed, rebuild
//! exactly the world it played live.

#![allow(clippy::unwrap_used)] // a broken setup should stop the test

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

use delve_protocol::{Dir, Stat};
use delve_server::game::input::Input;
use delve_server::game::{Action, Content, Dungeon, EntityId, Event};
use delve_server::sim::bot::{Bot, Move};
use delve_server::view::{events_for, view_of};
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sha2::{Digest, Sha256};

const ROUNDS: u32 = 4000;
const CHECKPOINTS: [u32; 5] = [500, 1000, 2000, 3000, ROUNDS];
const NAMES: [&str; 4] = ["Ann", "Bob", "Cid", "Dee"];
/// The round each player first joins.
const JOIN_AT: [u32; 4] = [0, 0, 40, 150];

/// What happened in the run, so the test can show it touched every part it claims to pin.
#[derive(Debug, Default)]
struct Coverage {
    hits: u32,
    misses: u32,
    kills: u32,
    player_deaths: u32,
    picked_up: u32,
    equipped: u32,
    used: u32,
    dropped: u32,
    doors: u32,
    effects: u32,
    stairs: u32,
    joins: u32,
    new_characters: u32,
    disconnects: u32,
    lifts: u32,
    returns: u32,
    refusals: u32,
    points: u32,
    evictions: u32,
    throws: u32,
    rests: u32,
    aways: u32,
}

impl Coverage {
    fn count(&mut self, e: &Event) {
        match e {
            Event::Attacked {
                damage: Some(_), ..
            } => self.hits += 1,
            Event::Attacked { damage: None, .. } => self.misses += 1,
            Event::Died { victim, .. } if victim.player => self.player_deaths += 1,
            Event::Died { .. } => self.kills += 1,
            Event::PickedUp { .. } => self.picked_up += 1,
            Event::Equipped { .. } => self.equipped += 1,
            Event::UsedUp { .. } => self.used += 1,
            Event::Dropped { .. } => self.dropped += 1,
            Event::DoorOpened { .. } => self.doors += 1,
            Event::EffectStarted { .. } => self.effects += 1,
            Event::Away { .. } => self.aways += 1,
            Event::ChangedFloor { .. } => self.stairs += 1,
            Event::Flew { .. } => self.throws += 1,
            Event::RestEnded { .. } => self.rests += 1,
            _ => {}
        }
    }
}

/// One scripted player: the balance bot, nudged now and then by the script's own dice.
#[derive(Default)]
struct Seat {
    id: Option<EntityId>,
    bot: Bot,
    /// Rounds since the character died (or won).
    finished_for: u32,
    /// While away: the round the connection dropped.
    away_since: Option<u32>,
    /// After leaving for good (a dead character's player who closed the game): when it comes
    /// back as a new character.
    back_at: u32,
}

struct Run {
    d: Dungeon,
    log: Vec<Input>,
    hash: Sha256,
    cov: Coverage,
    rng: ChaCha8Rng,
}

impl Run {
    /// Gives the engine `input` the way the server's journaled world does, and logs it if it
    /// changed the world.
    fn input(&mut self, input: Input) -> Vec<Event> {
        match self.d.step(&input) {
            Ok(done) => {
                self.log.push(input);
                done.events
            }
            Err(_) => Vec::new(),
        }
    }

    /// Feeds the hash with what every character is told about `events` on floor `depth`.
    fn tell(&mut self, depth: u8, events: &[Event]) {
        for e in events {
            self.cov.count(e);
        }
        let ids: Vec<EntityId> = self.d.players().map(|p| p.id()).collect();
        for id in ids {
            let told = events_for(&self.d, id, depth, events);
            if !told.is_empty() {
                self.hash.update(format!("{id}:"));
                self.hash.update(serde_json::to_vec(&told).unwrap());
            }
        }
    }

    /// Feeds the hash with everything the game holds that players can come to see: each
    /// character's full view, and every floor's clock, monsters and items.
    fn checkpoint(&mut self) -> String {
        for p in self.d.players() {
            self.hash
                .update(serde_json::to_vec(&view_of(&self.d, p.id())).unwrap());
            let record = (
                p.alive(),
                p.present(),
                p.connected(),
                p.victory(),
                p.kills(),
                p.turns(),
                p.deepest(),
                p.unspent(),
            );
            self.hash.update(format!("{record:?}"));
        }
        for depth in 1..=self.d.depth_count() {
            // Floors nobody has reached yet are not made.
            let Some(f) = self.d.floor(depth) else {
                continue;
            };
            let mut line = format!("floor {depth} turn {}:", f.turn());
            for m in f.monsters().values() {
                let key = &m.kind(self.d.content()).key;
                write!(
                    line,
                    " {}={key}@{:?}/{}hp/L{}",
                    m.id(),
                    m.pos(),
                    m.hp(),
                    m.level()
                )
                .unwrap();
            }
            for (id, (pos, it)) in f.items() {
                let key = &it.kind(self.d.content()).key;
                write!(line, " {id}={key}@{pos:?}").unwrap();
            }
            self.hash.update(line);
        }
        let digest = self.hash.clone().finalize();
        digest.iter().take(16).fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
    }

    /// Now and then, something a bot would not do: a random step, the stairs where there are
    /// none, a pack action on a random item.
    fn whim(&mut self, id: EntityId) -> Option<Action> {
        if !self.rng.random_ratio(1, 30) {
            return None;
        }
        let pack: Vec<EntityId> = self
            .d
            .player(id)
            .map(|p| p.inventory().iter().map(|i| i.id).collect())
            .unwrap_or_default();
        let item = pack.choose(&mut self.rng).copied().unwrap_or(9999);
        Some(match self.rng.random_range(0..12) {
            0 => Action::Descend,
            1 => Action::Ascend,
            2 => Action::PickUp,
            3 => Action::Use { item },
            4 => Action::Equip { item },
            5 => Action::Unequip { item },
            6 if self.rng.random_ratio(1, 3) => Action::Drop { item },
            7 => Action::Wait,
            _ => Action::Move {
                dir: *Dir::ALL.choose(&mut self.rng).unwrap(),
            },
        })
    }
}

/// An action as the hash names it: the text it was pinned with, fixed here so that a change of
/// the type's Rust shape (not of play) leaves the hash alone.
fn pinned_name(action: Action) -> String {
    match action {
        Action::Move { dir } => format!("Move({dir:?})"),
        Action::Use { item } => format!("Use({item})"),
        Action::Equip { item } => format!("Equip({item})"),
        Action::Unequip { item } => format!("Unequip({item})"),
        Action::Drop { item } => format!("Drop({item})"),
        Action::Throw { item, at } => format!("Throw({item},{},{})", at.x, at.y),
        Action::Fire { at } => format!("Fire({},{})", at.x, at.y),
        Action::Give { item, to } => format!("Give({item},{to})"),
        Action::UseOn { item, on } => format!("UseOn({item},{on})"),
        Action::Wait | Action::Descend | Action::Ascend | Action::PickUp | Action::Rest => {
            format!("{action:?}")
        }
    }
}

/// Plays the scripted game on `seed`; returns the checkpoint hashes, the coverage, and the
/// replay check's two hashes (live, replayed).
fn play(seed: u64) -> (Vec<(u32, String)>, Coverage, String, String) {
    // The built-in rules, with the mice that stun, poison and confuse about from the second
    // floor and their effects striking one hit in four, so a game of this length meets every
    // rule.
    let mut content = Content::builtin();
    for kind in &mut content.monsters {
        match &*kind.key {
            "rabid_mouse" | "meta_mouse" => kind.floors = [2, 9],
            "tough_mouse" => kind.floors = [3, 9],
            _ => {}
        }
    }
    content.effects.chance = [1, 4];
    // Fewer mice to start with, and wanderers now and then, so the players live long enough
    // to use what they find.
    content.spawn.count = 6;
    content.spawn.wander_every = 60;
    // Equipment is common, so the players put things on (the thrown things and tools share the
    // alcoves with it).
    for kind in &mut content.items {
        if kind.slot.is_some() {
            kind.weight *= 4;
        }
        // Darts lie about too, to be thrown.
        kind.loose |= &*kind.key == "dart";
    }
    content.placement.loose = [2, 4];
    let content = Arc::new(content);
    let mut run = Run {
        d: Dungeon::new(seed, Arc::clone(&content)),
        log: Vec::new(),
        hash: Sha256::new(),
        cov: Coverage::default(),
        rng: ChaCha8Rng::seed_from_u64(seed ^ 0x5eed),
    };
    let mut seats: Vec<Seat> = NAMES.iter().map(|_| Seat::default()).collect();
    let mut checkpoints = Vec::new();

    for round in 0..ROUNDS {
        // Arrivals, departures and new lives.
        for (k, seat) in seats.iter_mut().enumerate() {
            match seat.id {
                None if round >= JOIN_AT[k] && round >= seat.back_at => {
                    let events = run.input(Input::Join {
                        name: NAMES[k].into(),
                    });
                    seat.id = run
                        .d
                        .players()
                        .find(|p| p.name() == NAMES[k])
                        .map(|p| p.id());
                    run.cov.joins += u32::from(seat.id.is_some());
                    run.tell(1, &events);
                }
                None => {}
                Some(id) => {
                    let Some(p) = run.d.player(id) else { continue };
                    if !p.alive() || p.victory() {
                        seat.finished_for += 1;
                        // Now and then the player of a finished character leaves for a while:
                        // its record stays until it is forgotten to make room.
                        if seat.finished_for == 1 && run.rng.random_ratio(1, 3) {
                            run.input(Input::Connected {
                                id,
                                connected: false,
                            });
                            run.cov.disconnects += 1;
                            seat.id = None;
                            seat.bot = Bot::default();
                            seat.finished_for = 0;
                            seat.back_at = round + 50;
                            continue;
                        }
                        if seat.finished_for >= 8 {
                            let events = run.input(Input::NewCharacter { old: id });
                            let new = run
                                .d
                                .players()
                                .find(|p| p.name() == NAMES[k] && p.alive() && !p.victory())
                                .map(|p| p.id());
                            if let Some(new) = new {
                                seat.id = Some(new);
                                seat.bot = Bot::default();
                                seat.finished_for = 0;
                                run.cov.new_characters += 1;
                            }
                            run.tell(1, &events);
                        }
                        continue;
                    }
                    match seat.away_since {
                        None if run.rng.random_ratio(1, 250) => {
                            run.input(Input::Connected {
                                id,
                                connected: false,
                            });
                            seat.away_since = Some(round);
                            run.cov.disconnects += 1;
                        }
                        Some(since) if round - since == 12 => {
                            let depth = p.depth();
                            let events = run.input(Input::Lift { id });
                            run.cov.lifts += u32::from(!events.is_empty());
                            run.tell(depth, &events);
                        }
                        Some(since) if round - since >= 30 => {
                            let depth = p.depth();
                            let events = run.input(Input::Return { id });
                            run.cov.returns += u32::from(!events.is_empty());
                            run.tell(depth, &events);
                            run.input(Input::Connected {
                                id,
                                connected: true,
                            });
                            seat.away_since = None;
                        }
                        _ => {}
                    }
                }
            }
        }
        if round % 200 == 199 && run.d.step(&Input::EvictDead).is_ok() {
            run.log.push(Input::EvictDead);
            run.cov.evictions += 1;
        }

        // Choices: every connected, living, present character chooses for its floor.
        let mut floors: BTreeMap<u8, ()> = BTreeMap::new();
        for seat in &mut seats {
            let Some(id) = seat.id else { continue };
            let Some(p) = run.d.player(id) else { continue };
            if !p.alive() || !p.present() || p.victory() {
                continue;
            }
            floors.insert(p.depth(), ());
            if seat.away_since.is_some() {
                continue;
            }
            let mut action = Action::Wait;
            // Points are spent before the turn's choice, as a player does in the dialog.
            for _ in 0..8 {
                match seat.bot.decide(&run.d, id) {
                    Move::Spend(stat) => {
                        let depth = run.d.player(id).map_or(1, |p| p.depth());
                        let events = run.input(Input::SpendPoint { id, stat });
                        run.cov.points += u32::from(!events.is_empty());
                        run.tell(depth, &events);
                    }
                    Move::Act(a) => {
                        action = a;
                        break;
                    }
                }
            }
            if let Some(odd) = run.whim(id) {
                action = odd;
            }
            if let Err(e) = run.d.step(&Input::Choose { id, action }) {
                run.cov.refusals += 1;
                let told = delve_server::view::input_refusal(&e);
                run.hash
                    .update(format!("refused {id} {}: {told}", pinned_name(action)));
                let wait = Action::Wait;
                let _ = run.d.step(&Input::Choose { id, action: wait });
            }
        }
        // A spent point on the sight stat now and then, which the bot never picks.
        if round % 97 == 0
            && let Some(id) = seats[0].id
            && run.d.player(id).is_some_and(|p| p.unspent() > 0)
        {
            run.input(Input::SpendPoint {
                id,
                stat: Stat::Sight,
            });
        }

        // Every floor someone stands on resolves its turn.
        for depth in floors.into_keys() {
            let turn = Input::Turn {
                depth,
                actions: run.d.choices(depth),
            };
            let report = run.d.step(&turn).unwrap();
            run.log.push(turn);
            run.tell(depth, &report.events);
        }

        if CHECKPOINTS.contains(&(round + 1)) {
            let h = run.checkpoint();
            checkpoints.push((round + 1, h));
        }
    }

    // The inputs, replayed from the seed, rebuild the same world.
    let mut replayed = Dungeon::new(seed, content);
    for input in &run.log {
        replayed.replay(input);
    }
    (
        checkpoints,
        run.cov,
        run.d.state_hash(),
        replayed.state_hash(),
    )
}

fn render(checkpoints: &[(u32, String)]) -> String {
    let mut out = String::from("# round: running hash of everything shown and held\n");
    for (round, h) in checkpoints {
        let _ = writeln!(out, "{round}: {h}");
    }
    out
}

fn check(seed: u64) {
    let (checkpoints, cov, live, replayed) = play(seed);
    println!("seed {seed}: {cov:?}");

    // The run touches every part of the game it claims to pin.
    assert!(cov.hits > 100 && cov.misses > 20, "combat: {cov:?}");
    assert!(cov.kills > 10 && cov.player_deaths > 3, "deaths: {cov:?}");
    assert!(
        cov.picked_up > 10 && cov.equipped > 3 && cov.used > 0 && cov.dropped > 0,
        "items: {cov:?}"
    );
    assert!(
        cov.doors > 3 && cov.effects > 5 && cov.stairs > 10,
        "rules: {cov:?}"
    );
    assert!(
        cov.joins > 4 && cov.new_characters > 0 && cov.disconnects > 0 && cov.evictions > 0,
        "roster: {cov:?}"
    );
    assert!(cov.lifts > 0 && cov.returns > 0, "away: {cov:?}");
    assert!(cov.refusals > 0 && cov.points > 0, "choices: {cov:?}");
    assert!(cov.throws > 5 && cov.rests > 2, "throws and rests: {cov:?}");

    assert_eq!(
        live, replayed,
        "seed {seed}: replaying the inputs from the seed must rebuild the live world"
    );

    let got = render(&checkpoints);
    let path = format!(
        "{}/tests/golden/play_seed{seed}.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    if std::env::var_os("DELVE_BLESS").is_some() {
        std::fs::write(&path, &got).expect("golden file is writable");
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e} (run with DELVE_BLESS=1 to create it)"));
    assert!(
        got == want,
        "seed {seed}: the game played differently.\nwant:\n{want}\ngot:\n{got}"
    );
}

#[test]
fn four_players_4000_rounds_seed_14_play_as_pinned() {
    check(14);
}

#[test]
fn four_players_4000_rounds_seed_29_play_as_pinned() {
    check(29);
}
