//! Drawing a frame of the game: the map, the panel, the log, and whatever screen is open.

use super::keys::{MENU, MenuItem};

/// The time a still picture is drawn at: later than any animation's start.
const STILL_TIME: f64 = 1.0e6;

use super::*;
use crate::describe::describe;
use crate::ui::help;

impl App {
    pub(super) fn draw(&mut self, now: f64) {
        // A scripted run (screenshot tests) draws a still picture: every animation finished and
        // every flicker at one fixed phase, whenever the shot is taken.
        let now = if self.script.is_some() {
            STILL_TIME
        } else {
            now
        };
        clear_background(BG);
        let layout = Layout::new();
        // The side panel's connection line. While reconnecting, the banner over the map (or
        // the notice, before there is a map) is the one place that says so.
        let connection = match &self.connection {
            Connection::Connecting => "Connecting...".to_string(),
            Connection::Joined | Connection::Reconnecting { .. } => String::new(),
            Connection::Ended(_) => "Disconnected".to_string(),
        };
        if let Some(view) = &self.model.view {
            self.anims.prune(view, now);
            let (focus, _) = self.anims.position(view.me.id, view.me.pos, now);
            let cam = Camera::new(layout.map, focus, view.map.width(), view.map.height());
            render::draw_map(view, &cam, &self.sprites);
            render::draw_entities(view, &cam, &self.sprites, &self.anims, now);
            if let Some(aim) = &self.aim {
                crate::ui::aim::draw(aim, view, &cam);
            }
            self.camera = Some(cam);
        }
        // What the mouse points at, while nothing is open over the map.
        // (Not over the summary of a finished game.)
        let summary_shown = self
            .model
            .view
            .as_ref()
            .is_some_and(|v| (!v.me.alive || v.me.victory) && !self.end_hidden)
            && self.model.watching.is_none();
        if matches!(self.screen, Screen::Game)
            && !summary_shown
            && let (Some(cell), Some(view), Some(cam)) =
                (self.cell_under_mouse(), &self.model.view, &self.camera)
            && view.map.get(cell) != Tile::Unknown
        {
            let what = describe(view, &self.model.descriptions, cell);
            help::draw_hover(cam, (cell.x, cell.y), what.as_ref(), self.pointer());
        }
        hud::draw_log(layout.log, &self.model, self.log_scroll);
        let mut turn = hud::turn_line(&self.model, now - self.status_at, self.awaiting.is_some());
        let spectating = self.spectating();
        if !matches!(self.connection, Connection::Joined) || spectating {
            turn.text.clear();
        }
        // The banner says why and when the next try is; the clock only that nothing moves.
        if matches!(self.connection, Connection::Reconnecting { .. }) && !spectating {
            turn.text = "Offline".into();
            turn.color = Color::from_rgba(255, 160, 0, 255);
        }
        // A finished game of one's own says how it ended instead.
        if let Some(me) = self.model.view.as_ref().map(|v| &v.me)
            && self.model.watching.is_none()
            && !self.watcher_only()
        {
            if me.victory {
                turn.text = "Your game is won".into();
                turn.color = Color::from_rgba(236, 196, 84, 255);
            } else if !me.alive {
                turn.text = "Your character is dead".into();
                turn.color = Color::from_rgba(255, 64, 64, 255);
            }
        }
        let hints = self.input.keys.hints();
        hud::draw_panel(
            layout.panel,
            &self.model,
            &self.sprites,
            &turn,
            &connection,
            &hints,
            now,
        );
        // Everything over the map from here on: scaled down as a whole in a small window.
        crate::ui::modal::begin();
        let over = crate::ui::modal::rect(layout.map);
        if let Some(view) = &self.model.view {
            let me = &view.me;
            if let Some(whom) = &self.model.watching {
                let own_dead = !self.watcher_only();
                hud::draw_watching(over, whom, me.alive, own_dead);
            } else if self.end_hidden && !self.watcher_only() && (!me.alive || me.victory) {
                let (title, color) = if me.victory {
                    (
                        "Victory! The Mouse King is dead.",
                        Color::from_rgba(236, 196, 84, 255),
                    )
                } else {
                    ("You died.", Color::from_rgba(255, 64, 64, 255))
                };
                hud::draw_end_banner(
                    over,
                    &format!("{title}   Score {}", me.score),
                    color,
                    "n: new character   w: watch a friend   h: high scores   Esc: show the summary   \
                     Enter: chat",
                );
            } else if me.victory {
                screens::victory(me, &self.sprites, now, over, self.dump.as_deref());
            } else if !me.alive {
                screens::death(me, over, self.dump.as_deref());
            }
            match &self.screen {
                Screen::Game => {}
                Screen::Character => screens::character(view, &self.sprites),
                Screen::Inventory(st) => {
                    let area = crate::ui::modal::pack_area(&layout);
                    inventory::draw(area, view, &self.sprites, st, spectating)
                }
                Screen::LevelUp { selected } => screens::level_up(&self.model, me, *selected),
                Screen::Messages { scroll } => screens::messages(&self.model, *scroll),
                Screen::Scores(board) => {
                    let ctx = table::Context {
                        status: &connection,
                        solo: self.solo,
                        you: Some(&self.name),
                    };
                    table::draw(board, &self.model.scores, &ctx);
                }
                // Drawn last, over any notice: they work with the connection down too.
                Screen::Help | Screen::Menu { .. } => {}
                // Just above the log, so no line of it is hidden.
                Screen::Chat(line) => line.draw(
                    "Say: ",
                    over.x + 10.0,
                    over.y + over.h - 12.0,
                    over.w - 20.0,
                ),
            }
        }
        // Lost, or never there: "cannot reach" is a server that never answered this game;
        // "lost" is one that did and went away.
        let title = if self.ever_joined {
            "Connection lost"
        } else {
            "Cannot reach the server"
        };
        match &self.connection {
            Connection::Connecting if self.model.view.is_none() => {
                hud::draw_notice("Connecting", "Opening the way into the dungeon...")
            }
            Connection::Reconnecting {
                reason,
                attempt,
                at,
            } if self.model.view.is_none() => hud::draw_notice(
                title,
                &format!(
                    "{reason}. {}.",
                    hud::reconnect_line(*attempt, (at - now).max(0.0).ceil())
                ),
            ),
            Connection::Reconnecting {
                attempt,
                at,
                reason,
            } => hud::draw_reconnecting(over, *attempt, (at - now).max(0.0).ceil(), reason),
            Connection::Ended(reason) => hud::draw_notice(title, reason),
            _ => {
                // The server holds the dungeon until it can save its turns again.
                if let Some(why) = &self.model.paused {
                    hud::draw_paused(over, why);
                }
            }
        }
        match &self.screen {
            Screen::Help => help::draw_help(&self.input.keys, &self.keys_note),
            Screen::Menu { selected } => {
                let sound = self.audio.settings();
                let labels: Vec<String> = MENU.iter().map(|m| m.label(sound)).collect();
                let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
                let footer = if MENU[*selected % MENU.len()] == MenuItem::Sound {
                    "Left/Right: volume; Enter: sound on/off"
                } else {
                    "Up/Down, Enter; Esc resumes"
                };
                help::draw_menu(&labels, *selected, footer);
            }
            _ => {}
        }
        crate::ui::modal::end();
    }
}
