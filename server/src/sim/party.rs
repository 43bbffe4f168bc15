//! Parties in the balance simulation (`simulate --party N`): N careful bots in one dungeon, who
//! keep together, bring a fallen friend back with a Health Pack, heal a friend in trouble and
//! share their Health Packs, all through the engine's own actions (`use_on`, `give`).
//!
//! Each bot plays as the solo [`Bot`] does, with a party's habits on top: the first of the
//! party still standing (the lowest id) leads; the others keep within a few steps of it when no
//! monster is in sight and follow it up and down the stairs; the leader waits at the down-stair
//! for the others (a while), and for the hurt to rest up, before it descends. A friend in a
//! fight nearby gets help (we go and fight beside it instead of waiting for a mouse to come), a
//! stunned, confused or poisoned one next to us our Smelling Salts or antivenom. A game ends when the Mouse King falls, when
//! nobody of the party is left standing, or at the turn cap.

use std::collections::BTreeMap;
use std::sync::Arc;

use delve_protocol::{Effect, Pos, Tile};
use serde::Serialize;

use super::bot::{Bot, Move, dir_to, find_stairs, nav_map};
use super::measure::{Measures, Summary, summary};
use super::{GameResult, Outcome, SimConfig, Tally};
use crate::game::content::ItemUse;
use crate::game::path::nearest_route;
use crate::game::{Action, Content, Dungeon, EntityId, Event, Input};

/// Friends keep within this many steps of the leader when nothing is in sight.
const KEEP_WITHIN: i32 = 3;
/// The leader waits at most this many turns at the down-stair for the others.
const WAIT_AT_STAIRS: u32 = 40;
/// A friend next to you below this share of its HP gets one of your Health Packs.
const FRIEND_HEAL_BELOW: f64 = 0.35;
/// A friend in a fight this many steps away (or nearer) gets help: we go and fight beside it.
const HELP_WITHIN: i32 = 8;
/// ... unless we are below this share of our HP ourselves.
const HELP_ABOVE: f64 = 0.5;
/// Nobody goes down the stairs below this share of their HP: the party rests up first.
const REST_UP_BELOW: f64 = 0.9;

/// One party game: how it went for the party, and the party's own counts.
#[derive(Clone, Debug)]
pub struct PartyResult {
    /// The game as the solo report counts it: its end, the deepest floor anyone reached, the
    /// highest level, the kills of all; the measures are the first character's.
    pub game: GameResult,
    /// Characters brought back by a friend.
    pub revivals: u32,
    /// The floor of every fall (brought back or not).
    pub falls: Vec<u8>,
    /// Falls of each character, by seat.
    pub deaths_by_seat: Vec<u32>,
    /// Things given to a friend.
    pub gifts: u32,
}

/// The party run as one JSON object: the solo report's fields and the party's.
#[derive(Debug, Serialize)]
pub struct PartySummary {
    #[serde(flatten)]
    pub solo: Summary,
    /// Characters in each game.
    pub party: u32,
    /// Games with at least one revival.
    pub games_with_revival: usize,
    /// How many games had 0, 1, 2, ... revivals.
    pub revivals_per_game: BTreeMap<u32, usize>,
    /// Falls of a character in a game, on average over every character of every game.
    pub deaths_per_player: f64,
    /// How many characters fell 0, 1, 2, ... times in their game.
    pub deaths_per_player_histogram: BTreeMap<u32, usize>,
    /// Every fall (brought back or not), by the floor it happened on.
    pub falls_by_floor: BTreeMap<u8, usize>,
    /// Things given to a friend, per game.
    pub gifts_per_game: f64,
}

