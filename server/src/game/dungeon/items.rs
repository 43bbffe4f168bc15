//! Items and doors: what a character's pack can do, picking things up, and walking into doors.
//!
//! Checks come first and change nothing (the refusals of GAME_RULES.md: not carried, full
//! pack, wrong slot, ...); execution emits events that `Dungeon::apply` carries out.

use std::sync::Arc;

use delve_protocol::{Pos, Tile};

use super::Dungeon;
use crate::game::EntityId;
use crate::game::action::{Action, ActionError};
use crate::game::content::ItemUse;
use crate::game::event::Event;
use crate::game::floor::Floor;
use crate::game::player::Player;

impl Dungeon {
    /// Whether `p` carries a Key.
    pub(super) fn has_key(&self, p: &Player) -> bool {
        self.key_of(p).is_some()
    }

    fn key_of(&self, p: &Player) -> Option<EntityId> {
        p.inventory
            .iter()
            .find(|i| i.use_(&self.content) == ItemUse::Unlock)
            .map(|i| i.id)
    }

    /// The rules of the pack actions (the stun and confusion lock is checked before).
    pub(super) fn check_pack(
        &self,
        p: &Player,
        floor: &Floor,
        action: Action,
    ) -> Result<(), ActionError> {
        let c = &self.content;
        let item = match action {
            Action::PickUp => {
                if floor.items_at(p.pos).next().is_none() {
                    return Err(ActionError::NothingHere);
                }
                if !floor.items_at(p.pos).any(|i| p.has_room_for(i, c)) {
                    return Err(ActionError::PackFull);
                }
                return Ok(());
            }
            Action::Use { item: i }
            | Action::Equip { item: i }
            | Action::Unequip { item: i }
            | Action::Drop { item: i } => p.carried(i).ok_or(ActionError::NotCarried)?,
            _ => return Ok(()),
        };
        let name = || item.kind(c).name.to_string();
        match action {
            Action::Use { item: _ } => match item.use_(c) {
                ItemUse::Heal if p.hp >= p.stats(c).max_hp => Err(ActionError::FullHealth),
                ItemUse::CurePoison if !p.has(delve_protocol::Effect::Poison) => {
                    Err(ActionError::NotPoisoned)
                }
                ItemUse::Clear
                    if !p.has(delve_protocol::Effect::Stun)
                        && !p.has(delve_protocol::Effect::Confusion) =>
                {
                    Err(ActionError::ClearHead)
                }
                ItemUse::Heal
                | ItemUse::CurePoison
                | ItemUse::Teleport
                | ItemUse::Reveal
                | ItemUse::Clear => Ok(()),
                ItemUse::Unlock => Err(ActionError::KeyNotUsable),
                ItemUse::Throw | ItemUse::None => Err(ActionError::NotUsable(name())),
            },
            Action::Equip { item: _ } if item.slot(c).is_none() => {
                Err(ActionError::NotWearable(name()))
            }
            Action::Equip { item: _ } if item.equipped => Err(ActionError::AlreadyWorn(name())),
            Action::Unequip { item: _ } if !item.equipped => Err(ActionError::NotWorn(name())),
            _ => Ok(()),
        }
    }

