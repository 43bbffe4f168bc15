//! Everything around the map: the side panel (character, turn status, minimap, who is in sight,
//! controls), the message log, and full-screen notices.

use delve_protocol::{Effect, EntityKind, Pos, Slot, Tile, View};
use macroquad::prelude::*;

use super::sheet::Minimap;
use super::sprites::Sprites;
use super::theme::{effect_look, message_color, player_color};
use crate::model::Model;
use crate::pack;

pub const PANEL_W: f32 = 300.0;
pub const LOG_H: f32 = 150.0;

pub const BG: Color = Color::new(0.035, 0.035, 0.05, 1.0);
const PANEL: Color = Color::new(0.075, 0.07, 0.1, 1.0);
const EDGE: Color = Color::new(0.2, 0.18, 0.26, 1.0);
const DIM: Color = Color::new(0.6, 0.58, 0.66, 1.0);
const GOLD: Color = Color::new(0.93, 0.77, 0.33, 1.0);
/// Chat lines, apart from the four message kinds.
pub const CHAT: Color = Color::new(0.55, 0.95, 0.55, 1.0);

/// Below this width or height the side panel folds into a status bar over the map: its
/// lines are laid out for 300 pixels across and 600 down, and squeezed they would overlap.
pub const FOLD_W: f32 = 800.0;
pub const FOLD_H: f32 = 540.0;
/// The folded panel's height.
pub const BAR_H: f32 = 58.0;
/// The height of the panel's "Worn" lines, and the least "In sight" keeps (its title and two
/// lines).
const WORN_H: f32 = 20.0 + 3.0 * 19.0 + 14.0;
const IN_SIGHT_MIN: f32 = 22.0 + 2.0 * 20.0;
/// The log's height in a short window (five lines instead of seven).
const LOG_H_SHORT: f32 = 112.0;

/// Screen areas for this frame's window size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    pub map: Rect,
    pub log: Rect,
    /// The side panel, or (folded) the status bar across the top.
    pub panel: Rect,
    pub folded: bool,
}

impl Layout {
    pub fn new() -> Layout {
        Layout::for_size(screen_width(), screen_height())
    }

    /// The areas for a window of `w` by `h`: they tile it, none overlapping another.
    pub fn for_size(w: f32, h: f32) -> Layout {
        let log_h = if h < 600.0 { LOG_H_SHORT } else { LOG_H };
        if w < FOLD_W || h < FOLD_H {
            let bar = BAR_H.min(h);
            let log_h = log_h.min((h - bar).max(0.0) / 2.0);
            return Layout {
                panel: Rect::new(0.0, 0.0, w, bar),
                map: Rect::new(0.0, bar, w, (h - bar - log_h).max(0.0)),
                log: Rect::new(0.0, h - log_h, w, log_h),
                folded: true,
            };
        }
        let panel_w = PANEL_W.min(w * 0.4);
        Layout {
            map: Rect::new(0.0, 0.0, w - panel_w, h - log_h),
            log: Rect::new(0.0, h - log_h, w - panel_w, log_h),
            panel: Rect::new(w - panel_w, 0.0, panel_w, h),
            folded: false,
        }
    }
}

impl Default for Layout {
    fn default() -> Self {
        Layout::new()
    }
}

/// What the turn clock says right now.
pub struct TurnLine {
    pub text: String,
    pub color: Color,
}

