//! Monster AI. Each turn every monster thinks once and returns the same kind of [`Action`] a
//! player sends.
//!
//! - A monster that sees a player (within its sight range, in line of sight) is alerted. If a
//!   player stands next to it, it attacks; otherwise it steps down the floor's flow field
//!   towards the nearest player, sidestepping monsters in the way.
//! - Alerted but out of sight, it walks an A* route to where it last saw a player; arriving
//!   there without finding anyone, it calms down.
//! - Otherwise it patrols: it picks a random cell, walks to the middle of that cell's room down
//!   the room's field ([`RoomFields`]), and picks again on arrival or when blocked for a few
//!   turns. (A cell no field reaches gets an A* route to the cell instead.)
//!
//! - Kinds with ways of their own (the content file's `fires`, `calls`, `flees_below`): one that
//!   shoots keeps out of reach (a step back when a player is next to it) and shoots when its
//!   line is clear, else closes in; one that calls squeaks when it first sees a player, and the
//!   monsters within earshot come for that place (the dungeon hears the call); one that is hurt
//!   runs from the player it sees (and calls again as it starts to run).
//! - A dazed monster (a Flashbang) does nothing until the daze is over.
//!
//! Monsters never step into each other, so they never attack another monster or themselves.
//!
//! Line of sight uses the symmetry of the field of view: a monster sees a player exactly when
//! the player's cell sees the monster's cell. So one wide field per player per turn
//! ([`Ctx::awareness`]) serves every monster on the floor.

use delve_protocol::{Dir, Pos, TileGrid};
use rand::RngExt;

use super::EntityId;
use super::action::Action;
use super::fov::within_radius;
use super::monster::{Ai, Behaviour, Monster};
use super::path::{Flow, Scratch};
use super::patrol::{RoomFields, Step};
use super::rng::GameRng;
use super::sight::Sight;
use delve_protocol::line;

/// Turns a monster waits behind another before giving up on its route.
const PATIENCE: u8 = 3;
/// Longest route a monster plans.
const MAX_ROUTE: u32 = 160;

/// What the AI works out once per monster phase and shares between monsters: the flow field
/// towards the players (started by the first monster that needs it, and worked out as far as
/// the monsters that follow it stand) and the route search's working memory. Its arrays are
/// kept from one phase to the next (see [`Paths::new_phase`]).
#[derive(Debug, Default)]
pub struct Paths {
    flow: Flow,
    /// Whether `flow` is this phase's field.
    flow_ready: bool,
    pub scratch: Scratch,
}

impl Paths {
    /// Starts a monster phase, or makes the flow field be made again (a player died).
    pub fn new_phase(&mut self) {
        self.flow_ready = false;
    }

    /// The flow field towards the players of `ctx`, started on first use in a phase: right at
    /// `at` and its neighbours, the cells a monster standing at `at` reads. Monsters do not
    /// change the floor's tiles, so the floor is the same all phase long.
    fn flow(&mut self, ctx: &Ctx, at: Pos) -> &[u32] {
        if !self.flow_ready {
            let players = ctx.players.iter().map(|(_, p)| *p);
            self.flow.restart(ctx.map, players);
            self.flow_ready = true;
        }
        self.flow.around(ctx.map, at)
    }
}

/// What the AI knows of the floor this turn.
pub struct Ctx<'a> {
    pub map: &'a TileGrid,
    /// Floor cells, for picking patrol goals.
    pub open_cells: &'a [Pos],
    /// The ways to the middles of the floor's rooms, for walking to them.
    pub patrol: &'a RoomFields,
    /// Living players on the floor.
    pub players: &'a [(EntityId, Pos)],
    /// Per player (same order), the cells that player's cell sees, as far as any monster within
    /// its own sight of that player stands (see `Dungeon::monsters_act`).
    pub awareness: &'a [Sight],
    /// Who stands where, by cell index, kept current as monsters move.
    pub occupant: &'a [Option<EntityId>],
}