/// The summary of a party run.
pub fn party_summary(results: &[PartyResult], seed: u64, floors: u8, party: u32) -> PartySummary {
    let games: Vec<GameResult> = results.iter().map(|r| r.game.clone()).collect();
    let mut revivals_per_game = BTreeMap::new();
    let mut histogram = BTreeMap::new();
    let mut falls_by_floor: BTreeMap<u8, usize> = (1..=floors).map(|f| (f, 0)).collect();
    for r in results {
        *revivals_per_game.entry(r.revivals).or_default() += 1;
        for &d in &r.deaths_by_seat {
            *histogram.entry(d).or_default() += 1;
        }
        for &f in &r.falls {
            *falls_by_floor.entry(f).or_default() += 1;
        }
    }
    // A lost party game ended where the party's last character fell (not the deepest floor
    // anyone reached: the last may have fallen higher up, after the others).
    let mut solo = summary(&games, seed, floors);
    solo.deaths_by_floor = (1..=floors).map(|f| (f, 0)).collect();
    for r in results {
        if let (Outcome::Killed(_), Some(&last)) = (&r.game.outcome, r.falls.last()) {
            *solo.deaths_by_floor.entry(last).or_default() += 1;
        }
    }
    let seats: usize = results.iter().map(|r| r.deaths_by_seat.len()).sum();
    let falls: usize = results.iter().map(|r| r.falls.len()).sum();
    let gifts: u32 = results.iter().map(|r| r.gifts).sum();
    PartySummary {
        solo,
        party,
        games_with_revival: results.iter().filter(|r| r.revivals > 0).count(),
        revivals_per_game,
        deaths_per_player: falls as f64 / seats.max(1) as f64,
        deaths_per_player_histogram: histogram,
        falls_by_floor,
        gifts_per_game: f64::from(gifts) / results.len().max(1) as f64,
    }
}

/// Plays one game of `n` bots on the dungeon with `seed`.
pub fn play_party(content: Arc<Content>, seed: u64, max_turns: u64, n: u32) -> PartyResult {
    let mut d = Dungeon::new(seed, content);
    let mut ids = Vec::new();
    for k in 0..n {
        if let Ok(crate::game::Outcome {
            character: Some(id),
            ..
        }) = d.step(&Input::Join {
            name: format!("Bot{k}"),
        }) {
            ids.push(id);
        }
    }
    let mut bots: Vec<Bot> = ids.iter().map(|_| Bot::default()).collect();
    let mut waited = 0u32;
    // Friends who blocked a friend's step, and the way that friend was going: they step on
    // that way next (out of a dead end's mouth, say), so a party in a corridor never jams.
    let mut make_way: BTreeMap<EntityId, delve_protocol::Dir> = BTreeMap::new();
    let (mut tally, mut measures) = (Tally::default(), Measures::default());
    let mut result = PartyResult {
        game: GameResult {
            seed,
            outcome: Outcome::TimedOut,
            deepest: 1,
            level: 1,
            turns: 0,
            kills: 0,
            tally: Tally::default(),
            measures: Measures::default(),
        },
        revivals: 0,
        falls: Vec::new(),
        deaths_by_seat: vec![0; ids.len()],
        gifts: 0,
    };
    let mut last_killer = String::new();
    let mut won = false;
    let mut turns = 0;
    while turns < max_turns && !won {
        let standing: Vec<EntityId> = (ids.iter().copied())
            .filter(|id| d.player(*id).is_some_and(|p| p.alive()))
            .collect();
        let Some(&leader) = standing.first() else {
            break;
        };
        let mut depths: Vec<u8> = (standing.iter())
            .filter_map(|id| d.player(*id).map(|p| p.depth()))
            .collect();
        depths.sort_unstable();
        depths.dedup();
        let mut turn_events = Vec::new();
        for depth in depths {
            for (k, &id) in ids.iter().enumerate() {
                let Some(p) = d.player(id) else { continue };
                if !p.alive() || p.depth() != depth {
                    continue;
                }
                if d.floor(depth).and_then(|f| f.pending(id)) == Some(Action::Rest) {
                    continue;
                }
                for _ in 0..4 {
                    let way = make_way.remove(&id);
                    match party_move(&d, id, &mut bots[k], leader, &mut waited, way) {
                        Move::Spend(stat) => {
                            let _ = d.step(&Input::SpendPoint { id, stat });
                        }
                        Move::Act(action) => {
                            if d.step(&Input::Choose { id, action }).is_err() {
                                let wait = Action::Wait;
                                let _ = d.step(&Input::Choose { id, action: wait });
                            }
                            break;
                        }
                    }
                }
            }
            let actions = d.choices(depth);
            let report = d.step(&Input::Turn { depth, actions }).unwrap_or_default();
            for e in &report.events {
                tally.count(e, ids[0]);
                match e {
                    Event::Died { victim, killer } if victim.player => {
                        result.falls.push(depth);
                        if let Some(k) = ids.iter().position(|i| *i == victim.id) {
                            result.deaths_by_seat[k] += 1;
                        }
                        last_killer = killer
                            .as_ref()
                            .map(|k| k.name.to_string())
                            .unwrap_or_default();
                    }
                    Event::Died { victim, .. } => {
                        let c = d.content();
                        won |= c.monsters.iter().any(|k| k.boss && k.name == victim.name);
                    }
                    Event::Blocked {
                        id: who,
                        by: Some(by),
                    } if by.player && ids.contains(who) => {
                        let from = d.player(*who).map(|p| p.pos());
                        if let Some(dir) = from.and_then(|f| dir_to(f, by.pos)) {
                            make_way.insert(by.id, dir);
                        }
                    }
                    Event::Revived { .. } => result.revivals += 1,
                    Event::Gave { .. } => result.gifts += 1,
                    _ => {}
                }
            }
            turn_events.extend(report.events);
        }
        turns += 1;
        measures.after_turn(&d, ids[0], turns, &turn_events);
    }
    let players: Vec<_> = ids.iter().filter_map(|id| d.player(*id)).collect();
    let anyone = players.iter().any(|p| p.alive());
    result.game = GameResult {
        seed,
        outcome: if won {
            Outcome::Won
        } else if !anyone {
            Outcome::Killed(last_killer)
        } else {
            Outcome::TimedOut
        },
        deepest: players.iter().map(|p| p.deepest()).max().unwrap_or(1),
        level: players.iter().map(|p| p.level()).max().unwrap_or(1),
        turns,
        kills: players.iter().map(|p| p.kills()).sum(),
        tally,
        measures,
    };
    result
}

