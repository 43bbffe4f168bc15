//! The difference between two views of the same floor, and how a client applies it.
//!
//! Both halves live here, beside the types, so the server's `diff` and the client's `apply` cannot
//! drift apart: `old.apply(&old.diff(&new).unwrap())` gives `new` exactly (tested below with random
//! views, and end to end through the server).

use serde::{Deserialize, Serialize};

use crate::geom::Pos;
use crate::patch::{EntityPatch, PartyPatch, SelfPatch};
use crate::view::{
    CellSet, EntityView, ItemView, MarkedSpot, PartyMember, Tile, View, ViewError, Watcher,
    same_tiles,
};

/// A horizontal run of tiles that changed, starting at (`x`, `y`) and going east. `tiles` has one
/// character per tile, as in map rows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileSpan {
    pub x: i32,
    pub y: i32,
    pub tiles: String,
}

/// What changed in a view since the last one the connection received. Empty fields are left out
/// on the wire. A diff never changes floors: a floor change comes as a snapshot.
///
/// Records that were there before and are there still come as patches (only the fields that
/// changed, see [`crate::patch`]); records that are new come whole.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewDiff {
    /// Tiles newly seen or changed since they were last seen.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tiles: Vec<TileSpan>,
    /// The whole new set of visible cells, present only if it changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visible: Option<CellSet>,
    /// Entities that came into sight, in full.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entities: Vec<EntityView>,
    /// Entities in sight before and now: the fields that changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<EntityPatch>,
    /// Ids of entities no longer in sight (or gone).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<u32>,
    /// The fields of the player's own record that changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub me: Option<SelfPatch>,
    /// The whole party list, when someone joined it or left it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub party: Option<Vec<PartyMember>>,
    /// The same party members as before: the fields that changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub party_changed: Vec<PartyPatch>,
    /// The whole watcher list, if it changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watchers: Option<Vec<Watcher>>,
    /// The whole pack, if anything in it changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inventory: Option<Vec<ItemView>>,
    /// The whole list of marked spots, if it changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marks: Option<Vec<MarkedSpot>>,
}

impl ViewDiff {
    /// True when nothing but the turn number changed.
    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
            && self.visible.is_none()
            && self.entities.is_empty()
            && self.changed.is_empty()
            && self.removed.is_empty()
            && self.me.is_none()
            && self.party.is_none()
            && self.party_changed.is_empty()
            && self.watchers.is_none()
            && self.inventory.is_none()
            && self.marks.is_none()
    }
}

/// Changed cells closer than this are sent in one span: re-sending a couple of unchanged
/// tiles costs less than the `{"x":..,"y":..,"tiles":..}` overhead of a new span.
const SPAN_GAP: usize = 3;

impl View {
    /// The diff that turns `self` into `next`, or `None` when `next` is on another floor or map
    /// size, which needs a snapshot instead.
    pub fn diff(&self, next: &View) -> Option<ViewDiff> {
        if self.depth != next.depth
            || self.map.width() != next.map.width()
            || self.map.height() != next.map.height()
        {
            return None;
        }
        let width = next.map.width();
        let mut tiles = Vec::new();
        // Maps that still share their cells are equal: most turns see nothing new.
        let rows = if self.map.shares_cells(&next.map) {
            None
        } else {
            Some((self.map.cells().chunks(width.max(1))).zip(next.map.cells().chunks(width.max(1))))
        };
        for (y, (old_row, new_row)) in rows.into_iter().flatten().enumerate() {
            // Most rows did not change: a row is compared whole first, a block at a time (slices
            // of an enum compare one element at a time, with a branch each).
            if same_tiles(old_row, new_row) {
                continue;
            }
            let mut x = 0;
            while x < width {
                if old_row[x] == new_row[x] {
                    x += 1;
                    continue;
                }
                let start = x;
                let mut end = x + 1; // one past the last changed cell in this span
                let mut probe = end;
                while probe < width && probe - end < SPAN_GAP {
                    if old_row[probe] != new_row[probe] {
                        end = probe + 1;
                    }
                    probe += 1;
                }
                tiles.push(TileSpan {
                    x: start as i32,
                    y: y as i32,
                    tiles: new_row[start..end].iter().map(|t| t.to_char()).collect(),
                });
                x = end;
            }
        }

        let mut entities = Vec::new();
        let mut changed = Vec::new();
        let mut removed = Vec::new();
        let (mut i, mut j) = (0, 0);
        let (old, new) = (&self.entities, &next.entities);
        while i < old.len() || j < new.len() {
            match (old.get(i), new.get(j)) {
                (Some(a), Some(b)) if a.id == b.id => {
                    changed.extend(EntityPatch::between(a, b));
                    i += 1;
                    j += 1;
                }
                (Some(a), Some(b)) if a.id < b.id => {
                    removed.push(a.id);
                    i += 1;
                }
                (Some(a), None) => {
                    removed.push(a.id);
                    i += 1;
                }
                (_, Some(b)) => {
                    entities.push(b.clone());
                    j += 1;
                }
                (None, None) => break,
            }
        }

        // The same members in the same order: their changed fields; otherwise the whole list.
        let same_members = self.party.len() == next.party.len()
            && self
                .party
                .iter()
                .zip(&next.party)
                .all(|(a, b)| a.id == b.id);
        let (party, party_changed) = if same_members {
            let changed = (self.party.iter().zip(&next.party))
                .filter_map(|(a, b)| PartyPatch::between(a, b))
                .collect();
            (None, changed)
        } else {
            (Some(next.party.clone()), Vec::new())
        };

        Some(ViewDiff {
            tiles,
            visible: (self.visible != next.visible).then(|| next.visible.clone()),
            entities,
            changed,
            removed,
            me: SelfPatch::between(&self.me, &next.me),
            party,
            party_changed,
            watchers: (self.watchers != next.watchers).then(|| next.watchers.clone()),
            inventory: (self.inventory != next.inventory).then(|| next.inventory.clone()),
            marks: (self.marks != next.marks).then(|| next.marks.clone()),
        })
    }

