//! The client's copy of the game: the view it was sent, patched by every diff, plus the message
//! log and the turn status. Pure data, no window, no network: the UI draws it, tests and bots
//! drive it headless.

use std::collections::{BTreeMap, VecDeque};

use delve_protocol::{
    Descriptions, DungeonInfo, ErrorCode, Event, MessageKind, ServerMsg, StatGain, View, ViewError,
};

/// Lines kept in the message log.
pub const LOG_LINES: usize = 200;

/// One line of the message log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLine {
    pub kind: MessageKind,
    pub text: String,
    /// The turn it last happened on, for fading old lines.
    pub turn: u64,
    /// How many times in a row it happened (shown as "×N"), so repeats never flood the log.
    pub count: u32,
    /// For a chat line, who said it.
    pub from: Option<String>,
}

/// Whom the current turn is waiting for, as last told by the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnStatus {
    pub turn: u64,
    pub waiting_for: Vec<String>,
    /// Milliseconds left when the status was sent; `None` when the floor waits for everyone.
    pub timeout_ms: Option<u64>,
}

/// Why a server message could not be applied. The fix for all of them is a resync.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ModelError {
    #[error("update {got} arrived but {expected} was next")]
    Gap { expected: u64, got: u64 },
    #[error("an update arrived before any snapshot")]
    NoView,
    #[error("the update does not apply: {0}")]
    BadDiff(#[from] ViewError),
}

/// What a handled message means for the UI beyond the new state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Handled {
    /// Events to animate, in order.
    pub events: Vec<Event>,
    /// The server refused something or reported a problem.
    pub error: Option<(ErrorCode, String)>,
    /// A whole new view arrived (welcome or snapshot): jump, don't animate.
    pub snapshot: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Model {
    pub player_id: Option<u32>,
    pub token: Option<String>,
    pub dungeon: Option<String>,
    pub turn_timeout_ms: u64,
    /// What a stat point adds to each stat.
    pub level_up: Vec<StatGain>,
    /// Whose view this is when it is not our own character's (a watcher, or a dead player
    /// following a friend).
    pub watching: Option<String>,
    /// The server's dungeons, as last listed (the lobby).
    pub dungeons: Vec<DungeonInfo>,
    /// The server's high-score table, as last asked for.
    pub scores: Vec<delve_protocol::ScoreEntry>,
    /// How many high-score answers have arrived, so a table that asked can tell its answer from
    /// an older one.
    pub scores_received: u64,
    /// Sequence number of the last view message applied.
    pub seq: u64,
    pub view: Option<View>,
    pub log: VecDeque<LogLine>,
    pub turn_status: Option<TurnStatus>,
    /// Why the dungeon is paused (the server cannot save), while it is.
    pub paused: Option<String>,
    /// What each kind of monster and item is, as the server's welcome told (empty from an
    /// older server).
    pub descriptions: Descriptions,
    /// Monsters our character killed, by name, as seen by this client since the character
    /// came in (for the character dump).
    pub kills_by_kind: BTreeMap<String, u32>,
    /// Where the server keeps our last finished game, and its dump (`game_over`).
    pub game_over: Option<crate::record::GameOver>,
    /// The finished game this connection replays, if it replays one (`replay`).
    pub replay: Option<crate::record::ReplayInfo>,
}

impl Model {
    pub fn new() -> Model {
        Model::default()
    }