/// The turn clock's line: whose move it is, whom the floor waits for, and the time left.
pub fn turn_line(model: &Model, status_age: f64, awaiting: bool) -> TurnLine {
    let Some(view) = &model.view else {
        return TurnLine {
            text: String::new(),
            color: DIM,
        };
    };
    match &model.turn_status {
        _ if view.me.resting => TurnLine {
            text: "Resting - any key stops".into(),
            color: Color::from_rgba(140, 220, 140, 255),
        },
        Some(s) if s.turn == view.turn + 1 => {
            let me_waiting = s.waiting_for.iter().any(|n| **n == *view.me.name);
            let others: Vec<&str> = s
                .waiting_for
                .iter()
                .filter(|n| **n != *view.me.name)
                .map(String::as_str)
                .collect();
            let left = s
                .timeout_ms
                .map(|ms| (ms as f64 / 1000.0 - status_age).max(0.0));
            let clock = left.map_or(String::new(), |l| format!(" - {l:.1}s"));
            if me_waiting {
                TurnLine {
                    text: format!("Your move{clock}"),
                    color: GOLD,
                }
            } else if others.is_empty() {
                TurnLine {
                    text: "Resolving...".into(),
                    color: DIM,
                }
            } else {
                TurnLine {
                    text: format!("Waiting for {}{clock}", others.join(", ")),
                    color: Color::from_rgba(140, 200, 255, 255),
                }
            }
        }
        _ if awaiting => TurnLine {
            text: "Resolving...".into(),
            color: DIM,
        },
        _ => TurnLine {
            text: "Your move".into(),
            color: GOLD,
        },
    }
}

fn bar(x: f32, y: f32, w: f32, h: f32, frac: f32, fill: Color, text: &str) {
    draw_rectangle(x, y, w, h, Color::new(0.0, 0.0, 0.0, 0.6));
    draw_rectangle(x, y, w * frac.clamp(0.0, 1.0), h, fill);
    super::theme::outline(x, y, w, h, 1.0, EDGE);
    let dim = measure_text(text, None, 16, 1.0);
    draw_text(
        text,
        (x + (w - dim.width) / 2.0).round(),
        (y + h / 2.0 + dim.height / 2.0).round(),
        16.0,
        WHITE,
    );
}

/// A small picture of an effect, centred on (`cx`, `cy`): a star for a stun, a drop for poison,
/// a question mark for confusion.
pub fn effect_icon(e: Effect, cx: f32, cy: f32, r: f32, color: Color) {
    match e {
        Effect::Stun => {
            for k in 0..4 {
                let a = k as f32 * std::f32::consts::FRAC_PI_4;
                let (dx, dy) = (a.cos() * r, a.sin() * r);
                draw_line(cx - dx, cy - dy, cx + dx, cy + dy, 2.0, color);
            }
        }
        Effect::Poison => {
            draw_circle(cx, cy + r * 0.3, r * 0.62, color);
            draw_triangle(
                vec2(cx, cy - r),
                vec2(cx - r * 0.6, cy + r * 0.2),
                vec2(cx + r * 0.6, cy + r * 0.2),
                color,
            );
        }
        Effect::Confusion => {
            let size = (r * 3.2).round();
            let d = measure_text("?", None, size as u16, 1.0);
            draw_text(
                "?",
                (cx - d.width / 2.0).round(),
                (cy + d.height / 2.0).round(),
                size,
                color,
            );
        }
    }
}

/// One badge per status effect, left to right from `x`, wrapping within `w`. Returns the height
/// used (0 for none).
fn draw_effects(effects: &[Effect], x: f32, y: f32, w: f32, now: f64) -> f32 {
    if effects.is_empty() {
        return 0.0;
    }
    let (h, gap, font) = (22.0, 6.0, 16u16);
    let (mut bx, mut by) = (x, y);
    // A gentle pulse, so a new affliction catches the eye without flashing.
    let pulse = 0.75 + 0.25 * ((now * 4.0).sin() as f32 * 0.5 + 0.5);
    for &e in effects {
        let (word, color) = effect_look(e);
        let bw = 26.0 + measure_text(word, None, font, 1.0).width.ceil();
        if bx > x && bx + bw > x + w {
            bx = x;
            by += h + gap;
        }
        draw_rectangle(
            bx,
            by,
            bw,
            h,
            Color::new(color.r * 0.2, color.g * 0.2, color.b * 0.2, 1.0),
        );
        super::theme::outline(
            bx,
            by,
            bw,
            h,
            1.5,
            Color::new(color.r, color.g, color.b, pulse),
        );
        effect_icon(e, bx + 11.0, by + h / 2.0, 5.5, color);
        draw_text(word, bx + 21.0, by + 16.0, f32::from(font), color);
        bx += bw + gap;
    }
    by - y + h + gap
}