impl Ctx<'_> {
    fn free(&self, p: Pos) -> bool {
        self.map.get(p).is_walkable()
            && self
                .map
                .index(p)
                .is_some_and(|i| self.occupant[i].is_none())
    }

    /// The player `m` sees, nearest first (ties to the lower id).
    fn seen_player(&self, m: &Monster, sight: i32) -> Option<(EntityId, Pos)> {
        let cell = self.map.index(m.pos)?;
        self.players
            .iter()
            .zip(self.awareness)
            .filter(|((_, p), aware)| {
                within_radius(p.x - m.pos.x, p.y - m.pos.y, sight) && aware.contains(cell)
            })
            .map(|(pl, _)| *pl)
            .min_by_key(|(id, p)| (p.dist2(m.pos), *id))
    }
}

fn dir_to(from: Pos, to: Pos) -> Option<Dir> {
    Dir::from_delta(to.x - from.x, to.y - from.y)
}

/// What a monster decided: its action, the plan it holds afterwards, and, if it squeaked for
/// help, the place it calls the others to.
#[derive(Debug)]
pub struct Thought {
    pub action: Action,
    pub plan: Ai,
    pub call: Option<Pos>,
}

impl Thought {
    fn quiet(action: Action, plan: Ai) -> Thought {
        Thought {
            action,
            plan,
            call: None,
        }
    }
}

/// Decides `m`'s action for this turn and the plan it holds afterwards, from `plan`, the one it
/// held (the dungeon hands it over rather than a copy of its route, and applies the new plan as
/// an event; the AI changes nothing itself). `how` is its kind's way of fighting. `paths` is
/// shared by the floor's monsters this turn.
pub fn think(
    m: &Monster,
    plan: Ai,
    how: Behaviour,
    sight: i32,
    ctx: &Ctx,
    paths: &mut Paths,
    rng: &mut GameRng,
) -> Thought {
    if let Ai::Dazed { turns, then } = plan {
        let plan = if turns > 1 {
            Ai::Dazed {
                turns: turns - 1,
                then,
            }
        } else {
            *then
        };
        return Thought::quiet(Action::Wait, plan);
    }
    let alert = matches!(plan, Ai::Hunt { .. } | Ai::Flee { .. });
    // Next to a living player: that one (the weakest first would need HP; the nearest will do).
    let adjacent = (ctx.players.iter())
        .find(|(_, p)| p.chebyshev(m.pos) == 1)
        .map(|(_, p)| *p);
    let seen = adjacent.or_else(|| ctx.seen_player(m, sight).map(|(_, p)| p));
    if let Some(target) = seen {
        let hit = |p: Pos| dir_to(m.pos, p).map(|dir| Action::Move { dir });
        if how.fleeing {
            // Running calls the others again.
            let call = (how.calls > 0 && !matches!(plan, Ai::Flee { .. })).then_some(target);
            let action = away(m.pos, ctx, paths.flow(ctx, m.pos))
                .or_else(|| adjacent.and_then(hit))
                .unwrap_or(Action::Wait);
            let plan = Ai::Flee { from: target };
            return Thought { action, plan, call };
        }
        let call = (how.calls > 0 && !alert).then_some(target);
        let plan = Ai::Hunt {
            target,
            route: Vec::new(),
            stuck: 0,
        };
        let action = if how.range > 0 {
            // A shooter keeps out of reach, and shoots along a clear line.
            let near = within_radius(target.x - m.pos.x, target.y - m.pos.y, how.range);
            match adjacent {
                Some(p) => away(m.pos, ctx, paths.flow(ctx, m.pos))
                    .or_else(|| hit(p))
                    .unwrap_or(Action::Wait),
                None if near && clear_shot(m.pos, target, ctx) => Action::Fire { at: target },
                None => chase(m.pos, ctx, paths.flow(ctx, m.pos), rng),
            }
        } else {
            match adjacent {
                Some(p) => hit(p).unwrap_or(Action::Wait),
                None => chase(m.pos, ctx, paths.flow(ctx, m.pos), rng),
            }
        };
        return Thought { action, plan, call };
    }
    let (action, plan) = roam(m, plan, ctx, paths, rng);
    Thought::quiet(action, plan)
}

