//! Travel and explore: walking somewhere far as a sequence of ordinary move intents, one a turn.
//! The server stays the only authority: each step is chosen afresh from the view after the last
//! one resolved (a door that opened, a friend in the way, a confused stagger all just change the
//! next step), and with friends on the floor each step waits for the turn like any other.
//!
//! A trip stops on its own when something deserves the player's eyes: a monster comes into
//! view, the character is attacked, a new item comes into view (exploring), or there is nowhere
//! left to go. Any key stops it too (the UI's part).
//!
//! Getting to a fight is travel too: a click on a monster anywhere in view walks to it and
//! attacks it, following it as it moves ([`Goal::Monster`]), until it dies or is out of sight;
//! and the fight key (Crawl's Tab) takes one step of it towards the nearest monster in view, or
//! attacks it ([`fight_step`]).

use std::collections::{BTreeSet, VecDeque};

use delve_protocol::{Dir, EntityKind, EntityView, Event, ItemUse, Pos, Tile, View};

/// Where a trip goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// A known cell (a click on the map).
    Cell(Pos),
    /// The known stairs down (`true`) or up (`false`); taken on arrival.
    Stairs { down: bool },
    /// The nearest unexplored place, again and again.
    Explore,
    /// The monster with this id, followed as it moves and attacked once next to it.
    Monster(u32),
    /// The friend (party member) with this id on your floor, followed as it moves, until
    /// next to it (or its remains).
    Friend(u32),
}

/// What to do this turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Send this move.
    Move(Dir),
    /// Send this move, into the monster the trip went for: an attack.
    Attack(Dir),
    /// Standing on the stairs the trip went to: take them.
    TakeStairs { down: bool },
    /// The trip is over; the sentence says why (for the log).
    Stop(String),
}

/// Whether a cell can be walked through on a trip: walkable, or a door that a step opens (a
/// locked one only with a Key in the pack).
fn passable(t: Tile, has_key: bool) -> bool {
    t.is_walkable() || t == Tile::DoorClosed || (t == Tile::DoorLocked && has_key)
}

fn has_key(view: &View) -> bool {
    view.inventory.iter().any(|i| i.use_ == ItemUse::Unlock)
}

/// Breadth-first distances from the character over known passable cells. Cells where another
/// character stands are not crossed (a monster is fought, not walked through; a friend is
/// walked round; a fallen friend's remains are not in the way), except `goal`, which may be
/// anything.
fn distances(view: &View, goal: Option<Pos>) -> Vec<u32> {
    let map = &view.map;
    let key = has_key(view);
    let occupied: BTreeSet<Pos> = (view.entities.iter())
        .filter(|e| blocks(e) && e.id != view.me.id)
        .map(|e| e.pos)
        .collect();
    let mut dist = vec![u32::MAX; map.width() * map.height()];
    let mut queue = VecDeque::new();
    if let Some(i) = map.index(view.me.pos) {
        dist[i] = 0;
        queue.push_back(view.me.pos);
    }
    while let Some(p) = queue.pop_front() {
        let d = map.index(p).map_or(u32::MAX, |i| dist[i]);
        // A shut door counts as one step, though opening it takes a turn of its own: close
        // enough to choose a way, and the next step is chosen afresh anyway.
        for dir in Dir::ALL {
            let q = p.step(dir);
            let Some(i) = map.index(q) else { continue };
            if dist[i] != u32::MAX {
                continue;
            }
            let pass = passable(map.get(q), key) && !occupied.contains(&q);
            if pass || Some(q) == goal {
                dist[i] = d + 1;
                if pass {
                    queue.push_back(q);
                }
            }
        }
    }
    dist
}

/// The first step of a shortest known way from the character to `to`, or `None` when there
/// is none (or `to` is where it stands). Trace back from the goal, downhill.
pub fn first_step(view: &View, to: Pos) -> Option<Dir> {
    let map = &view.map;
    let dist = distances(view, Some(to));
    let mut at = to;
    let mut d = *dist.get(map.index(to)?)?;
    if d == u32::MAX || d == 0 {
        return None;
    }
    while d > 1 {
        // Any neighbour one step nearer; Dir::ALL's order keeps the choice stable.
        at = Dir::ALL
            .iter()
            .map(|&dir| at.step(dir))
            .find(|&q| map.index(q).is_some_and(|i| dist[i] == d - 1))?;
        d -= 1;
    }
    Dir::from_delta(at.x - view.me.pos.x, at.y - view.me.pos.y)
}

