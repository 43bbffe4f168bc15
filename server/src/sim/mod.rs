//! The balance simulation: whole games played by [`bot::Bot`]s straight through the engine (no
//! network), and a report of how deep they got and what killed them. Tuning changes in the
//! content file are judged by it (`delve-server simulate`, docs/BALANCE.md). `party` plays
//! games of several bots in one dungeon (`simulate --party N`).

pub mod bot;
pub mod measure;
pub mod party;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::game::rng::mix;
use crate::game::{Action, Content, Dungeon, EntityId, Event, Input};
use bot::{Bot, Move};
use measure::Measures;

/// How one game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Killed by a monster of this name.
    Killed(String),
    /// The Mouse King fell.
    Won,
    /// Still alive when the turn cap was reached.
    TimedOut,
}

#[derive(Clone, Debug)]
pub struct GameResult {
    pub seed: u64,
    pub outcome: Outcome,
    pub deepest: u8,
    pub level: u32,
    pub turns: u64,
    pub kills: u32,
    /// What the game did with items, doors and effects.
    pub tally: Tally,
    /// Its pacing and loot (see [`measure`]).
    pub measures: Measures,
}

/// Counts of the item, door and effect events of one game (or of many, added up).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub picked_up: u32,
    pub equipped: u32,
    pub used: u32,
    pub doors_opened: u32,
    pub doors_unlocked: u32,
    pub stunned: u32,
    pub poisoned: u32,
    pub confused: u32,
}

impl Tally {
    /// Counts event `e` of the game of character `me` (the effects it suffered, not those it
    /// struck on monsters).
    fn count(&mut self, e: &Event, me: EntityId) {
        use delve_protocol::Effect;
        match e {
            Event::PickedUp { .. } => self.picked_up += 1,
            Event::Equipped { .. } => self.equipped += 1,
            Event::UsedUp { .. } => self.used += 1,
            Event::DoorOpened { key: None, .. } => self.doors_opened += 1,
            Event::DoorOpened { key: Some(_), .. } => self.doors_unlocked += 1,
            Event::EffectStarted { id, effect } if *id == me => match effect {
                Effect::Stun => self.stunned += 1,
                Effect::Poison => self.poisoned += 1,
                Effect::Confusion => self.confused += 1,
            },
            _ => {}
        }
    }

    fn add(&mut self, o: &Tally) {
        self.picked_up += o.picked_up;
        self.equipped += o.equipped;
        self.used += o.used;
        self.doors_opened += o.doors_opened;
        self.doors_unlocked += o.doors_unlocked;
        self.stunned += o.stunned;
        self.poisoned += o.poisoned;
        self.confused += o.confused;
    }
}

#[derive(Clone, Debug)]
pub struct SimConfig {
    pub games: u32,
    pub seed: u64,
    /// Turns after which a game is stopped.
    pub max_turns: u64,
    pub threads: usize,
}

/// Plays one game on the dungeon with `seed` until the bot dies, wins or runs out of turns.
pub fn play(content: Arc<Content>, seed: u64, max_turns: u64) -> GameResult {
    let mut d = Dungeon::new(seed, content);
    let Ok(crate::game::Outcome {
        character: Some(id),
        ..
    }) = d.step(&Input::Join { name: "Bot".into() })
    else {
        return GameResult {
            seed,
            outcome: Outcome::TimedOut,
            deepest: 1,
            level: 1,
            turns: 0,
            kills: 0,
            tally: Tally::default(),
            measures: Measures::default(),
        };
    };
    let mut tally = Tally::default();
    let mut measures = Measures::default();
    let mut bot = Bot::default();
    let mut won = false;
    let mut turns = 0;
    while turns < max_turns {
        let Some(p) = d.player(id) else { break };
        if !p.alive() {
            break;
        }
        let depth = p.depth();
        // A rest goes on by itself, as it does for a player: the bot is asked again once it
        // ends.
        let resting = d.floor(depth).and_then(|f| f.pending(id)) == Some(Action::Rest);
        if !resting {
            match bot.decide(&d, id) {
                Move::Spend(stat) => {
                    let _ = d.step(&Input::SpendPoint { id, stat });
                    continue;
                }
                Move::Act(action) => {
                    if d.step(&Input::Choose { id, action }).is_err() {
                        let _ = d.step(&Input::Choose {
                            id,
                            action: Action::Wait,
                        });
                    }
                }
            }
        }
        let actions = d.choices(depth);
        let report = d.step(&Input::Turn { depth, actions }).unwrap_or_default();
        turns += 1;
        for e in &report.events {
            tally.count(e, id);
        }
        measures.after_turn(&d, id, turns, &report.events);
        won |= report.events.iter().any(|e| {
            matches!(e, Event::Died { victim, .. } if !victim.player && d.content().monsters.iter().any(|k| k.boss && k.name == victim.name))
        });
        if won {
            break;
        }
    }
    let p = d.player(id);
    let outcome = match p {
        _ if won => Outcome::Won,
        Some(p) if !p.alive() => {
            Outcome::Killed(p.death().map(|d| d.killer.clone()).unwrap_or_default())
        }
        _ => Outcome::TimedOut,
    };
    GameResult {
        seed,
        outcome,
        deepest: p.map_or(1, |p| p.deepest()),
        level: p.map_or(1, |p| p.level()),
        turns,
        kills: p.map_or(0, |p| p.kills()),
        tally,
        measures,
    }
}