/// The party's habits on top of the solo bot's: bring the fallen back, help a friend in
/// trouble, share Health Packs, keep together.
fn party_move(
    d: &Dungeon,
    id: EntityId,
    bot: &mut Bot,
    leader: EntityId,
    waited: &mut u32,
    make_way: Option<delve_protocol::Dir>,
) -> Move {
    let Some(me) = d.player(id) else {
        return Move::Act(Action::Wait);
    };
    if me.unspent() > 0 {
        return bot.decide(d, id);
    }
    let c = d.content();
    let depth = me.depth();
    let heals: Vec<EntityId> = (me.inventory().iter())
        .filter(|i| i.use_(c) == ItemUse::Heal)
        .map(|i| i.id)
        .collect();
    let friends: Vec<_> = (d.players())
        .filter(|p| p.id() != id && p.depth() == depth)
        .collect();
    let in_sight = d.monster_in_sight_of(id).is_some();
    let floor = d.floor(depth);
    let adjacent_monster =
        floor.is_some_and(|f| (f.monsters().values()).any(|m| m.pos().chebyshev(me.pos()) <= 1));
    let Some(map) = me.memory(depth) else {
        return bot.decide(d, id);
    };
    let key = (me.inventory().iter()).any(|i| i.use_(c) == ItemUse::Unlock);
    let nav = nav_map(map, key);
    let walk_to = |goal: &dyn Fn(Pos) -> bool| {
        nearest_route(&nav, me.pos(), goal)
            .and_then(|r| r.last().copied())
            .and_then(|n| dir_to(me.pos(), n))
            .map(|dir| Move::Act(Action::Move { dir }))
    };
    let ok = |a: Action| d.check(id, a).is_ok();
    let hp =
        |p: &crate::game::player::Player| f64::from(p.hp()) / f64::from(p.stats(c).max_hp.max(1));
    // A friend walked into us: out of its way, on the way it was going (or beside it).
    if let Some(dir) = make_way
        && !adjacent_monster
    {
        use delve_protocol::Dir;
        let k = Dir::ALL.iter().position(|d| *d == dir).unwrap_or(0);
        let turns = [0, 1, 7, 2, 6].map(|r| Dir::ALL[(k + r) % 8]);
        if let Some(&go) = turns.iter().find(|g| {
            let to = me.pos().step(**g);
            nav.get(to).is_walkable() && !(friends.iter()).any(|f| f.alive() && f.pos() == to)
        }) {
            return Move::Act(Action::Move { dir: go });
        }
        return Move::Act(Action::Move { dir });
    }
    // A fallen friend on this floor that can still be brought back, and no Health Pack: its
    // own may lie with it (what it carried fell with it).
    let fallen = (friends.iter())
        .filter(|f| !f.alive() && d.party().revivable_until(f.id()).is_some())
        .min_by_key(|f| f.pos().chebyshev(me.pos()));
    if heals.is_empty()
        && !adjacent_monster
        && let (Some(f), Some(floor)) = (fallen, floor)
        && (floor.items().values()).any(|(p, it)| *p == f.pos() && it.use_(c) == ItemUse::Heal)
        && let Some(step) = walk_to(&|p: Pos| p == f.pos())
    {
        return step;
    }
    // A friend next to us stunned or confused gets our Smelling Salts, one poisoned our
    // antivenom: a stunned friend cannot use its own (it loses its turns while it is hit).
    for f in (friends.iter()).filter(|f| f.alive() && f.pos().chebyshev(me.pos()) == 1) {
        let need = if f.has(Effect::Stun) || f.has(Effect::Confusion) {
            ItemUse::Clear
        } else if f.has(Effect::Poison) {
            ItemUse::CurePoison
        } else {
            continue;
        };
        if let Some(it) = (me.inventory().iter()).find(|i| i.use_(c) == need) {
            let help = Action::UseOn {
                item: it.id,
                on: f.id(),
            };
            if ok(help) {
                return Move::Act(help);
            }
        }
    }
    // A fallen friend on this floor that can still be brought back: go to it and do it.
    if let Some(&pack) = heals.first() {
        if let Some(f) = fallen {
            let revive = Action::UseOn {
                item: pack,
                on: f.id(),
            };
            if ok(revive) {
                return Move::Act(revive);
            }
            if !adjacent_monster && let Some(step) = walk_to(&|p: Pos| p.chebyshev(f.pos()) <= 1) {
                return step;
            }
        }
        // A friend next to us in trouble gets a Health Pack.
        if let Some(f) = (friends.iter())
            .find(|f| f.alive() && f.pos().chebyshev(me.pos()) == 1 && hp(f) < FRIEND_HEAL_BELOW)
        {
            let help = Action::UseOn {
                item: pack,
                on: f.id(),
            };
            if hp(me) >= 0.5 && ok(help) {
                return Move::Act(help);
            }
        }
        // Two or more: one for a friend next to us who has none.
        if heals.len() >= 2 {
            let none = |p: &crate::game::player::Player| {
                !(p.inventory().iter()).any(|i| i.use_(c) == ItemUse::Heal)
            };
            if let Some(f) =
                (friends.iter()).find(|f| f.alive() && f.pos().chebyshev(me.pos()) == 1 && none(f))
            {
                let give = Action::Give {
                    item: pack,
                    to: f.id(),
                };
                if ok(give) {
                    return Move::Act(give);
                }
            }
        }
    }
    let base = bot.decide(d, id);
    // A friend in a fight: go and fight beside it rather than wait for a mouse to come (a
    // friend stunned by a Tough Mouse loses its turns while it is hit; two fight it faster).
    if in_sight
        && !adjacent_monster
        && hp(me) >= HELP_ABOVE
        && matches!(base, Move::Act(Action::Wait | Action::Move { .. }))
        && let Some(floor) = floor
    {
        let fights: Vec<Pos> = (floor.monsters().values())
            .map(|m| m.pos())
            .filter(|m| {
                (friends.iter()).any(|f| {
                    f.alive()
                        && f.present()
                        && f.pos().chebyshev(*m) == 1
                        && f.pos().chebyshev(me.pos()) <= HELP_WITHIN
                })
            })
            .collect();
        if let Some(step) = walk_to(&|p: Pos| fights.iter().any(|m| m.chebyshev(p) == 1)) {
            return step;
        }
    }
    if in_sight {
        return base;
    }
    let Some(lead) = d.player(leader) else {
        return base;
    };
    // The party rests up before it goes down: whoever is hurt while the leader stands on the
    // down-stair rests (the leader waits for them there).
    let rest_up = |p: &crate::game::player::Player| {
        f64::from(p.hp()) < REST_UP_BELOW * f64::from(p.stats(c).max_hp)
    };
    let at_stairs = lead.depth() == depth && map.get(lead.pos()) == Tile::StairsDown;
    if at_stairs && rest_up(me) && ok(Action::Rest) {
        return Move::Act(Action::Rest);
    }
    if id != leader {
        // The leader went up or down: after it, by the same stairs.
        if lead.depth() != depth && lead.alive() {
            let (stairs, action) = if lead.depth() > depth {
                (Tile::StairsDown, Action::Descend)
            } else {
                (Tile::StairsUp, Action::Ascend)
            };
            if map.get(me.pos()) == stairs {
                return Move::Act(action);
            }
            let target = match stairs {
                Tile::StairsDown => find_stairs(map),
                _ => (map.cells().iter())
                    .position(|t| *t == Tile::StairsUp)
                    .map(|i| map.pos_of(i)),
            };
            if let Some(t) = target
                && let Some(step) = walk_to(&|p: Pos| p == t)
            {
                return step;
            }
            return base;
        }
        let away = lead.pos().chebyshev(me.pos());
        let leaving = matches!(base, Move::Act(Action::Descend | Action::Ascend));
        if (away > KEEP_WITHIN || leaving)
            && let Some(step) = walk_to(&|p: Pos| p.chebyshev(lead.pos()) <= 1)
        {
            return step;
        }
        if leaving {
            return Move::Act(Action::Wait);
        }
        return base;
    }
    // The leader waits at the stairs for the others, a while, and for the hurt to rest up.
    if matches!(base, Move::Act(Action::Descend)) {
        let behind = (friends.iter())
            .any(|f| f.alive() && f.present() && (f.pos().chebyshev(me.pos()) > 2 || rest_up(f)));
        if behind && *waited < WAIT_AT_STAIRS {
            *waited += 1;
            return Move::Act(Action::Wait);
        }
        *waited = 0;
    }
    base
}

