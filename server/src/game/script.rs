//! A world played from a string of bytes, checking the engine's invariants after every input:
//! what the fuzzer (`fuzz/`, see docs/FUZZING.md) and the property tests feed the engine.
//!
//! Any bytes are a valid script, so a fuzzer's mutations always reach the engine instead of a
//! parser. The bytes pick inputs the way the server makes them (choices, then a floor's turn
//! over those choices) and also the ways it never does (a turn holding whatever actions, for
//! characters who are elsewhere or dead, ids nobody has), because a journal read back from disk
//! may hold anything. Checked, besides [`Dungeon::check_invariants`]: floor turns and each
//! character's turn count only go up, a world saved and loaded is the same world, and the
//! journaled inputs replayed from the starting world rebuild exactly the live one.

use std::collections::BTreeMap;
use std::sync::Arc;

use delve_protocol::Dir;

use super::action::ActionKind;
use super::floor::Floor;
use super::input::Input;
use super::stats::Stat;
use super::{Action, Content, Dungeon, EntityId};

/// The world every script starts from: seed `seed`, with Ann and Bob on floor 1 after two turns
/// of waiting, and every floor made ahead. Making a floor costs milliseconds, so the floors are
/// made once here and a script copies each one it visits (floors are made the same whenever
/// they are); but only floor 1 is in the world, since every floor in it is cloned, checked,
/// saved, loaded and compared over and over by each script, which made the other nine most of
/// a script's cost. A floor's first turns plan a route for every monster, so floor 1 has had
/// two.
pub fn start(seed: u64, content: Arc<Content>) -> Dungeon {
    let mut d = Dungeon::new(seed, content);
    d.make_floors_ahead();
    for name in ["Ann", "Bob"] {
        let _ = d.step(&Input::Join { name: name.into() });
    }
    for _ in 0..2 {
        let ids: Vec<EntityId> = d.players().map(|p| p.id()).collect();
        for id in ids {
            let action = Action::Wait;
            let _ = d.step(&Input::Choose { id, action });
        }
        let actions = d.choices(1);
        let _ = d.step(&Input::Turn { depth: 1, actions });
    }
    d
}

/// What a script did.
#[derive(Debug)]
pub struct Played {
    /// The world at the end.
    pub world: Dungeon,
    /// Every journaled input that was taken, in order (what the server's journal would hold).
    pub journal: Vec<Input>,
}

/// Plays `script` from a copy of `start`, checking after every input. The error names the step
/// and the rule broken.
pub fn play(start: &Dungeon, script: &[u8]) -> Result<Played, String> {
    let mut live = Live {
        world: start.clone(),
        journal: Vec::new(),
        turns: BTreeMap::new(),
    };
    live.world.check_invariants()?;
    let mut bytes = Bytes(script);
    let mut step = 0usize;
    while let Some(op) = bytes.next() {
        step += 1;
        live.op(op, &mut bytes)
            .and_then(|()| live.world.check_invariants())
            .and_then(|()| live.check_turns())
            .map_err(|e| format!("step {step} (op byte {op}): {e}"))?;
    }
    let mut replayed = start.clone();
    for input in &live.journal {
        replayed.replay(input);
    }
    // Equal saves, equal hashes, without hashing them.
    if !same_save(&replayed, &live.world) {
        return Err(format!(
            "replaying the {} journaled inputs gives another world",
            live.journal.len()
        ));
    }
    Ok(Played {
        world: live.world,
        journal: live.journal,
    })
}

/// The rest of a script, read a byte at a time; past the end every byte reads as 0.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn next(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }

    fn byte(&mut self) -> u8 {
        self.next().unwrap_or(0)
    }
}

struct Live {
    world: Dungeon,
    journal: Vec<Input>,
    /// Turns seen so far: per floor, and per character.
    turns: BTreeMap<(bool, EntityId), u64>,
}

impl Live {
    /// A character picked by a byte: one of every character there is, or (one value in nine
    /// or so) an id nobody has.
    fn who(&self, b: u8) -> EntityId {
        let ids: Vec<EntityId> = self.world.players().map(|p| p.id).collect();
        match ids.get(usize::from(b) % (ids.len() + 1)) {
            Some(&id) => id,
            None => 4242,
        }
    }

