//! Drawing a frame of the game: the map, the panel, the log, and whatever screen is open.

use super::keys::{MENU, MenuItem};

/// How remembered cells look in glyphs: dim and cold, like the tiles' memory.
const GLYPH_MEMORY: Color = Color::new(0.42, 0.45, 0.68, 1.0);

/// The time a still picture is drawn at: later than any animation's start.
const STILL_TIME: f64 = 1.0e6;

use super::*;
use crate::describe::describe;
use crate::keymap::Command;
use crate::ui::help;
use crate::ui::widgets::{self, Tap};

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
            let area = Space::Ui.rect_to(Space::Window, layout.map);
            let (w, h) = (view.map.width(), view.map.height());
            // Fingers need larger cells than a mouse does.
            let zoom = if self.fingers.touch {
                self.map_zoom * super::fingers::TOUCH_ZOOM
            } else {
                self.map_zoom
            };
            let cam = Camera::new(area, focus, w, h, zoom);
            if self.appearance.glyphs {
                let me = view.me.pos;
                let sight = view.me.sight;
                let light = |p: Pos, seen: bool, _| {
                    if seen {
                        render::torch(p.dist2(me), sight)
                    } else {
                        GLYPH_MEMORY
                    }
                };
                crate::ui::glyphs::draw_map(view, &cam, light);
                let light = |p: Pos| render::torch(p.dist2(me), sight);
                crate::ui::glyphs::draw_entities(view, &cam, &self.anims, now, light);
                render::draw_ailments(view, &cam, &self.anims, now);
                render::draw_effects(&cam, &self.anims, now);
            } else {
                render::draw_map(view, &cam, &self.sprites);
                render::draw_entities(view, &cam, &self.sprites, &self.anims, now);
            }
            render::draw_marks(view, &cam, now);
            if let Some(aim) = &self.aim {
                crate::ui::aim::draw_marks(aim, view, &cam);
            }
            self.camera = Some(cam);
        }
        // The panel, the log and the hover box, in the interface's units.
        layout::begin(Space::Ui);
        // What the mouse points at, while nothing is open over the map.
        // (Not over the summary of a finished game.)
        let summary_shown = self
            .model
            .view
            .as_ref()
            .is_some_and(|v| (!v.me.alive || v.me.victory) && !self.end_hidden)
            && self.model.watching.is_none();
        // On a touch screen, only what a finger holds: a tap leaves nothing behind.
        let pointed = if self.fingers.touch {
            self.held_cell()
        } else if self.hover_off {
            None
        } else {
            self.cell_under_mouse()
        };
        if matches!(self.screen, Screen::Game)
            && !summary_shown
            && let (Some(cell), Some(view), Some(cam)) = (pointed, &self.model.view, &self.camera)
            && view.map.get(cell) != Tile::Unknown
        {
            let what = describe(view, &self.model.descriptions, cell);
            let at = cam.to_screen(vec2(cell.x as f32, cell.y as f32));
            let cell = Rect::new(at.x, at.y, cam.tile, cam.tile);
            // The player's own character, with what is drawn over its head and its health bar
            // below: the box keeps off it.
            let (me_at, _) = self.anims.position(view.me.id, view.me.pos, now);
            let me = cam.to_screen(me_at);
            let t = cam.tile;
            let me = Rect::new(me.x, me.y - 0.35 * t, t, 1.35 * t + 4.0);
            help::draw_hover(
                layout.map,
                Space::Window.rect_to(Space::Ui, cell),
                what.as_ref(),
                Space::Window.rect_to(Space::Ui, me),
            );
        }
        if let (Some(aim), Some(view), Some(cam), Screen::Game) =
            (&self.aim, &self.model.view, &self.camera, &self.screen)
        {
            let cell = |p: Pos| {
                let at = cam.to_screen(vec2(p.x as f32, p.y as f32));
                Space::Window.rect_to(Space::Ui, Rect::new(at.x, at.y, cam.tile, cam.tile))
            };
            let (target, me) = (cell(aim.at), cell(view.me.pos));
            crate::ui::aim::draw_bar(aim, view, layout.map, self.fingers.touch, target, me);
        }
        log::draw(layout.log, &self.model, self.log_scroll);
        let mut turn = panel::turn_line(&self.model, now - self.status_at, self.awaiting.is_some());
        let spectating = self.spectating();
        if !matches!(self.connection, Connection::Joined) || spectating {
            turn.text.clear();
        }
        // The banner says why and when the next try is; the clock only that nothing moves.
        if matches!(self.connection, Connection::Reconnecting { .. }) && !spectating {
            turn.text = "Offline".into();
            turn.color = crate::ui::theme::WARN;
        }
        // A finished game of one's own says how it ended instead.
        if let Some(me) = self.model.view.as_ref().map(|v| &v.me)
            && self.model.watching.is_none()
            && !self.watcher_only()
        {
            if me.victory {
                turn.text = "Your game is won".into();
                turn.color = Color::from_rgba(236, 196, 84, 255);
            } else if let Some(n) = me.revive_turns.filter(|_| !me.alive) {
                turn.text = format!("Fallen: a friend has {n} turns");
                turn.color = Color::from_rgba(255, 64, 64, 255);
            } else if !me.alive {
                turn.text = "Your character is dead".into();
                turn.color = Color::from_rgba(255, 64, 64, 255);
            }
        }
        // A replay's controls are on its bar; the game's mean nothing there.
        let controls = if self.replay.is_some() {
            Vec::new()
        } else {
            crate::ui::controls::offered(&self.input.keys, self.situation())
        };
        panel::draw(
            layout.panel,
            &self.model,
            &self.sprites,
            &turn,
            &connection,
            &controls,
            now,
        );
        if layout.controls.w > 0.0 {
            crate::ui::touch_bar::draw(layout.controls, &controls);
        }
        layout::end();
        // Everything over the map from here on: scaled down as a whole in a small window.
        layout::begin(Space::Screens);
        let over = Space::Ui.rect_to(Space::Screens, layout.map);
        if let Some(view) = &self.model.view {
            let me = &view.me;
            if self.replay.is_some() {
                self.draw_replay_bar(over);
            } else if let Some(whom) = &self.model.watching {
                let own_dead = !self.watcher_only();
                banners::draw_watching(over, whom, me.alive, own_dead);
            } else if self.end_hidden && !self.watcher_only() && (!me.alive || me.victory) {
                let (title, color) = if me.victory {
                    (
                        "Victory! The Mouse King is dead.",
                        Color::from_rgba(236, 196, 84, 255),
                    )
                } else if me.revive_turns.is_some() {
                    ("You have fallen.", Color::from_rgba(255, 64, 64, 255))
                } else {
                    ("You died.", Color::from_rgba(255, 64, 64, 255))
                };
                let text = match me.revive_turns {
                    Some(n) => format!("{title}   A friend has {n} turns to bring you back"),
                    None => format!("{title}   Score {}", me.score),
                };
                banners::draw_end_banner(over, &text, color);
            } else if me.victory {
                crate::ui::ending::victory(me, &self.sprites, now, over, self.dump.as_deref());
            } else if !me.alive {
                crate::ui::ending::death(me, over, self.dump.as_deref());
            }
            match &self.screen {
                Screen::Game => {}
                Screen::Character => screens::character(view, &self.sprites),
                Screen::Inventory(st) => {
                    let area = layout.pack_area();
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
                // The page's own text field lies here instead (a touch screen).
                #[cfg(target_arch = "wasm32")]
                Screen::Chat(_) if self.field_open => {}
                Screen::Chat(line) => {
                    let r = Space::Ui.rect_to(Space::Screens, super::chat_line(&layout));
                    let y = r.y + r.h - 10.0;
                    let buttons = 2.0 * 100.0 + 8.0;
                    line.draw("Say: ", r.x, y, r.w - 8.0 - buttons);
                    widgets::button_row(
                        Rect::new(r.x + r.w - buttons, y - 22.0, buttons, 30.0),
                        8.0,
                        &[
                            ("Enter", "Send", Tap::Command(Command::Confirm)),
                            ("Esc", "Close", Tap::Command(Command::Cancel)),
                        ],
                    );
                }
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
                banners::draw_notice("Connecting", "Opening the way into the dungeon...")
            }
            Connection::Reconnecting {
                reason,
                attempt,
                at,
            } if self.model.view.is_none() => banners::draw_notice(
                title,
                &format!(
                    "{reason}. {}.",
                    banners::reconnect_line(*attempt, (at - now).max(0.0).ceil())
                ),
            ),
            Connection::Reconnecting {
                attempt,
                at,
                reason,
            } => banners::draw_reconnecting(over, *attempt, (at - now).max(0.0).ceil(), reason),
            Connection::Ended(reason) => banners::draw_notice(title, reason),
            _ => {
                // The server holds the dungeon until it can save its turns again.
                if let Some(why) = &self.model.paused {
                    banners::draw_paused(over, why);
                }
            }
        }
        match &self.screen {
            Screen::Help => help::draw_help(&self.input.keys, &self.keys_note),
            Screen::Menu { selected } => {
                let sound = self.audio.settings();
                let labels: Vec<String> = MENU
                    .iter()
                    .map(|m| m.label(sound, self.appearance))
                    .collect();
                let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
                // Keys mean nothing under a finger: a line says what a tap does instead.
                let footer = match MENU[*selected % MENU.len()] {
                    _ if layout::touch() => "Tap a line; - and + change a setting",
                    MenuItem::Sound => "Left/Right: volume; Enter: sound on/off",
                    MenuItem::Scale => "Left/Right: smaller, larger; Enter: 100%",
                    MenuItem::Look => "Enter: tiles or glyphs on the map",
                    _ => "Up/Down, Enter; Esc resumes",
                };
                let steps: Vec<bool> = MENU
                    .iter()
                    .map(|m| matches!(m, MenuItem::Sound | MenuItem::Scale))
                    .collect();
                help::draw_menu(&labels, &steps, *selected, footer);
            }
            _ => {}
        }
        layout::end();
    }
}
