//! Everything a dungeon can be told, and the one entry that tells it: [`Dungeon::step`].
//!
//! The server gives each [`Input`] to the engine through its journaled world, which records every
//! journaled input in one place; replaying the same inputs from the same seed (or from a save
//! taken between them) rebuilds the same world, because the engine is deterministic. Adding an
//! input means one variant here and one arm in `step`.

use serde::{Deserialize, Serialize};

use super::stats::Stat;
use super::{Action, ActionError, Dungeon, EntityId, Event, JoinError};

/// One thing a dungeon is told. Journal entries are these, encoded with postcard, which numbers
/// variants by position: new variants go at the end, or saved journals stop loading.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Input {
    /// A new character joined.
    Join {
        name: String,
    },
    /// A dead (or victorious) character's player started a new one.
    NewCharacter {
        old: EntityId,
    },
    /// A connection took over, or dropped, a character.
    Connected {
        id: EntityId,
        connected: bool,
    },
    /// The grace period of a dropped character ended.
    Lift {
        id: EntityId,
    },
    /// A lifted character's player came back.
    Return {
        id: EntityId,
    },
    SpendPoint {
        id: EntityId,
        stat: Stat,
    },
    /// A floor's turn resolves with these choices (in id order; whoever did not choose waits).
    /// Live, the server passes [`Dungeon::choices`] of the floor.
    Turn {
        depth: u8,
        actions: Vec<(EntityId, Action)>,
    },
    /// The longest-finished character whose player had gone was forgotten, to make room.
    EvictDead,
    /// A character's choice for its floor's coming turn, replaceable until the turn resolves.
    /// Not journaled on its own: the turn it resolves in records it.
    Choose {
        id: EntityId,
        action: Action,
    },
    /// A character that was made and never played, whose player left, was forgotten when its
    /// grace period ended (so a public dungeon cannot be filled by hellos). Whether it ever
    /// played is the server's to know; the engine only refuses one that is connected, finished
    /// or has a choice pending.
    Forget {
        id: EntityId,
    },
    /// The player of character `id` sent something while away: it is back (see
    /// [`crate::game::dungeon`]'s `away`). Refused, and so not journaled, if it was not away.
    Back {
        id: EntityId,
    },
    /// Character `id` marked cell `at` of its floor for its friends (it takes no turn).
    Mark {
        id: EntityId,
        at: delve_protocol::Pos,
    },
}

impl Input {
    /// Whether the journal keeps this input (every one that changes the world).
    pub fn journaled(&self) -> bool {
        !matches!(self, Input::Choose { .. })
    }
}

/// What an input did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// What happened, in order, for the views and the message log.
    pub events: Vec<Event>,
    /// The character a `Join` or `NewCharacter` made.
    pub character: Option<EntityId>,
    /// Every floor whose state changed: for a turn, the resolved one plus any a character
    /// arrived on by the stairs.
    pub floors: Vec<u8>,
    /// For a turn, the floor's turn number just resolved (1 for its first).
    pub turn: u64,
}

impl Outcome {
    fn of(events: Vec<Event>) -> Outcome {
        Outcome {
            events,
            ..Outcome::default()
        }
    }
}

/// Why an input changed nothing. A refused input is not journaled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    Join(JoinError),
    Action(ActionError),
    /// The input was allowed but there was nothing to do (a lift of someone already lifted, a
    /// connection state it already had, nobody to forget).
    Unchanged,
}

impl From<JoinError> for Refusal {
    fn from(e: JoinError) -> Refusal {
        Refusal::Join(e)
    }
}

impl From<ActionError> for Refusal {
    fn from(e: ActionError) -> Refusal {
        Refusal::Action(e)
    }
}

impl Dungeon {
    /// The one entry to the engine: everything from outside that changes a world comes in here.
    pub fn step(&mut self, input: &Input) -> Result<Outcome, Refusal> {
        let changed = |events: Vec<Event>| {
            if events.is_empty() {
                Err(Refusal::Unchanged)
            } else {
                Ok(Outcome::of(events))
            }
        };
        match input {
            Input::Join { name } => {
                let (id, events) = self.join(name)?;
                Ok(Outcome {
                    character: Some(id),
                    ..Outcome::of(events)
                })
            }
            Input::NewCharacter { old } => {
                let (id, events) = self.new_character(*old)?;
                Ok(Outcome {
                    character: Some(id),
                    ..Outcome::of(events)
                })
            }
            Input::Connected { id, connected } => {
                if self.player(*id).is_none_or(|p| p.connected == *connected) {
                    return Err(Refusal::Unchanged);
                }
                self.set_connected(*id, *connected);
                Ok(Outcome::default())
            }
            Input::Lift { id } => changed(self.lift(*id)),
            Input::Return { id } => changed(self.return_player(*id)),
            Input::SpendPoint { id, stat } => Ok(Outcome::of(self.spend_point(*id, *stat)?)),
            Input::Turn { depth, actions } => Ok(self.resolve_turn(*depth, actions)),
            Input::EvictDead => {
                if self.evict_dead() {
                    Ok(Outcome::default())
                } else {
                    Err(Refusal::Unchanged)
                }
            }
            Input::Choose { id, action } => Ok(Outcome {
                events: vec![self.submit(*id, *action)?],
                ..Outcome::default()
            }),
            Input::Forget { id } => changed(self.forget_unplayed(*id)),
            Input::Back { id } => changed(self.come_back(*id)),
            Input::Mark { id, at } => Ok(Outcome::of(self.mark(*id, *at)?)),
        }
    }