/// The three equipment slots and what is worn in them. Returns the y below.
fn draw_worn(view: &View, sprites: &Sprites, x: f32, mut y: f32, w: f32) -> f32 {
    draw_text("Worn", x, y, 20.0, DIM);
    y += 20.0;
    for slot in Slot::ALL {
        let label = match slot {
            Slot::Weapon => "Weapon",
            Slot::Armour => "Armour",
            Slot::Microchip => "Chip",
        };
        draw_text(label, x, y, 18.0, DIM);
        match pack::worn_in(&view.inventory, slot) {
            Some(item) => {
                draw_texture_ex(
                    sprites.item(Some(&item.key)),
                    x + 70.0,
                    y - 14.0,
                    WHITE,
                    DrawTextureParams {
                        dest_size: Some(vec2(16.0, 16.0)),
                        ..Default::default()
                    },
                );
                let mut name = item.name.to_string();
                while name.len() > 4 && measure_text(&name, None, 18, 1.0).width > w - 96.0 {
                    name.pop();
                }
                draw_text(&name, x + 92.0, y, 18.0, WHITE);
            }
            None => {
                draw_text("-", x + 92.0, y, 18.0, Color::new(0.4, 0.38, 0.46, 1.0));
            }
        }
        y += 19.0;
    }
    y
}