/// Plays `cfg.games` party games of `n` bots on as many threads, reproducibly (game `k` uses a
/// seed derived from `cfg.seed` and `k`, as the solo run does).
pub fn run_party(content: Arc<Content>, cfg: &SimConfig, n: u32) -> Vec<PartyResult> {
    super::on_threads(cfg, |seed| {
        play_party(Arc::clone(&content), seed, cfg.max_turns, n)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_party_game_is_reproducible_and_its_summary_has_the_party_fields() {
        let c = Arc::new(Content::builtin());
        let a = play_party(Arc::clone(&c), 7, 3000, 4);
        let b = play_party(c, 7, 3000, 4);
        assert_eq!(
            (
                a.game.outcome.clone(),
                a.game.turns,
                a.revivals,
                a.falls.clone()
            ),
            (
                b.game.outcome.clone(),
                b.game.turns,
                b.revivals,
                b.falls.clone()
            )
        );
        assert_eq!(a.deaths_by_seat.len(), 4);
        assert!(a.game.turns > 0);
        // A lost game counts where its last character fell, not the deepest floor reached.
        let mut lost = a.clone();
        lost.game.outcome = Outcome::Killed("Tough Mouse".into());
        lost.game.deepest = 7;
        lost.falls = vec![7, 3, 5];
        let s = party_summary(&[lost], 7, 10, 4);
        assert_eq!(
            (s.solo.deaths_by_floor[&5], s.solo.deaths_by_floor[&7]),
            (1, 0)
        );
        let s = party_summary(&[a], 7, 10, 4);
        let json = serde_json::to_value(&s).unwrap();
        for field in [
            "games",
            "wins",
            "deaths_by_floor",
            "games_with_revival",
            "revivals_per_game",
            "deaths_per_player",
            "falls_by_floor",
        ] {
            assert!(json.get(field).is_some(), "{field} missing from {json}");
        }
    }
}