/// Whether an entity stands in the way: a living character or a monster (items and a fallen
/// friend's remains block nothing, docs/RULES.md).
fn blocks(e: &EntityView) -> bool {
    matches!(e.kind, EntityKind::Player | EntityKind::Monster)
}

/// `view` with nobody in the way but the character itself.
fn without_others(view: &View) -> View {
    let mut clear = view.clone();
    clear.entities.retain(|e| !blocks(e) || e.id == view.me.id);
    clear
}

/// When there is no way to `to` only because others stand in it (a mouse that came down a
/// corridor to meet you, a friend in the one doorway), the nearest of them on the way that
/// would be taken if nobody were there. Whoever stands on `to` itself (the friend a trip goes
/// to) is not in the way of it.
fn blocker(view: &View, to: Pos) -> Option<&EntityView> {
    let clear = without_others(view);
    first_step(&clear, to)?;
    let dist = distances(&clear, Some(to));
    (view.entities.iter())
        .filter(|e| blocks(e) && e.id != view.me.id && e.pos != to)
        .filter(|e| clear.map.index(e.pos).is_some_and(|i| dist[i] != u32::MAX))
        .min_by_key(|e| e.pos.dist2(view.me.pos))
}

/// Whoever stands on `p` and would be in the way there (not the character itself).
fn standing_on(view: &View, p: Pos) -> Option<&EntityView> {
    (view.entities.iter()).find(|e| blocks(e) && e.id != view.me.id && e.pos == p)
}

/// The sentence for `e` in the way: "A Micro Mouse is in the way.", "Bea is in the way."
fn in_the_way(e: &EntityView) -> String {
    match e.kind {
        EntityKind::Monster => format!("A {} is in the way.", e.name),
        _ => format!("{} is in the way.", e.name),
    }
}

/// How many steps the shortest known way to `to` takes (`to` may be occupied), or `None`.
pub fn steps_to(view: &View, to: Pos) -> Option<u32> {
    let d = *distances(view, Some(to)).get(view.map.index(to)?)?;
    (d != u32::MAX).then_some(d)
}

/// The nearest known cell of a kind, by steps.
fn nearest(view: &View, want: impl Fn(Pos, Tile) -> bool) -> Option<Pos> {
    let dist = distances(view, None);
    let map = &view.map;
    (0..dist.len())
        .filter(|&i| dist[i] != u32::MAX && want(map.pos_of(i), map.cells()[i]))
        .min_by_key(|&i| (dist[i], i))
        .map(|i| map.pos_of(i))
}

/// Where exploring goes next: the nearest item lying on the floor in sight (walking onto it
/// picks it up), else the nearest reachable cell at the edge of the unknown. `None`: all
/// explored that can be reached.
pub fn explore_target(view: &View) -> Option<Pos> {
    let map = &view.map;
    let items: BTreeSet<Pos> = view
        .entities
        .iter()
        .filter(|e| e.kind == EntityKind::Item)
        .map(|e| e.pos)
        .collect();
    let full = view.inventory.len() >= 26;
    nearest(view, |p, t| {
        if p == view.me.pos {
            return false;
        }
        if items.contains(&p) && !full {
            return true;
        }
        // A shut door hides what is behind it; an open cell next to the unknown is an edge.
        t.is_shut_door()
            || (t.is_walkable()
                && Dir::ALL
                    .iter()
                    .any(|&d| map.in_bounds(p.step(d)) && map.get(p.step(d)) == Tile::Unknown))
    })
}

/// The known stairs, the nearest first.
pub fn stairs(view: &View, down: bool) -> Option<Pos> {
    let want = if down {
        Tile::StairsDown
    } else {
        Tile::StairsUp
    };
    nearest(view, |_, t| t == want).or_else(|| {
        // Known but cut off (a monster in the corridor): still say where they are.
        (0..view.map.cells().len())
            .find(|&i| view.map.cells()[i] == want)
            .map(|i| view.map.pos_of(i))
    })
}

