//! Everything from outside that changes a world, as one journal entry each. The server records
//! each input it gives the engine; replaying the same inputs from the same seed (or from a save
//! taken between them) rebuilds the same world, because the engine is deterministic.

use serde::{Deserialize, Serialize};

use super::stats::Stat;
use super::{Action, Dungeon, EntityId};

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
    /// A floor's turn resolved with these choices.
    Turn {
        depth: u8,
        actions: Vec<(EntityId, Action)>,
    },
    /// The longest-dead character whose player had gone was forgotten, to make room.
    EvictDead,
}

impl Dungeon {
    /// Gives the world a journaled input again, exactly as the live server did. Outcomes were
    /// already decided the first time, so they are not reported.
    pub fn replay(&mut self, input: &Input) {
        match input {
            Input::Join { name } => {
                let _ = self.join(name);
            }
            Input::NewCharacter { old } => {
                let _ = self.new_character(*old);
            }
            Input::Connected { id, connected } => self.set_connected(*id, *connected),
            Input::Lift { id } => {
                self.lift(*id);
            }
            Input::Return { id } => {
                self.return_player(*id);
            }
            Input::SpendPoint { id, stat } => {
                let _ = self.spend_point(*id, *stat);
            }
            Input::Turn { depth, actions } => {
                self.replay_turn(*depth, actions);
            }
            Input::EvictDead => {
                self.evict_dead();
            }
        }
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
                if d.players().all(|p| p.name != name) {
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
                        Action::Move(dir)
                    };
                    if d.submit(id, action).is_err() {
                        let _ = d.submit(id, Action::Wait);
                    }
                }
                let report = d.resolve_turn(depth);
                log.push(Input::Turn {
                    depth,
                    actions: report.actions,
                });
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
