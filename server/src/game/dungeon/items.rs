//! Items and doors: what a character's pack can do, picking things up, and walking into doors.
//!
//! Checks come first and change nothing (the refusals of GAME_RULES.md: not carried, full
//! pack, wrong slot, ...); execution emits events that `Dungeon::apply` carries out.

use delve_protocol::{INVENTORY_SLOTS, MessageKind, Pos, Tile};

use super::{Dungeon, msg};
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
                if p.inventory.len() >= INVENTORY_SLOTS {
                    return Err(ActionError::PackFull);
                }
                return Ok(());
            }
            Action::Use(i) | Action::Equip(i) | Action::Unequip(i) | Action::Drop(i) => {
                p.carried(i).ok_or(ActionError::NotCarried)?
            }
            _ => return Ok(()),
        };
        let name = || item.kind(c).name.clone();
        match action {
            Action::Use(_) => match item.use_(c) {
                ItemUse::Heal if p.hp >= p.stats(c).max_hp => Err(ActionError::FullHealth),
                ItemUse::CurePoison if !p.has(delve_protocol::Effect::Poison) => {
                    Err(ActionError::NotPoisoned)
                }
                ItemUse::Heal | ItemUse::CurePoison => Ok(()),
                ItemUse::Unlock => Err(ActionError::KeyNotUsable),
                ItemUse::None => Err(ActionError::NotUsable(name())),
            },
            Action::Equip(_) if item.slot(c).is_none() => Err(ActionError::NotWearable(name())),
            Action::Equip(_) if item.equipped => Err(ActionError::AlreadyWorn(name())),
            Action::Unequip(_) if !item.equipped => Err(ActionError::NotWorn(name())),
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
            self.emit(msg(id, MessageKind::Normal, e.to_string()), out);
            return;
        }
        let c = std::sync::Arc::clone(&self.content);
        let Some(it) = p.carried(item) else { return };
        let name = it.kind(&c).name.clone();
        let pos = p.pos;
        match action {
            Action::Use(_) => match it.use_(&c) {
                ItemUse::Heal => {
                    let max = p.stats(&c).max_hp;
                    let amount = (max * it.kind(&c).heal_percent / 100)
                        .max(1)
                        .min(max - p.hp);
                    self.emit(Event::UsedUp { id, item }, out);
                    self.emit(Event::Healed { id, amount }, out);
                    self.emit(
                        msg(
                            id,
                            MessageKind::Good,
                            format!("You use the {name} and heal {amount} HP."),
                        ),
                        out,
                    );
                }
                ItemUse::CurePoison => {
                    self.emit(Event::UsedUp { id, item }, out);
                    self.emit(
                        Event::EffectEnded {
                            id,
                            effect: delve_protocol::Effect::Poison,
                        },
                        out,
                    );
                    self.emit(
                        msg(
                            id,
                            MessageKind::Good,
                            "You drink the antivenom. You are no longer poisoned.",
                        ),
                        out,
                    );
                }
                ItemUse::Unlock | ItemUse::None => {}
            },
            Action::Equip(_) => {
                let slot = it.slot(&c);
                let old = slot
                    .and_then(|s| p.worn_in(s, &c))
                    .map(|o| (o.id, o.kind(&c).name.clone()));
                if let Some((old, old_name)) = old {
                    self.emit(Event::Unequipped { id, item: old }, out);
                    self.emit(
                        msg(
                            id,
                            MessageKind::Normal,
                            format!("You take off the {old_name}."),
                        ),
                        out,
                    );
                }
                self.emit(Event::Equipped { id, item }, out);
                self.emit(
                    msg(id, MessageKind::Normal, format!("You equip the {name}.")),
                    out,
                );
            }
            Action::Unequip(_) => {
                self.emit(Event::Unequipped { id, item }, out);
                self.emit(
                    msg(id, MessageKind::Normal, format!("You take off the {name}.")),
                    out,
                );
            }
            Action::Drop(_) => {
                self.emit(Event::Dropped { id, item, pos }, out);
                self.emit(
                    msg(id, MessageKind::Normal, format!("You drop the {name}.")),
                    out,
                );
            }
            _ => {}
        }
    }

    /// Picks up everything lying where `id` stands, as long as the pack has room. The first
    /// finder of an item gains the pick-up XP *(given: 1)*.
    pub(super) fn pick_up_all(&mut self, depth: u8, id: EntityId, out: &mut Vec<Event>) {
        let Some(pos) = self.players.get(&id).map(|p| p.pos) else {
            return;
        };
        let here: Vec<(EntityId, String, bool)> = match self.floor(depth) {
            Some(f) => f
                .items_at(pos)
                .map(|i| (i.id, i.kind(&self.content).name.clone(), i.found))
                .collect(),
            None => return,
        };
        for (item, name, found) in here {
            let full = self
                .players
                .get(&id)
                .is_none_or(|p| p.inventory.len() >= INVENTORY_SLOTS);
            if full {
                self.emit(
                    msg(
                        id,
                        MessageKind::Warning,
                        format!("Your pack is full: you leave the {name}."),
                    ),
                    out,
                );
                return;
            }
            self.emit(Event::PickedUp { id, item, pos }, out);
            self.emit(
                msg(
                    id,
                    MessageKind::Normal,
                    format!("Picked up {}.", super::with_article(&name)),
                ),
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
                self.emit(
                    msg(
                        id,
                        MessageKind::Warning,
                        "The door is locked. Key required.",
                    ),
                    out,
                );
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
            self.emit(
                msg(id, MessageKind::Normal, "Unlocked door. Key lost."),
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
            self.emit(msg(id, MessageKind::Normal, "You open the door."), out);
        }
    }
}
