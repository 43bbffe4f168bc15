//! Status effects (stun, confusion, poison) and the end of the game in victory.
//!
//! A monster whose kind inflicts an effect has a given chance (1 in 10) on each damaging hit on a
//! player to strike it, unless the player already suffers it. From the end of the next turn on,
//! each effect is shaken off with a chance in percent equal to the sufferer's saving throw.

use std::sync::Arc;

use delve_protocol::{Dir, Effect, Slot};
use rand::RngExt;

use super::Dungeon;
use crate::game::EntityId;
use crate::game::action::Action;
use crate::game::content::Inflicts;
use crate::game::event::{Actor, Event};

impl Dungeon {
    /// After monster `attacker` hit player `target` for damage and left it alive.
    pub(super) fn maybe_inflict(
        &mut self,
        depth: u8,
        attacker: EntityId,
        target: EntityId,
        out: &mut Vec<Event>,
    ) {
        let content = Arc::clone(&self.content);
        let Some(m) = self.floor(depth).and_then(|f| f.monsters.get(&attacker)) else {
            return;
        };
        let effect = match m.kind(&content).inflicts {
            Inflicts::None => return,
            Inflicts::Stun => Effect::Stun,
            Inflicts::Poison => Effect::Poison,
            Inflicts::Confusion => Effect::Confusion,
        };
        if self
            .players
            .get(&target)
            .is_none_or(|p| !p.alive || p.has(effect))
        {
            return;
        }
        let [n, d] = content.effects.chance;
        if self.floor_mut(depth).rng.random_range(0..d) >= n {
            return;
        }
        self.emit(Event::EffectStarted { id: target, effect }, out);
    }

    /// After player `attacker` hit `target` (a monster, or anyone) for damage and left it
    /// alive: a worn weapon that inflicts an effect (the Stun Baton) strikes it with the
    /// weapon's chance, unless the target already suffers it.
    pub(super) fn weapon_inflict(
        &mut self,
        depth: u8,
        attacker: EntityId,
        target: EntityId,
        out: &mut Vec<Event>,
    ) {
        let content = Arc::clone(&self.content);
        let Some(weapon) = self
            .players
            .get(&attacker)
            .and_then(|p| p.worn_in(Slot::Weapon, &content))
            .map(|w| w.kind(&content))
        else {
            return;
        };
        let effect = match weapon.inflicts {
            Inflicts::Stun => Effect::Stun,
            // The content file allows weapons to stun only.
            Inflicts::None | Inflicts::Poison | Inflicts::Confusion => return,
        };
        let suffers = match self.players.get(&target) {
            Some(p) => !p.alive || p.has(effect),
            None => self
                .floor(depth)
                .is_none_or(|f| f.stunned.contains(&target)),
        };
        if suffers {
            return;
        }
        let [n, d] = weapon.inflict_chance;
        if self.floor_mut(depth).rng.random_range(0..d.max(1)) >= n {
            return;
        }
        self.emit(Event::EffectStarted { id: target, effect }, out);
    }

    /// A confused character's move: a random direction, or nowhere (one chance in nine each).
    pub(super) fn stagger(&mut self, depth: u8, id: EntityId, out: &mut Vec<Event>) -> Action {
        let k = self.floor_mut(depth).rng.random_range(0..=Dir::ALL.len());
        match Dir::ALL.get(k) {
            Some(&dir) => Action::Move { dir },
            None => {
                self.emit(Event::Stumbled { id }, out);
                Action::Wait
            }
        }
    }

    /// The end of a turn for the effects of floor `depth`: poison bites, then every effect
    /// older than this turn faces a saving throw.
    pub(super) fn effects_end_turn(&mut self, depth: u8, out: &mut Vec<Event>) {
        let content = Arc::clone(&self.content);
        let sufferers: Vec<(EntityId, i32, i32)> = self
            .living_on(depth)
            .filter(|p| !p.effects.is_empty())
            .map(|p| (p.id, p.hp, p.stats(&content).save))
            .collect();
        for (id, hp, save) in sufferers {
            let Some(p) = self.players.get(&id) else {
                continue;
            };
            let (effects, fresh) = (p.effects.clone(), p.fresh_effects.clone());
            if effects.contains(&Effect::Poison) && hp > 1 {
                self.emit(Event::PoisonHurt { id, amount: 1 }, out);
            }
            for effect in effects {
                if fresh.contains(&effect) {
                    continue;
                }
                if self.floor_mut(depth).rng.random_range(0..100) < save {
                    let cured = false;
                    self.emit(Event::EffectEnded { id, effect, cured }, out);
                }
            }
        }
    }