/// Plays `games` games on as many threads; game `k` uses a seed derived from `seed` and `k`, so
/// a run is reproducible whatever the thread count.
pub fn run(content: Arc<Content>, cfg: &SimConfig) -> Vec<GameResult> {
    let mut results = on_threads(cfg, |seed| play(Arc::clone(&content), seed, cfg.max_turns));
    results.shrink_to_fit();
    results
}

/// `play` for each of `cfg.games` games on `cfg.threads` threads, in the order of the games:
/// game `k` gets a seed derived from `cfg.seed` and `k`, so a run is reproducible whatever the
/// thread count. Shared by the solo and the party runs.
pub(crate) fn on_threads<T: Send>(cfg: &SimConfig, play: impl Fn(u64) -> T + Sync) -> Vec<T> {
    let next = AtomicU32::new(0);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..cfg.threads.max(1))
            .map(|_| {
                let (next, play) = (&next, &play);
                s.spawn(move || {
                    let mut out = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        if k >= cfg.games {
                            break;
                        }
                        out.push((k, play(mix(cfg.seed ^ mix(u64::from(k))))));
                    }
                    out
                })
            })
            .collect();
        let mut all: Vec<(u32, T)> = handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect();
        all.sort_by_key(|(k, _)| *k);
        all.into_iter().map(|(_, r)| r).collect()
    })
}