    /// Applies a diff sent for `turn`. On error the view is left unchanged.
    pub fn apply(&mut self, turn: u64, diff: &ViewDiff) -> Result<(), ViewError> {
        // Validate every span first so a bad diff changes nothing.
        let mut writes = Vec::new();
        for span in &diff.tiles {
            let len = span.tiles.chars().count();
            let outside = || ViewError::SpanOutside {
                x: span.x,
                y: span.y,
                len,
                width: self.map.width(),
                height: self.map.height(),
            };
            let start = self
                .map
                .index(Pos::new(span.x, span.y))
                .ok_or_else(outside)?;
            if span.x as usize + len > self.map.width() {
                return Err(outside());
            }
            for (k, c) in span.tiles.chars().enumerate() {
                writes.push((start + k, Tile::from_char(c).ok_or(ViewError::TileChar(c))?));
            }
        }
        if let Some(depth) = diff.me.as_ref().and_then(|me| me.depth)
            && depth != self.depth
        {
            return Err(ViewError::WrongFloor {
                diff: turn,
                diff_depth: depth,
                depth: self.depth,
            });
        }
        // Every patch must find its record, after what the diff removes and adds.
        for patch in &diff.changed {
            let in_sight = (self.entities.binary_search_by_key(&patch.id, |e| e.id)).is_ok();
            let kept = in_sight && !diff.removed.contains(&patch.id);
            if !kept && !diff.entities.iter().any(|e| e.id == patch.id) {
                return Err(ViewError::UnknownEntity(patch.id));
            }
        }
        let party = diff.party.as_ref().unwrap_or(&self.party);
        if let Some(patch) =
            (diff.party_changed.iter()).find(|p| !party.iter().any(|m| m.id == p.id))
        {
            return Err(ViewError::UnknownMember(patch.id));
        }

        for (i, t) in writes {
            self.map.set_index(i, t);
        }
        if let Some(v) = &diff.visible {
            self.visible = v.clone();
        }
        self.entities.retain(|e| !diff.removed.contains(&e.id));
        for e in &diff.entities {
            match self.entities.binary_search_by_key(&e.id, |x| x.id) {
                Ok(k) => self.entities[k] = e.clone(),
                Err(k) => self.entities.insert(k, e.clone()),
            }
        }
        for patch in &diff.changed {
            if let Ok(k) = self.entities.binary_search_by_key(&patch.id, |x| x.id) {
                patch.apply_to(&mut self.entities[k]);
            }
        }
        if let Some(me) = &diff.me {
            me.apply_to(&mut self.me);
        }
        if let Some(party) = &diff.party {
            self.party = party.clone();
        }
        for patch in &diff.party_changed {
            if let Some(member) = self.party.iter_mut().find(|m| m.id == patch.id) {
                patch.apply_to(member);
            }
        }
        if let Some(watchers) = &diff.watchers {
            self.watchers = watchers.clone();
        }
        if let Some(inventory) = &diff.inventory {
            self.inventory = inventory.clone();
        }
        if let Some(marks) = &diff.marks {
            self.marks = marks.clone();
        }
        self.turn = turn;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::{EntityKind, SelfView, TileGrid};
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    const W: usize = 17;
    const H: usize = 9;

    fn random_view(rng: &mut ChaCha8Rng, turn: u64) -> View {
        let mut map = TileGrid::new(W, H);
        let tiles = [
            Tile::Unknown,
            Tile::Wall,
            Tile::Floor,
            Tile::StairsDown,
            Tile::StairsUp,
            Tile::DoorClosed,
            Tile::DoorOpen,
            Tile::DoorLocked,
        ];
        for i in 0..W * H {
            // Mostly unknown or floor, like a real map being explored.
            let t = if rng.random_ratio(2, 3) {
                tiles[rng.random_range(0..3)]
            } else {
                tiles[rng.random_range(0..tiles.len())]
            };
            map.set_index(i, t);
        }
        let visible = CellSet::from_flags((0..W * H).map(|_| rng.random_ratio(1, 3)));
        let mut entities: Vec<EntityView> = (0..rng.random_range(0..6u32))
            .map(|k| EntityView {
                id: k * 2 + rng.random_range(0..2u32),
                kind: EntityKind::Player,
                name: format!("p{k}").into(),
                pos: Pos::new(rng.random_range(0..W as i32), rng.random_range(0..H as i32)),
                hp: rng.random_range(1..30),
                max_hp: 30,
                level: 1,
                monster: (k % 3 == 1).then(|| "micro_mouse".into()),
                item: (k % 3 == 2).then(|| "crowbar".into()),
            })
            .collect();
        entities.sort_by_key(|e| e.id);
        entities.dedup_by_key(|e| e.id);
        let party = (0..rng.random_range(1..4u32))
            .map(|k| PartyMember {
                id: k + 1,
                name: format!("p{k}").into(),
                level: rng.random_range(1..4),
                hp: rng.random_range(1..30),
                max_hp: 30,
                depth: rng.random_range(1..3),
                alive: rng.random_ratio(4, 5),
                connected: rng.random_ratio(4, 5),
                away: rng.random_ratio(1, 5),
                pos: rng
                    .random_ratio(1, 2)
                    .then(|| Pos::new(rng.random_range(0..W as i32), 3)),
                revive_turns: rng.random_ratio(1, 5).then(|| rng.random_range(0..40)),
            })
            .collect();
        let watchers = (0..rng.random_range(0..2u32))
            .map(|k| Watcher {
                name: format!("w{k}"),
                watching: "p0".into(),
            })
            .collect();
        let inventory = (0..rng.random_range(0..4u32))
            .map(|k| ItemView {
                id: 500 + k,
                key: "microchip".into(),
                name: "Microchip".into(),
                description: "A chip.".into(),
                slot: Some(crate::view::Slot::Microchip),
                equipped: k == 0 && rng.random_ratio(1, 2),
                usable: false,
                bonus: crate::view::Bonus {
                    defence: rng.random_range(-2..3),
                    ..Default::default()
                },
                use_: crate::view::ItemUse::None,
                count: 1,
                range: 0,
            })
            .collect();
        let marks = (0..rng.random_range(0..3u32))
            .map(|k| MarkedSpot {
                by: k + 1,
                name: format!("p{k}").into(),
                pos: Pos::new(rng.random_range(0..W as i32), 2),
                until: rng.random_range(1..20),
            })
            .collect();
        View {
            inventory,
            marks,
            party,
            watchers,
            turn,
            depth: 1,
            map,
            visible,
            entities,
            me: {
                // The position's dice first, in the order they were always cast.
                let pos = Pos::new(rng.random_range(0..W as i32), rng.random_range(0..H as i32));
                SelfView {
                    id: 99,
                    name: "me".into(),
                    hp: rng.random_range(1..30),
                    max_hp: 30,
                    effects: if rng.random_ratio(1, 2) {
                        vec![crate::view::Effect::Poison]
                    } else {
                        Vec::new()
                    },
                    score: rng.random_range(0..100),
                    resting: rng.random_ratio(1, 4),
                    away: rng.random_ratio(1, 4),
                    revive_turns: rng.random_ratio(1, 4).then_some(7),
                    ..SelfView::sample(pos)
                }
            },
        }
    }

    #[test]
    fn apply_of_diff_reproduces_the_new_view() {
        for seed in 0..300u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let a = random_view(&mut rng, 1);
            let b = random_view(&mut rng, 2);
            let d = a.diff(&b).expect("same floor");
            // The diff survives the wire.
            let d: ViewDiff = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
            let mut c = a.clone();
            c.apply(b.turn, &d).unwrap();
            assert_eq!(c, b, "seed {seed}");
        }
    }

