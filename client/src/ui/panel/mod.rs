//! The side panel beside the map, one function a section, top to bottom: the title, the
//! character (name, level, HP, effects, XP, a level-up waiting), the floor and whose move it
//! is, the minimap, the party, what is worn, what is in sight, and the key reminders at the
//! foot. In a narrow or short window it folds into a status bar over the map. Its parts:
//!
//! - `bars`: labelled bars, the colour of health, status effect badges and icons;
//! - `lists`: the party, what is worn, what is in sight;
//! - `minimap`: the floor, small;
//! - `status_bar`: the folded panel;
//! - `turn`: the turn clock's line.

mod bars;
mod lists;
mod minimap;
mod status_bar;
mod turn;

pub use bars::effect_icon;
pub use turn::{TurnLine, turn_line};

use delve_protocol::View;
use macroquad::prelude::*;

use crate::ui::text::{draw_text, measure_text};

use crate::model::Model;
use crate::ui::sprites::Sprites;
use crate::ui::theme::{DIM, GOLD, PANEL, PANEL_EDGE, WARN, player_color};
use bars::{XP, bar, draw_effects, hp_color, xp_frac};

/// The least "In sight" keeps: its title and two lines.
const IN_SIGHT_MIN: f32 = 22.0 + 2.0 * 20.0;

/// The side panel in `area` (or, when `area` is wider than tall, the folded status bar).
/// `hints` are the few key reminders at its foot (from the key table).
pub fn draw(
    area: Rect,
    model: &Model,
    sprites: &Sprites,
    turn: &TurnLine,
    connection: &str,
    hints: &[String],
    now: f64,
) {
    if area.w > area.h {
        status_bar::draw(area, model, turn, connection, now);
        return;
    }
    draw_rectangle(area.x, area.y, area.w, area.h, PANEL);
    draw_line(area.x, area.y, area.x, area.y + area.h, 2.0, PANEL_EDGE);
    let x = area.x + 20.0;
    let w = area.w - 40.0;
    let mut y = title(model, x, area.y);

    let Some(view) = &model.view else {
        draw_text(connection, x, y + 30.0, 20.0, DIM);
        return;
    };
    y = character(view, x, y, w, now);
    y = floor_and_turn(view, turn, x, y, w);
    y = minimap::draw(view, sprites, x, y, w) + 26.0;

    // What is left below must fit in the window: in a short one (800x600) the worn equipment
    // (also on the character sheet, `c`) gives way first, then the party list is cut, so
    // that "In sight" keeps room for a few lines instead of running off the bottom.
    let bottom = area.y + area.h - 8.0;
    let mut members = view.party.len().min(8);
    let show_worn = y + lists::party_height(view, members) + lists::WORN_H + IN_SIGHT_MIN <= bottom;
    while !show_worn
        && members > 2
        && y + lists::party_height(view, members) + IN_SIGHT_MIN > bottom
    {
        members -= 1;
    }
    y = lists::draw_party(view, members, x, y, w);
    if show_worn {
        y = lists::draw_worn(view, sprites, x, y, w) + 14.0;
    }

    // A short window (800x600, a small browser tab) has no room for the key help under
    // everything else: the help gives way to what is in sight rather than overlap it.
    let hints_h = 18.0 * (hints.len() as f32 - 1.0);
    let help_fits = area.y + area.h - 16.0 - hints_h - y >= 90.0;
    let help_top = if help_fits {
        area.y + area.h - 16.0 - hints_h
    } else {
        area.y + area.h + 10.0
    };
    lists::draw_in_sight(view, sprites, x, y, help_top - 30.0);
    foot(hints, help_fits, connection, x, help_top);
}

/// "DELVE" and which dungeon. Returns the y below.
fn title(model: &Model, x: f32, top: f32) -> f32 {
    let mut y = top + 44.0;
    draw_text("DELVE", x, y, 44.0, GOLD);
    y += 22.0;
    let dungeon = match model.dungeon.as_deref() {
        Some(d) if d.starts_with("solo-") => "solo game".to_string(),
        Some(d) => format!("dungeon {d}"),
        None => String::new(),
    };
    draw_text(&dungeon, x, y, 18.0, DIM);
    y + 14.0
}

/// Name and level, HP, status effects, XP, and a level-up waiting. Returns the y below.
fn character(view: &View, x: f32, mut y: f32, w: f32, now: f64) -> f32 {
    let me = &view.me;
    y += 26.0;
    draw_text(&me.name, x, y, 26.0, player_color(me.id));
    let lvl = format!("Level {}", me.level);
    let d = measure_text(&lvl, None, 20, 1.0);
    draw_text(&lvl, x + w - d.width, y, 20.0, WHITE);
    y += 14.0;
    let hp_frac = me.hp as f32 / me.max_hp.max(1) as f32;
    bar(
        x,
        y,
        w,
        20.0,
        hp_frac,
        hp_color(hp_frac),
        &format!("HP {} / {}", me.hp, me.max_hp),
    );
    y += 28.0;
    y += draw_effects(&me.effects, x, y - 2.0, w, now);
    bar(
        x,
        y,
        w,
        14.0,
        xp_frac(me),
        XP,
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
    y + 36.0
}

/// The floor, the turn, and whose move it is. Returns the y below.
fn floor_and_turn(view: &View, turn: &TurnLine, x: f32, mut y: f32, w: f32) -> f32 {
    draw_text(format!("Floor {}", view.me.depth), x, y, 24.0, WHITE);
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
    y + 26.0
}

/// The key reminders from `top` down (when they fit), and a connection problem above them.
fn foot(hints: &[String], fits: bool, connection: &str, x: f32, top: f32) {
    let mut hy = top;
    for line in hints.iter().filter(|_| fits) {
        draw_text(line, x, hy, 16.0, DIM);
        hy += 18.0;
    }
    if !connection.is_empty() {
        draw_text(
            connection,
            x,
            hy - 18.0 * (hints.len() as f32 + 1.0),
            18.0,
            WARN,
        );
    }
}