/// The side panel. `hints` are the few key reminders at its foot (from the key table).
pub fn draw_panel(
    area: Rect,
    model: &Model,
    sprites: &Sprites,
    turn: &TurnLine,
    connection: &str,
    hints: &[String],
    now: f64,
) {
    if area.w > area.h {
        draw_status_bar(area, model, turn, connection, now);
        return;
    }
    draw_rectangle(area.x, area.y, area.w, area.h, PANEL);
    draw_line(area.x, area.y, area.x, area.y + area.h, 2.0, EDGE);
    let x = area.x + 20.0;
    let w = area.w - 40.0;
    let mut y = area.y + 44.0;
    draw_text("DELVE", x, y, 44.0, GOLD);
    y += 22.0;
    let dungeon = match model.dungeon.as_deref() {
        Some(d) if d.starts_with("solo-") => "solo game".to_string(),
        Some(d) => format!("dungeon {d}"),
        None => String::new(),
    };
    draw_text(&dungeon, x, y, 18.0, DIM);
    y += 14.0;

    let Some(view) = &model.view else {
        draw_text(connection, x, y + 30.0, 20.0, DIM);
        return;
    };
    let me = &view.me;
    y += 26.0;
    draw_text(&me.name, x, y, 26.0, player_color(me.id));
    let lvl = format!("Level {}", me.level);
    let d = measure_text(&lvl, None, 20, 1.0);
    draw_text(&lvl, x + w - d.width, y, 20.0, WHITE);
    y += 14.0;
    let hp_frac = me.hp as f32 / me.max_hp.max(1) as f32;
    let hp_color = if hp_frac > 0.5 {
        Color::from_rgba(60, 170, 80, 255)
    } else if hp_frac > 0.25 {
        Color::from_rgba(220, 160, 40, 255)
    } else {
        Color::from_rgba(210, 50, 50, 255)
    };
    bar(
        x,
        y,
        w,
        20.0,
        hp_frac,
        hp_color,
        &format!("HP {} / {}", me.hp, me.max_hp),
    );
    y += 28.0;
    y += draw_effects(&me.effects, x, y - 2.0, w, now);
    // Progress through the current level, from the XP it began at to the next level's.
    let span = me.xp_next.saturating_sub(me.xp_level).max(1);
    let frac = me.xp.saturating_sub(me.xp_level) as f32 / span as f32;
    bar(
        x,
        y,
        w,
        14.0,
        frac,
        Color::from_rgba(70, 110, 220, 255),
        &format!("XP {} / {}", me.xp, me.xp_next),
    );
    y += 14.0;
    if me.points > 0 && me.alive && !me.victory {
        let blink = (now * 3.0).sin() > -0.3;
        let c = if blink { GOLD } else { DIM };
        let plural = if me.points > 1 { "s" } else { "" };
        draw_text(
            format!("Level up! {} stat point{plural} - press p", me.points),
            x,
            y + 18.0,
            18.0,
            c,
        );
        y += 24.0;
    }
    y += 36.0;
    draw_text(format!("Floor {}", me.depth), x, y, 24.0, WHITE);
    let t = format!("Turn {}", view.turn);
    let d = measure_text(&t, None, 20, 1.0);
    draw_text(&t, x + w - d.width, y, 20.0, DIM);
    y += 30.0;
    draw_rectangle(
        x - 6.0,
        y - 20.0,
        w + 12.0,
        30.0,
        Color::new(0.0, 0.0, 0.0, 0.35),
    );
    draw_text(&turn.text, x, y, 20.0, turn.color);
    y += 26.0;

    y = draw_minimap(view, sprites, x, y, w) + 26.0;

    // What is left below must fit in the window: in a short one (800x600) the worn equipment
    // (also on the character sheet, `c`) gives way first, then the party list is cut, so
    // that "In sight" keeps room for a few lines instead of running off the bottom.
    let bottom = area.y + area.h - 8.0;
    let party_on = view.party.len() > 1 || !view.watchers.is_empty();
    let watchers = view.watchers.len().min(3);
    let party_h = |n: usize| {
        if party_on {
            28.0 + 20.0 * n as f32 + 18.0 * watchers as f32
        } else {
            0.0
        }
    };
    let mut members = view.party.len().min(8);
    let show_worn = y + party_h(members) + WORN_H + IN_SIGHT_MIN <= bottom;
    while !show_worn && members > 2 && y + party_h(members) + IN_SIGHT_MIN > bottom {
        members -= 1;
    }
    // A cut list ends with a line saying how many more there are.
    let listed = if members < view.party.len() {
        members - 1
    } else {
        members
    };

    // The party: everyone in the dungeon, wherever they are.
    if party_on {
        draw_text("Party", x, y, 20.0, DIM);
        y += 20.0;
        for p in view.party.iter().take(listed) {
            let c = player_color(p.id);
            let dot = if p.connected {
                c
            } else {
                Color::new(c.r * 0.4, c.g * 0.4, c.b * 0.4, 1.0)
            };
            draw_circle(x + 6.0, y - 5.0, 5.0, dot);
            let name_color = if p.alive { WHITE } else { DIM };
            draw_text(&p.name, x + 18.0, y, 18.0, name_color);
            let state = match (p.alive, p.connected) {
                (false, _) => "dead".to_string(),
                (true, false) => format!("L{} F{} away", p.level, p.depth),
                (true, true) => format!("L{} F{}", p.level, p.depth),
            };
            draw_text(&state, x + 120.0, y, 16.0, DIM);
            if p.alive {
                let frac = (p.hp as f32 / p.max_hp.max(1) as f32).clamp(0.0, 1.0);
                draw_rectangle(
                    x + 200.0,
                    y - 10.0,
                    w - 200.0,
                    8.0,
                    Color::new(0.0, 0.0, 0.0, 0.6),
                );
                draw_rectangle(
                    x + 200.0,
                    y - 10.0,
                    (w - 200.0) * frac,
                    8.0,
                    Color::from_rgba(60, 170, 80, 255),
                );
            }
            y += 20.0;
        }
        if listed < view.party.len() {
            let more = format!("and {} more", view.party.len() - listed);
            draw_text(&more, x + 18.0, y, 16.0, DIM);
            y += 20.0;
        }
        for watcher in view.watchers.iter().take(3) {
            draw_text(
                format!("{} watches {}", watcher.name, watcher.watching),
                x + 18.0,
                y,
                16.0,
                DIM,
            );
            y += 18.0;
        }
        y += 8.0;
    }

    if show_worn {
        y = draw_worn(view, sprites, x, y, w) + 14.0;
    }

    let help = hints;
    // A short window (800x600, a small browser tab) has no room for the key help under
    // everything else: the help gives way to what is in sight rather than overlap it.
    let help_fits = area.y + area.h - 16.0 - 18.0 * (help.len() as f32 - 1.0) - y >= 90.0;
    let help_top = if help_fits {
        area.y + area.h - 16.0 - 18.0 * (help.len() as f32 - 1.0)
    } else {
        area.y + area.h + 10.0
    };

    draw_text("In sight", x, y, 20.0, DIM);
    y += 22.0;
    // Monsters first (the nearest first), then players, then items.
    let mut seen: Vec<_> = view.entities.iter().filter(|e| e.id != me.id).collect();
    seen.sort_by_key(|e| {
        let rank = match e.kind {
            EntityKind::Monster => 0,
            EntityKind::Player => 1,
            EntityKind::Item => 2,
        };
        (rank, e.pos.dist2(me.pos))
    });
    let rows = (((help_top - 30.0 - y) / 20.0).floor().max(1.0)) as usize;
    let shown = if seen.len() > rows {
        rows - 1
    } else {
        seen.len()
    };
    for e in seen.iter().take(shown) {
        match e.kind {
            EntityKind::Item => {
                draw_texture_ex(
                    sprites.item(e.item.as_deref()),
                    x - 2.0,
                    y - 14.0,
                    WHITE,
                    DrawTextureParams {
                        dest_size: Some(vec2(16.0, 16.0)),
                        ..Default::default()
                    },
                );
                draw_text(&e.name, x + 18.0, y, 18.0, WHITE);
            }
            EntityKind::Monster | EntityKind::Player => {
                let dot = if e.kind == EntityKind::Monster {
                    Color::from_rgba(230, 70, 60, 255)
                } else {
                    player_color(e.id)
                };
                draw_circle(x + 6.0, y - 5.0, 5.0, dot);
                draw_text(
                    format!("{}  {}/{} HP", e.name, e.hp, e.max_hp),
                    x + 18.0,
                    y,
                    18.0,
                    WHITE,
                );
            }
        }
        y += 20.0;
    }
    if seen.len() > shown {
        draw_text(
            format!("and {} more", seen.len() - shown),
            x + 18.0,
            y,
            18.0,
            DIM,
        );
    }
    if seen.is_empty() {
        draw_text("nothing", x + 18.0, y, 18.0, DIM);
    }

    let mut hy = help_top;
    for line in help.iter().filter(|_| help_fits) {
        draw_text(line, x, hy, 16.0, DIM);
        hy += 18.0;
    }
    if !connection.is_empty() {
        draw_text(
            connection,
            x,
            hy - 18.0 * (help.len() as f32 + 1.0),
            18.0,
            Color::from_rgba(255, 160, 0, 255),
        );
    }
}

