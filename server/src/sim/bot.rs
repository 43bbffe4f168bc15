//! A simple bot that plays through the engine the way a cautious player would, using only what
//! its character knows: the map it remembers, what it sees, and the monsters in sight.
//!
//! Each turn: spend stat points; when badly hurt with monsters about, retreat to the up-stair and
//! escape to the floor above (monsters do not follow, and an empty floor stands still); hit an
//! adjacent monster (the weakest); rest when hurt and alone; wait for a visible monster to come
//! rather than walk into a pack; otherwise explore towards the nearest unknown edge of the map,
//! and once the floor is explored (or has taken too long), walk to the down-stair and descend.
//!
//! It also minds its pack: antivenom when poisoned, a Health Pack when low, better equipment as
//! soon as it has it; it picks up what it sees, opens doors (locked ones while it has a Key) to
//! reach the loot behind them, and waits out confusion when nothing threatens it.

use delve_protocol::{Bonus, Dir, Effect, Pos, Stat, Tile, TileGrid};

use crate::game::content::{Content, ItemKind, ItemUse};
use crate::game::path::nearest_route;
use crate::game::player::Player;

use crate::game::{Action, Dungeon, EntityId};

/// Turns on one floor after which the bot stops exploring and heads down.
const FLOOR_PATIENCE: u64 = 1500;
/// Rest when HP falls below this share of the maximum (the rest goes on until HP are full).
const REST_BELOW: f64 = 0.6;
/// Below this share of its HP, with monsters about, the bot makes for the up-stair.
const FLEE_BELOW: f64 = 0.45;
/// Stat points go round these in turn.
const POINT_ORDER: [Stat; 3] = [Stat::MaxHp, Stat::Attack, Stat::Defence];
/// Turns the bot waits for a monster in sight to come before it goes after it.
const PATIENCE_IN_SIGHT: u32 = 3;
/// A Health Pack is used below this share of max HP.
const HEAL_BELOW: f64 = 0.35;

#[derive(Debug, Default)]
pub struct Bot {
    /// Cells still to walk, next last.
    route: Vec<Pos>,
    points_spent: usize,
    /// Turns in a row spent waiting for a monster in sight to come.
    waited: u32,
    floor: u8,
    floor_turns: u64,
    /// The item the bot is walking to, kept until reached so two in sight cannot make it
    /// dither between them.
    loot: Option<Pos>,
    /// Item cells on this floor it found no way to.
    unreachable: Vec<Pos>,
}

/// What the bot decides for the coming turn.
pub enum Move {
    Act(Action),
    Spend(Stat),
}