    /// Carries out use, equip, unequip or drop of `item`. The check is made again: the pack
    /// may have changed since the choice was queued.
    pub(super) fn pack_act(
        &mut self,
        depth: u8,
        id: EntityId,
        action: Action,
        item: EntityId,
        out: &mut Vec<Event>,
    ) {
        let Some(p) = self.players.get(&id) else {
            return;
        };
        let Some(floor) = self.floor(depth) else {
            return;
        };
        if let Err(e) = self.check_pack(p, floor, action) {
            self.emit(Event::Refused { id, why: e }, out);
            return;
        }
        let c = std::sync::Arc::clone(&self.content);
        let Some(it) = p.carried(item) else { return };
        let name = it.kind(&c).name.clone();
        let pos = p.pos;
        match action {
            Action::Use { item: _ } => match it.use_(&c) {
                ItemUse::Heal => {
                    let max = p.stats(&c).max_hp;
                    let amount = (max * it.kind(&c).heal_percent / 100)
                        .max(1)
                        .min(max - p.hp);
                    self.emit(Event::UsedUp { id, item }, out);
                    let by = Some(name);
                    self.emit(Event::Healed { id, amount, by }, out);
                }
                ItemUse::CurePoison => {
                    self.emit(Event::UsedUp { id, item }, out);
                    self.emit(
                        Event::EffectEnded {
                            id,
                            effect: delve_protocol::Effect::Poison,
                            cured: true,
                        },
                        out,
                    );
                }
                ItemUse::Teleport => {
                    let far = it.kind(&c).distance;
                    // A floor always has a free cell: without one the teleporter does nothing.
                    let Some(to) = self.teleport_to(depth, id, far) else {
                        return;
                    };
                    self.emit(Event::UsedUp { id, item }, out);
                    self.emit(Event::Teleported { id, from: pos, to }, out);
                }
                ItemUse::Reveal => {
                    self.emit(Event::UsedUp { id, item }, out);
                    self.emit(Event::Revealed { id, depth }, out);
                }
                ItemUse::Clear => {
                    self.emit(Event::UsedUp { id, item }, out);
                    for effect in [
                        delve_protocol::Effect::Stun,
                        delve_protocol::Effect::Confusion,
                    ] {
                        if self.players.get(&id).is_some_and(|p| p.has(effect)) {
                            let cured = true;
                            self.emit(Event::EffectEnded { id, effect, cured }, out);
                        }
                    }
                }
                ItemUse::Throw | ItemUse::Unlock | ItemUse::None => {}
            },
            Action::Equip { item: _ } => {
                let slot = it.slot(&c);
                let old = slot
                    .and_then(|s| p.worn_in(s, &c))
                    .map(|o| (o.id, o.kind(&c).name.clone()));
                if let Some((old, old_name)) = old {
                    let name = old_name;
                    self.emit(
                        Event::Unequipped {
                            id,
                            item: old,
                            name,
                        },
                        out,
                    );
                }
                self.emit(Event::Equipped { id, item, name }, out);
            }
            Action::Unequip { item: _ } => {
                self.emit(Event::Unequipped { id, item, name }, out);
            }
            Action::Drop { item: _ } => {
                let fell = false;
                self.emit(
                    Event::Dropped {
                        id,
                        item,
                        pos,
                        name,
                        fell,
                    },
                    out,
                );
            }
            _ => {}
        }
    }

    /// Where a Pocket Teleporter carries `id`: a free floor cell at least `far` tiles away (by
    /// the dice), else the free cell farthest away; `None` if there is no free cell at all.
    fn teleport_to(&mut self, depth: u8, id: EntityId, far: i32) -> Option<Pos> {
        let here = self.players.get(&id)?.pos;
        let floor = self.floor(depth)?;
        let free: Vec<Pos> = (floor.open_cells.iter().copied())
            .filter(|p| floor.tile(*p) == Tile::Floor && !self.occupied(depth, *p))
            .collect();
        let distant: Vec<Pos> = free
            .iter()
            .copied()
            .filter(|p| p.chebyshev(here) >= far)
            .collect();
        if distant.is_empty() {
            return free
                .into_iter()
                .max_by_key(|p| (p.chebyshev(here), std::cmp::Reverse(*p)));
        }
        let rng = &mut self.floor_mut(depth).rng;
        Some(distant[rand::RngExt::random_range(rng, 0..distant.len())])
    }

    /// Whether `action` uses something that clears the head (Smelling Salts): the one pack
    /// action a stunned or confused character can take.
    pub(super) fn clears_head(&self, p: &Player, action: Action) -> bool {
        matches!(action, Action::Use { item } if p.carried(item).is_some_and(|i| i.use_(&self.content) == ItemUse::Clear))
    }

    /// Picks up everything lying where `id` stands that the pack has room for (a free slot, or
    /// a stack to join). The first finder of an item gains the pick-up XP *(given: 1)*. A full
    /// pack is told once, for the first item it left.
    pub(super) fn pick_up_all(&mut self, depth: u8, id: EntityId, out: &mut Vec<Event>) {
        let Some(pos) = self.players.get(&id).map(|p| p.pos) else {
            return;
        };
        let here: Vec<(EntityId, Arc<str>, bool)> = match self.floor(depth) {
            Some(f) => f
                .items_at(pos)
                .map(|i| (i.id, i.kind(&self.content).name.clone(), i.found))
                .collect(),
            None => return,
        };
        let mut told = false;
        for (item, name, found) in here {
            let fits = self.players.get(&id).is_some_and(|p| {
                let lying = self.floor(depth).and_then(|f| f.items.get(&item));
                lying.is_some_and(|(_, it)| p.has_room_for(it, &self.content))
            });
            if !fits {
                if !told {
                    self.emit(Event::LeftBehind { id, name }, out);
                    told = true;
                }
                continue;
            }
            self.emit(
                Event::PickedUp {
                    id,
                    item,
                    pos,
                    name,
                },
                out,
            );
            let xp = self.content.xp.pickup;
            if !found && xp > 0 {
                self.gain_xp(depth, id, xp, out);
            }
        }
    }

