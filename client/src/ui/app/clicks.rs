//! Clicks on the screens: what a click on a control drawn last frame does on the screen that
//! is open. A control that stands for a command is handed to the same code as its key; the
//! rest (a line of a list, a setting's step, a scroll bar) is handled here. A click on no
//! control falls through to the map (see `mouse`).

use super::keys::{MENU, MenuItem};
use super::*;
use crate::keymap::Command;
use crate::ui::input::Resize;
use crate::ui::widgets::{self, Tap};

/// Two clicks on the same line within this many seconds choose it, as Enter would.
const DOUBLE_CLICK: f64 = 0.4;

/// How long keys and clicks are ignored once our own game ends: a key held to attack, or
/// pressed as the killing blow lands, would otherwise act on the death screen (`h` opened the
/// high scores over the summary; `n` started a new character before it was read).
pub(super) const END_GRACE: f64 = 1.2;

/// This frame's click: on a control, or on the map (a window point).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Click {
    pub tap: Option<Tap>,
    pub map: Option<Vec2>,
}

impl App {
    /// Reads this frame's click (the mouse's, or a script's) and finds what it was on.
    pub(super) fn take_click(&mut self) -> Click {
        let scripted = std::mem::take(&mut self.click);
        let p = match self.tapped.take() {
            Some(p) => p,
            None if scripted || is_mouse_button_pressed(MouseButton::Left) => self.pointer(),
            None => return Click::default(),
        };
        match widgets::at(p) {
            Some(Tap::Block) => Click::default(),
            Some(tap) => Click {
                tap: Some(tap),
                map: None,
            },
            None => Click {
                tap: None,
                map: Some(p),
            },
        }
    }

    /// The command a click stands for, if it stands for one.
    pub(super) fn tap_command(click: &Click) -> Option<Command> {
        match click.tap {
            Some(Tap::Command(c)) => Some(c),
            _ => None,
        }
    }

    /// A click on the lines of the open screen: a menu line, a level-up choice, a setting's
    /// step, the message history's scroll bar.
    pub(super) fn screen_tap(&mut self, tap: Tap) {
        match (&mut self.screen, tap) {
            (Screen::Menu { selected }, Tap::Row(k)) if k < MENU.len() => {
                *selected = k;
                self.menu_choice(MENU[k]);
            }
            (Screen::Menu { selected }, Tap::Step(k, up)) if k < MENU.len() => {
                *selected = k;
                match MENU[k] {
                    MenuItem::Sound => self.audio.step(up),
                    MenuItem::Look => self.toggle_glyphs(),
                    MenuItem::Scale => {
                        let r = if up { Resize::Larger } else { Resize::Smaller };
                        resize(&mut self.appearance, r);
                    }
                    _ => {}
                }
            }
            (Screen::LevelUp { .. }, Tap::Row(k)) => self.spend(k),
            (Screen::Game, Tap::Friend(id)) => self.go_to_friend(id),
            (_, Tap::Zoom(larger)) => {
                let step = super::fingers::ZOOM_STEP;
                self.zoom_by(if larger { step } else { 1.0 / step });
            }
            (Screen::Messages { scroll }, Tap::ScrollTo(share)) => {
                // The history counts lines up from the newest; the bar, down from the oldest.
                let total = self.model.log.len() as f32;
                *scroll = ((1.0 - share) * total).round() as usize;
            }
            _ => {}
        }
    }

    /// Moves the selection of the open menu or level-up choice to the line under the pointer,
    /// when the pointer moves (a mouse at rest leaves the keys' selection alone).
    pub(super) fn hover_select(&mut self) {
        let p = self.pointer();
        if self.last_pointer == Some(p) {
            return;
        }
        self.last_pointer = Some(p);
        if let Some(Tap::Row(k)) = widgets::at(p) {
            match &mut self.screen {
                Screen::Menu { selected } | Screen::LevelUp { selected } => *selected = k,
                _ => {}
            }
        }
    }

    /// What the player is doing, for which commands are offered as buttons.
    pub(super) fn situation(&self) -> crate::ui::controls::Situation {
        use crate::ui::controls::Missile;
        let view = self.model.view.as_ref();
        let me = view.map(|v| &v.me);
        let spectating = self.spectating();
        crate::ui::controls::Situation {
            playing: !spectating && me.is_some(),
            points: me.is_some_and(|m| m.points > 0),
            over: !self.watcher_only() && me.is_some_and(|m| !m.alive || m.victory),
            touch: self.fingers.touch,
            resting: me.is_some_and(|m| m.resting),
            heals: view.map_or(0, |v| {
                v.inventory
                    .iter()
                    .filter(|i| i.use_ == delve_protocol::ItemUse::Heal)
                    .map(|i| i.count)
                    .sum()
            }),
            underfoot: view.is_some_and(|v| {
                v.entities
                    .iter()
                    .any(|e| e.kind == delve_protocol::EntityKind::Item && e.pos == v.me.pos)
            }),
            foes: view.is_some_and(|v| {
                (v.entities.iter())
                    .any(|e| e.kind == delve_protocol::EntityKind::Monster && v.is_visible(e.pos))
            }),
            missile: view
                .and_then(crate::aim::default_missile)
                .map(|(m, _)| match m {
                    crate::aim::Missile::Fire { .. } => Missile::Shoot,
                    crate::aim::Missile::Throw { .. } => Missile::Throw,
                }),
            aiming: self.aim.is_some(),
            friends: view.is_some_and(|v| crate::friends::on_floor(v).next().is_some()),
        }
    }

    /// Whether input is still ignored after our game ended: for [`END_GRACE`], and then until
    /// no key or button is held down (a key held through the end would repeat into the
    /// summary).
    pub(super) fn end_guard_holds(&mut self, now: f64) -> bool {
        let Some(since) = self.end_guard else {
            return false;
        };
        let held = !get_keys_down().is_empty() || is_mouse_button_down(MouseButton::Left);
        if now - since >= END_GRACE && !held {
            self.end_guard = None;
            return false;
        }
        true
    }

    /// Whether a click on pack line `k` at `now` is the second of a double click.
    /// Whether a mouse's click on line `k` of a list whose `selected` line it is chooses it
    /// (as Enter): a click on the selected line does, except the second click of a double
    /// click that already chose it. A double click on another line selects it, then chooses.
    pub(super) fn click_selected(&mut self, k: usize, selected: Option<usize>, now: f64) -> bool {
        let again = self
            .last_row_click
            .is_some_and(|(row, at)| row == k && now - at <= DOUBLE_CLICK);
        let choose = selected == Some(k) && !again;
        self.last_row_click = choose.then_some((k, now));
        choose
    }

    pub(super) fn double_click(&mut self, k: usize, now: f64) -> bool {
        let double = self
            .last_row_click
            .is_some_and(|(row, at)| row == k && now - at <= DOUBLE_CLICK);
        self.last_row_click = if double { None } else { Some((k, now)) };
        double
    }
}