/// Monsters in sight now, by id.
fn monsters(view: &View) -> BTreeSet<u32> {
    view.entities
        .iter()
        .filter(|e| e.kind == EntityKind::Monster)
        .map(|e| e.id)
        .collect()
}

fn items(view: &View) -> BTreeSet<u32> {
    view.entities
        .iter()
        .filter(|e| e.kind == EntityKind::Item)
        .map(|e| e.id)
        .collect()
}

/// A trip under way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trip {
    pub goal: Goal,
    /// Monsters and items already in sight when it began (or last stopped for): only new ones
    /// stop it.
    seen_monsters: BTreeSet<u32>,
    seen_items: BTreeSet<u32>,
    /// The character was attacked since the last step (by something other than the monster
    /// the trip goes for).
    attacked: bool,
    depth: u8,
    /// For a trip to a monster: its name, and whether it died.
    target: Option<(String, bool)>,
}

impl Trip {
    /// Why a trip should not start at all: exploring with a monster in sight walks into
    /// trouble (Crawl refuses too). Walking somewhere chosen, or to the stairs, is allowed:
    /// it may be the way out.
    /// The refusal names the monster (its id) with the sentence, so the UI can say it once.
    pub fn refuse(goal: Goal, view: &View) -> Option<(u32, String)> {
        let monster = view
            .entities
            .iter()
            .find(|e| e.kind == EntityKind::Monster)?;
        let why = format!("Not with a {} in sight.", monster.name);
        (goal == Goal::Explore).then_some((monster.id, why))
    }

    pub fn new(goal: Goal, view: &View) -> Trip {
        let target = match goal {
            Goal::Monster(id) => view.entity(id).map(|e| (e.name.to_string(), false)),
            Goal::Friend(id) => (view.party.iter())
                .find(|p| p.id == id)
                .map(|p| (p.name.to_string(), false)),
            _ => None,
        };
        Trip {
            goal,
            seen_monsters: monsters(view),
            seen_items: items(view),
            attacked: false,
            depth: view.depth,
            target,
        }
    }

    /// Takes in a turn's events: an attack on the character (hit or miss) ends the trip, unless
    /// it came from the monster the trip goes for; that monster's death ends it too.
    pub fn on_events(&mut self, events: &[Event], me: u32) {
        let going_for = match self.goal {
            Goal::Monster(id) => Some(id),
            _ => None,
        };
        for e in events {
            match e {
                Event::Attacked {
                    attacker, target, ..
                } if *target == me && Some(*attacker) != going_for => self.attacked = true,
                Event::Died { id, .. } if Some(*id) == going_for => {
                    if let Some((_, dead)) = &mut self.target {
                        *dead = true;
                    }
                }
                _ => {}
            }
        }
    }