    /// `id` walks into the shut door at `to`: an unlocked door opens; a locked one takes a Key.
    /// Either way the character stays where it is: opening is the turn.
    pub(super) fn try_door(
        &mut self,
        depth: u8,
        id: EntityId,
        to: Pos,
        tile: Tile,
        out: &mut Vec<Event>,
    ) {
        let Some(p) = self.players.get(&id) else {
            return;
        };
        if tile == Tile::DoorLocked {
            let Some(key) = self.key_of(p) else {
                let why = ActionError::Locked;
                self.emit(Event::Refused { id, why }, out);
                return;
            };
            self.emit(
                Event::DoorOpened {
                    depth,
                    pos: to,
                    by: id,
                    key: Some(key),
                },
                out,
            );
        } else {
            self.emit(
                Event::DoorOpened {
                    depth,
                    pos: to,
                    by: id,
                    key: None,
                },
                out,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use delve_protocol::{Bonus, Dir, Effect, MessageKind, Pos, Slot, Tile};

    use crate::game::action::{Action, ActionError};
    use crate::game::content::Content;
    use crate::game::dungeon::scene::{said, turn};
    use crate::game::event::Event;
    use crate::game::{Dungeon, EntityId};

    fn quiet(seed: u64) -> Dungeon {
        Dungeon::new(seed, Arc::new(Content::builtin_without_monsters()))
    }

    /// A room cell with open floor for `len` cells to its east, rows above and below open too.
    fn room(d: &mut Dungeon) -> Pos {
        let map = d.floor_mut(1).map.clone();
        (0..map.cells().len())
            .map(|i| map.pos_of(i))
            .find(|p| {
                (-1..=1)
                    .all(|dy| (-1..=4).all(|k| map.get(Pos::new(p.x + k, p.y + dy)) == Tile::Floor))
            })
            .expect("a room")
    }

    /// Ann alone in a room with nothing lying around her.
    fn ann_in_a_room(seed: u64) -> (Dungeon, EntityId, Pos) {
        let mut d = quiet(seed);
        d.floor_mut(1).items.clear();
        let (ann, _) = d.join("Ann").unwrap();
        let p = room(&mut d);
        d.place_for_test(ann, 1, p);
        (d, ann, p)
    }

    #[test]
    fn walking_onto_an_item_picks_it_up_and_only_its_first_finder_gains_xp() {
        let (mut d, ann, p) = ann_in_a_room(3);
        let east = p.step(Dir::E);
        let bar = d.lay_for_test(1, "crowbar", east);
        let events = turn(&mut d, ann, Action::Move { dir: Dir::E });
        let me = d.player(ann).unwrap();
        assert_eq!(me.pos, east);
        assert!(me.carried(bar).is_some(), "the Crowbar is in the pack");
        assert!(d.floor(1).unwrap().items.is_empty());
        assert!(said(&events, ann).contains(&"Picked up a Crowbar.".to_string()));
        assert_eq!(me.xp, 1, "picking up gives 1 XP (given)");

        // Dropped and taken again: no second XP.
        turn(&mut d, ann, Action::Drop { item: bar });
        assert!(d.player(ann).unwrap().carried(bar).is_none());
        assert_eq!(
            d.floor(1).unwrap().items.get(&bar).map(|(q, _)| *q),
            Some(east)
        );
        let events = turn(&mut d, ann, Action::PickUp);
        assert!(said(&events, ann).contains(&"Picked up a Crowbar.".to_string()));
        assert_eq!(d.player(ann).unwrap().xp, 1);
        assert!(!events.iter().any(|e| matches!(e, Event::GainedXp { .. })));
    }

    #[test]
    fn the_pack_holds_26_and_a_full_pack_leaves_things_lying() {
        let (mut d, ann, p) = ann_in_a_room(4);
        for _ in 0..26 {
            d.give_for_test(ann, "crowbar");
        }
        let east = p.step(Dir::E);
        let pack = d.lay_for_test(1, "health_pack", east);
        let events = turn(&mut d, ann, Action::Move { dir: Dir::E });
        assert_eq!(d.player(ann).unwrap().pos, east, "the step itself happens");
        assert_eq!(d.player(ann).unwrap().inventory.len(), 26);
        assert!(d.floor(1).unwrap().items.contains_key(&pack));
        assert!(
            said(&events, ann)
                .contains(&"Your pack is full: you leave the Health Pack.".to_string())
        );
        assert_eq!(d.submit(ann, Action::PickUp), Err(ActionError::PackFull));
        assert_eq!(
            d.floor(1).unwrap().pending(ann),
            None,
            "a refusal queues nothing"
        );

        // A dropped crowbar makes room for one: `pick_up` takes what lies here in id order (the
        // crowbar first), and the pack is full again before the Health Pack.
        let bar = d.player(ann).unwrap().inventory[0].id;
        turn(&mut d, ann, Action::Drop { item: bar });
        assert_eq!(d.player(ann).unwrap().inventory.len(), 25);
        let events = turn(&mut d, ann, Action::PickUp);
        let me = d.player(ann).unwrap();
        assert_eq!(me.inventory.len(), 26);
        assert!(me.carried(bar).is_some() && me.carried(pack).is_none());
        assert_eq!(
            said(&events, ann),
            vec![
                "Picked up a Crowbar.".to_string(),
                "Your pack is full: you leave the Health Pack.".to_string()
            ]
        );
    }

    #[test]
    fn things_used_not_worn_stack_in_one_slot_with_a_count() {
        let (mut d, ann, p) = ann_in_a_room(4);
        let first = d.give_for_test(ann, "health_pack");
        d.give_for_test(ann, "crowbar");
        // 24 more pieces of equipment: the pack's 26 slots are full.
        for _ in 0..24 {
            d.give_for_test(ann, "stun_baton");
        }
        assert_eq!(d.player(ann).unwrap().slots_used(d.content()), 26);
        // A Health Pack and a Key lie to the east: the pack joins its stack, the Key needs a
        // slot of its own and is left.
        let east = p.step(Dir::E);
        let second = d.lay_for_test(1, "health_pack", east);
        d.lay_for_test(1, "key", east);
        let events = turn(&mut d, ann, Action::Move { dir: Dir::E });
        assert_eq!(
            said(&events, ann),
            vec![
                "Picked up a Health Pack.".to_string(),
                "Your pack is full: you leave the Key.".to_string()
            ]
        );
        // The view shows the stack where its first unit was picked up, named by its id.
        let view = crate::view::view_of(&d, ann).unwrap();
        assert_eq!(view.inventory.len(), 26);
        assert_eq!((view.inventory[0].id, view.inventory[0].count), (first, 2));
        assert_eq!(view.inventory[0].use_, delve_protocol::ItemUse::Heal);
        assert_eq!(view.inventory[1].count, 1);
        // Using one uses that unit: the stack goes on with the other, in the same place.
        d.set_hp_for_test(ann, 5);
        turn(&mut d, ann, Action::Use { item: first });
        let view = crate::view::view_of(&d, ann).unwrap();
        assert_eq!((view.inventory[0].id, view.inventory[0].count), (second, 1));
        // A drop puts down one unit.
        d.give_for_test(ann, "health_pack");
        turn(&mut d, ann, Action::Drop { item: second });
        let view = crate::view::view_of(&d, ann).unwrap();
        assert_eq!(view.inventory[0].count, 1);
        assert!(d.floor(1).unwrap().items.contains_key(&second));
    }

    #[test]
    fn impossible_pack_actions_are_refused_and_change_nothing() {
        let (mut d, ann, _) = ann_in_a_room(5);
        let bar = d.give_for_test(ann, "crowbar");
        let pack = d.give_for_test(ann, "health_pack");
        let key = d.give_for_test(ann, "key");
        let vial = d.give_for_test(ann, "antivenom");
        let before = d.player(ann).unwrap().inventory.clone();
        let cases = [
            (Action::Use { item: 999 }, ActionError::NotCarried),
            (Action::Equip { item: 999 }, ActionError::NotCarried),
            (Action::Drop { item: 999 }, ActionError::NotCarried),
            (
                Action::Equip { item: pack },
                ActionError::NotWearable("Health Pack".into()),
            ),
            (
                Action::Unequip { item: bar },
                ActionError::NotWorn("Crowbar".into()),
            ),
            (
                Action::Use { item: bar },
                ActionError::NotUsable("Crowbar".into()),
            ),
            (Action::Use { item: key }, ActionError::KeyNotUsable),
            (Action::Use { item: pack }, ActionError::FullHealth),
            (Action::Use { item: vial }, ActionError::NotPoisoned),
            (Action::PickUp, ActionError::NothingHere),
        ];
        for (action, want) in cases {
            assert_eq!(d.submit(ann, action), Err(want), "{action:?}");
        }
        assert_eq!(d.player(ann).unwrap().inventory, before);
        assert_eq!(d.floor(1).unwrap().pending(ann), None);
        turn(&mut d, ann, Action::Equip { item: bar });
        assert_eq!(
            d.submit(ann, Action::Equip { item: bar }),
            Err(ActionError::AlreadyWorn("Crowbar".into()))
        );
        // Another character's item is not yours.
        let (bob, _) = d.join("Bob").unwrap();
        assert_eq!(
            d.submit(bob, Action::Drop { item: bar }),
            Err(ActionError::NotCarried)
        );
    }

    #[test]
    fn equipment_adds_its_bonus_swaps_by_slot_and_clamps() {
        let (mut d, ann, _) = ann_in_a_room(6);
        let c = d.content().clone();
        let base = d.player(ann).unwrap().stats(&c);
        let bar = d.give_for_test(ann, "crowbar");
        let baton = d.give_for_test(ann, "stun_baton");
        let jacket = d.give_for_test(ann, "biker_jacket");

        let events = turn(&mut d, ann, Action::Equip { item: bar });
        assert!(said(&events, ann).contains(&"You equip the Crowbar.".to_string()));
        let s = d.player(ann).unwrap().stats(&c);
        let cb = c.item("crowbar").unwrap().bonus;
        assert_eq!(
            (s.attack_min, s.attack_max),
            (
                base.attack_min + cb.attack_min,
                base.attack_max + cb.attack_max
            )
        );

        // The baton takes the weapon slot; the crowbar comes off.
        let events = turn(&mut d, ann, Action::Equip { item: baton });
        assert_eq!(
            said(&events, ann),
            vec![
                "You take off the Crowbar.".to_string(),
                "You equip the Stun Baton.".to_string()
            ]
        );
        let me = d.player(ann).unwrap();
        assert!(!me.carried(bar).unwrap().equipped && me.carried(baton).unwrap().equipped);
        assert_eq!(me.worn_in(Slot::Weapon, &c).map(|i| i.id), Some(baton));
        let sb = c.item("stun_baton").unwrap().bonus;
        let s = me.stats(&c);
        assert_eq!(
            (s.attack_min, s.attack_max),
            (
                base.attack_min + sb.attack_min,
                base.attack_max + sb.attack_max
            )
        );

        // Armour adds to max HP and defence, beside the weapon.
        turn(&mut d, ann, Action::Equip { item: jacket });
        let jb = c.item("biker_jacket").unwrap().bonus;
        let s = d.player(ann).unwrap().stats(&c);
        assert_eq!(
            (s.max_hp, s.defence),
            (base.max_hp + jb.max_hp, base.defence + jb.defence)
        );

        // A cursed chip: every stat far below zero, clamped (given): max HP 1, attacks 1,
        // defence 0, saving throw 0. HP follows max HP down.
        let chip = d.give_for_test(ann, "microchip");
        d.players
            .get_mut(&ann)
            .unwrap()
            .inventory
            .iter_mut()
            .find(|i| i.id == chip)
            .unwrap()
            .bonus = Bonus {
            max_hp: -500,
            attack_min: -50,
            attack_max: -50,
            defence: -50,
            save: -500,
            sight: 0,
        };
        turn(&mut d, ann, Action::Equip { item: chip });
        let me = d.player(ann).unwrap();
        let s = me.stats(&c);
        assert_eq!(
            (s.max_hp, s.attack_min, s.attack_max, s.defence, s.save),
            (1, 1, 1, 0, 0)
        );
        assert_eq!(me.hp, 1);

        // Taking it all off gives back the base stats; HP stays low (natural healing only).
        for item in [chip, jacket, baton] {
            turn(&mut d, ann, Action::Unequip { item });
        }
        let me = d.player(ann).unwrap();
        assert_eq!(me.stats(&c), base);
        assert!(me.inventory.iter().all(|i| !i.equipped));
        assert!(me.hp <= 2, "{}", me.hp);
    }

    #[test]
    fn a_health_pack_heals_half_and_is_used_up() {
        let (mut d, ann, _) = ann_in_a_room(7);
        let pack = d.give_for_test(ann, "health_pack");
        d.players.get_mut(&ann).unwrap().hp = 3;
        let events = turn(&mut d, ann, Action::Use { item: pack });
        let me = d.player(ann).unwrap();
        let max = me.stats(d.content()).max_hp;
        let heal = max * d.content().item("health_pack").unwrap().heal_percent / 100;
        assert_eq!(me.hp, 3 + heal);
        assert!(me.carried(pack).is_none(), "used up");
        assert!(
            said(&events, ann).contains(&format!("You use the Health Pack and heal {heal} HP."))
        );
    }

    #[test]
    fn a_locked_door_needs_a_key_and_keeps_it() {
        let (mut d, ann, p) = ann_in_a_room(8);
        let door = p.step(Dir::E);
        d.set_tile_for_test(1, door, Tile::DoorLocked);
        // No key: refused before queueing, with the given sentence.
        let e = d.submit(ann, Action::Move { dir: Dir::E }).unwrap_err();
        assert_eq!(e, ActionError::Locked);
        assert_eq!(
            crate::view::refusal(&e),
            "The door is locked. Key required."
        );

        let key = d.give_for_test(ann, "key");
        let spare = d.give_for_test(ann, "key");
        let events = turn(&mut d, ann, Action::Move { dir: Dir::E });
        let me = d.player(ann).unwrap();
        assert_eq!(me.pos, p, "opening the door is the turn: Ann stays");
        assert_eq!(d.floor(1).unwrap().tile(door), Tile::DoorOpen);
        assert!(
            me.carried(key).is_none() && me.carried(spare).is_some(),
            "one key is lost"
        );
        assert!(said(&events, ann).contains(&"Unlocked door. Key lost.".to_string()));
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::DoorOpened { key: Some(k), .. } if *k == key))
        );
        // Now it is an open door: walk through.
        turn(&mut d, ann, Action::Move { dir: Dir::E });
        assert_eq!(d.player(ann).unwrap().pos, door);
    }