    /// The Mouse King fell: every living character in the dungeon wins.
    pub(super) fn win(&mut self, king: Actor, out: &mut Vec<Event>) {
        let winners: Vec<EntityId> = self
            .players
            .values()
            .filter(|p| p.alive && !p.victory)
            .map(|p| p.id)
            .collect();
        if winners.is_empty() {
            return;
        }
        self.emit(Event::Victory { king, winners }, out);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use delve_protocol::{Dir, Effect, Pos, Tile};

    use crate::game::action::{Action, ActionError};
    use crate::game::content::Content;
    use crate::game::dungeon::scene::{said, turn};
    use crate::game::event::Event;
    use crate::game::{Dungeon, EntityId, JoinError};

    fn with(content: Content, seed: u64) -> (Dungeon, EntityId, Pos) {
        let mut d = Dungeon::new(seed, Arc::new(content));
        d.floor_mut(1).items.clear();
        let (ann, _) = d.join("Ann").unwrap();
        let map = d.floor_mut(1).map.clone();
        let p = (0..map.cells().len())
            .map(|i| map.pos_of(i))
            .find(|p| {
                (-2..=2).all(|dy| {
                    (-2..=2).all(|dx| map.get(Pos::new(p.x + dx, p.y + dy)) == Tile::Floor)
                })
            })
            .expect("a room");
        d.place_for_test(ann, 1, p);
        (d, ann, p)
    }

    fn quiet(seed: u64) -> (Dungeon, EntityId, Pos) {
        with(Content::builtin_without_monsters(), seed)
    }

    /// Sets the saving throw through a worn chip: 100 always saves, -1000 never does.
    fn set_save(d: &mut Dungeon, id: EntityId, save: i32) {
        let chip = d.give_for_test(id, "microchip");
        let p = d.players.get_mut(&id).unwrap();
        let base = p.stats(&d.content).save;
        let it = p.inventory.iter_mut().find(|i| i.id == chip).unwrap();
        it.bonus = delve_protocol::Bonus {
            save: save - base,
            ..Default::default()
        };
        it.equipped = true;
    }

    #[test]
    fn monster_hits_strike_their_kind_s_effect_about_one_time_in_ten() {
        // Ann stands beside a Tough Mouse (stun), a Rabid Mouse (poison) and a Meta Mouse
        // (confusion) and is kept alive; count damaging hits and effects struck. Each effect
        // is cured at once so the next hit can strike it again.
        let (mut d, ann, p) = quiet(31);
        set_save(&mut d, ann, -1000);
        let kinds = [
            ("tough_mouse", Effect::Stun, Dir::W),
            ("rabid_mouse", Effect::Poison, Dir::E),
            ("meta_mouse", Effect::Confusion, Dir::N),
        ];
        let mut ids = Vec::new();
        for (key, _, dir) in kinds {
            ids.push(d.add_monster_for_test(1, key, 1, p.step(dir)));
        }
        let mut hits = [0u32; 3];
        let mut struck = [0u32; 3];
        for _ in 0..1500 {
            let events = turn(&mut d, ann, Action::Wait);
            for e in &events {
                match e {
                    Event::Attacked {
                        attacker,
                        damage: Some(_),
                        ..
                    } => {
                        let k = ids.iter().position(|&m| m == attacker.id).unwrap();
                        hits[k] += 1;
                    }
                    Event::EffectStarted { id, effect } => {
                        assert_eq!(*id, ann);
                        let k = kinds.iter().position(|(_, e, _)| e == effect).unwrap();
                        struck[k] += 1;
                    }
                    _ => {}
                }
            }
            let p = d.players.get_mut(&ann).unwrap();
            p.hp = 10_000;
            p.effects.clear();
            p.fresh_effects.clear();
        }
        for k in 0..3 {
            let rate = f64::from(struck[k]) / f64::from(hits[k]);
            assert!(hits[k] > 400, "{:?}: {} hits", kinds[k].0, hits[k]);
            assert!(
                (0.07..0.13).contains(&rate),
                "{}: {}/{} hits struck {:?}",
                kinds[k].0,
                struck[k],
                hits[k],
                kinds[k].1
            );
        }
    }

    #[test]
    fn an_effect_already_suffered_is_not_struck_again() {
        let mut c = Content::builtin_without_monsters();
        c.effects.chance = [1, 1];
        let (mut d, ann, p) = with(c, 32);
        set_save(&mut d, ann, -1000);
        d.add_monster_for_test(1, "rabid_mouse", 1, p.step(Dir::E));
        let mut started = 0;
        for _ in 0..60 {
            let events = turn(&mut d, ann, Action::Wait);
            started += events
                .iter()
                .filter(|e| matches!(e, Event::EffectStarted { .. }))
                .count();
            d.players.get_mut(&ann).unwrap().hp = 10_000;
        }
        assert_eq!(started, 1, "poisoned once, and it never wore off");
        assert!(d.player(ann).unwrap().has(Effect::Poison));
    }

    #[test]
    fn a_stunned_player_loses_the_turn_and_cannot_use_the_pack() {
        let (mut d, ann, p) = quiet(33);
        set_save(&mut d, ann, -1000);
        let pack = d.give_for_test(ann, "health_pack");
        d.afflict_for_test(ann, Effect::Stun);
        let events = turn(&mut d, ann, Action::Move { dir: Dir::E });
        assert_eq!(d.player(ann).unwrap().pos, p, "the move is lost");
        assert!(said(&events, ann).contains(&"You are stunned and lose the turn.".to_string()));
        d.players.get_mut(&ann).unwrap().hp = 5;
        for a in [
            Action::Use { item: pack },
            Action::Drop { item: pack },
            Action::PickUp,
            Action::Equip { item: pack },
        ] {
            assert_eq!(d.submit(ann, a), Err(ActionError::StunnedPack), "{a:?}");
        }
        assert!(d.player(ann).unwrap().carried(pack).is_some());
    }

    #[test]
    fn a_confused_player_staggers_and_cannot_use_the_pack() {
        let (mut d, ann, _) = quiet(34);
        set_save(&mut d, ann, -1000);
        let vial = d.give_for_test(ann, "antivenom");
        d.afflict_for_test(ann, Effect::Confusion);
        d.afflict_for_test(ann, Effect::Poison);
        assert_eq!(
            d.submit(ann, Action::Use { item: vial }),
            Err(ActionError::ConfusedPack)
        );
        // Ask to go east (or the first open way) 90 times: the steps go every which way, or
        // nowhere.
        let mut dirs = std::collections::BTreeSet::new();
        let mut stood = 0;
        for _ in 0..90 {
            let from = d.player(ann).unwrap().pos;
            let want = std::iter::once(Dir::E)
                .chain(Dir::ALL)
                .find(|&dir| d.check(ann, Action::Move { dir }).is_ok())
                .unwrap();
            turn(&mut d, ann, Action::Move { dir: want });
            let to = d.player(ann).unwrap().pos;
            if to == from {
                stood += 1;
            } else {
                dirs.insert((to.x - from.x, to.y - from.y));
            }
        }
        assert!(dirs.len() >= 5, "random directions: {dirs:?}");
        assert!(stood > 0, "sometimes nowhere");
    }

    #[test]
    fn poison_bites_one_hp_a_turn_never_the_last_and_stops_healing() {
        let (mut d, ann, _) = quiet(35);
        set_save(&mut d, ann, -1000);
        d.players.get_mut(&ann).unwrap().hp = 6;
        d.afflict_for_test(ann, Effect::Poison);
        let mut hps = Vec::new();
        for _ in 0..12 {
            turn(&mut d, ann, Action::Wait);
            hps.push(d.player(ann).unwrap().hp);
        }
        assert_eq!(hps, vec![5, 4, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1]);
        assert!(d.player(ann).unwrap().alive);

        // The Vial of Antivenom cures it, and healing comes back.
        let vial = d.give_for_test(ann, "antivenom");
        let events = turn(&mut d, ann, Action::Use { item: vial });
        assert!(!d.player(ann).unwrap().has(Effect::Poison));
        assert!(d.player(ann).unwrap().carried(vial).is_none());
        assert!(events.iter().any(|e| matches!(
            e,
            Event::EffectEnded {
                effect: Effect::Poison,
                ..
            }
        )));
        for _ in 0..12 {
            turn(&mut d, ann, Action::Wait);
        }
        assert!(d.player(ann).unwrap().hp > 1, "natural healing again");
    }

    #[test]
    fn the_saving_throw_shakes_effects_off_from_the_next_turn_on() {
        // A save of 100 always succeeds: an effect struck during a turn lasts through the
        // next turn's action and ends when that turn ends, with the given message.
        let (mut d, ann, p) = quiet(36);
        set_save(&mut d, ann, 100);
        d.afflict_for_test(ann, Effect::Stun);
        d.afflict_for_test(ann, Effect::Poison);
        let events = turn(&mut d, ann, Action::Move { dir: Dir::E });
        assert_eq!(d.player(ann).unwrap().pos, p, "still stunned this turn");
        assert!(d.player(ann).unwrap().effects.is_empty());
        let lines = said(&events, ann);
        assert!(
            lines.contains(&"You are no longer stunned.".to_string()),
            "{lines:?}"
        );
        assert!(
            lines.contains(&"You are no longer poisoned.".to_string()),
            "{lines:?}"
        );

        // Struck in a turn, it survives that turn's end even with a perfect save.
        let mut c = Content::builtin_without_monsters();
        c.effects.chance = [1, 1];
        let (mut d, ann, p) = with(c, 37);
        set_save(&mut d, ann, 100);
        d.add_monster_for_test(1, "meta_mouse", 1, p.step(Dir::E));
        let mut struck_at = None;
        for t in 0..40 {
            let events = turn(&mut d, ann, Action::Wait);
            d.players.get_mut(&ann).unwrap().hp = 10_000;
            if events
                .iter()
                .any(|e| matches!(e, Event::EffectStarted { .. }))
            {
                struck_at = Some(t);
                assert!(
                    d.player(ann).unwrap().has(Effect::Confusion),
                    "not saved the same turn"
                );
                let events = turn(&mut d, ann, Action::Wait);
                assert!(said(&events, ann).contains(&"You are no longer confused.".to_string()));
                break;
            }
        }
        assert!(struck_at.is_some(), "the Meta Mouse hit and confused Ann");

        // A save of 0 never shakes anything off.
        let (mut d, ann, _) = quiet(38);
        set_save(&mut d, ann, -1000);
        d.afflict_for_test(ann, Effect::Confusion);
        for _ in 0..100 {
            turn(&mut d, ann, Action::Wait);
        }
        assert!(d.player(ann).unwrap().has(Effect::Confusion));
    }

    #[test]
    fn killing_the_mouse_king_wins_the_game_for_every_living_player() {
        let (mut d, ann, p) = quiet(39);
        let (bob, _) = d.join("Bob").unwrap();
        let (cy, _) = d.join("Cy").unwrap();
        // Bob is on another floor; Cy is dead.
        let up2 = d.floor_mut(2).up;
        d.place_for_test(bob, 2, up2);
        d.players.get_mut(&cy).unwrap().alive = false;
        let king = d.add_monster_for_test(1, "mouse_king", 1, p.step(Dir::E));
        d.floor_mut(1).monsters.get_mut(&king).unwrap().hp = 1;
        let mut events = Vec::new();
        for _ in 0..50 {
            if !d.floor(1).unwrap().monsters.contains_key(&king) {
                break;
            }
            d.players.get_mut(&ann).unwrap().hp = 10_000;
            events = turn(&mut d, ann, Action::Move { dir: Dir::E });
            // Bob's floor does not wait for him to be resolved.
        }
        let victory = events
            .iter()
            .find_map(|e| match e {
                Event::Victory { winners, .. } => Some(winners.clone()),
                _ => None,
            })
            .expect("the King fell");
        assert_eq!(victory, vec![ann, bob], "the living win, wherever they are");
        for id in [ann, bob] {
            let p = d.player(id).unwrap();
            assert!(p.victory && p.alive && !p.present);
            assert!(
                said(&events, id)
                    .contains(&"The Mouse King is dead! You have won the game!".to_string())
            );
            assert_eq!(d.submit(id, Action::Wait), Err(ActionError::Won));
        }
        assert!(!d.player(cy).unwrap().victory);
        let score = crate::game::score::score(d.player(ann).unwrap(), d.content());
        assert!(score >= d.content().score.victory);
        // A winner whose player has gone is a record: its name is free, and it may be forgotten.
        d.set_connected(bob, false);
        assert!(!d.player(bob).unwrap().in_party());
        assert!(d.join("Bob").is_ok(), "the name is free again");
        assert!(d.evict_dead(), "the finished record makes room");
        assert!(d.player(bob).is_none());
        // A winner may start a new character; the King stays dead.
        assert_eq!(
            d.new_character(ann)
                .map(|_| ())
                .map_err(|e| crate::view::join_refusal(&e)),
            Ok(())
        );
        // The living who have not won may not.
        let (di, _) = d.join("Di").unwrap();
        assert_eq!(d.new_character(di).map(|_| ()), Err(JoinError::StillAlive));
    }

    #[test]
    fn a_confused_stagger_onto_items_leaves_them_lying() {
        // Ann, confused for good, stands in a room where every cell near her, hers too,
        // holds a Key.
        let (mut d, ann, p) = quiet(35);
        set_save(&mut d, ann, -1000);
        d.afflict_for_test(ann, Effect::Confusion);
        for dy in -2..=2 {
            for dx in -2..=2 {
                d.lay_for_test(1, "key", Pos::new(p.x + dx, p.y + dy));
            }
        }
        let carried = d.player(ann).unwrap().inventory.len();
        let mut steps = 0;
        for _ in 0..12 {
            let from = d.player(ann).unwrap().pos;
            let events = turn(&mut d, ann, Action::Move { dir: Dir::E });
            let to = d.player(ann).unwrap().pos;
            if to != from && (to.x - p.x).abs() <= 2 && (to.y - p.y).abs() <= 2 {
                steps += 1;
                assert!(d.floor(1).unwrap().items_at(to).next().is_some());
            }
            assert!(
                !events.iter().any(|e| matches!(e, Event::PickedUp { .. })),
                "a stagger picked something up: {events:?}"
            );
        }
        assert!(steps >= 3, "Ann staggered onto keys {steps} times");
        assert_eq!(d.player(ann).unwrap().inventory.len(), carried);
        // Cured, the same step picks the key up.
        d.apply(&Event::EffectEnded {
            id: ann,
            effect: Effect::Confusion,
            cured: true,
        });
        let here = d.player(ann).unwrap().pos;
        let dir = Dir::ALL
            .into_iter()
            .find(|&dir| {
                d.floor(1)
                    .unwrap()
                    .items_at(here.step(dir))
                    .next()
                    .is_some()
            })
            .expect("a key beside Ann");
        let events = turn(&mut d, ann, Action::Move { dir });
        assert!(events.iter().any(|e| matches!(e, Event::PickedUp { .. })));
    }

    /// Ann, kept alive, hits a Tough Mouse kept alive east of her for `turns` turns wielding
    /// `weapon`. Returns her damaging hits, the stuns they struck, and the turns the mouse lost.
    fn bash(weapon: &str, turns: usize) -> (u32, u32, u32) {
        let (mut d, ann, p) = quiet(36);
        let w = d.give_for_test(ann, weapon);
        turn(&mut d, ann, Action::Equip { item: w });
        let mouse = d.add_monster_for_test(1, "tough_mouse", 1, p.step(Dir::E));
        let (mut hits, mut stuns, mut lost) = (0, 0, 0);
        for _ in 0..turns {
            d.players.get_mut(&ann).unwrap().hp = 10_000;
            d.floor_mut(1).monsters.get_mut(&mouse).unwrap().hp = 1_000_000;
            let events = turn(&mut d, ann, Action::Move { dir: Dir::E });
            let struck = events.iter().any(
                |e| matches!(e, Event::EffectStarted { id, effect: Effect::Stun } if *id == mouse),
            );
            let lost_now = events
                .iter()
                .any(|e| matches!(e, Event::LostTurn { id, cause: Effect::Stun } if *id == mouse));
            let mouse_swung = events
                .iter()
                .any(|e| matches!(e, Event::Attacked { attacker, .. } if attacker.id == mouse));
            hits += u32::from(events.iter().any(|e| {
                matches!(e, Event::Attacked { attacker, damage: Some(_), .. } if attacker.id == ann)
            }));
            stuns += u32::from(struck);
            lost += u32::from(lost_now);
            // Stunned, the mouse loses exactly that turn's action; otherwise it fights back.
            assert_eq!(struck, lost_now, "{events:?}");
            assert_eq!(mouse_swung, !struck, "{events:?}");
            assert!(
                d.floor(1).unwrap().stunned.is_empty(),
                "the stun ends with the turn"
            );
        }
        (hits, stuns, lost)
    }

    #[test]
    fn the_stun_baton_stuns_monsters_one_hit_in_four_and_they_lose_their_action() {
        let (hits, stuns, lost) = bash("stun_baton", 1500);
        let [n, d] = Content::builtin().items[Content::builtin().item_index("stun_baton").unwrap()]
            .inflict_chance;
        assert_eq!([n, d], [1, 4]);
        let rate = f64::from(stuns) / f64::from(hits);
        assert!(hits > 400, "{hits} hits");
        assert!((0.19..0.31).contains(&rate), "{stuns} stuns in {hits} hits");
        assert_eq!(lost, stuns);
        // The crowbar hits as hard but never stuns.
        let (hits, stuns, _) = bash("crowbar", 300);
        assert!(hits > 50);
        assert_eq!(stuns, 0);
    }
}