impl Bot {
    pub fn decide(&mut self, d: &Dungeon, id: EntityId) -> Move {
        let Some(me) = d.player(id) else {
            return Move::Act(Action::Wait);
        };
        let content = d.content();
        if me.unspent() > 0 {
            let stat = POINT_ORDER[self.points_spent % POINT_ORDER.len()];
            self.points_spent += 1;
            return Move::Spend(stat);
        }
        if self.floor != me.depth() {
            self.floor = me.depth();
            self.floor_turns = 0;
            self.route.clear();
            self.loot = None;
            self.unreachable.clear();
        }
        self.floor_turns += 1;
        let Some(floor) = d.floor(me.depth()) else {
            return Move::Act(Action::Wait);
        };
        let Some(map) = me.memory(me.depth()) else {
            return Move::Act(Action::Wait);
        };
        let sees = |p: Pos| map.index(p).is_some_and(|i| me.sees(i));
        let visible: Vec<(Pos, i32)> = floor
            .monsters()
            .values()
            .filter(|m| sees(m.pos()))
            .map(|m| (m.pos(), m.hp()))
            .collect();
        // A monster in sight that shoots will not come to us: it is gone after at once.
        let shooter =
            (floor.monsters().values()).any(|m| sees(m.pos()) && m.kind(content).fires.is_some());

        let max = me.stats(content).max_hp;
        let hp = f64::from(me.hp()) / f64::from(max.max(1));
        if let Some(action) = pack_choice(me, content, hp)
            && d.check(id, action).is_ok()
        {
            return Move::Act(action);
        }
        if let Some(action) = fight_from_afar(d, me, &visible, hp)
            && d.check(id, action).is_ok()
        {
            self.route.clear();
            return Move::Act(action);
        }
        // Confused with nothing about: rest until the head clears rather than stagger.
        if me.has(Effect::Confusion) && visible.is_empty() {
            return Move::Act(Action::Rest);
        }
        // Doors are ways through for the bot (walking into one opens it), locked ones only
        // while it holds a Key.
        let key = me
            .inventory()
            .iter()
            .any(|i| i.use_(content) == ItemUse::Unlock);
        let nav = nav_map(map, key);
        let map: &TileGrid = &nav;
        // Badly hurt with monsters about: up the stairs to rest in peace, if there is a way up.
        if hp < FLEE_BELOW && !visible.is_empty() && me.depth() > 1 {
            if map.get(me.pos()) == Tile::StairsUp {
                return Move::Act(Action::Ascend);
            }
            let up = map
                .cells()
                .iter()
                .position(|t| *t == Tile::StairsUp)
                .map(|i| map.pos_of(i));
            let blocked = |p: Pos| visible.iter().any(|(m, _)| *m == p);
            if let Some(route) = up.and_then(|u| nearest_route(map, me.pos(), |p| p == u))
                && let Some(&next) = route.last()
                && !blocked(next)
                && let Some(dir) = dir_to(me.pos(), next)
            {
                self.route.clear();
                return Move::Act(Action::Move { dir });
            }
        }
        // Fight whatever stands next to us, the weakest first.
        if let Some((p, _)) = visible
            .iter()
            .filter(|(p, _)| p.chebyshev(me.pos()) == 1)
            .min_by_key(|(_, hp)| *hp)
        {
            self.route.clear();
            return dir_to(me.pos(), *p).map_or(Move::Act(Action::Wait), |dir| {
                Move::Act(Action::Move { dir })
            });
        }
        // Hurt with nothing in sight: rest, as a player does with one key. The engine rests
        // on by itself until HP are back or something comes (the simulation lets it).
        if hp < REST_BELOW && visible.is_empty() {
            return Move::Act(Action::Rest);
        }
        // A monster in sight: let it come to us (it must step into our reach first). One that
        // keeps its distance (a shooter, a mouse that ran) is gone after instead.
        if !visible.is_empty() {
            self.route.clear();
            self.waited += 1;
            if self.waited > PATIENCE_IN_SIGHT || shooter {
                let near = |p: Pos| visible.iter().any(|(m, _)| m.chebyshev(p) == 1);
                if let Some(step) = nearest_route(map, me.pos(), near)
                    .and_then(|r| r.last().copied())
                    .and_then(|n| dir_to(me.pos(), n))
                {
                    return Move::Act(Action::Move { dir: step });
                }
            }
            return Move::Act(Action::Wait);
        }
        self.waited = 0;
        if map.get(me.pos()) == Tile::StairsDown && self.done_here(map) {
            return Move::Act(Action::Descend);
        }
        // Loot in sight: go and take it, one item at a time.
        let lies = |p: Pos| floor.items().values().any(|(q, _)| *q == p);
        if let Some(t) = self.loot
            && (t == me.pos() || (sees(t) && !lies(t)))
        {
            self.loot = None;
        }
        if me.slots_used(content) >= delve_protocol::INVENTORY_SLOTS {
            self.loot = None;
        } else if self.loot.is_none() {
            let seen: Vec<Pos> = floor
                .items()
                .values()
                .map(|(p, _)| *p)
                .filter(|p| sees(*p) && *p != me.pos() && !self.unreachable.contains(p))
                .collect();
            if !seen.is_empty() {
                self.loot = nearest_route(map, me.pos(), |p| seen.contains(&p))
                    .and_then(|r| r.first().copied());
            }
        }
        if let Some(t) = self.loot {
            match nearest_route(map, me.pos(), |p| p == t)
                .and_then(|r| r.last().and_then(|n| dir_to(me.pos(), *n)))
            {
                Some(dir) => {
                    self.route.clear();
                    return Move::Act(Action::Move { dir });
                }
                None => {
                    self.unreachable.push(t);
                    self.loot = None;
                }
            }
        }
        // Follow the current route while it holds.
        while self.route.last() == Some(&me.pos()) {
            self.route.pop();
        }
        let stale = self
            .route
            .last()
            .is_none_or(|n| n.chebyshev(me.pos()) != 1 || !map.get(*n).is_walkable());
        if stale {
            let goal = if self.done_here(map) {
                find_stairs(map)
            } else {
                None
            };
            self.route = match goal {
                Some(stairs) => nearest_route(map, me.pos(), |p| p == stairs),
                None => nearest_route(map, me.pos(), |p| frontier(map, p)).or_else(|| {
                    find_stairs(map).and_then(|s| nearest_route(map, me.pos(), |p| p == s))
                }),
            }
            .unwrap_or_default();
        }
        match self.route.last().and_then(|n| dir_to(me.pos(), *n)) {
            Some(dir) => Move::Act(Action::Move { dir }),
            None => {
                if map.get(me.pos()) == Tile::StairsDown {
                    Move::Act(Action::Descend)
                } else {
                    Move::Act(Action::Wait)
                }
            }
        }
    }