    /// Applies one server message. On error the model is unchanged and the caller should ask
    /// for a resync.
    pub fn handle(&mut self, msg: ServerMsg) -> Result<Handled, ModelError> {
        let mut out = Handled::default();
        match msg {
            ServerMsg::Welcome {
                player_id,
                token,
                dungeon,
                turn_timeout_ms,
                level_up,
                watching,
                seq,
                view,
                descriptions,
                ..
            } => {
                self.level_up = level_up;
                self.descriptions = descriptions;
                // A new character (or someone else's view) starts its own count.
                if self.player_id != Some(player_id) {
                    self.kills_by_kind.clear();
                }
                self.watching = watching;
                self.player_id = Some(player_id);
                // A watcher has no token; keep the one we have.
                if token.is_some() {
                    self.token = token;
                }
                self.dungeon = Some(dungeon);
                self.turn_timeout_ms = turn_timeout_ms;
                self.seq = seq;
                self.view = Some(view);
                self.turn_status = None;
                out.snapshot = true;
            }
            ServerMsg::Scores { entries } => {
                self.scores = entries;
                self.scores_received += 1;
            }
            ServerMsg::Snapshot { seq, view } => {
                self.seq = seq;
                self.view = Some(view);
                self.turn_status = None;
                out.snapshot = true;
            }
            ServerMsg::Update {
                seq,
                turn,
                diff,
                events,
            } => {
                let view = self.view.as_mut().ok_or(ModelError::NoView)?;
                // Names of what is in sight before the turn: a kill removes its victim.
                let names: BTreeMap<u32, String> = view
                    .entities
                    .iter()
                    .filter(|e| e.kind == delve_protocol::EntityKind::Monster)
                    .map(|e| (e.id, e.name.to_string()))
                    .collect();
                let me = view.me.id;
                if seq != self.seq + 1 {
                    return Err(ModelError::Gap {
                        expected: self.seq + 1,
                        got: seq,
                    });
                }
                view.apply(turn, &diff)?;
                self.seq = seq;
                if self.turn_status.as_ref().is_some_and(|s| s.turn <= turn) {
                    self.turn_status = None;
                }
                for e in &events {
                    if let Event::Died { id, .. } = e
                        && self.watching.is_none()
                        && events.iter().any(|a| {
                            matches!(a, Event::Attacked { attacker, target, damage: Some(_) }
                                if *attacker == me && target == id)
                        })
                        && let Some(name) = names.get(id)
                    {
                        *self.kills_by_kind.entry(name.clone()).or_default() += 1;
                    }
                    match e {
                        Event::Message { kind, text } => self.push_log(*kind, text.clone(), turn),
                        Event::Chat { from, text } => {
                            self.push_chat(from.clone(), text.clone(), turn)
                        }
                        _ => {}
                    }
                }
                out.events = events;
            }
            ServerMsg::TurnStatus {
                turn,
                waiting_for,
                timeout_ms,
            } => {
                self.turn_status = Some(TurnStatus {
                    turn,
                    waiting_for,
                    timeout_ms,
                });
            }
            ServerMsg::Dungeons { dungeons } => self.dungeons = dungeons,
            msg @ ServerMsg::GameOver { .. } => self.game_over = crate::record::GameOver::of(msg),
            msg @ ServerMsg::Replaying { .. } => self.replay = crate::record::ReplayInfo::of(msg),
            ServerMsg::Watching { name } => self.watching = name,
            ServerMsg::Pause { paused, message } => {
                let turn = self.view.as_ref().map_or(0, |v| v.turn);
                let kind = if paused {
                    MessageKind::Warning
                } else {
                    MessageKind::Good
                };
                self.push_log(kind, message.clone(), turn);
                self.paused = paused.then_some(message);
            }
            ServerMsg::Error { code, message, .. } => {
                let turn = self.view.as_ref().map_or(0, |v| v.turn);
                self.push_log(MessageKind::Warning, message.clone(), turn);
                out.error = Some((code, message));
            }
        }
        Ok(out)
    }

    pub fn push_log(&mut self, kind: MessageKind, text: String, turn: u64) {
        self.push_line(LogLine {
            kind,
            text,
            turn,
            count: 1,
            from: None,
        });
    }

    pub fn push_chat(&mut self, from: String, text: String, turn: u64) {
        self.push_line(LogLine {
            kind: MessageKind::Normal,
            text,
            turn,
            count: 1,
            from: Some(from),
        });
    }

