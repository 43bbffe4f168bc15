//! The turn's events as one player saw them: which events reach its client, and the log lines
//! that tell them in its words ("You hit the Micro Mouse for 3.", "The Tough Mouse hits Bob
//! for 7.").
//!
//! The rule is conservative: an event is shown when it is about the viewer, or when every cell it
//! names is in the viewer's sight after the turn. A step from the dark into sight is therefore not
//! animated (the entity simply appears, via the view diff): animating it would reveal the cell it
//! came from.

use delve_protocol as proto;
use delve_protocol::{Effect, MessageKind, Pos, Stat};

use super::words::{called, with_article};
use crate::game::ActionError;
use crate::game::Content;
use crate::game::event::RestEnd;
use crate::game::player::Death;
use crate::game::{Dungeon, EntityId, Event};

/// How a character died, for its record, its death screen and the score table: "killed by a
/// Rabid Mouse on floor 6", "killed by the Mouse King on floor 10" (the boss is the one of his
/// kind).
pub fn cause_of_death(content: &Content, death: &Death) -> String {
    let depth = death.depth;
    let name = death.killer.as_str();
    if name.is_empty() {
        return format!("died on floor {depth}");
    }
    let boss = content.monsters.iter().any(|k| k.boss && *k.name == *name);
    let who = if boss {
        format!("the {name}")
    } else {
        with_article(name)
    };
    format!("killed by {who} on floor {depth}")
}

fn stat_name(s: Stat) -> &'static str {
    match s {
        Stat::MaxHp => "maximum HP",
        Stat::Attack => "attack",
        Stat::Defence => "defence",
        Stat::Sight => "sight",
        Stat::Save => "saving throw",
    }
}

/// The words for an effect: what the warning says when it strikes, and how it ends.
fn effect_words(e: Effect) -> (&'static str, &'static str) {
    match e {
        Effect::Stun => ("You've been stunned!", "You are no longer stunned."),
        Effect::Poison => ("You've been poisoned!", "You are no longer poisoned."),
        Effect::Confusion => ("You've been confused!", "You are no longer confused."),
    }
}

/// The lines an event about `viewer` itself puts in its log: what it did, what happened to
/// it, what it could not do. They need nothing but the event, so they are the same whatever
/// else the viewer sees (the turn's other lines are told by [`events_for`]).
pub fn own_lines(e: &Event, viewer: EntityId) -> Vec<(MessageKind, String)> {
    use MessageKind::{Good, Normal, Warning};
    let line = |kind, text: &str| vec![(kind, text.to_string())];
    match e {
        Event::Arrived { id, depth, .. } if *id == viewer => {
            line(Normal, &format!("Entering floor #{depth}"))
        }
        Event::ChangedFloor { id, from, to, .. } if *id == viewer => {
            let verb = if to > from { "descend" } else { "climb" };
            vec![
                (Normal, format!("You {verb} the staircase.")),
                (Normal, format!("Entering floor #{to}")),
            ]
        }
        Event::LostTurn { id, cause } if *id == viewer => {
            let text = match cause {
                Effect::Stun => "You are stunned and lose the turn.",
                Effect::Confusion => "You are confused and lose the turn.",
                Effect::Poison => "You are poisoned and lose the turn.",
            };
            line(Warning, text)
        }
        Event::Stumbled { id } if *id == viewer => line(Warning, "You stumble about in confusion."),
        Event::Blocked { id, by } if *id == viewer => match by {
            None => line(Normal, "There is a wall in the way."),
            Some(who) => line(Normal, &format!("{} is in the way.", called(who, true))),
        },
        Event::Refused { id, why } if *id == viewer => {
            // What is in the way of the stairs or the door is worth noticing.
            let kind = match why {
                ActionError::StairsBlocked | ActionError::Locked => Warning,
                _ => Normal,
            };
            line(kind, &super::refusal(why))
        }
        Event::DoorOpened { by, key, .. } if *by == viewer => match key {
            Some(_) => line(Normal, "Unlocked door. Key lost."),
            None => line(Normal, "You open the door."),
        },
        Event::PickedUp { id, name, .. } if *id == viewer => {
            line(Normal, &format!("Picked up {}.", with_article(name)))
        }
        Event::LeftBehind { id, name } if *id == viewer => line(
            Warning,
            &format!("Your pack is full: you leave the {name}."),
        ),
        Event::Equipped { id, name, .. } if *id == viewer => {
            line(Normal, &format!("You equip the {name}."))
        }
        Event::Unequipped { id, name, .. } if *id == viewer => {
            line(Normal, &format!("You take off the {name}."))
        }
        Event::Dropped {
            id,
            name,
            fell: false,
            ..
        } if *id == viewer => line(Normal, &format!("You drop the {name}.")),
        Event::Healed {
            id,
            amount,
            by: Some(item),
        } if *id == viewer => line(Good, &format!("You use the {item} and heal {amount} HP.")),
        Event::EffectStarted { id, effect } if *id == viewer => {
            line(Warning, effect_words(*effect).0)
        }
        Event::EffectEnded { id, effect, cured } if *id == viewer => match (cured, effect) {
            (true, Effect::Poison) => {
                line(Good, "You drink the antivenom. You are no longer poisoned.")
            }
            (true, Effect::Stun) => line(
                Good,
                "The smelling salts clear your head: you are no longer stunned.",
            ),
            (true, Effect::Confusion) => line(
                Good,
                "The smelling salts clear your head: you are no longer confused.",
            ),
            (false, _) => line(Good, effect_words(*effect).1),
        },
        Event::RestEnded { id, why } if *id == viewer => match why {
            RestEnd::Rested => line(Good, "You are fully rested."),
            RestEnd::Monster(name) => line(
                Warning,
                &format!("You stop resting: {} comes into view.", with_article(name)),
            ),
            RestEnd::Friend(name) => line(
                Normal,
                &format!("You stop resting: {name} comes into view."),
            ),
            RestEnd::Attacked => line(Warning, "You stop resting: you are attacked!"),
            RestEnd::Left => Vec::new(),
        },
        Event::Victory { king, winners } if winners.contains(&viewer) => line(
            Good,
            &format!("The {} is dead! You have won the game!", king.name),
        ),
        _ => (super::far::own_line(e, viewer))
            .or_else(|| super::together::own_line(e, viewer))
            .into_iter()
            .collect(),
    }
}