/// A step to the free neighbouring cell farthest from the players (up the flow field), if one
/// is farther than here.
fn away(from: Pos, ctx: &Ctx, field: &[u32]) -> Option<Action> {
    let here = ctx.map.index(from).map_or(u32::MAX, |i| field[i]);
    Dir::ALL
        .into_iter()
        .filter_map(|d| {
            let q = from.step(d);
            let i = ctx.map.index(q)?;
            (ctx.free(q) && field[i] != u32::MAX && field[i] > here).then_some((field[i], d))
        })
        .max_by_key(|(f, _)| *f)
        .map(|(_, dir)| Action::Move { dir })
}

/// Whether a shot from `from` would fly to `to`: no wall, shut door or creature on the cells
/// between (the line a missile flies, [`line`]).
pub fn clear_shot(from: Pos, to: Pos, ctx: &Ctx) -> bool {
    let cells = line(from, to);
    cells[1..cells.len() - 1]
        .iter()
        .all(|&p| !ctx.map.get(p).blocks_sight() && ctx.free(p))
}

/// A monster that sees nobody: it follows its hunt, its route, or picks a place to patrol.
fn roam(m: &Monster, plan: Ai, ctx: &Ctx, paths: &mut Paths, rng: &mut GameRng) -> (Action, Ai) {
    match plan {
        Ai::Hunt {
            target,
            route,
            stuck,
        } => {
            if m.pos == target || stuck >= PATIENCE {
                // Lost them: back to patrolling.
                return (Action::Wait, Ai::Patrol);
            }
            let (action, route, stuck) =
                follow(m.pos, target, route, stuck, ctx, &mut paths.scratch);
            let plan = if route.is_empty() && action == Action::Wait {
                Ai::Patrol
            } else {
                Ai::Hunt {
                    target,
                    route,
                    stuck,
                }
            };
            (action, plan)
        }
        Ai::Roam { room, stuck } if stuck < PATIENCE => {
            match ctx.patrol.step(usize::from(room), m.pos, |q| ctx.free(q)) {
                Step::Go(dir) => (Action::Move { dir }, Ai::Roam { room, stuck: 0 }),
                Step::Blocked => (
                    Action::Wait,
                    Ai::Roam {
                        room,
                        stuck: stuck + 1,
                    },
                ),
                // Arrived (or no way on): the next walk starts at once.
                Step::Done => set_off(m, ctx, paths, rng),
            }
        }
        Ai::Wander { route, stuck } if !route.is_empty() && stuck < PATIENCE => {
            let goal = route[0];
            let (action, route, stuck) = follow(m.pos, goal, route, stuck, ctx, &mut paths.scratch);
            (action, Ai::Wander { route, stuck })
        }
        // Nobody in sight to run from, or a daze already over: calm again. The walk starts
        // next turn.
        Ai::Patrol | Ai::Roam { .. } | Ai::Wander { .. } | Ai::Flee { .. } | Ai::Dazed { .. } => {
            (Action::Wait, new_walk(m, ctx, paths, rng))
        }
    }
}

/// A calm monster picks its next walk and takes its first step of it, if that step is free.
fn set_off(m: &Monster, ctx: &Ctx, paths: &mut Paths, rng: &mut GameRng) -> (Action, Ai) {
    let plan = new_walk(m, ctx, paths, rng);
    let action = match plan {
        Ai::Roam { room, .. } => match ctx.patrol.step(usize::from(room), m.pos, |q| ctx.free(q)) {
            Step::Go(dir) => Action::Move { dir },
            _ => Action::Wait,
        },
        _ => Action::Wait,
    };
    (action, plan)
}