    #[test]
    fn a_closed_door_blocks_sight_and_the_way_until_walked_into() {
        let (mut d, ann, p) = ann_in_a_room(9);
        let door = p.step(Dir::E);
        let beyond = door.step(Dir::E);
        let map = d.floor(1).unwrap().map.clone();
        let i = map.index(beyond).unwrap();
        assert!(d.player(ann).unwrap().sees(i));
        d.set_tile_for_test(1, door, Tile::DoorClosed);
        // Only the cells straight behind the door are hidden; the one right behind surely is.
        assert!(
            !d.player(ann).unwrap().sees(i),
            "a closed door blocks sight"
        );
        let events = turn(&mut d, ann, Action::Move { dir: Dir::E });
        assert_eq!(d.player(ann).unwrap().pos, p);
        assert!(said(&events, ann).contains(&"You open the door.".to_string()));
        assert!(
            d.player(ann).unwrap().sees(i),
            "an open door lets sight through"
        );
        assert_eq!(
            d.player(ann).unwrap().memory(1).unwrap().get(door),
            Tile::DoorOpen,
            "the door is remembered as it is now"
        );
    }

    #[test]
    fn the_fallen_leave_their_pack_where_they_fell() {
        let mut d = Dungeon::new(10, Arc::new(Content::builtin_without_monsters()));
        d.floor_mut(1).items.clear();
        let (ann, _) = d.join("Ann").unwrap();
        let p = room(&mut d);
        d.place_for_test(ann, 1, p);
        let bar = d.give_for_test(ann, "crowbar");
        turn(&mut d, ann, Action::Equip { item: bar });
        d.players.get_mut(&ann).unwrap().hp = 1;
        let m = d.add_monster_for_test(1, "meta_mouse", 5, p.step(Dir::W));
        for _ in 0..20 {
            if !d.player(ann).unwrap().alive {
                break;
            }
            turn(&mut d, ann, Action::Wait);
        }
        assert!(
            !d.player(ann).unwrap().alive,
            "the Meta Mouse {m} killed Ann"
        );
        let lying = d.floor(1).unwrap().items.get(&bar).unwrap();
        assert_eq!(lying.0, p);
        assert!(!lying.1.equipped);
        assert!(d.player(ann).unwrap().inventory.is_empty());
        let _ = (Effect::Poison, MessageKind::Normal);
    }
}

#[cfg(test)]
mod tools_tests;