/// The events of a turn on floor `depth` that character `viewer` could see, for its client, with
/// the log lines that tell them.
pub fn events_for(
    dungeon: &Dungeon,
    viewer: EntityId,
    depth: u8,
    events: &[Event],
) -> Vec<proto::Event> {
    let Some(me) = dungeon.player(viewer) else {
        return Vec::new();
    };
    let Some(floor) = dungeon.floor(me.depth()) else {
        return Vec::new();
    };
    // Cells of the floor the events happened on that the viewer sees now.
    let here = me.depth() == depth;
    let sees = |p: Pos| here && floor.map().index(p).is_some_and(|i| me.sees(i));
    // Most events the viewer sees become one event of its own: made at that size at once (this
    // runs for every player after every turn, and the list only lives until it is encoded).
    let mut out = Vec::with_capacity(events.len());
    let say = |out: &mut Vec<proto::Event>, kind, text: String| {
        out.push(proto::Event::message(kind, text))
    };
    let mut hurt = false;
    for e in events {
        for (kind, text) in own_lines(e, viewer) {
            say(&mut out, kind, text);
        }
        match e {
            Event::Moved { id, from, to } => {
                if *id == viewer || (sees(*from) && sees(*to)) {
                    out.push(proto::Event::Moved {
                        id: *id,
                        from: *from,
                        to: Some(*to),
                    });
                }
            }
            // A monster stunned by a Stun Baton, and its lost action, for whoever sees it.
            Event::EffectStarted { id, effect } | Event::LostTurn { id, cause: effect }
                if *effect == Effect::Stun && floor.monsters().contains_key(id) =>
            {
                let Some(m) = floor.monsters().get(id).filter(|m| sees(m.pos())) else {
                    continue;
                };
                let name = &m.kind(dungeon.content()).name;
                let (kind, text) = if matches!(e, Event::EffectStarted { .. }) {
                    (MessageKind::Good, format!("The {name} is stunned!"))
                } else {
                    (
                        MessageKind::Normal,
                        format!("The {name} is stunned and loses its turn."),
                    )
                };
                say(&mut out, kind, text);
            }
            Event::Arrived { .. }
            | Event::Created { .. }
            | Event::Forgotten { .. }
            | Event::Connected { .. }
            | Event::Healed { .. }
            | Event::TurnEnded { .. }
            | Event::Dropped { .. }
            | Event::Equipped { .. }
            | Event::Unequipped { .. }
            | Event::UsedUp { .. }
            | Event::EffectStarted { .. }
            | Event::EffectEnded { .. }
            | Event::PoisonHurt { .. } => {}
            Event::DoorOpened { pos, by, key, .. } => {
                if *by == viewer || !sees(*pos) {
                    continue;
                }
                if let Some(who) = dungeon.player(*by) {
                    let verb = if key.is_some() { "unlocks" } else { "opens" };
                    say(
                        &mut out,
                        MessageKind::Normal,
                        format!("{} {verb} a door.", who.name()),
                    );
                }
            }
            Event::PickedUp { id, item, pos, .. } => {
                if *id == viewer || !sees(*pos) {
                    continue;
                }
                let Some(who) = dungeon.player(*id) else {
                    continue;
                };
                if let Some(it) = who.carried(*item) {
                    let name = &it.kind(dungeon.content()).name;
                    say(
                        &mut out,
                        MessageKind::Normal,
                        format!("{} picks up the {name}.", who.name()),
                    );
                }
            }
            Event::Victory { king, winners } => {
                if winners.contains(&viewer) {
                    continue; // the winners' own line comes as a message
                }
                say(
                    &mut out,
                    MessageKind::Good,
                    format!("The {} has fallen! The dungeon is won.", king.name),
                );
            }
            Event::Lifted { id, pos } | Event::Returned { id, pos } => {
                if *id == viewer || !sees(*pos) {
                    continue;
                }
                let Some(who) = dungeon.player(*id) else {
                    continue;
                };
                let text = if matches!(e, Event::Lifted { .. }) {
                    format!("{} fades away until their player returns.", who.name())
                } else {
                    format!("{} is back among us.", who.name())
                };
                say(&mut out, MessageKind::Normal, text);
            }
            Event::ChangedFloor {
                id,
                from,
                to,
                from_pos,
                pos,
            } => {
                if *id == viewer {
                    continue; // the mover's own lines come as messages
                }
                let Some(who) = dungeon.player(*id) else {
                    continue;
                };
                let down = to > from;
                if me.depth() == *from && floor.map().index(*from_pos).is_some_and(|i| me.sees(i)) {
                    let verb = if down { "descends" } else { "climbs" };
                    say(
                        &mut out,
                        MessageKind::Normal,
                        format!("{} {verb} the staircase.", who.name()),
                    );
                } else if me.depth() == *to && floor.map().index(*pos).is_some_and(|i| me.sees(i)) {
                    let whence = if down { "above" } else { "below" };
                    say(
                        &mut out,
                        MessageKind::Normal,
                        format!("{} arrives from {whence}.", who.name()),
                    );
                }
            }
            Event::Attacked {
                attacker,
                target,
                damage,
                with,
            } => {
                let mine = attacker.id == viewer || target.id == viewer;
                let seen = sees(attacker.pos) && sees(target.pos);
                if !(mine || seen) {
                    continue;
                }
                out.push(proto::Event::Attacked {
                    attacker: attacker.id,
                    target: target.id,
                    damage: *damage,
                });
                hurt |= target.id == viewer && damage.is_some();
                if let Some(with) = with {
                    let (kind, text) =
                        super::far::attacked_with(viewer, attacker, target, *damage, with);
                    say(&mut out, kind, text);
                    continue;
                }
                let (kind, text) = match (attacker.id == viewer, target.id == viewer, damage) {
                    (true, _, Some(d)) => (
                        MessageKind::Normal,
                        format!("You hit {} for {d}.", called(target, false)),
                    ),
                    (true, _, None) => (
                        MessageKind::Normal,
                        format!("You miss {}.", called(target, false)),
                    ),
                    (_, true, Some(d)) => {
                        hurt = true;
                        (
                            MessageKind::Bad,
                            format!("{} hits you for {d}.", called(attacker, true)),
                        )
                    }
                    (_, true, None) => (
                        MessageKind::Normal,
                        format!("{} misses you.", called(attacker, true)),
                    ),
                    (_, _, Some(d)) => (
                        MessageKind::Normal,
                        format!(
                            "{} hits {} for {d}.",
                            called(attacker, true),
                            called(target, false)
                        ),
                    ),
                    (_, _, None) => (
                        MessageKind::Normal,
                        format!(
                            "{} misses {}.",
                            called(attacker, true),
                            called(target, false)
                        ),
                    ),
                };
                say(&mut out, kind, text);
            }
            Event::Died { victim, killer } => {
                let mine = victim.id == viewer || killer.as_ref().is_some_and(|k| k.id == viewer);
                if !mine && !sees(victim.pos) {
                    continue;
                }
                out.push(proto::Event::Died {
                    id: victim.id,
                    pos: victim.pos,
                });
                let (kind, text) = if victim.id == viewer {
                    let death = Death {
                        killer: killer
                            .as_ref()
                            .map(|k| k.name.to_string())
                            .unwrap_or_default(),
                        depth,
                    };
                    let cause = cause_of_death(dungeon.content(), &death);
                    (MessageKind::Bad, format!("You die... ({cause})"))
                } else if killer.as_ref().is_some_and(|k| k.id == viewer) {
                    (
                        MessageKind::Good,
                        format!("You kill {}!", called(victim, false)),
                    )
                } else if victim.player {
                    let by = killer
                        .as_ref()
                        .map_or("something".to_string(), |k| called(k, false));
                    (
                        MessageKind::Bad,
                        format!("{} is killed by {by}!", victim.name),
                    )
                } else {
                    match killer {
                        Some(k) => (
                            MessageKind::Normal,
                            format!("{} kills {}.", called(k, true), called(victim, false)),
                        ),
                        None => (
                            MessageKind::Normal,
                            format!("{} dies.", called(victim, true)),
                        ),
                    }
                };
                say(&mut out, kind, text);
            }
            Event::GainedXp { id, amount } if *id == viewer => {
                say(
                    &mut out,
                    MessageKind::Good,
                    if *amount == 1 {
                        "You gain 1 experience point.".to_string()
                    } else {
                        format!("You gain {amount} experience points.")
                    },
                );
            }
            Event::GainedXp { .. } => {}
            Event::LeveledUp { id, level, .. } => {
                if *id == viewer {
                    say(
                        &mut out,
                        MessageKind::Good,
                        format!("You are now level {level}!"),
                    );
                } else if let Some(m) = floor.monsters().get(id)
                    && sees(m.pos())
                {
                    let name = &m.kind(dungeon.content()).name;
                    say(
                        &mut out,
                        MessageKind::Warning,
                        format!("The {name} looks stronger!"),
                    );
                }
            }
            Event::SpentPoint { id, stat } if *id == viewer => {
                say(
                    &mut out,
                    MessageKind::Good,
                    format!("Your {} rises.", stat_name(*stat)),
                );
            }
            Event::SpentPoint { .. } => {}
            Event::LostTurn { .. }
            | Event::Blocked { .. }
            | Event::Stumbled { .. }
            | Event::Refused { .. }
            | Event::LeftBehind { .. }
            | Event::Chose { .. }
            | Event::RestEnded { .. }
            | Event::Revealed { .. }
            | Event::Spawned { .. }
            | Event::Planned { .. } => {}
            Event::Flew { .. }
            | Event::Exploded { .. }
            | Event::Dazed { .. }
            | Event::Called { .. }
            | Event::Teleported { .. } => super::far::tell(dungeon, viewer, e, &sees, &mut out),
            Event::Away { .. }
            | Event::Back { .. }
            | Event::Gave { .. }
            | Event::Helped { .. }
            | Event::Grown { .. }
            | Event::Supplied { .. }
            | Event::Marked { .. }
            | Event::Unmarked { .. }
            | Event::Revivable { .. }
            | Event::BeyondHelp { .. }
            | Event::Revived { .. } => {
                super::together::tell(dungeon, viewer, e, here, &sees, &mut out)
            }
        }
    }
    if hurt && me.alive() {
        let max = me.stats(dungeon.content()).max_hp;
        if me.hp() * 4 <= max {
            say(&mut out, MessageKind::Warning, "Your HP is low!".into());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    //! The warnings and the other coloured lines: each text with the kind (so the colour,
    //! GAME_RULES.md's orange, light blue, red or white) it is told with.

    use std::sync::Arc;

    use delve_protocol::{Dir, Effect, MessageKind, Pos, Tile};

    use super::{events_for, own_lines};
    use crate::game::event::{Actor, Event};
    use crate::game::{ActionError, Content, Dungeon, EntityId};

    use MessageKind::{Bad, Good, Normal, Warning};

    fn line(kind: MessageKind, text: &str) -> Vec<(MessageKind, String)> {
        vec![(kind, text.to_string())]
    }

    #[test]
    fn the_effect_warnings_are_orange_and_their_ends_light_blue() {
        let me = 1;
        for (effect, struck, ended, lost) in [
            (
                Effect::Stun,
                "You've been stunned!",
                "You are no longer stunned.",
                "You are stunned and lose the turn.",
            ),
            (
                Effect::Poison,
                "You've been poisoned!",
                "You are no longer poisoned.",
                "You are poisoned and lose the turn.",
            ),
            (
                Effect::Confusion,
                "You've been confused!",
                "You are no longer confused.",
                "You are confused and lose the turn.",
            ),
        ] {
            let started = Event::EffectStarted { id: me, effect };
            assert_eq!(own_lines(&started, me), line(Warning, struck));
            let cured = false;
            let over = Event::EffectEnded {
                id: me,
                effect,
                cured,
            };
            assert_eq!(own_lines(&over, me), line(Good, ended));
            let cause = effect;
            let lost_turn = Event::LostTurn { id: me, cause };
            assert_eq!(own_lines(&lost_turn, me), line(Warning, lost));
            // Someone else's effect is not told as the viewer's.
            assert!(own_lines(&started, me + 1).is_empty());
        }
        let cured = Event::EffectEnded {
            id: me,
            effect: Effect::Poison,
            cured: true,
        };
        assert_eq!(
            own_lines(&cured, me),
            line(Good, "You drink the antivenom. You are no longer poisoned.")
        );
        assert_eq!(
            own_lines(&Event::Stumbled { id: me }, me),
            line(Warning, "You stumble about in confusion.")
        );
    }

    #[test]
    fn what_needs_care_is_a_warning_and_the_rest_is_plain() {
        let me = 1;
        let left = Event::LeftBehind {
            id: me,
            name: "Key".into(),
        };
        assert_eq!(
            own_lines(&left, me),
            line(Warning, "Your pack is full: you leave the Key.")
        );
        for (why, kind) in [
            (ActionError::StairsBlocked, Warning),
            (ActionError::Locked, Warning),
            (ActionError::Wall, Normal),
            (ActionError::NothingHere, Normal),
        ] {
            let told = own_lines(
                &Event::Refused {
                    id: me,
                    why: why.clone(),
                },
                me,
            );
            assert_eq!(told.len(), 1);
            assert_eq!(told[0].0, kind, "{why:?}: {told:?}");
        }
    }

    /// Ann in a room of floor 1 with a Tough Mouse east of her.
    fn scene() -> (Dungeon, EntityId, EntityId, Pos) {
        let mut d = Dungeon::new(3, Arc::new(Content::builtin_without_monsters()));
        let joined = d.step(&crate::game::Input::Join { name: "Ann".into() });
        let ann = joined.ok().and_then(|o| o.character).expect("Ann joins");
        let map = d.floor(1).expect("floor 1").map().clone();
        let p = (0..map.cells().len())
            .map(|i| map.pos_of(i))
            .find(|p| {
                (-1..=1).all(|dy| {
                    (-1..=1).all(|dx| map.get(Pos::new(p.x + dx, p.y + dy)) == Tile::Floor)
                })
            })
            .expect("a room");
        d.place_for_test(ann, 1, p);
        let mouse = d.add_monster_for_test(1, "tough_mouse", 1, p.step(Dir::E));
        (d, ann, mouse, p)
    }

    fn messages(events: &[delve_protocol::Event]) -> Vec<(MessageKind, String)> {
        events
            .iter()
            .filter_map(|e| match e {
                delve_protocol::Event::Message { kind, text } => Some((*kind, text.clone())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_stunned_monster_is_told_to_whoever_sees_it() {
        let (d, ann, mouse, _) = scene();
        let events = [
            Event::EffectStarted {
                id: mouse,
                effect: Effect::Stun,
            },
            Event::LostTurn {
                id: mouse,
                cause: Effect::Stun,
            },
        ];
        assert_eq!(
            messages(&events_for(&d, ann, 1, &events)),
            vec![
                (Good, "The Tough Mouse is stunned!".to_string()),
                (
                    Normal,
                    "The Tough Mouse is stunned and loses its turn.".to_string()
                ),
            ]
        );
        // From another floor, nothing is seen.
        assert!(messages(&events_for(&d, ann, 2, &events)).is_empty());
    }

    #[test]
    fn a_hit_is_red_and_low_hp_after_it_is_orange() {
        let (mut d, ann, mouse, p) = scene();
        let actor = |id, name: &str, pos, player| Actor {
            id,
            name: name.into(),
            pos,
            player,
        };
        let hit = [Event::Attacked {
            attacker: actor(mouse, "Tough Mouse", p.step(Dir::E), false),
            target: actor(ann, "Ann", p, true),
            damage: Some(3),
            with: None,
        }];
        assert_eq!(
            messages(&events_for(&d, ann, 1, &hit)),
            vec![(Bad, "The Tough Mouse hits you for 3.".to_string())]
        );
        d.set_hp_for_test(ann, 2);
        assert_eq!(
            messages(&events_for(&d, ann, 1, &hit)),
            vec![
                (Bad, "The Tough Mouse hits you for 3.".to_string()),
                (Warning, "Your HP is low!".to_string()),
            ]
        );
    }
}