/// The report `delve-server simulate` prints.
pub fn report(results: &[GameResult], floors: u8) -> String {
    let n = results.len().max(1);
    let pct = |k: usize| 100.0 * k as f64 / n as f64;
    let bar = |k: usize| "#".repeat((40.0 * k as f64 / n as f64).round() as usize);
    let mut s = String::new();
    let _ = writeln!(s, "deepest floor reached");
    let _ = writeln!(s, "  floor   games   share");
    for f in 1..=floors {
        let k = results.iter().filter(|r| r.deepest == f).count();
        let _ = writeln!(s, "  {f:>5}   {k:>5}   {:>5.1}%  {}", pct(k), bar(k));
    }
    let mut levels: Vec<u32> = results.iter().map(|r| r.level).collect();
    levels.sort_unstable();
    let mut turns: Vec<u64> = results.iter().map(|r| r.turns).collect();
    turns.sort_unstable();
    let mean = |v: &[u64]| v.iter().sum::<u64>() as f64 / v.len().max(1) as f64;
    let median = |v: &[u64]| v.get(v.len() / 2).copied().unwrap_or(0);
    let lv: Vec<u64> = levels.iter().map(|&l| u64::from(l)).collect();
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "level reached   mean {:.1}, median {}, max {}",
        mean(&lv),
        median(&lv),
        lv.last().copied().unwrap_or(0)
    );
    let _ = writeln!(
        s,
        "turns played    mean {:.0}, median {}, max {}",
        mean(&turns),
        median(&turns),
        turns.last().copied().unwrap_or(0)
    );
    let kills: Vec<u64> = results.iter().map(|r| u64::from(r.kills)).collect();
    let _ = writeln!(s, "kills           mean {:.1}", mean(&kills));
    let mut t = Tally::default();
    for r in results {
        t.add(&r.tally);
    }
    let per = |k: u32| f64::from(k) / n as f64;
    let _ = writeln!(
        s,
        "per game        {:.1} items picked up, {:.1} equipped, {:.1} used up; {:.1} doors opened, {:.1} unlocked",
        per(t.picked_up),
        per(t.equipped),
        per(t.used),
        per(t.doors_opened),
        per(t.doors_unlocked)
    );
    let _ = writeln!(
        s,
        "effects         {:.1} stuns, {:.1} poisonings, {:.1} confusions per game",
        per(t.stunned),
        per(t.poisoned),
        per(t.confused)
    );
    let m = measure::summary(results, 0, floors);
    let first = m
        .first_level_up_median
        .map_or("never (median)".to_string(), |t| format!("turn {t}"));
    let _ = writeln!(
        s,
        "pacing          first level-up {first} (median); longest quiet stretch of a floor {} turns (median)",
        m.quiet_stretch_median
    );
    let _ = writeln!(
        s,
        "loot            armour or a chip by floor 5 in {:.1}% of the {} games that got there; {} healing items unused at death (median)",
        100.0 * m.armour_or_chip_by_floor_5,
        m.reached_floor_5,
        m.health_packs_unused_at_death_median
    );
    let _ = writeln!(s);
    let _ = writeln!(s, "how games ended");
    let mut ends: BTreeMap<String, (usize, u64)> = BTreeMap::new();
    for r in results {
        let key = match &r.outcome {
            Outcome::Killed(by) => format!("killed by {by}"),
            Outcome::Won => "won: the Mouse King fell".into(),
            Outcome::TimedOut => "alive at the turn cap".into(),
        };
        let e = ends.entry(key).or_default();
        e.0 += 1;
        e.1 += u64::from(r.deepest);
    }
    let mut ends: Vec<(String, (usize, u64))> = ends.into_iter().collect();
    ends.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(&b.0)));
    for (what, (k, depth_sum)) in ends {
        let _ = writeln!(
            s,
            "  {what:<34} {k:>5}   {:>5.1}%   mean floor {:.1}",
            pct(k),
            depth_sum as f64 / k as f64
        );
    }
    let stuck: Vec<String> = results
        .iter()
        .filter(|r| r.outcome == Outcome::TimedOut)
        .take(5)
        .map(|r| r.seed.to_string())
        .collect();
    if !stuck.is_empty() {
        let _ = writeln!(
            s,
            "  (dungeon seeds of games at the cap: {})",
            stuck.join(", ")
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "deaths by floor and monster (rows: floor of death)");
    let names: Vec<String> = {
        let mut v: Vec<String> = results
            .iter()
            .filter_map(|r| match &r.outcome {
                Outcome::Killed(by) => Some(by.clone()),
                _ => None,
            })
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let _ = write!(s, "  floor");
    for name in &names {
        let _ = write!(s, " {:>12}", name);
    }
    let _ = writeln!(s);
    for f in 1..=floors {
        let _ = write!(s, "  {f:>5}");
        for name in &names {
            let k = results
                .iter()
                .filter(|r| r.deepest == f && r.outcome == Outcome::Killed(name.clone()))
                .count();
            let _ = write!(s, " {k:>12}");
        }
        let _ = writeln!(s);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_simulated_game_is_reproducible_and_ends() {
        let c = Arc::new(Content::builtin());
        let a = play(Arc::clone(&c), 42, 5000);
        let b = play(c, 42, 5000);
        assert_eq!(
            (a.outcome.clone(), a.turns, a.deepest, a.level),
            (b.outcome, b.turns, b.deepest, b.level)
        );
        assert!(a.turns > 0);
    }

    #[test]
    fn the_report_lists_every_floor_and_every_ending() {
        let results = vec![
            GameResult {
                seed: 1,
                outcome: Outcome::Killed("Tough Mouse".into()),
                deepest: 3,
                level: 3,
                turns: 900,
                kills: 12,
                tally: Tally {
                    picked_up: 4,
                    ..Tally::default()
                },
                measures: Measures::default(),
            },
            GameResult {
                seed: 2,
                outcome: Outcome::TimedOut,
                deepest: 2,
                level: 2,
                turns: 20_000,
                kills: 5,
                tally: Tally::default(),
                measures: Measures::default(),
            },
        ];
        let r = report(&results, 10);
        assert!(r.contains("killed by Tough Mouse"), "{r}");
        assert!(r.contains("alive at the turn cap"), "{r}");
        assert!(r.contains("2.0 items picked up"), "{r}");
        assert!(r.contains("games at the cap: 2"), "{r}");
        let floor_rows = r
            .lines()
            .filter(|l| l.trim_start().starts_with(char::is_numeric))
            .count();
        assert!(floor_rows >= 10, "{r}");
    }
}