    #[test]
    fn identical_views_give_an_empty_diff_that_serializes_to_nothing() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let a = random_view(&mut rng, 3);
        let d = a.diff(&a).unwrap();
        assert!(d.is_empty());
        assert_eq!(serde_json::to_string(&d).unwrap(), "{}");
    }

    #[test]
    fn floor_change_needs_a_snapshot() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let a = random_view(&mut rng, 3);
        let mut b = a.clone();
        b.depth = 2;
        assert!(a.diff(&b).is_none());
    }

    #[test]
    fn a_bad_span_changes_nothing() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let a = random_view(&mut rng, 3);
        let mut c = a.clone();
        let d = ViewDiff {
            tiles: vec![
                TileSpan {
                    x: 0,
                    y: 0,
                    tiles: "##".into(),
                },
                TileSpan {
                    x: W as i32 - 1,
                    y: 0,
                    tiles: "..".into(),
                },
            ],
            ..ViewDiff::default()
        };
        assert!(matches!(c.apply(4, &d), Err(ViewError::SpanOutside { .. })));
        assert_eq!(c, a);
    }

    #[test]
    fn records_seen_before_come_as_their_changed_fields() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut a = random_view(&mut rng, 3);
        while a.entities.is_empty() || a.party.len() < 2 {
            a = random_view(&mut rng, 3);
        }
        let mut b = a.clone();
        b.turn = 4;
        b.me.turns += 1;
        b.entities[0].pos = b.entities[0].pos.step(crate::geom::Dir::E);
        b.party[1].hp -= 1;
        let d = a.diff(&b).unwrap();
        let text = serde_json::to_string(&d).unwrap();
        let id = b.entities[0].id;
        let member = b.party[1].id;
        let (x, y) = (b.entities[0].pos.x, b.entities[0].pos.y);
        let turns = b.me.turns;
        let hp = b.party[1].hp;
        assert_eq!(
            text,
            format!(
                r#"{{"changed":[{{"id":{id},"pos":{{"x":{x},"y":{y}}}}}],"me":{{"turns":{turns}}},"party_changed":[{{"id":{member},"hp":{hp}}}]}}"#
            )
        );
        let mut c = a.clone();
        c.apply(4, &serde_json::from_str(&text).unwrap()).unwrap();
        assert_eq!(c, b);
    }

    #[test]
    fn a_patch_for_a_record_that_is_not_there_changes_nothing() {
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        let a = random_view(&mut rng, 3);
        let mut c = a.clone();
        let unknown = ViewDiff {
            tiles: vec![TileSpan {
                x: 0,
                y: 0,
                tiles: "#".into(),
            }],
            changed: vec![EntityPatch {
                id: 4242,
                hp: Some(1),
                ..EntityPatch::default()
            }],
            ..ViewDiff::default()
        };
        assert_eq!(c.apply(4, &unknown), Err(ViewError::UnknownEntity(4242)));
        let not_a_member = ViewDiff {
            party_changed: vec![PartyPatch {
                id: 4242,
                ..PartyPatch::default()
            }],
            ..ViewDiff::default()
        };
        assert_eq!(
            c.apply(4, &not_a_member),
            Err(ViewError::UnknownMember(4242))
        );
        assert_eq!(c, a);
    }

    #[test]
    fn nearby_changes_share_a_span() {
        let mut rng = ChaCha8Rng::seed_from_u64(10);
        let a = random_view(&mut rng, 3);
        let mut b = a.clone();
        let flip = |t: Tile| {
            if t == Tile::Wall {
                Tile::Floor
            } else {
                Tile::Wall
            }
        };
        for x in [2, 4, 12] {
            let p = Pos::new(x, 5);
            b.map.set(p, flip(a.map.get(p)));
        }
        let d = a.diff(&b).unwrap();
        let spans: Vec<(i32, usize)> = d.tiles.iter().map(|s| (s.x, s.tiles.len())).collect();
        assert_eq!(spans, vec![(2, 3), (12, 1)]);
    }
}