    /// An action picked by the next bytes, for character `id` (an item id, when one is needed,
    /// is mostly one of its own).
    fn action(&self, id: EntityId, bytes: &mut Bytes) -> Action {
        let b = bytes.byte();
        let mut item = || {
            let pick = bytes.byte();
            let pack = self.world.player(id).map(|p| p.inventory()).unwrap_or(&[]);
            match pack.get(usize::from(pick) % (pack.len() + 1)) {
                Some(item) => item.id,
                None => u32::from(pick),
            }
        };
        // Half the bytes are moves (they explore the floor, which most rules need); the other
        // half pick any kind of action. Every kind is named below, so a new action is generated
        // as soon as it exists.
        let kind = if b < 128 {
            ActionKind::Move
        } else {
            ActionKind::ALL[usize::from(b - 128) % ActionKind::ALL.len()]
        };
        match kind {
            ActionKind::Move => Action::Move {
                dir: Dir::ALL[usize::from(b % 8)],
            },
            ActionKind::Wait => Action::Wait,
            ActionKind::Descend => Action::Descend,
            ActionKind::Ascend => Action::Ascend,
            ActionKind::PickUp => Action::PickUp,
            ActionKind::Use => Action::Use { item: item() },
            ActionKind::Equip => Action::Equip { item: item() },
            ActionKind::Unequip => Action::Unequip { item: item() },
            ActionKind::Drop => Action::Drop { item: item() },
            ActionKind::Rest => Action::Rest,
            ActionKind::Throw => Action::Throw {
                item: item(),
                at: self.near(id, bytes.byte()),
            },
            ActionKind::Fire => Action::Fire {
                at: self.near(id, bytes.byte()),
            },
            ActionKind::Give => Action::Give {
                item: item(),
                to: self.who(bytes.byte()),
            },
            ActionKind::UseOn => Action::UseOn {
                item: item(),
                on: self.who(bytes.byte()),
            },
        }
    }

    /// A cell picked by a byte within 7 tiles of character `id` (of the map's corner for an id
    /// nobody has).
    fn near(&self, id: EntityId, b: u8) -> delve_protocol::Pos {
        let at = self
            .world
            .player(id)
            .map_or(delve_protocol::Pos::new(0, 0), |p| p.pos());
        let (dx, dy) = (i32::from(b % 15) - 7, i32::from(b / 15 % 15) - 7);
        delve_protocol::Pos::new(at.x + dx, at.y + dy)
    }

    fn depth(&self, b: u8) -> u8 {
        b % self.world.depth_count() + 1
    }

    /// Takes `input` as the server would: journaled when it is taken and the journal keeps it.
    fn take(&mut self, input: Input) -> Result<(), String> {
        let before = match &input {
            Input::Turn { depth, .. } => Some(self.world.floor(*depth).map_or(0, |f| f.turn)),
            _ => None,
        };
        let outcome = self.world.step(&input);
        if let (Some(before), Ok(outcome)) = (before, &outcome)
            && outcome.turn != before + 1
        {
            return Err(format!(
                "a turn went from {before} to {} ({input:?})",
                outcome.turn
            ));
        }
        if outcome.is_ok() && input.journaled() {
            self.journal.push(input);
        }
        Ok(())
    }

