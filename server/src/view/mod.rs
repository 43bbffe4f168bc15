//! Per-player views: what one character sees and remembers, built from the world after each
//! change, plus the turn's events told the way that character saw them (see [`tell`]).
//!
//! This is the privacy boundary. Everything a client learns about the world passes through
//! [`view_of`] or [`events_for`], and both only read cells in the character's current sight or
//! memory.

mod far;
mod party;
mod refusal;
mod tell;
mod together;
mod words;

use delve_protocol as proto;
use delve_protocol::{CellSet, EntityKind, EntityView, ItemView, SelfView, View};

use crate::game::item::{Item, stacks};
use crate::game::score::score;
use crate::game::{Content, Dungeon, EntityId, Player};

pub use party::{party, party_for, set_party, set_watchers, turn_status};
pub use refusal::{input_refusal, join_refusal, refusal};
pub use tell::{cause_of_death, events_for, own_lines};

/// The view of character `id`, or `None` if it is not in the dungeon. A dead character keeps
/// watching the floor from where it fell.
pub fn view_of(dungeon: &Dungeon, id: EntityId) -> Option<View> {
    view_in(dungeon, id, Spare::default())
}

/// The lists of a view no longer needed (the last one a connection was sent, once the next one
/// has replaced it), emptied, to build a view in. The dungeon task builds a view for every
/// player after every turn; building each in the lists the one before it gave back spares
/// the allocator a dozen lists an update, and those lists were just read (by the diff).
#[derive(Debug, Default)]
pub struct Spare {
    runs: Vec<[u32; 2]>,
    entities: Vec<EntityView>,
    party: Vec<proto::PartyMember>,
    watchers: Vec<proto::Watcher>,
    inventory: Vec<ItemView>,
    marks: Vec<proto::MarkedSpot>,
}

impl Spare {
    /// The lists of `view`, emptied. The rest of it goes: its map is a character's memory,
    /// which must not be held on to (a character's next sight would copy it).
    pub fn from_view(view: View) -> Spare {
        let mut spare = Spare {
            runs: view.visible.into(),
            entities: view.entities,
            party: view.party,
            watchers: view.watchers,
            inventory: view.inventory,
            marks: view.marks,
        };
        spare.runs.clear();
        spare.entities.clear();
        spare.party.clear();
        spare.watchers.clear();
        spare.inventory.clear();
        spare.marks.clear();
        spare
    }
}

/// [`view_of`], built in the lists of `spare`. The party and the watchers are left empty, in
/// `spare`'s lists, for the shell to fill.
pub fn view_in(dungeon: &Dungeon, id: EntityId, spare: Spare) -> Option<View> {
    let me = dungeon.player(id)?;
    let floor = dungeon.floor(me.depth())?;
    let content = dungeon.content();
    let Spare {
        mut runs,
        mut entities,
        party,
        watchers,
        mut inventory,
        mut marks,
    } = spare;
    let map = me
        .memory(me.depth())
        .cloned()
        .unwrap_or_else(|| proto::TileGrid::new(floor.map().width(), floor.map().height()));
    // Runs found a word of bits at a time; the flag-by-flag way is only a fallback, as the
    // runs are sorted and apart by construction.
    me.fov().runs_into(&mut runs);
    let visible = CellSet::try_from(runs).unwrap_or_else(|_| CellSet::from_flags(me.fov().iter()));
    let sees = |p: proto::Pos| map.index(p).is_some_and(|i| me.sees(i));
    entities.extend(
        (dungeon.living_on(me.depth()))
            .filter(|p| p.id() == id || sees(p.pos()))
            .map(|p| player_entity(p, content)),
    );
    entities.extend(
        floor
            .monsters()
            .values()
            .filter(|m| sees(m.pos()))
            .map(|m| {
                let kind = m.kind(content);
                EntityView {
                    id: m.id(),
                    kind: EntityKind::Monster,
                    name: kind.name.clone(),
                    pos: m.pos(),
                    hp: m.hp(),
                    max_hp: m.stats(content).max_hp,
                    level: m.level(),
                    monster: Some(kind.key.clone()),
                    item: None,
                }
            }),
    );
    entities.extend(
        floor
            .items()
            .values()
            .filter(|(pos, _)| sees(*pos))
            .map(|(pos, it)| {
                let kind = it.kind(content);
                EntityView {
                    id: it.id,
                    kind: EntityKind::Item,
                    name: kind.name.clone(),
                    pos: *pos,
                    hp: 0,
                    max_hp: 0,
                    level: 0,
                    monster: None,
                    item: Some(kind.key.clone()),
                }
            }),
    );
    // The remains of the fallen a friend can still bring back, where they lie.
    entities.extend(
        (dungeon.players())
            .filter(|p| p.depth() == me.depth() && !p.alive() && sees(p.pos()))
            .filter(|p| dungeon.party().revivable_until(p.id()).is_some())
            .map(|p| EntityView {
                kind: EntityKind::Remains,
                hp: 0,
                ..player_entity(p, content)
            }),
    );
    entities.sort_by_key(|e| e.id);
    marks.extend(
        (dungeon.party().marks().iter())
            .filter(|(_, m)| m.depth == me.depth())
            .filter_map(|(by, m)| {
                Some(proto::MarkedSpot {
                    by: *by,
                    name: dungeon.player(*by)?.shared_name().clone(),
                    pos: m.pos,
                    until: m.until,
                })
            }),
    );
    // One line per stack: its first unit's id names it, `count` says how many.
    inventory.extend(
        stacks(me.inventory(), content)
            .into_iter()
            .map(|units| ItemView {
                count: units.len() as u32,
                ..item_view(&units[0], content)
            }),
    );
    Some(View {
        turn: floor.turn(),
        depth: me.depth(),
        map,
        visible,
        entities,
        me: SelfView {
            resting: floor.pending(id) == Some(crate::game::Action::Rest),
            away: dungeon.party().is_away(id),
            revive_turns: party::revive_turns(dungeon, id),
            ..self_of(me, content)
        },
        // Party and watchers are the shell's to fill: they are about connections, not the world.
        party,
        watchers,
        marks,
        inventory,
    })
}

