//! What the simulation measures of each game besides how it ended (issue 24's pacing and loot
//! targets), and the one JSON object `simulate --json` prints of a whole run.
//!
//! - **first level-up**: the game turn at which the character first reached level 2;
//! - **quiet stretches**: for each floor the character stood on, the longest run of turns in a
//!   row it saw no monster (its floor's longest lull);
//! - **armour or chip by floor 5**: whether it picked up a piece of armour or a microchip while
//!   on floors 1 to 5 (asked of the games that reached floor 5);
//! - **healing unused at death**: the healing items in its pack when it died.

use std::collections::BTreeMap;

use delve_protocol::{ItemUse, Slot};
use serde::Serialize;

use super::{GameResult, Outcome};
use crate::game::{Dungeon, EntityId, Event};

/// The floor by which armour or a chip should have been found.
pub const LOOT_FLOOR: u8 = 5;

/// The measures of one game, taken turn by turn.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Measures {
    /// The game turn the character reached level 2, if it did.
    pub first_level_up: Option<u64>,
    /// For each floor stood on, its longest run of turns with no monster in sight.
    pub quiet: BTreeMap<u8, u64>,
    /// Armour or a chip was picked up on floors 1 to [`LOOT_FLOOR`].
    pub armour_or_chip: bool,
    /// Healing items carried when the game ended (meaningful for a death).
    pub heals_held: u32,
    /// The quiet run going on now, and on which floor.
    run: (u8, u64),
}

impl Measures {
    /// Takes in the turn just played (`turn` counts from 1) and its events, for character `id`.
    pub fn after_turn(&mut self, d: &Dungeon, id: EntityId, turn: u64, events: &[Event]) {
        let Some(p) = d.player(id) else { return };
        if self.first_level_up.is_none() && p.level() >= 2 {
            self.first_level_up = Some(turn);
        }
        let c = d.content();
        if p.depth() <= LOOT_FLOOR {
            let worth = |slot| matches!(slot, Some(Slot::Armour | Slot::Microchip));
            self.armour_or_chip |= events.iter().any(|e| match e {
                Event::PickedUp { id: who, item, .. } if *who == id => {
                    p.carried(*item).is_some_and(|it| worth(it.slot(c)))
                }
                _ => false,
            });
        }
        if p.alive() {
            self.heals_held = (p.inventory().iter())
                .filter(|i| i.use_(c) == ItemUse::Heal)
                .count() as u32;
        }
        let depth = p.depth();
        if self.run.0 != depth {
            self.run = (depth, 0);
        }
        if d.monster_in_sight_of(id).is_some() {
            self.run.1 = 0;
        } else {
            self.run.1 += 1;
        }
        let longest = self.quiet.entry(depth).or_default();
        *longest = (*longest).max(self.run.1);
    }
}

/// The run as one JSON object: `simulate --json`.
#[derive(Debug, Serialize)]
pub struct Summary {
    pub games: usize,
    pub seed: u64,
    pub wins: usize,
    /// Games still going at the turn cap.
    pub timed_out: usize,
    /// Deaths on each floor (every floor listed, 0 included).
    pub deaths_by_floor: BTreeMap<u8, usize>,
    /// Deaths by the kind that killed.
    pub deaths_by_killer: BTreeMap<String, usize>,
    /// The median game turn of the first level-up (games that never levelled count as later
    /// than any); `null` if fewer than half the games levelled.
    pub first_level_up_median: Option<u64>,
    /// The median, over every floor of every game, of that floor's longest stretch of turns
    /// with no monster in sight.
    pub quiet_stretch_median: u64,
    /// Of the games that reached floor 5, the share that found armour or a chip by then.
    pub armour_or_chip_by_floor_5: f64,
    /// Games that reached floor 5.
    pub reached_floor_5: usize,
    /// The median number of healing items in the pack at death.
    pub health_packs_unused_at_death_median: u32,
    pub level_median: u32,
    pub turns_median: u64,
}

/// The middle value of `v` (the upper one of an even count), or `None` if `v` is empty.
fn median<T: Ord + Copy>(mut v: Vec<T>) -> Option<T> {
    v.sort_unstable();
    v.get(v.len() / 2).copied()
}