    /// The next step from this view, or why the trip ends.
    pub fn next(&mut self, view: &View) -> Step {
        if !view.me.alive || view.me.victory {
            return Step::Stop(String::new());
        }
        if view.depth != self.depth {
            return Step::Stop(String::new());
        }
        if self.attacked {
            return Step::Stop("You are attacked!".into());
        }
        if let Goal::Monster(id) = self.goal {
            return self.chase(view, id);
        }
        let now = monsters(view);
        if let Some(e) = now
            .difference(&self.seen_monsters)
            .find_map(|id| view.entity(*id))
        {
            return Step::Stop(format!("You see a {}.", e.name));
        }
        if self.goal == Goal::Explore
            && let Some(e) = items(view)
                .difference(&self.seen_items)
                .find_map(|id| view.entity(*id))
        {
            self.seen_items.insert(e.id);
            return Step::Stop(format!("You see a {}.", e.name));
        }
        let target = match self.goal {
            Goal::Cell(p) => {
                if p == view.me.pos {
                    return Step::Stop(String::new());
                }
                p
            }
            Goal::Stairs { down } => {
                let want = if down {
                    Tile::StairsDown
                } else {
                    Tile::StairsUp
                };
                if view.map.get(view.me.pos) == want {
                    return Step::TakeStairs { down };
                }
                match stairs(view, down) {
                    Some(p) => p,
                    None => {
                        let which = if down { "down" } else { "up" };
                        return Step::Stop(format!("You know of no stairs {which} on this floor."));
                    }
                }
            }
            Goal::Explore => match explore_target(view) {
                Some(p) => p,
                // Nowhere left to go, or only others in the way (a friend in the doorway).
                None => {
                    // The nearest edge may be where someone stands (a friend in the doorway
                    // that is the edge): then they are the one in the way.
                    let way = explore_target(&without_others(view));
                    let named =
                        way.and_then(|to| blocker(view, to).or_else(|| standing_on(view, to)));
                    return Step::Stop(match named {
                        Some(e) => in_the_way(e),
                        None => "Explored all you can reach.".into(),
                    });
                }
            },
            Goal::Monster(id) => return self.chase(view, id),
            Goal::Friend(id) => {
                let name = self
                    .target
                    .as_ref()
                    .map_or("your friend", |(n, _)| n.as_str());
                let friend = view.party.iter().find(|p| p.id == id);
                let Some(at) = friend.and_then(|p| crate::friends::pos_of(view, p)) else {
                    return Step::Stop(format!("{name} is not on this floor now."));
                };
                if at.chebyshev(view.me.pos) <= 1 {
                    return Step::Stop(format!("You are next to {name}."));
                }
                at
            }
        };
        match first_step(view, target) {
            Some(dir) => Step::Move(dir),
            None => Step::Stop(match blocker(view, target) {
                Some(e) => in_the_way(e),
                None => "There is no known way there.".into(),
            }),
        }
    }
}

impl Trip {
    /// The next step towards monster `id`, or the attack once next to it; the trip ends when it
    /// died or is out of sight. Other monsters coming into view do not end it: the player chose
    /// this fight.
    fn chase(&self, view: &View, id: u32) -> Step {
        let name = self.target.as_ref().map_or("monster", |(n, _)| n.as_str());
        if self.target.as_ref().is_some_and(|(_, dead)| *dead) {
            return Step::Stop(String::new());
        }
        let Some(m) = view.entity(id).filter(|e| e.kind == EntityKind::Monster) else {
            return Step::Stop(format!("The {name} is out of sight."));
        };
        let me = view.me.pos;
        if m.pos.chebyshev(me) == 1 {
            return Dir::from_delta(m.pos.x - me.x, m.pos.y - me.y)
                .map_or(Step::Stop(String::new()), Step::Attack);
        }
        match first_step(view, m.pos) {
            Some(dir) => Step::Move(dir),
            None => Step::Stop(match blocker(view, m.pos) {
                Some(other) if other.id != id => in_the_way(other),
                _ => format!("There is no known way to the {name}."),
            }),
        }
    }
}

/// One step of the fight key (Crawl's Tab): the attack on the nearest monster in view if it is
/// next to the character, else a step towards it (the nearest by the way there, then by
/// distance). `Err` says why there is nothing to do.
pub fn fight_step(view: &View) -> Result<Dir, String> {
    let me = view.me.pos;
    let seen: Vec<&delve_protocol::EntityView> = (view.entities.iter())
        .filter(|e| e.kind == EntityKind::Monster && view.is_visible(e.pos))
        .collect();
    if seen.is_empty() {
        return Err("No monster in sight.".into());
    }
    if let Some(m) = (seen.iter())
        .filter(|m| m.pos.chebyshev(me) == 1)
        .min_by_key(|m| (m.hp, m.id))
    {
        return Dir::from_delta(m.pos.x - me.x, m.pos.y - me.y).ok_or_else(String::new);
    }
    let dist = distances(view, None);
    let steps = |p: Pos| {
        // A monster's own cell is not crossed: the way to it ends next to it.
        Dir::ALL
            .iter()
            .filter_map(|d| view.map.index(p.step(*d)).map(|i| dist[i]))
            .min()
            .unwrap_or(u32::MAX)
    };
    let nearest = (seen.iter())
        .map(|m| (steps(m.pos), m.pos.dist2(me), m.id, m.pos, &m.name))
        .min()
        .expect("a monster in sight");
    let (_, _, _, at, name) = nearest;
    first_step(view, at).ok_or_else(|| format!("There is no known way to the {name}."))
}

#[cfg(test)]
pub(crate) mod tests;
