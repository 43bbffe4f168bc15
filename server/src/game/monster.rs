//! Monsters: what they are (a kind from the content file), their level and stats, and where
//! their AI is heading. Spawning fills a new floor with them.

use delve_protocol::{Pos, Tile};
use rand::RngExt;

use super::EntityId;
use super::content::{Content, MonsterKind};
use super::mapgen::distances;
use super::rng::GameRng;
use super::stats::{Points, Stat, Stats, xp_for_level};

/// What a monster is doing. Routes hold the cells still to walk, the next one last.
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Ai {
    /// Not alerted, and about to pick where to walk.
    #[default]
    Patrol,
    /// Walking `route` on patrol: an A* route to a cell, kept for a cell no room's field
    /// reaches (and held by monsters of worlds saved before [`Ai::Roam`]).
    Wander { route: Vec<Pos>, stuck: u8 },
    /// Alerted: heading for where a player was last seen (`route` when out of sight).
    Hunt {
        target: Pos,
        route: Vec<Pos>,
        stuck: u8,
    },
    /// Dazed (a Flashbang): it loses `turns` more actions, then goes back to `then`.
    Dazed { turns: u8, then: Box<Ai> },
    /// Hurt, running from the player last seen at `from`.
    Flee { from: Pos },
    /// Not alerted: walking to the middle of room `room` of its floor's
    /// [`RoomFields`](super::patrol::RoomFields); `stuck`: turns waited behind others.
    ///
    /// Last, because saves number the variants in this order: a new one goes at the end, or
    /// every world saved before it would load with its monsters' plans mistaken.
    Roam { room: u8, stuck: u8 },
}

impl Ai {
    /// Whether it is on patrol: not hunting, running or dazed.
    pub fn is_calm(&self) -> bool {
        matches!(self, Ai::Patrol | Ai::Wander { .. } | Ai::Roam { .. })
    }
}

/// How a kind of monster fights, from the content file (see [`Monster::behaviour`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Behaviour {
    /// It shoots this far (0: it does not shoot).
    pub range: i32,
    /// It squeaks for help, heard this far (0: it does not).
    pub calls: i32,
    /// It is hurt enough to run.
    pub fleeing: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Monster {
    pub(in crate::game) id: EntityId,
    /// Index into `Content::monsters`.
    pub(in crate::game) kind: usize,
    pub(in crate::game) pos: Pos,
    pub(in crate::game) hp: i32,
    /// Max HP rolled when it was made, before stat points.
    pub(in crate::game) rolled_hp: i32,
    pub(in crate::game) level: u32,
    pub(in crate::game) xp: u32,
    pub(in crate::game) points: Points,
    pub(in crate::game) ai: Ai,
}

impl Monster {
    pub fn kind<'c>(&self, c: &'c Content) -> &'c MonsterKind {
        &c.monsters[self.kind]
    }

    /// How it fights now, for the AI: its kind's ways, and whether it is hurt enough to flee.
    pub fn behaviour(&self, c: &Content) -> Behaviour {
        let k = self.kind(c);
        let max = self.stats(c).max_hp.max(1);
        Behaviour {
            range: k.fires.map_or(0, |f| f.range),
            calls: k.calls,
            fleeing: self.hp * 100 < max * k.flees_below,
        }
    }

    /// Fighting numbers: the kind's, with its rolled HP and stat points, clamped.
    pub fn stats(&self, c: &Content) -> Stats {
        let k = self.kind(c);
        let base = Stats {
            max_hp: self.rolled_hp,
            attack_min: k.attack[0],
            attack_max: k.attack[1],
            defence: k.defence,
            save: 0,
            sight: k.sight,
        };
        self.points.apply(base, c).clamped()
    }
}

/// The id of the `k`-th monster made on floor `depth`. Each floor has its own block of ids, so
/// the order floors are first visited in never changes them.
pub fn monster_id(depth: u8, k: u32) -> EntityId {
    1_000_000 * u32::from(depth) + k
}

/// A new monster of `kind` at `level` (a random stat point per level above 1), full HP.
pub fn make(
    c: &Content,
    kind: usize,
    id: EntityId,
    pos: Pos,
    level: u32,
    rng: &mut GameRng,
) -> Monster {
    let k = &c.monsters[kind];
    let mut m = Monster {
        id,
        kind,
        pos,
        hp: 0,
        rolled_hp: rng.random_range(k.hp[0]..=k.hp[1]),
        level,
        xp: xp_for_level(c, level),
        points: Points::default(),
        ai: Ai::Patrol,
    };
    for _ in 1..level {
        m.points
            .add(Stat::ALL[rng.random_range(0..Stat::ALL.len())]);
    }
    m.hp = m.stats(c).max_hp;
    m
}

