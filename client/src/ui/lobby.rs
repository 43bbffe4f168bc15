//! The lobby: `delve --server URL` without `--dungeon` lists the server's dungeons and lets the
//! player join one, create one (public or private), watch a player, or read the high scores.

use delve_protocol::{MAX_DUNGEON_CHARS, MAX_NAME_CHARS, MAX_PASSWORD_CHARS, ServerMsg};
use macroquad::prelude::*;

use super::banners::draw_notice;
use super::layout;
use super::scores as table;
use super::text::{draw_text, fit};
use super::text_input::TextInput;
use super::theme::{BG, DIM, GOLD, WARN};
use super::widgets::{self, Tap};
use crate::keymap::Command;
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
    /// When a line was last clicked (a second click on it joins).
    clicked_at: f64,
    /// The page's text field is open for the question asked (a touch screen's keyboard).
    #[cfg(target_arch = "wasm32")]
    field_open: bool,
}

/// Two clicks on one line within this many seconds join that dungeon.
const DOUBLE_CLICK: f64 = 0.4;

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
            clicked_at: f64::NEG_INFINITY,
            #[cfg(target_arch = "wasm32")]
            field_open: false,
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

    /// One frame: reads the network, the keys and a click (or a finger's tap at `tapped`),
    /// draws. On a touch screen (`touch`) a question is typed in the page's own text field.
    pub fn frame(&mut self, chars: &[char], tapped: Option<Vec2>, touch: bool) -> Step {
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
        // A click on what was drawn last frame: a line, or a button standing for a key.
        let click = tapped.or_else(|| {
            is_mouse_button_pressed(MouseButton::Left).then(|| mouse_position().into())
        });
        let tap = click.and_then(widgets::at);
        let mut chars = chars.to_vec();
        let (mut enter, mut esc) = (false, false);
        match tap {
            Some(Tap::Char(c)) => chars.push(c),
            Some(Tap::Command(Command::Confirm)) => enter = true,
            Some(Tap::Command(Command::Cancel)) => esc = true,
            Some(Tap::Row(k)) if self.prompt.is_none() && self.board.is_none() => {
                // A second click on the chosen line joins it, as Enter does.
                enter = k == self.selected && get_time() - self.clicked_at <= DOUBLE_CLICK;
                self.selected = k;
                self.clicked_at = get_time();
            }
            _ => {}
        }
        #[cfg(target_arch = "wasm32")]
        if touch {
            self.touch_field(&mut enter, &mut esc);
        }
        #[cfg(not(target_arch = "wasm32"))]
        let _ = touch;
        let step = if let Some(board) = &mut self.board {
            if board.poll(&self.model.scores, self.model.scores_received, get_time()) {
                self.net.send(scores::request());
            }
            let len = self.model.scores.len();
            if let Some(Tap::ScrollTo(share)) = tap {
                table::scroll_to(board, share, len);
            }
            if table::keys(board, &chars, len, &[]) || esc {
                self.board = None;
            }
            Step::Stay
        } else {
            match &mut self.prompt {
                Some(_) => self
                    .prompt_keys(&chars, enter, esc)
                    .map_or(Step::Stay, Step::Chosen),
                None => self.list_keys(&chars, enter, esc),
            }
        };
        self.draw();
        step
    }

    /// The list's keys (and `enter` or `esc` given by a click).
    fn list_keys(&mut self, chars: &[char], enter: bool, esc: bool) -> Step {
        let list = &self.model.dungeons;
        if is_key_pressed(KeyCode::Escape) || esc {
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
                // Whoever plays there is offered first: Enter watches them, Tab the next.
                let mut input = TextInput::new(MAX_NAME_CHARS, false);
                input.text = next_player(&d.players, "").unwrap_or_default();
                (
                    Prompt::Watch {
                        name: d.name.clone(),
                        password: None,
                    },
                    input,
                )
            });
        } else if let (Some(d), true) = (
            &here,
            is_key_pressed(KeyCode::Enter) || is_key_pressed(KeyCode::KpEnter) || enter,
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

    /// On a touch screen, the question is typed in the page's text field (so the phone's
    /// keyboard comes up): opened over the drawn line while a question is asked, its text taken
    /// as if typed and Entered (or Escaped when the player gives up).
    #[cfg(target_arch = "wasm32")]
    fn touch_field(&mut self, enter: &mut bool, esc: &mut bool) {
        match (&mut self.prompt, self.field_open) {
            (Some((_, input)), false) => {
                let (w, h) = layout::Space::Ui.size();
                let s = layout::scales().ui;
                let x = (w / 2.0 - 360.0).max(20.0);
                let lw = (w - 2.0 * x).min(720.0);
                let (secret, max) = (input.is_secret(), input.max());
                delve_web_js::field_open(
                    x * s,
                    (h / 2.0 - 22.0) * s,
                    lw * s,
                    30.0 * s,
                    secret,
                    max,
                    "",
                );
                self.field_open = true;
            }
            (None, true) => {
                delve_web_js::field_close();
                self.field_open = false;
            }
            _ => {}
        }
        if !self.field_open {
            return;
        }
        match delve_web_js::field_next() {
            Some(delve_web_js::FieldEvent::Sent(text)) => {
                if let Some((_, input)) = &mut self.prompt {
                    input.text = text;
                }
                *enter = true;
                delve_web_js::field_close();
                self.field_open = false;
            }
            Some(delve_web_js::FieldEvent::Cancelled) => {
                *esc = true;
                delve_web_js::field_close();
                self.field_open = false;
            }
            None => {}
        }
    }

    /// The question's keys (and `enter` or `esc` given by a click).
    fn prompt_keys(&mut self, chars: &[char], enter: bool, esc: bool) -> Option<Choice> {
        let Some((prompt, input)) = &mut self.prompt else {
            return None;
        };
        if is_key_pressed(KeyCode::Escape) || esc {
            self.prompt = None;
            return None;
        }
        input.feed(chars);
        if let Prompt::Watch { name, .. } = &*prompt
            && is_key_pressed(KeyCode::Tab)
            && let Some(d) = self.model.dungeons.iter().find(|d| &d.name == name)
            && let Some(next) = next_player(&d.players, &input.text)
        {
            input.text = next;
        }
        if !(is_key_pressed(KeyCode::Enter) || is_key_pressed(KeyCode::KpEnter) || enter) {
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
        // The list's width: 720 units, or what a narrow window (a phone) has.
        let lw = (w - 2.0 * x).min(720.0);
        let (players_x, deepest_x) = (x + (lw * 0.56).round(), x + (lw * 0.73).round());
        draw_text("DELVE", x, 90.0, 64.0, GOLD);
        let from = format!("Dungeons on {}", self.url);
        draw_text(fit(&from, lw, 22), x, 130.0, 22.0, DIM);
        let mut y = 190.0;
        draw_text("dungeon", x + 30.0, y, 20.0, DIM);
        draw_text("players", players_x, y, 20.0, DIM);
        draw_text("deepest", deepest_x, y, 20.0, DIM);
        y += 14.0;
        draw_line(x, y, x + lw, y, 1.0, DIM);
        y += 30.0;
        if self.model.dungeons.is_empty() && self.status.is_empty() {
            let none = "No dungeons yet: make the first (n, or New).";
            draw_text(fit(none, lw - 30.0, 22), x + 30.0, y, 22.0, WHITE);
        }
        // The buttons take the foot: one row, or two in a narrow window.
        let two_rows = lw < 560.0;
        let foot = h - if two_rows { 96.0 } else { 56.0 };
        for (k, d) in self.model.dungeons.iter().enumerate() {
            if y > foot - 70.0 {
                break;
            }
            let line = Rect::new(x, y - 24.0, lw, 34.0);
            widgets::add(line, Tap::Row(k));
            if k == self.selected {
                draw_rectangle(
                    line.x,
                    line.y,
                    line.w,
                    line.h,
                    Color::new(0.25, 0.2, 0.1, 0.8),
                );
            } else if widgets::hovered(line) {
                draw_rectangle(
                    line.x,
                    line.y,
                    line.w,
                    line.h,
                    Color::new(1.0, 1.0, 1.0, 0.06),
                );
            }
            draw_text(
                fit(&d.name, players_x - x - 40.0, 24),
                x + 30.0,
                y,
                24.0,
                WHITE,
            );
            // Who plays there now, and who watches them: `w` offers them to watch.
            let live = live_line(&d.players);
            if !live.is_empty() {
                draw_text(fit(&live, lw - 40.0, 16), x + 30.0, y + 20.0, 16.0, DIM);
            }
            if d.private {
                draw_text("private", players_x, y, 22.0, GOLD);
            } else {
                draw_text(d.online.unwrap_or(0).to_string(), players_x, y, 24.0, WHITE);
                draw_text(
                    format!("floor {}", d.deepest.unwrap_or(1)),
                    deepest_x,
                    y,
                    24.0,
                    WHITE,
                );
            }
            y += if live.is_empty() { 36.0 } else { 56.0 };
        }
        let buttons = [
            ("Enter", "Join", Tap::Command(Command::Confirm)),
            ("n", "New", Tap::Char('n')),
            ("w", "Watch", Tap::Char('w')),
            ("h", "Scores", Tap::Char('h')),
            ("Esc", "Quit", Tap::Command(Command::Cancel)),
        ];
        if two_rows {
            widgets::button_row(Rect::new(x, foot, lw, 34.0), 8.0, &buttons[..3]);
            widgets::button_row(Rect::new(x, foot + 42.0, lw, 34.0), 8.0, &buttons[3..]);
        } else {
            widgets::button_row(Rect::new(x, foot, lw, 34.0), 8.0, &buttons);
        }
        if !self.status.is_empty() {
            draw_text(fit(&self.status, lw, 20), x, foot - 16.0, 20.0, WARN);
        }
        if let Some((prompt, input)) = &self.prompt {
            let label = match prompt {
                Prompt::NewName => "Name of the new dungeon: ".to_string(),
                Prompt::NewPassword { .. } => "Password (Enter for a public dungeon): ".to_string(),
                Prompt::Password { name, .. } => format!("Password of {name}: "),
                Prompt::Watch { name, .. } => {
                    let live = (self.model.dungeons.iter())
                        .any(|d| &d.name == name && d.players.len() > 1);
                    if live {
                        format!("Watch whom in {name} (Tab: the next)? ")
                    } else {
                        format!("Watch whom in {name}? ")
                    }
                }
            };
            draw_rectangle(0.0, 0.0, w, h, Color::new(0.0, 0.0, 0.0, 0.5));
            widgets::add(Rect::new(0.0, 0.0, w, h), Tap::Block);
            input.draw(&label, x, h / 2.0, lw);
            widgets::button_row(
                Rect::new(x, h / 2.0 + 24.0, lw.min(320.0), 34.0),
                8.0,
                &[
                    ("Enter", "OK", Tap::Command(Command::Confirm)),
                    ("Esc", "Back", Tap::Command(Command::Cancel)),
                ],
            );
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

/// The lobby's line of who plays in a dungeon: "Ann (floor 3, watched by Zed), Bob (floor 1,
/// dead)"; empty when nobody does.
fn live_line(players: &[delve_protocol::LivePlayer]) -> String {
    let one = |p: &delve_protocol::LivePlayer| {
        let mut s = format!("{} (floor {}", p.name, p.depth);
        if !p.alive {
            s.push_str(", dead");
        }
        if !p.watchers.is_empty() {
            s.push_str(&format!(", watched by {}", p.watchers.join(", ")));
        }
        s.push(')');
        s
    };
    players.iter().map(one).collect::<Vec<_>>().join(", ")
}

/// The player to offer after `current` (the first when `current` is none of them), the
/// living first: what `w` and then Tab offer to watch.
fn next_player(players: &[delve_protocol::LivePlayer], current: &str) -> Option<String> {
    let mut names: Vec<&delve_protocol::LivePlayer> = players.iter().collect();
    names.sort_by_key(|p| !p.alive);
    let at = names
        .iter()
        .position(|p| p.name.eq_ignore_ascii_case(current.trim()));
    let next = at.map_or(0, |k| (k + 1) % names.len());
    names.get(next).map(|p| p.name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use delve_protocol::LivePlayer;

    fn player(name: &str, alive: bool, watchers: &[&str]) -> LivePlayer {
        LivePlayer {
            name: name.into(),
            depth: 2,
            level: 3,
            alive,
            watchers: watchers.iter().map(|w| w.to_string()).collect(),
        }
    }

    #[test]
    fn the_lobby_says_who_plays_and_offers_them_to_watch_the_living_first() {
        let ps = [player("Ann", false, &[]), player("Bob", true, &["Zed"])];
        assert_eq!(
            live_line(&ps),
            "Ann (floor 2, dead), Bob (floor 2, watched by Zed)"
        );
        assert_eq!(live_line(&[]), "");
        assert_eq!(next_player(&ps, "").as_deref(), Some("Bob"));
        assert_eq!(next_player(&ps, "bob").as_deref(), Some("Ann"));
        assert_eq!(next_player(&ps, "Ann").as_deref(), Some("Bob"));
        assert_eq!(next_player(&[], ""), None);
    }
}