    fn push_line(&mut self, line: LogLine) {
        if let Some(last) = self.log.back_mut()
            && last.kind == line.kind
            && last.text == line.text
            && last.from == line.from
        {
            last.count += 1;
            last.turn = line.turn;
            return;
        }
        if self.log.len() == LOG_LINES {
            self.log.pop_front();
        }
        self.log.push_back(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use delve_protocol::{
        CellSet, EntityKind, EntityView, Pos, SelfView, Tile, TileGrid, TileSpan, ViewDiff,
    };

    fn view() -> View {
        let me = SelfView::sample(Pos::new(1, 1));
        View {
            inventory: Vec::new(),
            party: Vec::new(),
            watchers: Vec::new(),
            marks: Vec::new(),
            turn: 0,
            depth: 1,
            map: TileGrid::new(4, 3),
            visible: CellSet::default(),
            entities: vec![EntityView {
                id: 1,
                kind: EntityKind::Player,
                name: "Ann".into(),
                pos: me.pos,
                hp: 25,
                max_hp: 25,
                level: 1,
                monster: None,
                item: None,
            }],
            me,
        }
    }

    fn snapshot(seq: u64) -> ServerMsg {
        ServerMsg::Snapshot { seq, view: view() }
    }

    fn update(seq: u64, turn: u64, text: &str) -> ServerMsg {
        ServerMsg::Update {
            seq,
            turn,
            diff: ViewDiff {
                tiles: vec![TileSpan {
                    x: 0,
                    y: 0,
                    tiles: "#.".into(),
                }],
                ..ViewDiff::default()
            },
            events: vec![Event::message(MessageKind::Bad, text)],
        }
    }

    #[test]
    fn updates_apply_in_sequence_and_log_their_messages() {
        let mut m = Model::new();
        assert!(m.handle(snapshot(4)).unwrap().snapshot);
        let h = m.handle(update(5, 1, "ouch")).unwrap();
        assert_eq!(h.events.len(), 1);
        let v = m.view.as_ref().unwrap();
        assert_eq!(v.map.get(Pos::new(0, 0)), Tile::Wall);
        assert_eq!(v.map.get(Pos::new(1, 0)), Tile::Floor);
        assert_eq!(v.turn, 1);
        assert_eq!(m.seq, 5);
        assert_eq!(m.log.back().unwrap().text, "ouch");
        assert_eq!(m.log.back().unwrap().kind, MessageKind::Bad);
    }

    #[test]
    fn a_gap_is_refused_and_changes_nothing() {
        let mut m = Model::new();
        m.handle(snapshot(4)).unwrap();
        let before = m.view.clone();
        assert_eq!(
            m.handle(update(6, 1, "x")),
            Err(ModelError::Gap {
                expected: 5,
                got: 6
            })
        );
        assert_eq!(m.view, before);
        assert_eq!(m.seq, 4);
        assert!(m.log.is_empty());
        // A snapshot recovers.
        m.handle(snapshot(9)).unwrap();
        assert!(m.handle(update(10, 2, "y")).is_ok());
    }

    #[test]
    fn an_update_without_a_view_is_refused() {
        let mut m = Model::new();
        assert_eq!(m.handle(update(1, 1, "x")), Err(ModelError::NoView));
    }

    #[test]
    fn the_log_keeps_the_newest_lines() {
        let mut m = Model::new();
        for i in 0..LOG_LINES + 5 {
            m.push_log(MessageKind::Normal, format!("{i}"), 0);
        }
        assert_eq!(m.log.len(), LOG_LINES);
        assert_eq!(m.log.front().unwrap().text, "5");
    }

    #[test]
    fn repeated_lines_collapse_into_one_with_a_count() {
        let mut m = Model::new();
        m.push_log(MessageKind::Warning, "bump".into(), 1);
        m.push_log(MessageKind::Warning, "bump".into(), 2);
        m.push_log(MessageKind::Warning, "bump".into(), 3);
        m.push_log(MessageKind::Normal, "bump".into(), 3);
        assert_eq!(m.log.len(), 2);
        assert_eq!(m.log[0].count, 3);
        assert_eq!(m.log[0].turn, 3);
        assert_eq!(m.log[1].count, 1);
    }

    #[test]
    fn each_score_answer_replaces_the_table_and_is_counted() {
        let mut m = Model::new();
        let entry = delve_protocol::ScoreEntry {
            name: "Ann".into(),
            score: 120,
            level: 2,
            deepest: 3,
            kills: 4,
            turns: 250,
            victory: false,
            outcome: "killed by a Micro Mouse on floor 3".into(),
            dungeon: "crypt".into(),
            ended: 1_700_000_000,
            game: None,
        };
        m.handle(ServerMsg::Scores {
            entries: vec![entry.clone(), entry.clone()],
        })
        .unwrap();
        assert_eq!((m.scores.len(), m.scores_received), (2, 1));
        // An empty answer is an answer too: the table is empty, not still loading.
        m.handle(ServerMsg::Scores {
            entries: Vec::new(),
        })
        .unwrap();
        assert_eq!((m.scores.len(), m.scores_received), (0, 2));
        // Nothing else touches them.
        m.handle(snapshot(1)).unwrap();
        assert_eq!(m.scores_received, 2);
    }

    #[test]
    fn kills_are_counted_by_kind() {
        let mut m = Model::new();
        let mut v = view();
        v.entities.push(EntityView {
            id: 7,
            kind: EntityKind::Monster,
            name: "Micro Mouse".into(),
            pos: Pos::new(2, 1),
            hp: 1,
            max_hp: 3,
            level: 1,
            monster: Some("micro_mouse".into()),
            item: None,
        });
        m.handle(ServerMsg::Snapshot { seq: 0, view: v }).unwrap();
        let kill = ServerMsg::Update {
            seq: 1,
            turn: 1,
            diff: ViewDiff {
                removed: vec![7],
                ..ViewDiff::default()
            },
            events: vec![
                Event::Attacked {
                    attacker: 1,
                    target: 7,
                    damage: Some(2),
                },
                Event::Died {
                    id: 7,
                    pos: Pos::new(2, 1),
                },
            ],
        };
        m.handle(kill).unwrap();
        assert_eq!(m.kills_by_kind.get("Micro Mouse"), Some(&1));
        assert!(m.view.as_ref().unwrap().entity(7).is_none());
    }

    #[test]
    fn turn_status_clears_when_its_turn_resolves() {
        let mut m = Model::new();
        m.handle(snapshot(0)).unwrap();
        m.handle(ServerMsg::TurnStatus {
            turn: 1,
            waiting_for: vec!["Bob".into()],
            timeout_ms: Some(3000),
        })
        .unwrap();
        assert!(m.turn_status.is_some());
        m.handle(update(1, 1, "x")).unwrap();
        assert!(m.turn_status.is_none());
    }

    #[test]
    fn a_pause_is_held_and_told_until_it_ends() {
        let mut m = Model::new();
        m.handle(snapshot(0)).unwrap();
        m.handle(ServerMsg::Pause {
            paused: true,
            message: "cannot save".into(),
        })
        .unwrap();
        assert_eq!(m.paused.as_deref(), Some("cannot save"));
        assert_eq!(m.log.back().unwrap().text, "cannot save");
        m.handle(ServerMsg::Pause {
            paused: false,
            message: "saving again".into(),
        })
        .unwrap();
        assert_eq!(m.paused, None);
        assert_eq!(m.log.back().unwrap().kind, MessageKind::Good);
    }
}
