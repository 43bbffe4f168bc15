//! Playing a finished game back from its slice of the journal ([`ReplaySlice`]).
//!
//! The slice holds the whole dungeon over the game's span — every floor's turns and every
//! other player's comings and goings, since the world is one — and [`Replayer`] replays all of
//! it through the engine, but shows only one character: its view ([`view_of`], never more than
//! the character saw or remembered at that moment) and the events of each turn in its words
//! ([`events_for`]). Its timeline is the character's own turns: turn `t` is the world just
//! after the journal entry that brought the character's lived turns to `t` (turn 0: just
//! after the entry that made it).
//!
//! Opening replays the game once, from the slice's base to its last entry: that pass finds
//! where each turn lies in the journal, keeps a saved world every [`KEYFRAME_TURNS`] turns, and
//! gathers what the character dump tells ([`Chronicle`]). A 6,000-turn game replays in about
//! 40 ms (docs/BENCHMARKS.md), so any turn is then at most one load and [`KEYFRAME_TURNS`]
//! turns away.
//!
//! A game is only shown if it replays into the very world that was recorded: the world's state
//! hash after the last entry must equal the one saved when the game ended. A game played with
//! another content file, or with an engine that has changed since in a way that matters, fails
//! that test (or cannot even be loaded) and is refused with a sentence saying so
//! ([`ReplayError`]), never shown wrong.

use std::collections::BTreeMap;
use std::sync::Arc;

use delve_protocol::{Event as ProtoEvent, ItemView, SelfView, View};

use crate::game::{Content, Dungeon, EntityId, Event, Input};
use crate::store::ReplaySlice;
use crate::view::{self, events_for, view_of};

use super::dump::{self, DumpStats, FloorReached, GameDump, LAST_LINES};

/// Turns between two worlds kept in memory while a replay is open: a jump replays at most this
/// many turns after loading one (about 2 ms in release; a kept world is 40–70 KB).
pub const KEYFRAME_TURNS: u64 = 250;

/// What is known of a game besides its slice, to replay it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameFacts {
    pub player: EntityId,
    /// The journal entry that made the character.
    pub start_seq: u64,
    /// The world's state hash after the last entry, as recorded; empty: not checked.
    pub end_hash: String,
    /// What played it (see [`super::engine`]), for the sentence if it cannot be replayed.
    pub engine: String,
    /// The content hash it was played with; empty: unknown.
    pub content_hash: String,
}

/// Why a game cannot be played back. Each says so in a sentence a visitor understands.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error(
        "This game was played with another content file ({recorded}) than this server's \
         ({here}), so it cannot be replayed faithfully here. Its character dump is still kept."
    )]
    OtherContent { recorded: String, here: String },
    #[error(
        "This game was played by {recorded}; this server ({here}) plays it out differently, so \
         its replay cannot be shown. Its character dump is still kept."
    )]
    Diverged { recorded: String, here: String },
    #[error("This game's replay cannot be read ({0}). Its character dump is still kept.")]
    Damaged(String),
}

/// What the one pass over a game gathers for its dump.
#[derive(Clone, Debug, Default)]
pub struct Chronicle {
    pub kills: BTreeMap<String, u32>,
    pub floors: Vec<FloorReached>,
    /// The last lines told, oldest first (at most [`LAST_LINES`]).
    pub messages: Vec<String>,
    /// The character before its last entry (the blow that killed it), if it died in it.
    pub before: Option<(SelfView, Vec<ItemView>)>,
}

impl Chronicle {
    fn observe(&mut self, d: &Dungeon, id: EntityId, depth: u8, events: &[Event], turns: u64) {
        for e in events {
            match e {
                Event::Died {
                    victim,
                    killer: Some(k),
                } if k.id == id && !victim.player => {
                    *self.kills.entry(victim.name.to_string()).or_default() += 1;
                }
                Event::ChangedFloor { id: who, to, .. }
                    if *who == id && !self.floors.iter().any(|f| f.depth == *to) =>
                {
                    self.floors.push(FloorReached {
                        depth: *to,
                        turn: turns,
                    });
                }
                _ => {}
            }
        }
        for e in events_for(d, id, depth, events) {
            if let ProtoEvent::Message { text, .. } = e {
                self.messages.push(text);
            }
        }
        if self.messages.len() > 2 * LAST_LINES {
            self.messages.drain(..self.messages.len() - LAST_LINES);
        }
    }