/// The kinds of monster that live on floor `depth` (its boss alone, on a boss's floor), and
/// how many monsters the floor is made with.
pub fn floor_kinds(c: &Content, depth: u8) -> (Vec<usize>, u32) {
    let here = |k: &MonsterKind| k.floors[0] <= depth && depth <= k.floors[1];
    match c.monsters.iter().position(|k| k.boss && here(k)) {
        Some(b) => (vec![b], 1),
        None => (
            (0..c.monsters.len())
                .filter(|&i| !c.monsters[i].boss && here(&c.monsters[i]))
                .collect(),
            c.spawn.count + c.spawn.count_per_floor * u32::from(depth - 1),
        ),
    }
}

/// One of `kinds` (not empty), drawn by the content's weights.
pub fn pick_kind(c: &Content, kinds: &[usize], rng: &mut GameRng) -> usize {
    let total: u32 = kinds.iter().map(|&i| c.monsters[i].weight).sum();
    let mut roll = rng.random_range(0..total.max(1));
    *kinds
        .iter()
        .find(|&&i| {
            let w = c.monsters[i].weight;
            if roll < w {
                true
            } else {
                roll -= w;
                false
            }
        })
        .unwrap_or(&kinds[0])
}

/// The monsters of a new floor. A floor some boss belongs to holds that boss alone; any other
/// holds `count + count_per_floor * (depth - 1)` monsters drawn by weight from the kinds that
/// appear there, at level `depth`, none within `safe_distance` steps of the up-stair.
pub fn spawn(
    c: &Content,
    depth: u8,
    map: &delve_protocol::TileGrid,
    up: Pos,
    rng: &mut GameRng,
) -> Vec<Monster> {
    let dist = distances(map, up);
    let safe = c.spawn.safe_distance;
    let mut cells: Vec<Pos> = (0..map.cells().len())
        .filter(|&i| map.cells()[i] == Tile::Floor && dist[i].is_some_and(|d| d >= safe))
        .map(|i| map.pos_of(i))
        .collect();
    let (kinds, count) = floor_kinds(c, depth);
    let total: u32 = kinds.iter().map(|&i| c.monsters[i].weight).sum();
    let mut out = Vec::new();
    for k in 0..count {
        if cells.is_empty() || total == 0 {
            break;
        }
        let kind = pick_kind(c, &kinds, rng);
        let pos = cells.swap_remove(rng.random_range(0..cells.len()));
        out.push(make(
            c,
            kind,
            monster_id(depth, k + 1),
            pos,
            u32::from(depth),
            rng,
        ));
    }
    out
}

/// What the rest of the server may read of a monster. Only the engine writes it, through events.
impl Monster {
    /// This monster's id in its dungeon.
    pub fn id(&self) -> EntityId {
        self.id
    }

    /// Where it stands.
    pub fn pos(&self) -> Pos {
        self.pos
    }

    /// Hit points now.
    pub fn hp(&self) -> i32 {
        self.hp
    }

    /// Its level.
    pub fn level(&self) -> u32 {
        self.level
    }
}

impl Monster {
    /// Whether it has been alerted and is after a player (rather than on patrol).
    pub fn hunting(&self) -> bool {
        matches!(self.ai, Ai::Hunt { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Saves (postcard) number a plan's variant by its place in [`Ai`]: the numbers of worlds
    /// saved by earlier servers must keep their meaning.
    #[test]
    fn a_plans_saved_number_never_changes() {
        let at = Pos::new(1, 2);
        let plans = [
            (Ai::Patrol, 0),
            (
                Ai::Wander {
                    route: vec![at],
                    stuck: 0,
                },
                1,
            ),
            (
                Ai::Hunt {
                    target: at,
                    route: Vec::new(),
                    stuck: 0,
                },
                2,
            ),
            (
                Ai::Dazed {
                    turns: 1,
                    then: Box::new(Ai::Patrol),
                },
                3,
            ),
            (Ai::Flee { from: at }, 4),
            (Ai::Roam { room: 1, stuck: 0 }, 5),
        ];
        for (plan, number) in plans {
            let bytes = postcard::to_stdvec(&plan).unwrap();
            assert_eq!(bytes[0], number, "{plan:?}");
            assert_eq!(postcard::from_bytes::<Ai>(&bytes).unwrap(), plan);
        }
    }
}