fn item_view(it: &Item, content: &Content) -> ItemView {
    let kind = it.kind(content);
    ItemView {
        id: it.id,
        key: kind.key.clone(),
        name: kind.name.clone(),
        description: kind.description.clone(),
        slot: kind.slot,
        equipped: it.equipped,
        usable: matches!(
            kind.use_,
            crate::game::content::ItemUse::Heal | crate::game::content::ItemUse::CurePoison
        ),
        bonus: it.bonus,
        use_: kind.use_,
        count: 1,
        range: kind
            .thrown
            .or(kind.fires)
            .map_or(0, |m| m.range.max(0) as u32),
    }
}

fn player_entity(p: &Player, content: &Content) -> EntityView {
    EntityView {
        id: p.id(),
        kind: EntityKind::Player,
        name: p.shared_name().clone(),
        pos: p.pos(),
        hp: p.hp(),
        max_hp: p.stats(content).max_hp,
        level: p.level(),
        monster: None,
        item: None,
    }
}

fn self_of(p: &Player, content: &Content) -> SelfView {
    let stats = p.stats(content);
    let (xp_level, xp_next) = p.xp_band(content);
    SelfView {
        id: p.id(),
        name: p.shared_name().clone(),
        pos: p.pos(),
        depth: p.depth(),
        hp: p.hp(),
        max_hp: stats.max_hp,
        level: p.level(),
        xp: p.xp(),
        xp_level,
        xp_next,
        points: p.unspent(),
        attack_min: stats.attack_min,
        attack_max: stats.attack_max,
        defence: stats.defence,
        save: stats.save,
        sight: stats.sight,
        kills: p.kills(),
        turns: p.turns(),
        deepest: p.deepest(),
        alive: p.alive(),
        cause: p.death().map(|d| cause_of_death(content, d)),
        effects: p.effects().iter().copied().collect(),
        victory: p.victory(),
        score: score(p, content),
        resting: false,
        away: false,
        revive_turns: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Dungeon, Event};
    use delve_protocol::{Dir, Pos, Tile};
    use std::sync::Arc;

    /// `name` joins `d`: the new character and the events of its arrival.
    fn joined(d: &mut Dungeon, name: &str) -> (EntityId, Vec<Event>) {
        let done = d
            .step(&crate::game::Input::Join { name: name.into() })
            .unwrap();
        (done.character.unwrap(), done.events)
    }

    /// Two floor cells on floor 1 that cannot see each other, and one pair that can.
    fn scene(d: &mut Dungeon) -> Scene {
        // Joining makes floor 1.
        let (a, _) = joined(d, "Probe");
        let map = d.floor(1).unwrap().map().clone();
        let floor: Vec<Pos> = (0..map.cells().len())
            .map(|i| map.pos_of(i))
            .filter(|p| map.get(*p) == Tile::Floor)
            .collect();
        let mut hidden = None;
        let mut seen = None;
        'outer: for &p in &floor {
            d.place_for_test(a, 1, p);
            for &q in &floor {
                let sees = d.player(a).unwrap().sees(map.index(q).unwrap());
                if q != p && sees && q.chebyshev(p) >= 2 && seen.is_none() {
                    seen = Some((p, q));
                }
                if !sees && hidden.is_none() {
                    hidden = Some((p, q));
                }
                if seen.is_some() && hidden.is_some() {
                    break 'outer;
                }
            }
        }
        (hidden.unwrap(), seen.unwrap())
    }

    /// Two cells that cannot see each other, and two that can (see `scene`).
    type Scene = ((Pos, Pos), (Pos, Pos));

    /// A floor without monsters, its scene, and Ann and Bob on it.
    fn ann_and_bob() -> (Dungeon, Scene, EntityId, EntityId) {
        let mut d = Dungeon::new(
            77,
            Arc::new(crate::game::Content::builtin_without_monsters()),
        );
        let cells = scene(&mut d);
        let (ann, _) = joined(&mut d, "Ann");
        let (bob, _) = joined(&mut d, "Bob");
        (d, cells, ann, bob)
    }

    #[test]
    fn a_view_holds_the_other_player_only_in_sight() {
        let (mut d, ((h1, h2), (s1, s2)), ann, bob) = ann_and_bob();

        d.place_for_test(ann, 1, h1);
        d.place_for_test(bob, 1, h2);
        let v = view_of(&d, ann).unwrap();
        assert!(v.entity(bob).is_none(), "Bob is out of sight");
        assert!(v.entity(ann).is_some(), "you always see yourself");
        assert!(!v.is_visible(h2));

        d.place_for_test(ann, 1, s1);
        d.place_for_test(bob, 1, s2);
        let v = view_of(&d, ann).unwrap();
        assert_eq!(v.entity(bob).map(|e| e.pos), Some(s2));
        for e in &v.entities {
            assert!(v.is_visible(e.pos));
        }
        // Remembered tiles come only from memory: nothing unknown is visible.
        for i in v.visible.iter() {
            assert_ne!(v.map.cells()[i], Tile::Unknown);
        }
    }

    #[test]
    fn moves_are_shown_only_when_both_ends_are_in_sight() {
        let mut d = Dungeon::new(
            77,
            Arc::new(crate::game::Content::builtin_without_monsters()),
        );
        let (_, (s1, s2)) = scene(&mut d);
        let (ann, _) = joined(&mut d, "Ann");
        let (bob, _) = joined(&mut d, "Bob");
        d.place_for_test(ann, 1, s1);
        d.place_for_test(bob, 1, s2);
        let map = d.floor(1).unwrap().map().clone();
        let ann_sees = |q: Pos| d.player(ann).unwrap().sees(map.index(q).unwrap());
        let dark = (0..map.cells().len())
            .map(|i| map.pos_of(i))
            .find(|&q| map.get(q) == Tile::Floor && !ann_sees(q))
            .unwrap();
        let lit_step = Dir::ALL
            .iter()
            .map(|&dir| s2.step(dir))
            .find(|&q| map.get(q) == Tile::Floor && q != s1 && ann_sees(q))
            .unwrap();
        let seen = Event::Moved {
            id: bob,
            from: s2,
            to: lit_step,
        };
        let into_dark = Event::Moved {
            id: bob,
            from: s2,
            to: dark,
        };
        let from_dark = Event::Moved {
            id: bob,
            from: dark,
            to: s2,
        };
        // Bob's own line ("There is nothing here to pick up.") is for Bob alone.
        let theirs = Event::Refused {
            id: bob,
            why: crate::game::ActionError::NothingHere,
        };
        let out = events_for(&d, ann, 1, &[seen.clone(), into_dark, from_dark, theirs]);
        assert_eq!(
            out,
            vec![delve_protocol::Event::Moved {
                id: bob,
                from: s2,
                to: Some(lit_step)
            }]
        );
        // Your own moves always come through, even from the dark.
        let own = Event::Moved {
            id: ann,
            from: dark,
            to: s1,
        };
        assert_eq!(events_for(&d, ann, 1, &[own]).len(), 1);
        // Nothing for a player on another floor.
        assert!(events_for(&d, ann, 2, &[seen]).is_empty());
    }

    #[test]
    fn monsters_in_sight_are_in_the_view_with_their_kind() {
        let mut d = Dungeon::new(
            77,
            Arc::new(crate::game::Content::builtin_without_monsters()),
        );
        let (_, (s1, s2)) = scene(&mut d);
        let (ann, _) = joined(&mut d, "Ann");
        d.place_for_test(ann, 1, s1);
        let rat = d.add_monster_for_test(1, "rabid_mouse", 4, s2);
        let v = view_of(&d, ann).unwrap();
        let e = v.entity(rat).expect("the Rabid Mouse is in sight");
        assert_eq!(e.kind, delve_protocol::EntityKind::Monster);
        assert_eq!(e.monster.as_deref(), Some("rabid_mouse"));
        assert_eq!((&*e.name, e.level), ("Rabid Mouse", 4));
        assert_eq!(v.me.xp_next, 100);
        assert!(v.me.alive && v.me.cause.is_none());
    }

    #[test]
    fn a_view_built_in_another_view_s_lists_is_the_view_built_afresh() {
        let (mut d, ((h1, h2), (s1, s2)), ann, bob) = ann_and_bob();
        d.place_for_test(ann, 1, s1);
        d.place_for_test(bob, 1, s2);
        // Ann's view, with Bob in it, holds more than Bob's will.
        let mut full = view_of(&d, ann).unwrap();
        assert!(full.entity(bob).is_some());
        full.party = party_for(&party(&d), &full);
        let entities_at = full.entities.as_ptr();

        d.place_for_test(bob, 1, h2);
        d.place_for_test(ann, 1, h1);
        let spare = Spare::from_view(full);
        let built = view_in(&d, bob, spare).unwrap();
        assert_eq!(built, view_of(&d, bob).unwrap());
        assert!(built.entity(ann).is_none());
        assert!(built.party.is_empty(), "the party is the shell's to fill");
        assert_eq!(
            built.entities.as_ptr(),
            entities_at,
            "built in the list it was given, which had room"
        );
    }

    #[test]
    fn attacks_and_deaths_are_told_in_each_viewer_s_words() {
        use crate::game::event::Actor;
        use delve_protocol::{Event as P, MessageKind};
        let mut d = Dungeon::new(
            77,
            Arc::new(crate::game::Content::builtin_without_monsters()),
        );
        let (_, (s1, s2)) = scene(&mut d);
        let (ann, _) = joined(&mut d, "Ann");
        let (bob, _) = joined(&mut d, "Bob");
        d.place_for_test(ann, 1, s1);
        d.place_for_test(bob, 1, s2);
        let mouse = Actor {
            id: 5_000_001,
            name: "Tough Mouse".into(),
            pos: s2,
            player: false,
        };
        let bob_a = Actor {
            id: bob,
            name: "Bob".into(),
            pos: s2,
            player: true,
        };
        let ann_a = Actor {
            id: ann,
            name: "Ann".into(),
            pos: s1,
            player: true,
        };
        let events = [
            Event::Attacked {
                attacker: mouse.clone(),
                target: bob_a.clone(),
                damage: Some(7),
                with: None,
            },
            Event::Attacked {
                attacker: ann_a.clone(),
                target: mouse.clone(),
                damage: None,
                with: None,
            },
            Event::Died {
                victim: mouse.clone(),
                killer: Some(ann_a.clone()),
            },
            Event::GainedXp {
                id: ann,
                amount: 50,
            },
        ];
        let lines = |v: &[P]| -> Vec<(MessageKind, String)> {
            v.iter()
                .filter_map(|e| match e {
                    P::Message { kind, text } => Some((*kind, text.clone())),
                    _ => None,
                })
                .collect()
        };
        let for_bob = lines(&events_for(&d, bob, 1, &events));
        assert!(
            for_bob.contains(&(MessageKind::Bad, "The Tough Mouse hits you for 7.".into())),
            "{for_bob:?}"
        );
        assert!(
            for_bob.contains(&(MessageKind::Normal, "Ann misses the Tough Mouse.".into())),
            "{for_bob:?}"
        );
        assert!(
            for_bob.contains(&(MessageKind::Normal, "Ann kills the Tough Mouse.".into())),
            "{for_bob:?}"
        );
        assert!(
            !for_bob.iter().any(|(_, t)| t.contains("experience")),
            "Ann's XP is hers: {for_bob:?}"
        );
        let for_ann = lines(&events_for(&d, ann, 1, &events));
        assert!(
            for_ann.contains(&(
                MessageKind::Normal,
                "The Tough Mouse hits Bob for 7.".into()
            )),
            "{for_ann:?}"
        );
        assert!(
            for_ann.contains(&(MessageKind::Normal, "You miss the Tough Mouse.".into())),
            "{for_ann:?}"
        );
        assert!(
            for_ann.contains(&(MessageKind::Good, "You kill the Tough Mouse!".into())),
            "{for_ann:?}"
        );
        assert!(
            for_ann.contains(&(MessageKind::Good, "You gain 50 experience points.".into())),
            "{for_ann:?}"
        );
    }
}