    /// Whether this floor is done: nothing left to explore, or explored for long enough.
    fn done_here(&self, map: &TileGrid) -> bool {
        self.floor_turns > FLOOR_PATIENCE
            || !(0..map.cells().len()).any(|i| frontier(map, map.pos_of(i)))
    }
}

/// What to throw, with the monsters in sight (`visible`: where, and their HP): badly hurt with
/// one next to us, a Pocket Teleporter away; hurt with mice coming, a Flashbang at them (too far
/// for its flash to reach us); a Pipe Bomb into two or more close together (and not near us); a
/// Dart at the nearest one not yet in reach. Only along a line the missile can fly.
fn fight_from_afar(d: &Dungeon, me: &Player, visible: &[(Pos, i32)], hp: f64) -> Option<Action> {
    let c = d.content();
    let floor = d.floor(me.depth())?;
    // Things are known by what they do, not by their names.
    let find = |what: fn(&ItemKind) -> bool| {
        (me.inventory().iter())
            .find(|i| what(i.kind(c)))
            .map(|i| (i.id, i.kind(c)))
    };
    let missile = |k: &ItemKind| k.thrown.unwrap_or_default();
    let clear = |to: Pos| {
        let cells = delve_protocol::line(me.pos(), to);
        cells[1..cells.len() - 1]
            .iter()
            .all(|&p| floor.tile(p).is_walkable() && floor.monster_at(p).is_none())
    };
    let reach = |to: Pos, range: i32| {
        crate::game::fov::within_radius(to.x - me.pos().x, to.y - me.pos().y, range)
    };
    let adjacent: Vec<Pos> = (visible.iter())
        .map(|(p, _)| *p)
        .filter(|p| p.chebyshev(me.pos()) == 1)
        .collect();
    if hp < HEAL_BELOW
        && !adjacent.is_empty()
        && let Some((item, _)) = find(|k| k.use_ == ItemUse::Teleport)
    {
        return Some(Action::Use { item });
    }
    // Hurt, with mice coming: daze them where the flash cannot reach us, and win time.
    if hp < FLEE_BELOW
        && adjacent.is_empty()
        && let Some((item, kind)) = find(|k| k.thrown.is_some_and(|m| m.daze > 0))
    {
        let (blast, range) = (missile(kind).blast, missile(kind).range);
        if let Some(at) = (visible.iter().map(|(p, _)| *p))
            .filter(|&p| p.chebyshev(me.pos()) > blast && reach(p, range) && clear(p))
            .min_by_key(|p| p.dist2(me.pos()))
        {
            return Some(Action::Throw { item, at });
        }
    }
    if let Some((item, kind)) = find(|k| k.thrown.is_some_and(|m| m.blast > 0 && m.damage[1] > 0)) {
        let (blast, range) = (missile(kind).blast, missile(kind).range);
        let target = visible.iter().map(|(p, _)| *p).find(|&p| {
            p.chebyshev(me.pos()) > blast + 1
                && reach(p, range)
                && clear(p)
                && visible
                    .iter()
                    .filter(|(q, _)| q.chebyshev(p) <= blast)
                    .count()
                    >= 2
        });
        if let Some(at) = target {
            return Some(Action::Throw { item, at });
        }
    }
    if adjacent.is_empty()
        && let Some((item, kind)) = find(|k| k.thrown.is_some_and(|m| m.blast == 0))
    {
        let range = missile(kind).range;
        let at = (visible.iter().map(|(p, _)| *p))
            .filter(|&p| reach(p, range) && clear(p))
            .min_by_key(|p| p.dist2(me.pos()))?;
        return Some(Action::Throw { item, at });
    }
    None
}