/// Where a calm monster walks next: to the middle of the room of a random cell of the floor, or,
/// if that room's field does not reach where it stands, by an A* route to the cell itself.
fn new_walk(m: &Monster, ctx: &Ctx, paths: &mut Paths, rng: &mut GameRng) -> Ai {
    let Some(&goal) = pick(ctx.open_cells, rng) else {
        return Ai::Patrol;
    };
    if let Some(room) = ctx.patrol.room_for(goal)
        && let Ok(index) = u8::try_from(room)
        && ctx.patrol.step(room, m.pos, |_| true) != Step::Done
    {
        return Ai::Roam {
            room: index,
            stuck: 0,
        };
    }
    match paths
        .scratch
        .astar(ctx.map, m.pos, goal, MAX_ROUTE, |_| false)
    {
        Some(mut route) => {
            route.reverse();
            Ai::Wander { route, stuck: 0 }
        }
        None => Ai::Patrol,
    }
}

fn pick<'a, T>(items: &'a [T], rng: &mut GameRng) -> Option<&'a T> {
    (!items.is_empty()).then(|| &items[rng.random_range(0..items.len())])
}

/// One step down the flow field; if the best cells are taken, a step that keeps the distance;
/// otherwise wait. Ties are broken at random so packs spread around their prey.
fn chase(from: Pos, ctx: &Ctx, field: &[u32], rng: &mut GameRng) -> Action {
    let here = ctx.map.index(from).map_or(u32::MAX, |i| field[i]);
    // At most the eight directions each: kept on the stack (every hunting monster, every turn).
    let mut best = Dirs::default();
    let mut best_d = u32::MAX;
    let mut level = Dirs::default();
    for d in Dir::ALL {
        let q = from.step(d);
        let Some(i) = ctx.map.index(q) else { continue };
        if !ctx.free(q) {
            continue;
        }
        let fd = field[i];
        if fd < here {
            if fd < best_d {
                best_d = fd;
                best.clear();
            }
            if fd == best_d {
                best.push(d);
            }
        } else if fd == here && fd != u32::MAX {
            level.push(d);
        }
    }
    let choice = if best.is_empty() {
        pick(level.as_slice(), rng)
    } else {
        pick(best.as_slice(), rng)
    };
    choice.map_or(Action::Wait, |&d| Action::Move { dir: d })
}

/// A few directions, in the order they were pushed.
struct Dirs {
    dirs: [Dir; 8],
    len: usize,
}

impl Default for Dirs {
    fn default() -> Self {
        Dirs {
            dirs: Dir::ALL,
            len: 0,
        }
    }
}

impl Dirs {
    fn push(&mut self, d: Dir) {
        self.dirs[self.len] = d;
        self.len += 1;
    }

    fn clear(&mut self) {
        self.len = 0;
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn as_slice(&self) -> &[Dir] {
        &self.dirs[..self.len]
    }
}

/// A step along `route` (cells left to walk, next last) towards `goal`, replanning when the
/// route no longer starts next to `from`. A monster in the way costs a turn of patience.
fn follow(
    from: Pos,
    goal: Pos,
    mut route: Vec<Pos>,
    stuck: u8,
    ctx: &Ctx,
    scratch: &mut Scratch,
) -> (Action, Vec<Pos>, u8) {
    while route.last() == Some(&from) {
        route.pop();
    }
    if route.last().is_none_or(|n| n.chebyshev(from) != 1) {
        route = match scratch.astar(ctx.map, from, goal, MAX_ROUTE, |_| false) {
            Some(mut r) => {
                r.reverse();
                r
            }
            None => return (Action::Wait, Vec::new(), stuck),
        };
    }
    let Some(&next) = route.last() else {
        return (Action::Wait, route, stuck);
    };
    if !ctx.free(next) {
        return (Action::Wait, route, stuck + 1);
    }
    match dir_to(from, next) {
        Some(d) => (Action::Move { dir: d }, route, 0),
        None => (Action::Wait, Vec::new(), stuck),
    }
}