/// The side panel folded (a narrow or short window): one bar over the map with what matters
/// from turn to turn (who, HP, XP, floor, turn, whose move), the rest a key away (`c`, `i`).
fn draw_status_bar(area: Rect, model: &Model, turn: &TurnLine, connection: &str, now: f64) {
    draw_rectangle(area.x, area.y, area.w, area.h, PANEL);
    draw_line(
        area.x,
        area.y + area.h,
        area.x + area.w,
        area.y + area.h,
        2.0,
        EDGE,
    );
    let (x, w) = (area.x + 12.0, area.w - 24.0);
    let Some(view) = &model.view else {
        draw_text("DELVE", x, area.y + 34.0, 32.0, GOLD);
        draw_text(connection, x + 130.0, area.y + 32.0, 20.0, DIM);
        return;
    };
    let me = &view.me;
    let top = area.y + 22.0;
    draw_text(&me.name, x, top, 22.0, player_color(me.id));
    let name_w = measure_text(&me.name, None, 22, 1.0).width;
    let place = format!("L{}  Floor {}  Turn {}", me.level, me.depth, view.turn);
    draw_text(&place, x + name_w + 14.0, top, 18.0, DIM);
    // Whose move it is, at the right; a connection problem instead while there is one.
    let (right, color) = if connection.is_empty() {
        (turn.text.as_str(), turn.color)
    } else {
        (connection, Color::from_rgba(255, 160, 0, 255))
    };
    let d = measure_text(right, None, 18, 1.0);
    draw_text(right, x + w - d.width, top, 18.0, color);
    // HP wide, XP narrower, then the level-up reminder or the effects.
    let by = top + 10.0;
    let hp_w = (w * 0.45).round();
    let hp_frac = me.hp as f32 / me.max_hp.max(1) as f32;
    let hp_color = if hp_frac > 0.5 {
        Color::from_rgba(60, 170, 80, 255)
    } else if hp_frac > 0.25 {
        Color::from_rgba(220, 160, 40, 255)
    } else {
        Color::from_rgba(210, 50, 50, 255)
    };
    bar(
        x,
        by,
        hp_w,
        18.0,
        hp_frac,
        hp_color,
        &format!("HP {} / {}", me.hp, me.max_hp),
    );
    let xp_w = (w * 0.25).round();
    let span = me.xp_next.saturating_sub(me.xp_level).max(1);
    let frac = me.xp.saturating_sub(me.xp_level) as f32 / span as f32;
    bar(
        x + hp_w + 10.0,
        by,
        xp_w,
        18.0,
        frac,
        Color::from_rgba(70, 110, 220, 255),
        &format!("XP {} / {}", me.xp, me.xp_next),
    );
    let rest_x = x + hp_w + xp_w + 20.0;
    if me.points > 0 && me.alive && !me.victory {
        let blink = (now * 3.0).sin() > -0.3;
        draw_text(
            "Level up! p",
            rest_x,
            by + 15.0,
            18.0,
            if blink { GOLD } else { DIM },
        );
    } else {
        draw_effects(&me.effects, rest_x, by - 2.0, x + w - rest_x, now);
    }
}