    fn op(&mut self, op: u8, bytes: &mut Bytes) -> Result<(), String> {
        match op % 16 {
            0..=3 => {
                let id = self.who(bytes.byte());
                let action = self.action(id, bytes);
                self.take(Input::Choose { id, action })
            }
            4..=6 => {
                // As the server does: the floor of a character resolves its pending choices.
                let id = self.who(bytes.byte());
                let depth = self.world.player(id).map_or(1, |p| p.depth());
                let actions = self.world.choices(depth);
                self.take(Input::Turn { depth, actions })
            }
            7 => {
                let name = format!("P{}", bytes.byte() % 8);
                self.take(Input::Join { name })
            }
            8 => {
                let old = self.who(bytes.byte());
                self.take(Input::NewCharacter { old })
            }
            9 => {
                let b = bytes.byte();
                let id = self.who(b >> 1);
                self.take(Input::Connected {
                    id,
                    connected: b & 1 == 1,
                })
            }
            10 => {
                let id = self.who(bytes.byte());
                self.take(Input::Lift { id })
            }
            11 => {
                let id = self.who(bytes.byte());
                self.take(Input::Return { id })
            }
            12 => {
                let id = self.who(bytes.byte());
                let stat = Stat::ALL[usize::from(bytes.byte()) % Stat::ALL.len()];
                self.take(Input::SpendPoint { id, stat })
            }
            13 => {
                // A turn the server would never make: any actions, for anyone, on any floor.
                let depth = self.depth(bytes.byte());
                let n = bytes.byte() % 4;
                let mut actions = Vec::new();
                for _ in 0..n {
                    let id = self.who(bytes.byte());
                    actions.push((id, self.action(id, bytes)));
                }
                actions.sort_by_key(|(id, _)| *id);
                actions.dedup_by_key(|(id, _)| *id);
                self.take(Input::Turn { depth, actions })
            }
            // The inputs about the party, which are rarer.
            14 => match bytes.byte() % 3 {
                0 => self.take(Input::EvictDead),
                1 => {
                    let id = self.who(bytes.byte());
                    self.take(Input::Back { id })
                }
                _ => {
                    let id = self.who(bytes.byte());
                    let at = self.near(id, bytes.byte());
                    self.take(Input::Mark { id, at })
                }
            },
            _ => self.reload(),
        }
    }

    /// Saves and loads the world, and goes on with the loaded one (as a restart does).
    fn reload(&mut self) -> Result<(), String> {
        let content = Arc::new(self.world.content().clone());
        let saved = self.world.save();
        let mut loaded = Dungeon::load(&saved, content)
            .map_err(|e| format!("a saved world does not load: {e}"))?;
        loaded.share_floors_ahead(&self.world);
        if !same_save(&loaded, &self.world) {
            return Err("a saved world loads as another".into());
        }
        self.world = loaded;
        Ok(())
    }

    /// Floor turns and each character's turns never go back.
    fn check_turns(&mut self) -> Result<(), String> {
        let floors = (1..=self.world.depth_count())
            .filter_map(|d| self.world.floor(d))
            .map(|f| ((true, EntityId::from(f.depth())), f.turn()));
        let players = self.world.players().map(|p| ((false, p.id()), p.turns()));
        let now: Vec<_> = floors.chain(players).collect();
        for (key, turn) in now {
            let seen = self.turns.entry(key).or_insert(turn);
            if turn < *seen {
                return Err(format!("turns of {key:?} went back from {seen} to {turn}"));
            }
            *seen = turn;
        }
        Ok(())
    }
}

/// Whether `a` and `b` save as the same bytes (so have the same state hash).
///
/// Saving a world encodes its floors' maps tile by tile, so comparing two saves cost more than
/// all the turns of a script; this compares what the save holds, field by field, and saves only
/// when those differ. The save is a deterministic encoding of exactly those fields, so equal
/// fields mean equal saves; when they differ the saves decide, so the answer is always the
/// saves' own.
fn same_save(a: &Dungeon, b: &Dungeon) -> bool {
    let (x, y) = (a.parts(), b.parts());
    let same = x.seed == y.seed
        && x.params == y.params
        && x.next_id == y.next_id
        && x.players == y.players
        && x.party == y.party
        && x.floors.len() == y.floors.len()
        && x.floors.iter().zip(y.floors).all(|pair| match pair {
            (Some(f), Some(g)) => same_saved_floor(f, g),
            (None, None) => true,
            _ => false,
        });
    same || a.save() == b.save()
}

/// Whether two floors agree on every field a save holds. Every field is named, so a field added
/// to [`Floor`] does not compile here until it is sorted into saved or not.
fn same_saved_floor(f: &Floor, g: &Floor) -> bool {
    let Floor {
        depth,
        map,
        rooms,
        up,
        down,
        turn,
        monsters,
        items,
        rng,
        // Derived from the map or never saved (see `Floor`).
        open_cells: _,
        patrol: _,
        opaque: _,
        pending: _,
        stunned: _,
        rest_company: _,
    } = f;
    *depth == g.depth
        && *turn == g.turn
        && *up == g.up
        && *down == g.down
        && *rng == g.rng
        && *rooms == g.rooms
        && *monsters == g.monsters
        && *items == g.items
        && *map == g.map
}