/// The summary of `results`, played from `seed` on a dungeon of `floors` floors.
pub fn summary(results: &[GameResult], seed: u64, floors: u8) -> Summary {
    let mut deaths_by_floor: BTreeMap<u8, usize> = (1..=floors).map(|f| (f, 0)).collect();
    let mut deaths_by_killer = BTreeMap::new();
    for r in results {
        if let Outcome::Killed(by) = &r.outcome {
            *deaths_by_floor.entry(r.deepest).or_default() += 1;
            *deaths_by_killer.entry(by.clone()).or_default() += 1;
        }
    }
    let count = |o: &Outcome| results.iter().filter(|r| &r.outcome == o).count();
    let levelled = results
        .iter()
        .map(|r| r.measures.first_level_up.unwrap_or(u64::MAX))
        .collect();
    let quiet = results
        .iter()
        .flat_map(|r| r.measures.quiet.values().copied())
        .collect();
    let deep: Vec<&GameResult> = results.iter().filter(|r| r.deepest >= LOOT_FLOOR).collect();
    let found = deep.iter().filter(|r| r.measures.armour_or_chip).count();
    let heals = results
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Killed(_)))
        .map(|r| r.measures.heals_held)
        .collect();
    Summary {
        games: results.len(),
        seed,
        wins: count(&Outcome::Won),
        timed_out: count(&Outcome::TimedOut),
        deaths_by_floor,
        deaths_by_killer,
        first_level_up_median: median(levelled).filter(|t| *t != u64::MAX),
        quiet_stretch_median: median(quiet).unwrap_or(0),
        armour_or_chip_by_floor_5: if deep.is_empty() {
            0.0
        } else {
            found as f64 / deep.len() as f64
        },
        reached_floor_5: deep.len(),
        health_packs_unused_at_death_median: median(heals).unwrap_or(0),
        level_median: median(results.iter().map(|r| r.level).collect()).unwrap_or(0),
        turns_median: median(results.iter().map(|r| r.turns).collect()).unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Tally;

    fn game(outcome: Outcome, deepest: u8, measures: Measures) -> GameResult {
        GameResult {
            seed: 1,
            outcome,
            deepest,
            level: 3,
            turns: 900,
            kills: 10,
            tally: Tally::default(),
            measures,
        }
    }

    #[test]
    fn the_summary_counts_and_takes_medians_as_documented() {
        let quiet = |v: &[u64]| {
            v.iter()
                .enumerate()
                .map(|(k, q)| (k as u8 + 1, *q))
                .collect()
        };
        let results = vec![
            game(
                Outcome::Killed("Tough Mouse".into()),
                7,
                Measures {
                    first_level_up: Some(100),
                    quiet: quiet(&[50, 70]),
                    armour_or_chip: true,
                    heals_held: 2,
                    ..Measures::default()
                },
            ),
            game(
                Outcome::Killed("Rabid Mouse".into()),
                5,
                Measures {
                    first_level_up: Some(300),
                    quiet: quiet(&[200]),
                    heals_held: 0,
                    ..Measures::default()
                },
            ),
            game(
                Outcome::Won,
                10,
                Measures {
                    first_level_up: None,
                    quiet: quiet(&[10, 20]),
                    armour_or_chip: true,
                    ..Measures::default()
                },
            ),
            game(
                Outcome::Killed("Tough Mouse".into()),
                2,
                Measures::default(),
            ),
        ];
        let s = summary(&results, 1, 10);
        assert_eq!((s.games, s.wins, s.timed_out), (4, 1, 0));
        assert_eq!(s.deaths_by_floor.len(), 10, "every floor is listed");
        assert_eq!(
            (
                s.deaths_by_floor[&7],
                s.deaths_by_floor[&5],
                s.deaths_by_floor[&2]
            ),
            (1, 1, 1)
        );
        assert_eq!(s.deaths_by_killer["Tough Mouse"], 2);
        // 100, 300, never, never: the median (upper middle) is "never".
        assert_eq!(s.first_level_up_median, None);
        // 50, 70, 200, 10, 20 sorted: 10 20 50 70 200.
        assert_eq!(s.quiet_stretch_median, 50);
        // Three reached floor 5; two found armour or a chip.
        assert_eq!(s.reached_floor_5, 3);
        assert!((s.armour_or_chip_by_floor_5 - 2.0 / 3.0).abs() < 1e-9);
        // Deaths held 2, 0, 0 healing items.
        assert_eq!(s.health_packs_unused_at_death_median, 0);
        let json = serde_json::to_value(&s).unwrap();
        for field in [
            "games",
            "wins",
            "deaths_by_floor",
            "deaths_by_killer",
            "first_level_up_median",
            "quiet_stretch_median",
            "armour_or_chip_by_floor_5",
            "health_packs_unused_at_death_median",
        ] {
            assert!(json.get(field).is_some(), "{field} missing from {json}");
        }
        assert_eq!(json["deaths_by_floor"]["7"], 1);
    }
}
