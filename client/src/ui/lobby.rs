//! The lobby: `delve --server URL` without `--dungeon` lists the server's dungeons and lets the
//! player join one, create one (public or private), watch a player, or read the high scores.

use delve_protocol::{MAX_DUNGEON_CHARS, MAX_NAME_CHARS, MAX_PASSWORD_CHARS, ServerMsg};
use macroquad::prelude::*;

use super::text::draw_text;

use super::banners::draw_notice;
use super::layout;
use super::scores as table;
use super::text_input::TextInput;
use super::theme::{BG, DIM, GOLD, WARN};
use crate::model::Model;
use crate::net::{Link, NetEvent, Platform};
use crate::scores::{self, ScoreBoard};

/// What the player chose in the lobby.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub dungeon: String,
    pub password: Option<String>,
    /// Watch this player instead of playing.
    pub watch: Option<String>,
}

/// What a frame of the lobby came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Still choosing.
    Stay,
    Chosen(Choice),
    /// The player asked to quit.
    Quit,
}

/// A question the lobby is asking.
#[derive(Clone, Debug)]
enum Prompt {
    /// The name of a new dungeon.
    NewName,
    /// An optional password for the new dungeon `name`.
    NewPassword { name: String },
    /// The password of the private dungeon `name`; then, if `to_watch`, whom to watch there.
    Password { name: String, to_watch: bool },
    /// Whom to watch in dungeon `name`.
    Watch {
        name: String,
        password: Option<String>,
    },
}

pub struct Lobby {
    url: String,
    /// The player's name, to pick out their games in the high scores.
    name: String,
    net: Platform,
    model: Model,
    /// A dungeon a shared link asked for: joined as soon as the list says whether it needs a
    /// password (then asked for it).
    want: Option<String>,
    selected: usize,
    prompt: Option<(Prompt, TextInput)>,
    /// The high-score table, while it is open.
    board: Option<ScoreBoard>,
    status: String,
    /// Set by `--screenshot`: frames to show before saving.
    pub frames: u32,
}

impl Lobby {
    pub fn new(url: &str, name: &str) -> std::io::Result<Lobby> {
        Ok(Lobby {
            url: url.to_owned(),
            name: name.to_owned(),
            net: <Platform as Link>::lobby(url.to_owned())?,
            model: Model::new(),
            want: None,
            selected: 0,
            prompt: None,
            board: None,
            status: "Connecting...".into(),
            frames: 0,
        })
    }

    /// A lobby that goes straight into `dungeon` once it knows whether that dungeon is private
    /// (a new dungeon is made public, as a link cannot carry a password).
    pub fn for_dungeon(url: &str, name: &str, dungeon: &str) -> std::io::Result<Lobby> {
        let mut lobby = Lobby::new(url, name)?;
        lobby.want = Some(dungeon.to_owned());
        Ok(lobby)
    }