    /// The dump of character `id` of `d` (the world at the game's end), as this pass saw it.
    pub fn dump(mut self, d: &Dungeon, id: EntityId, dungeon: &str) -> Option<GameDump> {
        let end = view_of(d, id)?;
        let mut dump = end_dump(d, id, dungeon, &end)?;
        let (me, inventory) = match self.before.take() {
            Some(before) if !end.me.victory => before,
            _ => (end.me.clone(), end.inventory.clone()),
        };
        // All of them as before the blow, HP too: what the character had left to meet it.
        dump.stats = DumpStats::of(&me);
        (dump.equipment, dump.pack) = dump::kit(&inventory);
        dump.kills_by_kind = dump::kills_sorted(&self.kills);
        dump.floors = self.floors;
        let skip = self.messages.len().saturating_sub(LAST_LINES);
        dump.messages = self.messages.split_off(skip);
        dump.complete = true;
        Some(dump)
    }
}

/// A dump from the world at the game's end alone (no replay): the numbers and what was left.
pub fn end_dump(d: &Dungeon, id: EntityId, dungeon: &str, end: &View) -> Option<GameDump> {
    let p = d.player(id)?;
    let outcome = match (p.death(), p.victory()) {
        (_, true) => "won".to_string(),
        (Some(death), _) => view::cause_of_death(d.content(), death),
        (None, false) => "left the dungeon".to_string(),
    };
    let (equipment, pack) = dump::kit(&end.inventory);
    Some(GameDump {
        version: dump::DUMP_VERSION,
        name: p.name().to_string(),
        dungeon: dungeon.to_string(),
        outcome,
        victory: p.victory(),
        score: crate::game::score::score(p, d.content()),
        level: p.level(),
        xp: p.xp(),
        deepest: p.deepest(),
        kills: p.kills(),
        turns: p.turns(),
        started: None,
        ended: 0,
        stats: DumpStats::of(&end.me),
        equipment,
        pack,
        effects: end
            .me
            .effects
            .iter()
            .filter_map(|e| serde_json::to_value(e).ok()?.as_str().map(str::to_string))
            .collect(),
        kills_by_kind: Vec::new(),
        floors: vec![FloorReached { depth: 1, turn: 0 }],
        messages: Vec::new(),
        complete: false,
    })
}

/// One turn of a replay, as the character saw it.
#[derive(Clone, Debug)]
pub struct Shown {
    /// The character's turn (0 to [`Replayer::last_turn`]).
    pub turn: u64,
    pub view: View,
    /// What happened since the turn before, in the character's words; empty after a jump.
    pub events: Vec<ProtoEvent>,
    /// `true` when this follows the turn shown before it (an update will do); `false` after a
    /// jump (a whole snapshot).
    pub step: bool,
}

/// An open replay: see the module docs.
pub struct Replayer {
    content: Arc<Content>,
    player: EntityId,
    entries: Vec<Input>,
    /// `positions[t]`: how many of `entries` are applied when the character has lived `t`
    /// turns.
    positions: Vec<usize>,
    /// The world saved at turns 0, `KEYFRAME_TURNS`, `2 × KEYFRAME_TURNS`, ...
    keyframes: Vec<Vec<u8>>,
    /// The world at the turn last shown.
    at: Option<(u64, Dungeon)>,
}

impl std::fmt::Debug for Replayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replayer")
            .field("player", &self.player)
            .field("entries", &self.entries.len())
            .field("turns", &self.last_turn())
            .finish_non_exhaustive()
    }
}