/// What to do with the pack this turn, if anything: clear a stunned or confused head, cure
/// poison, heal when low, wear better things.
fn pack_choice(me: &Player, c: &Content, hp: f64) -> Option<Action> {
    let find = |u: ItemUse| me.inventory().iter().find(|i| i.use_(c) == u).map(|i| i.id);
    if (me.has(Effect::Stun) || me.has(Effect::Confusion))
        && let Some(salts) = find(ItemUse::Clear)
    {
        return Some(Action::Use { item: salts });
    }
    if me.has(Effect::Poison)
        && let Some(vial) = find(ItemUse::CurePoison)
    {
        return Some(Action::Use { item: vial });
    }
    if hp < HEAL_BELOW
        && let Some(pack) = find(ItemUse::Heal)
    {
        return Some(Action::Use { item: pack });
    }
    // The best thing for each slot, by a rough worth of its bonus.
    me.inventory()
        .iter()
        .filter(|i| !i.equipped)
        .filter_map(|i| Some((i, i.slot(c)?)))
        .find(|(i, slot)| {
            let worn = me.worn_in(*slot, c).map_or(0.0, |w| worth(w.bonus));
            worth(i.bonus) > worn && worth(i.bonus) > 0.0
        })
        .map(|(i, _)| Action::Equip { item: i.id })
}

/// How much the bot values a bonus: attack and defence above all.
fn worth(b: Bonus) -> f64 {
    f64::from(b.attack_min + b.attack_max)
        + 1.5 * f64::from(b.defence)
        + 0.2 * f64::from(b.max_hp)
        + 0.1 * f64::from(b.save)
        + f64::from(b.sight)
}

/// The remembered map with the doors the bot can pass marked open (the map itself, not a
/// copy, when there are none: the common case, and this runs every turn).
pub(super) fn nav_map(map: &TileGrid, key: bool) -> std::borrow::Cow<'_, TileGrid> {
    let passable = |t: Tile| (t == Tile::DoorClosed) | (key & (t == Tile::DoorLocked));
    // A branch-free fold, which the compiler vectorises: this scan was most of the bot's time.
    if !map.cells().iter().fold(false, |any, &t| any | passable(t)) {
        return std::borrow::Cow::Borrowed(map);
    }
    let mut nav = map.clone();
    for (i, &t) in map.cells().iter().enumerate() {
        if passable(t) {
            nav.set_index(i, Tile::DoorOpen);
        }
    }
    std::borrow::Cow::Owned(nav)
}

pub(super) fn dir_to(from: Pos, to: Pos) -> Option<Dir> {
    Dir::from_delta(to.x - from.x, to.y - from.y)
}

/// A known walkable cell next to an unknown one: where exploring goes next.
pub fn frontier(map: &TileGrid, p: Pos) -> bool {
    map.get(p).is_walkable()
        && Dir::ALL
            .iter()
            .any(|&d| map.in_bounds(p.step(d)) && map.get(p.step(d)) == Tile::Unknown)
}

pub(super) fn find_stairs(map: &TileGrid) -> Option<Pos> {
    map.cells()
        .iter()
        .position(|t| *t == Tile::StairsDown)
        .map(|i| map.pos_of(i))
}