    /// Gives the world a journaled input again, exactly as the live server did. Outcomes were
    /// already decided the first time, so they are not reported.
    pub fn replay(&mut self, input: &Input) {
        let _ = self.step(input);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use delve_protocol::Dir;
    use rand::seq::IndexedRandom;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::game::Content;

    /// Plays `turns` random turns with three characters who come and go, recording every input
    /// the way the server does.
    fn play(d: &mut Dungeon, rng: &mut ChaCha8Rng, turns: usize, log: &mut Vec<Input>) {
        let record = |d: &mut Dungeon, input: Input, log: &mut Vec<Input>| {
            d.replay(&input);
            log.push(input);
        };
        for _ in 0..turns {
            let ids: Vec<EntityId> = d.players().filter(|p| p.alive).map(|p| p.id).collect();
            if ids.len() < 3 && rng.random_ratio(1, 20) {
                let name = format!("P{}", rng.random_range(0..1000));
                if d.players().all(|p| *p.name != *name) {
                    record(d, Input::Join { name }, log);
                }
                continue;
            }
            if let Some(&id) = ids.choose(rng) {
                match rng.random_range(0..40) {
                    0 => record(
                        d,
                        Input::Connected {
                            id,
                            connected: false,
                        },
                        log,
                    ),
                    1 => record(d, Input::Lift { id }, log),
                    2 => {
                        record(d, Input::Return { id }, log);
                        record(
                            d,
                            Input::Connected {
                                id,
                                connected: true,
                            },
                            log,
                        );
                    }
                    // Left without playing on: forgotten (refused if a choice waits).
                    4 => {
                        record(
                            d,
                            Input::Connected {
                                id,
                                connected: false,
                            },
                            log,
                        );
                        record(d, Input::Forget { id }, log);
                    }
                    3 => record(
                        d,
                        Input::SpendPoint {
                            id,
                            stat: Stat::Attack,
                        },
                        log,
                    ),
                    _ => {}
                }
            }
            let dead: Vec<EntityId> = d.players().filter(|p| !p.alive).map(|p| p.id).collect();
            if let Some(&old) = dead.first() {
                record(d, Input::NewCharacter { old }, log);
            }
            for depth in 1..=d.depth_count() {
                let movers: Vec<EntityId> = d.living_on(depth).map(|p| p.id).collect();
                if movers.is_empty() {
                    continue;
                }
                for id in movers {
                    let dir = *Dir::ALL.choose(rng).unwrap_or(&Dir::N);
                    let action = if rng.random_ratio(1, 30) {
                        Action::Descend
                    } else {
                        Action::Move { dir }
                    };
                    if d.submit(id, action).is_err() {
                        let _ = d.submit(id, Action::Wait);
                    }
                }
                let actions = d.choices(depth);
                d.resolve_turn(depth, &actions);
                log.push(Input::Turn { depth, actions });
            }
        }
    }

    #[test]
    fn a_save_plus_the_inputs_after_it_rebuilds_the_world_exactly() {
        let content = Arc::new(Content::builtin());
        for seed in [1u64, 2, 3] {
            let mut live = Dungeon::new(seed, Arc::clone(&content));
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut log = Vec::new();
            record_join(&mut live, &mut log, "Ann");
            record_join(&mut live, &mut log, "Bob");
            play(&mut live, &mut rng, 300, &mut log);
            let saved_at = log.len();
            let save = live.save();
            play(&mut live, &mut rng, 300, &mut log);

            // From the save, replaying what came after it.
            let mut restored = Dungeon::load(&save, Arc::clone(&content)).unwrap();
            for input in &log[saved_at..] {
                restored.replay(input);
            }
            assert_eq!(restored.state_hash(), live.state_hash(), "seed {seed}");
            // From nothing but the seed, replaying everything.
            let mut fresh = Dungeon::new(seed, Arc::clone(&content));
            for input in &log {
                fresh.replay(input);
            }
            assert_eq!(fresh.state_hash(), live.state_hash(), "seed {seed}");
            // The worlds are really equal, not just their hashes.
            assert_eq!(fresh.save(), live.save());
            // And a world that went differently (its last turn not taken) hashes differently.
            let last_turn = log
                .iter()
                .rposition(|i| matches!(i, Input::Turn { .. }))
                .unwrap();
            let mut other = Dungeon::new(seed, Arc::clone(&content));
            for input in &log[..last_turn] {
                other.replay(input);
            }
            assert_ne!(other.state_hash(), live.state_hash());
        }
    }

    fn record_join(d: &mut Dungeon, log: &mut Vec<Input>, name: &str) {
        let input = Input::Join { name: name.into() };
        d.replay(&input);
        log.push(input);
    }

    #[test]
    fn a_damaged_or_foreign_save_is_refused() {
        let content = Arc::new(Content::builtin());
        let mut d = Dungeon::new(5, Arc::clone(&content));
        d.join("Ann").unwrap();
        let save = d.save();
        let loaded = Dungeon::load(&save, Arc::clone(&content)).unwrap();
        assert_eq!(loaded.state_hash(), d.state_hash());
        assert!(Dungeon::load(&save[..save.len() / 2], Arc::clone(&content)).is_err());
        assert!(Dungeon::load(b"not a save", Arc::clone(&content)).is_err());
        let mut fewer = (*content).clone();
        fewer.dungeon.floors = 9;
        assert!(matches!(
            Dungeon::load(&save, Arc::new(fewer)),
            Err(crate::game::save::LoadError::Floors { .. })
        ));
    }
}