/// The whole floor as remembered, small. Returns the y below it.
fn draw_minimap(view: &View, sprites: &Sprites, x: f32, y: f32, w: f32) -> f32 {
    let map = &view.map;
    let px = (w / map.width() as f32).floor().max(1.0);
    let h = px * map.height() as f32;
    draw_rectangle(
        x - 2.0,
        y - 2.0,
        px * map.width() as f32 + 4.0,
        h + 4.0,
        Color::new(0.0, 0.0, 0.0, 0.6),
    );
    for (i, t) in map.cells().iter().enumerate() {
        let c = sprites.minimap(match t {
            Tile::Unknown => continue,
            Tile::Wall => Minimap::Wall,
            Tile::Floor if view.visible.contains(i) => Minimap::FloorLit,
            Tile::Floor => Minimap::Floor,
            Tile::StairsDown | Tile::StairsUp => Minimap::Stairs,
            Tile::DoorClosed => Minimap::Door,
            Tile::DoorOpen => Minimap::DoorOpen,
            Tile::DoorLocked => Minimap::DoorLocked,
        });
        let p = map.pos_of(i);
        draw_rectangle(x + p.x as f32 * px, y + p.y as f32 * px, px, px, c);
    }
    // Items under creatures, as on the map.
    let mut order: Vec<_> = view.entities.iter().collect();
    order.sort_by_key(|e| e.kind != EntityKind::Item);
    for e in order {
        let Pos { x: ex, y: ey } = e.pos;
        let (grow, color) = match e.kind {
            EntityKind::Item => (0.0, sprites.minimap(Minimap::Item)),
            EntityKind::Monster => (1.0, sprites.minimap(Minimap::Monster)),
            EntityKind::Player => (1.0, player_color(e.id)),
        };
        draw_rectangle(
            x + ex as f32 * px - grow,
            y + ey as f32 * px - grow,
            px + 2.0 * grow,
            px + 2.0 * grow,
            color,
        );
    }
    y + h
}