    /// What the lobby shows, in a word (for the web page's status): `lobby`, or the question
    /// it asks (`password`, `new-dungeon`, `new-password`, `watch`), or `scores`.
    pub fn showing(&self) -> &'static str {
        match (&self.board, &self.prompt) {
            (Some(_), _) => "scores",
            (None, None) => "lobby",
            (None, Some((Prompt::Password { .. }, _))) => "password",
            (None, Some((Prompt::NewName, _))) => "new-dungeon",
            (None, Some((Prompt::NewPassword { .. }, _))) => "new-password",
            (None, Some((Prompt::Watch { .. }, _))) => "watch",
        }
    }

    /// Whether a list has arrived (and, with the high scores open, their answer).
    pub fn ready(&self) -> bool {
        self.status.is_empty() && self.board.as_ref().is_none_or(ScoreBoard::loaded)
    }

    /// Opens the high-score table and asks the server for it, on the lobby's connection.
    fn open_scores(&mut self) {
        self.net.send(scores::request());
        self.board = Some(ScoreBoard::open(self.model.scores_received, None));
    }

    /// One frame: reads the network and the keys, draws.
    pub fn frame(&mut self, chars: &[char]) -> Step {
        while let Some(ev) = self.net.try_recv() {
            match ev {
                NetEvent::Msg(m) => {
                    if matches!(*m, ServerMsg::Dungeons { .. }) {
                        self.status.clear();
                    }
                    if let (Ok(h), Some(board)) = (self.model.handle(*m), &mut self.board)
                        && let Some((_, message)) = h.error
                    {
                        board.refused(message);
                    }
                }
                // A question asked on a connection that dropped is asked again on the new one.
                NetEvent::Connected => {
                    if self.board.as_ref().is_some_and(|b| !b.loaded()) {
                        self.net.send(scores::request());
                    }
                }
                NetEvent::Reconnecting { wait, reason, .. } => {
                    self.status = format!(
                        "Lost the server ({reason}); trying again in {:.0} s",
                        wait.as_secs_f32().ceil()
                    );
                }
                NetEvent::Ended(reason) => self.status = reason,
            }
        }
        if self.status.is_empty()
            && let Some(want) = self.want.take()
        {
            let listed = self
                .model
                .dungeons
                .iter()
                .find(|d| d.name.eq_ignore_ascii_case(&want));
            match listed {
                Some(d) if d.private => {
                    self.prompt = Some((
                        Prompt::Password {
                            name: d.name.clone(),
                            to_watch: false,
                        },
                        TextInput::new(MAX_PASSWORD_CHARS, true),
                    ));
                }
                _ => {
                    return Step::Chosen(Choice {
                        dungeon: want,
                        password: None,
                        watch: None,
                    });
                }
            }
        }
        let list = &self.model.dungeons;
        self.selected = self.selected.min(list.len().saturating_sub(1));
        let step = if let Some(board) = &mut self.board {
            if board.poll(&self.model.scores, self.model.scores_received, get_time()) {
                self.net.send(scores::request());
            }
            if table::keys(board, chars, self.model.scores.len(), &[]) {
                self.board = None;
            }
            Step::Stay
        } else {
            match &mut self.prompt {
                Some(_) => self.prompt_keys(chars).map_or(Step::Stay, Step::Chosen),
                None => self.list_keys(chars),
            }
        };
        self.draw();
        step
    }

    fn list_keys(&mut self, chars: &[char]) -> Step {
        let list = &self.model.dungeons;
        if is_key_pressed(KeyCode::Escape) {
            return Step::Quit;
        }
        if is_key_pressed(KeyCode::Up) || chars.contains(&'k') {
            self.selected = self.selected.saturating_sub(1);
        }
        if (is_key_pressed(KeyCode::Down) || chars.contains(&'j')) && self.selected + 1 < list.len()
        {
            self.selected += 1;
        }
        let here = list.get(self.selected).cloned();
        if is_key_pressed(KeyCode::Tab) || chars.iter().any(|c| matches!(c, 'h' | 'H')) {
            self.open_scores();
        } else if chars.contains(&'n') {
            self.prompt = Some((Prompt::NewName, TextInput::new(MAX_DUNGEON_CHARS, false)));
        } else if let (Some(d), true) = (&here, chars.contains(&'w')) {
            self.prompt = Some(if d.private {
                (
                    Prompt::Password {
                        name: d.name.clone(),
                        to_watch: true,
                    },
                    TextInput::new(MAX_PASSWORD_CHARS, true),
                )
            } else {
                (
                    Prompt::Watch {
                        name: d.name.clone(),
                        password: None,
                    },
                    TextInput::new(MAX_NAME_CHARS, false),
                )
            });
        } else if let (Some(d), true) = (
            &here,
            is_key_pressed(KeyCode::Enter) || is_key_pressed(KeyCode::KpEnter),
        ) {
            if d.private {
                self.prompt = Some((
                    Prompt::Password {
                        name: d.name.clone(),
                        to_watch: false,
                    },
                    TextInput::new(MAX_PASSWORD_CHARS, true),
                ));
            } else {
                return Step::Chosen(Choice {
                    dungeon: d.name.clone(),
                    password: None,
                    watch: None,
                });
            }
        }
        Step::Stay
    }

    fn prompt_keys(&mut self, chars: &[char]) -> Option<Choice> {
        let Some((prompt, input)) = &mut self.prompt else {
            return None;
        };
        if is_key_pressed(KeyCode::Escape) {
            self.prompt = None;
            return None;
        }
        input.feed(chars);
        if !(is_key_pressed(KeyCode::Enter) || is_key_pressed(KeyCode::KpEnter)) {
            return None;
        }
        let text = input.text.trim().to_string();
        match prompt.clone() {
            Prompt::NewName if !text.is_empty() => {
                self.prompt = Some((
                    Prompt::NewPassword { name: text },
                    TextInput::new(MAX_PASSWORD_CHARS, true),
                ));
                None
            }
            Prompt::NewName => None,
            Prompt::NewPassword { name } => {
                self.prompt = None;
                Some(Choice {
                    dungeon: name,
                    password: (!text.is_empty()).then_some(text),
                    watch: None,
                })
            }
            // A private dungeon to watch: the password first, then whom.
            Prompt::Password {
                name,
                to_watch: true,
            } => {
                self.prompt = Some((
                    Prompt::Watch {
                        name,
                        password: Some(text),
                    },
                    TextInput::new(MAX_NAME_CHARS, false),
                ));
                None
            }
            Prompt::Password {
                name,
                to_watch: false,
            } => {
                self.prompt = None;
                Some(Choice {
                    dungeon: name,
                    password: Some(text),
                    watch: None,
                })
            }
            Prompt::Watch { name, password } if !text.is_empty() => {
                self.prompt = None;
                Some(Choice {
                    dungeon: name,
                    password,
                    watch: Some(text),
                })
            }
            Prompt::Watch { .. } => None,
        }
    }

    fn draw(&self) {
        clear_background(BG);
        layout::begin(layout::Space::Ui);
        let (w, h) = layout::screen_size();
        let x = (w / 2.0 - 360.0).max(20.0);
        draw_text("DELVE", x, 90.0, 64.0, GOLD);
        draw_text(format!("Dungeons on {}", self.url), x, 130.0, 22.0, DIM);
        let mut y = 190.0;
        draw_text("dungeon", x + 30.0, y, 20.0, DIM);
        draw_text("players", x + 400.0, y, 20.0, DIM);
        draw_text("deepest", x + 520.0, y, 20.0, DIM);
        y += 14.0;
        draw_line(x, y, x + 720.0, y, 1.0, DIM);
        y += 30.0;
        if self.model.dungeons.is_empty() && self.status.is_empty() {
            draw_text(
                "No dungeons yet: press n to make the first.",
                x + 30.0,
                y,
                22.0,
                WHITE,
            );
        }
        for (k, d) in self.model.dungeons.iter().enumerate() {
            if k == self.selected {
                draw_rectangle(x, y - 24.0, 720.0, 34.0, Color::new(0.25, 0.2, 0.1, 0.8));
            }
            draw_text(&d.name, x + 30.0, y, 24.0, WHITE);
            if d.private {
                draw_text("private", x + 400.0, y, 22.0, GOLD);
            } else {
                draw_text(d.online.unwrap_or(0).to_string(), x + 400.0, y, 24.0, WHITE);
                draw_text(
                    format!("floor {}", d.deepest.unwrap_or(1)),
                    x + 520.0,
                    y,
                    24.0,
                    WHITE,
                );
            }
            y += 36.0;
            if y > h - 160.0 {
                break;
            }
        }
        let help = "Up/Down: choose   Enter: join   n: new dungeon   w: watch a player";
        draw_text(help, x, h - 60.0, 20.0, DIM);
        draw_text("h: high scores   Esc: quit", x, h - 34.0, 20.0, DIM);
        if !self.status.is_empty() {
            draw_text(&self.status, x, h - 90.0, 20.0, WARN);
        }
        if let Some((prompt, input)) = &self.prompt {
            let label = match prompt {
                Prompt::NewName => "Name of the new dungeon: ".to_string(),
                Prompt::NewPassword { .. } => "Password (Enter for a public dungeon): ".to_string(),
                Prompt::Password { name, .. } => format!("Password of {name}: "),
                Prompt::Watch { name, .. } => format!("Watch whom in {name}? "),
            };
            draw_rectangle(0.0, 0.0, w, h, Color::new(0.0, 0.0, 0.0, 0.5));
            input.draw(&label, x, h / 2.0, 720.0);
            draw_text("Enter: confirm   Esc: back", x, h / 2.0 + 40.0, 18.0, DIM);
        }
        if let Some(board) = &self.board {
            let ctx = table::Context {
                status: &self.status,
                solo: false,
                you: Some(&self.name),
            };
            table::draw(board, &self.model.scores, &ctx);
        } else if self.model.dungeons.is_empty()
            && !self.status.is_empty()
            && self.status.starts_with("Connecting")
        {
            draw_notice(
                "Connecting",
                &format!("Asking {} for its dungeons...", self.url),
            );
        }
        layout::end();
    }
}