impl Replayer {
    /// Replays the game once (see the module docs): the replayer, and what it gathered for the
    /// dump with the world at the end.
    pub fn open(
        slice: &ReplaySlice,
        content: Arc<Content>,
        facts: &GameFacts,
    ) -> Result<(Replayer, Chronicle, Dungeon), ReplayError> {
        if !facts.content_hash.is_empty() && facts.content_hash != content.source_hash {
            return Err(ReplayError::OtherContent {
                recorded: short(&facts.content_hash),
                here: short(&content.source_hash),
            });
        }
        let here = super::engine(&content);
        let diverged = || ReplayError::Diverged {
            recorded: facts.engine.clone(),
            here: here.clone(),
        };
        let mut d = match &slice.base {
            Some(bytes) => Dungeon::load(bytes, Arc::clone(&content)).map_err(|_| diverged())?,
            None => Dungeon::new(slice.seed, Arc::clone(&content)),
        };
        let entries = (slice.entries.iter().enumerate())
            .map(|(k, e)| {
                postcard::from_bytes::<Input>(e).map_err(|why| {
                    ReplayError::Damaged(format!(
                        "journal entry {} does not decode: {why}",
                        slice.base_seq + 1 + k as u64
                    ))
                })
            })
            .collect::<Result<Vec<Input>, ReplayError>>()?;
        let id = facts.player;
        // Entries before the one that made the character, replayed unseen.
        let start = usize::try_from(facts.start_seq.saturating_sub(slice.base_seq))
            .unwrap_or(usize::MAX)
            .min(entries.len());
        for input in &entries[..start] {
            let _ = d.step(input);
        }
        if d.player(id).is_none() {
            return Err(diverged());
        }
        let mut replayer = Replayer {
            content,
            player: id,
            entries,
            positions: vec![start],
            keyframes: vec![d.save()],
            at: None,
        };
        let mut chronicle = Chronicle {
            floors: vec![FloorReached { depth: 1, turn: 0 }],
            ..Chronicle::default()
        };
        let n = replayer.entries.len();
        for k in start..n {
            if k + 1 == n {
                chronicle.before = view_of(&d, id).map(|v| (v.me, v.inventory));
            }
            let input = &replayer.entries[k];
            let depth = event_floor(&d, id, input);
            let events = d.step(input).map(|o| o.events).unwrap_or_default();
            let turns = d.player(id).map_or(0, |p| p.turns());
            chronicle.observe(&d, id, depth, &events, turns);
            while (replayer.positions.len() as u64) <= turns {
                replayer.positions.push(k + 1);
                let t = replayer.positions.len() as u64 - 1;
                if t.is_multiple_of(KEYFRAME_TURNS) {
                    replayer.keyframes.push(d.save());
                }
            }
        }
        if !facts.end_hash.is_empty() && d.state_hash() != facts.end_hash {
            return Err(diverged());
        }
        Ok((replayer, chronicle, d))
    }

    /// The character's last turn: the replay runs from turn 0 to this one.
    pub fn last_turn(&self) -> u64 {
        self.positions.len() as u64 - 1
    }

    pub fn player(&self) -> EntityId {
        self.player
    }

    /// The character's turn `turn` (at most [`Replayer::last_turn`]). The turn after the one
    /// shown last is stepped to, with its events; any other is jumped to from the nearest kept
    /// world before it.
    pub fn show(&mut self, turn: u64) -> Option<Shown> {
        let turn = turn.min(self.last_turn());
        let to = self.positions[usize::try_from(turn).ok()?];
        let mut events = Vec::new();
        let step = matches!(&self.at, Some((t, _)) if *t + 1 == turn);
        let d = match self.at.take() {
            Some((t, d)) if t + 1 == turn => {
                let mut d = d;
                let from = self.positions[usize::try_from(t).ok()?];
                for input in &self.entries[from..to] {
                    let depth = event_floor(&d, self.player, input);
                    let done = d.step(input).map(|o| o.events).unwrap_or_default();
                    events.extend(events_for(&d, self.player, depth, &done));
                }
                d
            }
            Some((t, d)) if t == turn => d,
            _ => {
                let k = (turn / KEYFRAME_TURNS) as usize;
                let mut d = Dungeon::load(&self.keyframes[k], Arc::clone(&self.content)).ok()?;
                let from = self.positions[k * KEYFRAME_TURNS as usize];
                for input in &self.entries[from..to] {
                    let _ = d.step(input);
                }
                d
            }
        };
        let mut view = view_of(&d, self.player)?;
        view.party = view::party_for(&view::party(&d), &view);
        self.at = Some((turn, d));
        Some(Shown {
            turn,
            view,
            events,
            step,
        })
    }
}

/// The floor an input's events happen on, as the dungeon task tells them: a turn's own floor,
/// and otherwise the character's.
fn event_floor(d: &Dungeon, id: EntityId, input: &Input) -> u8 {
    match input {
        Input::Turn { depth, .. } => *depth,
        _ => d.player(id).map_or(1, |p| p.depth()),
    }
}

/// The first 12 digits of a hash, enough to tell two apart in a sentence.
fn short(hash: &str) -> String {
    hash.chars().take(12).collect()
}