/// The log: the newest lines at the bottom, older ones fading. `scroll` lines back from the
/// newest (mouse wheel over the log).
pub fn draw_log(area: Rect, model: &Model, scroll: usize) {
    draw_rectangle(
        area.x,
        area.y,
        area.w,
        area.h,
        Color::new(0.05, 0.045, 0.07, 1.0),
    );
    draw_line(area.x, area.y, area.x + area.w, area.y, 2.0, EDGE);
    let line_h = 20.0;
    let rows = ((area.h - 14.0) / line_h).floor().max(1.0) as usize;
    let scroll = scroll.min(model.log.len().saturating_sub(rows));
    let newest_turn = model.log.back().map_or(0, |l| l.turn);
    let mut y = area.y + area.h - 12.0;
    // Long lines wrap to the log's width (a narrow window would cut them under the panel).
    let char_w = measure_text("M", None, 20, 1.0).width.max(1.0);
    let chars = (((area.w - 32.0) / char_w).floor() as usize).max(16);
    let mut left = rows;
    for (k, line) in model.log.iter().rev().skip(scroll).enumerate() {
        if left == 0 {
            break;
        }
        let mut c = message_color(line.kind);
        if scroll == 0 && (line.turn + 1 < newest_turn || k >= 3) {
            c.a = (1.0 - k as f32 * 0.1).max(0.45);
        }
        let mut text = match &line.from {
            Some(from) => {
                c = Color::new(CHAT.r, CHAT.g, CHAT.b, c.a);
                format!("{from}: {}", line.text)
            }
            None => line.text.clone(),
        };
        if line.count > 1 {
            text = format!("{text} (x{})", line.count);
        }
        let parts = wrap(&text, chars);
        // The newest rows are at the bottom: a wrapped line's last part lowest.
        for part in parts.iter().rev().take(left) {
            draw_text(part, area.x + 16.0, y, 20.0, c);
            y -= line_h;
            left -= 1;
        }
    }
    if scroll > 0 {
        let note = format!("{scroll} newer lines below - scroll down, or m for all");
        let d = measure_text(&note, None, 16, 1.0);
        draw_text(
            &note,
            area.x + area.w - d.width - 12.0,
            area.y + 18.0,
            16.0,
            DIM,
        );
    }
}

/// A centred notice over everything (connecting, connection lost, ...).
pub fn draw_notice(title: &str, detail: &str) {
    let (w, h) = super::modal::screen_size();
    draw_rectangle(0.0, 0.0, w, h, Color::new(0.0, 0.0, 0.0, 0.6));
    let t = measure_text(title, None, 40, 1.0);
    draw_text(
        title,
        ((w - t.width) / 2.0).round(),
        (h / 2.0 - 10.0).round(),
        40.0,
        GOLD,
    );
    let mut y = h / 2.0 + 26.0;
    // Wrapped to the window (about 10 pixels a character at this size).
    let chars = (((w - 60.0) / 10.0).floor() as usize).clamp(20, 90);
    for line in wrap(detail, chars) {
        let d = measure_text(&line, None, 20, 1.0);
        draw_text(&line, ((w - d.width) / 2.0).round(), y.round(), 20.0, WHITE);
        y += 24.0;
    }
}

/// Which try is next and how long until it; at 0 s the try is under way (it may take a while
/// to fail), so the count is not shown standing at 0.
pub fn reconnect_line(attempt: u32, wait: f64) -> String {
    if wait > 0.0 {
        format!("Reconnecting, try {attempt} in {wait:.0} s")
    } else {
        format!("Reconnecting, try {attempt}")
    }
}

/// The banner over the map while the connection is down and the game tries again: which try,
/// how long until it, and why the connection went (fitted to the map's width).
pub fn draw_reconnecting(area: Rect, attempt: u32, wait: f64, reason: &str) {
    let h = 58.0;
    draw_banner_box(
        area,
        h,
        Color::new(0.35, 0.06, 0.06, 0.92),
        Color::new(0.9, 0.3, 0.2, 1.0),
    );
    let title = format!("Connection lost. {}", reconnect_line(attempt, wait));
    draw_text(&title, area.x + 16.0, area.y + 26.0, 24.0, WHITE);
    let chars = (((area.w - 32.0) / 8.0).floor() as usize).max(16);
    if let Some(line) = wrap(reason, chars).first() {
        draw_text(
            line,
            area.x + 16.0,
            area.y + 48.0,
            16.0,
            Color::new(1.0, 0.8, 0.75, 1.0),
        );
    }
}

