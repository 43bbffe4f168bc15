//! A finished game watched again (the browser's `/replay/ID`): the keys and buttons of the
//! replay's controls ([`crate::replay`]), the `seek`s they make, and the bar over the map that
//! says which game, which turn, and how to move through it. A replay sends nothing else: the
//! game's own keys mean nothing in it.

use delve_protocol::ClientMsg;
use macroquad::prelude::*;

use super::*;
use crate::replay::{Ask, Controls, PAGE_TURNS};
use crate::ui::layout;
use crate::ui::text::{draw_text, measure_text};
use crate::ui::theme::{DIM, GOLD};
use crate::ui::widgets::{self, Tap};

/// The bar's height over the map, in the screens' units.
const BAR_H: f32 = 104.0;

/// The ask a typed character (or a button standing for one) makes.
fn ask_of(c: char) -> Option<Ask> {
    Some(match c {
        ' ' | 'p' => Ask::Toggle,
        '.' | 'l' => Ask::Step(1),
        ',' | 'h' => Ask::Step(-1),
        '+' | '=' | ']' => Ask::Faster,
        '-' | '[' => Ask::Slower,
        '0'..='9' => Ask::Digit(c as u8 - b'0'),
        _ => return None,
    })
}

impl App {
    /// The turn shown now (0 before the first view).
    fn replay_turn(&self) -> u64 {
        self.model.view.as_ref().map_or(0, |v| v.me.turns)
    }

    /// Asks the server for `turn`, if there is one to ask for.
    fn seek(&mut self, turn: Option<u64>) {
        if let Some(turn) = turn {
            self.net.send(ClientMsg::Seek { turn });
        }
    }

    /// Each frame of a replay: learn its length, and ask for the next turn while it plays.
    pub(super) fn replay_tick(&mut self, now: f64) {
        let at = self.replay_turn();
        let turns = self.model.replay.as_ref().map(|r| r.turns);
        let Some(c) = &mut self.replay else { return };
        let Some(turns) = turns else { return };
        c.turns = turns;
        if self.model.view.is_none() || !matches!(self.connection, Connection::Joined) {
            return;
        }
        let next = c.tick(now, at);
        self.seek(next);
    }

    /// A view message arrived on a replay: what was asked is shown.
    pub(super) fn replay_shown(&mut self) {
        if let Some(c) = &mut self.replay {
            c.shown();
        }
    }

    /// The keys and clicks of a replay. Returns whether the replay took them (always, on a
    /// replay: nothing else of the game answers there).
    pub(super) fn replay_input(&mut self, chars: &[char], click: &super::clicks::Click) -> bool {
        if self.replay.is_none() {
            return false;
        }
        let mut asks: Vec<Ask> = chars.iter().filter_map(|&c| ask_of(c)).collect();
        let at = self.replay_turn();
        let turns = self.replay.as_ref().map_or(0, |c| c.turns);
        for (key, ask) in [
            (KeyCode::Right, Ask::Step(1)),
            (KeyCode::Left, Ask::Step(-1)),
            (KeyCode::Up, Ask::Faster),
            (KeyCode::Down, Ask::Slower),
            (KeyCode::Home, Ask::Jump(0)),
            (KeyCode::End, Ask::Jump(turns)),
            (KeyCode::PageUp, Ask::Step(-(PAGE_TURNS as i64))),
            (KeyCode::PageDown, Ask::Step(PAGE_TURNS as i64)),
            (KeyCode::Enter, Ask::Enter),
            (KeyCode::KpEnter, Ask::Enter),
            (KeyCode::Backspace, Ask::Rubout),
            (KeyCode::Escape, Ask::Clear),
        ] {
            if is_key_pressed(key) {
                asks.push(ask);
            }
        }
        match click.tap {
            Some(Tap::Char(c)) => asks.extend(ask_of(c)),
            Some(Tap::Row(k)) => asks.push(Ask::Jump(
                (k as f64 / (TIMELINE_STEPS - 1) as f64 * turns as f64).round() as u64,
            )),
            _ => {}
        }
        for ask in asks {
            let Some(c) = &mut self.replay else { break };
            let turn = c.apply(ask, at);
            self.seek(turn);
        }
        true
    }

    /// The bar over the map: whose game, the turn, the timeline and the controls.
    pub(super) fn draw_replay_bar(&self, area: Rect) {
        let (Some(c), Some(info)) = (&self.replay, &self.model.replay) else {
            return;
        };
        let at = self.replay_turn();
        draw_rectangle(
            area.x,
            area.y,
            area.w,
            BAR_H,
            Color::new(0.0, 0.0, 0.0, 0.7),
        );
        widgets::add(Rect::new(area.x, area.y, area.w, BAR_H), Tap::Block);
        let state = if c.playing {
            format!("playing, {} turns/s", c.rate())
        } else {
            "paused".to_string()
        };
        // The longest title that fits: a phone's bar is narrow.
        let fits = |t: &str, size: u16| measure_text(t, None, size, 1.0).width <= area.w - 32.0;
        let title = [
            format!(
                "Replay: {} in {}   Turn {at} of {}   ({state})",
                info.name, info.dungeon, c.turns
            ),
            format!("{}: turn {at} of {}", info.name, c.turns),
            format!("Turn {at}/{}", c.turns),
        ]
        .into_iter()
        .find(|t| fits(t, 20))
        .unwrap_or_default();
        draw_text(&title, area.x + 16.0, area.y + 24.0, 20.0, GOLD);
        // The timeline: a click on it jumps there.
        let line = Rect::new(area.x + 16.0, area.y + 34.0, area.w - 32.0, 12.0);
        draw_rectangle(
            line.x,
            line.y,
            line.w,
            line.h,
            Color::new(0.2, 0.2, 0.25, 1.0),
        );
        let share = if c.turns == 0 {
            1.0
        } else {
            at as f32 / c.turns as f32
        };
        draw_rectangle(line.x, line.y, line.w * share, line.h, GOLD);
        let typed = if !c.typed.is_empty() {
            format!("Go to turn {}_  (Enter)", c.typed)
        } else if layout::touch() {
            // No keys under a finger: the timeline and the buttons do it all.
            info.outcome.clone()
        } else {
            let keys = "type a turn and Enter to jump; Home/End; PgUp/PgDn: 50 turns";
            [format!("{}. {keys}", info.outcome), info.outcome.clone()]
                .into_iter()
                .find(|t| fits(t, 16))
                .unwrap_or_default()
        };
        draw_text(&typed, area.x + 16.0, area.y + 62.0, 16.0, DIM);
        let row = Rect::new(area.x + 12.0, area.y + 70.0, area.w - 24.0, 28.0);
        let play = if c.playing { "Pause" } else { "Play" };
        widgets::button_row(
            row,
            8.0,
            &[
                ("<", "Back", Tap::Char(',')),
                ("Space", play, Tap::Char(' ')),
                (">", "Forward", Tap::Char('.')),
                ("-", "Slower", Tap::Char('-')),
                ("+", "Faster", Tap::Char('+')),
            ],
        );
        // Added after the bar's block, so a click on the timeline is the timeline's.
        for k in 0..TIMELINE_STEPS {
            let w = line.w / TIMELINE_STEPS as f32;
            let part = Rect::new(line.x + k as f32 * w, line.y - 4.0, w, line.h + 8.0);
            widgets::add(part, Tap::Row(k));
        }
    }
}

/// How many places along the timeline a click can choose (each a `Tap::Row`: no list is open
/// on a replay).
const TIMELINE_STEPS: usize = 100;

/// The state a replay starts in.
pub(super) fn controls() -> Controls {
    Controls::new()
}
