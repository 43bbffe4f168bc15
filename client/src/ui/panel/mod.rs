//! The side panel beside the map, one function a section, top to bottom: the title, the
//! character (name, level, HP, effects, XP, a level-up waiting), the floor and whose move it
//! is, the minimap, the party, what is worn, what is in sight, and at the foot the commands
//! as buttons that show their keys. In a narrow or short window it folds into a status bar
//! over the map. Its parts:
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

use crate::keymap::Command;
use crate::model::Model;
use crate::ui::controls::Offer;
use crate::ui::sprites::Sprites;
use crate::ui::text::{draw_text, measure_text};
use crate::ui::theme::{DIM, GOLD, PANEL, PANEL_EDGE, WARN, player_color};
use crate::ui::widgets::{self, Tap};
use bars::{XP, bar, draw_effects, hp_color, xp_frac};

/// The least "In sight" keeps: its title and two lines.
const IN_SIGHT_MIN: f32 = 22.0 + 2.0 * 20.0;
/// The command buttons at the foot: their height (larger for fingers), the gap between them,
/// and how many to a row.
const BUTTON_H: f32 = 26.0;
const TOUCH_BUTTON_H: f32 = 40.0;
const BUTTON_GAP: f32 = 6.0;
const BUTTONS_PER_ROW: usize = 3;

/// The side panel in `area` (or, when `area` is wider than tall, the folded status bar).
/// `controls` are the commands offered as buttons at its foot, with their keys.
pub fn draw(
    area: Rect,
    model: &Model,
    sprites: &Sprites,
    turn: &TurnLine,
    connection: &str,
    controls: &[Offer],
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
    // The buttons first, from the bottom up: they are how a mouse plays, so they never give
    // way; what is above them fits in what is left.
    let foot = buttons(controls, x, area.y + area.h - 12.0, w);
    if !connection.is_empty() {
        draw_text(connection, x, foot - 10.0, 18.0, WARN);
    }
    let mut y = title(model, x, area.y);

    let Some(view) = &model.view else {
        return;
    };
    y = character(view, x, y, w, now);
    y = floor_and_turn(view, turn, x, y, w);
    let bottom = foot - if connection.is_empty() { 12.0 } else { 32.0 };
    // The minimap gives way to the party (at least two lines of it) and "In sight".
    let least_party = lists::party_height(view, view.party.len().min(2));
    let map_room = bottom - y - 26.0 - least_party - IN_SIGHT_MIN;
    y = minimap::draw(view, sprites, x, y, w, map_room) + 26.0;

    // What is left below must fit in the window: in a short one (800x600) the worn equipment
    // (also on the character sheet, `c`) gives way first, then the party list is cut, so
    // that "In sight" keeps room for a few lines instead of running off the bottom.
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

    lists::draw_in_sight(view, sprites, x, y, bottom);
}

/// The command buttons, in rows of three, the last row's bottom at `bottom`. Returns the top
/// of the first row.
fn buttons(controls: &[Offer], x: f32, bottom: f32, w: f32) -> f32 {
    let touch = crate::ui::layout::touch();
    let bh = if touch { TOUCH_BUTTON_H } else { BUTTON_H };
    let rows = controls.len().div_ceil(BUTTONS_PER_ROW);
    let top = bottom - rows as f32 * (bh + BUTTON_GAP) + BUTTON_GAP;
    let bw = (w - BUTTON_GAP * (BUTTONS_PER_ROW - 1) as f32) / BUTTONS_PER_ROW as f32;
    for (k, c) in controls.iter().enumerate() {
        let (col, row) = (k % BUTTONS_PER_ROW, k / BUTTONS_PER_ROW);
        let area = Rect::new(
            (x + col as f32 * (bw + BUTTON_GAP)).round(),
            (top + row as f32 * (bh + BUTTON_GAP)).round(),
            bw.floor(),
            bh,
        );
        widgets::button(area, &c.key, c.label, Tap::Command(c.command), c.look);
        if let Some(n) = c.badge {
            widgets::badge(area, n);
        }
    }
    top
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
        let line = format!("Level up! {} stat point{plural} - press p", me.points);
        draw_text(&line, x, y + 18.0, 18.0, c);
        // A click on it opens the choice, as p does.
        widgets::add(
            Rect::new(x, y + 2.0, w, 22.0),
            Tap::Command(Command::LevelUp),
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