/// The banner over the map while the server cannot save and holds the dungeon: play goes on
/// by itself once it can (the server says so), so there is nothing to do but wait.
pub fn draw_paused(area: Rect, why: &str) {
    let chars = (((area.w - 32.0) / 8.0).floor() as usize).max(16);
    let lines = wrap(why, chars);
    let h = 36.0 + 20.0 * lines.len().min(3) as f32;
    draw_banner_box(
        area,
        h,
        Color::new(0.36, 0.27, 0.04, 0.92),
        Color::new(0.95, 0.75, 0.2, 1.0),
    );
    draw_text("Paused", area.x + 16.0, area.y + 26.0, 24.0, WHITE);
    for (k, line) in lines.iter().take(3).enumerate() {
        draw_text(
            line,
            area.x + 16.0,
            area.y + 48.0 + 20.0 * k as f32,
            16.0,
            Color::new(1.0, 0.92, 0.7, 1.0),
        );
    }
}

/// A banner's box across the top of `area`, `h` high, with a bright edge below it.
fn draw_banner_box(area: Rect, h: f32, fill: Color, edge: Color) {
    draw_rectangle(area.x, area.y, area.w, h, fill);
    draw_line(area.x, area.y + h, area.x + area.w, area.y + h, 2.0, edge);
}

/// Splits text into lines of at most `width` characters at spaces.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The banner over the map while following someone else's view.
pub fn draw_watching(area: Rect, whom: &str, alive: bool, own_dead: bool) {
    let text = if alive {
        format!("Watching {whom}")
    } else {
        format!("Watching {whom} (dead)")
    };
    let keys = if own_dead {
        "w: next player   Esc: your own view   n: new character   h: high scores   Enter: chat"
    } else {
        "w: next player   h: high scores   Enter: chat"
    };
    draw_rectangle(area.x, area.y, area.w, 56.0, Color::new(0.0, 0.0, 0.0, 0.6));
    draw_text(&text, area.x + 16.0, area.y + 26.0, 24.0, GOLD);
    draw_text(keys, area.x + 16.0, area.y + 48.0, 16.0, DIM);
}

/// The banner over the map once the summary of a finished game is put away: what happened, and
/// the keys that go on from there.
pub fn draw_end_banner(area: Rect, title: &str, color: Color, keys: &str) {
    draw_rectangle(area.x, area.y, area.w, 56.0, Color::new(0.0, 0.0, 0.0, 0.6));
    draw_text(title, area.x + 16.0, area.y + 26.0, 24.0, color);
    draw_text(keys, area.x + 16.0, area.y + 48.0, 16.0, DIM);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlap(a: Rect, b: Rect) -> bool {
        a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h
    }

    #[test]
    fn the_areas_tile_the_window_at_every_size_and_fold_when_narrow() {
        for (w, h) in [
            (640.0, 480.0),
            (799.0, 600.0),
            (800.0, 600.0),
            (1024.0, 768.0),
            (1280.0, 800.0),
            (1920.0, 1080.0),
            (900.0, 500.0),
            (333.0, 251.0),
        ] {
            let l = Layout::for_size(w, h);
            let areas = [l.map, l.log, l.panel];
            for (i, a) in areas.iter().enumerate() {
                assert!(a.w >= 0.0 && a.h >= 0.0, "{w}x{h}: {a:?}");
                assert!(a.x >= 0.0 && a.y >= 0.0, "{w}x{h}: {a:?}");
                assert!(
                    a.x + a.w <= w && a.y + a.h <= h,
                    "{w}x{h}: {a:?} leaves the window"
                );
                for b in &areas[i + 1..] {
                    assert!(!overlap(*a, *b), "{w}x{h}: {a:?} overlaps {b:?}");
                }
            }
            let total: f32 = areas.iter().map(|a| a.w * a.h).sum();
            assert!(
                (total - w * h).abs() < 1.0,
                "{w}x{h}: the areas leave a gap"
            );
            assert_eq!(l.folded, w < FOLD_W || h < FOLD_H, "{w}x{h}");
            // The folded bar is wider than tall: that is how the panel knows to draw a bar.
            assert_eq!(l.panel.w > l.panel.h, l.folded, "{w}x{h}");
        }
    }
}
