//! The side panel folded (a narrow or short window): one bar over the map with what matters
//! from turn to turn (who, HP, XP, floor, turn, whose move), the rest a key away (`c`, `i`).

use macroquad::prelude::*;

use super::bars::{XP, bar, draw_effects, hp_color, xp_frac};
use super::turn::TurnLine;
use crate::keymap::Command;
use crate::model::Model;
use crate::ui::text::{draw_text, fit, measure_text};
use crate::ui::theme::{DIM, GOLD, PANEL, PANEL_EDGE, WARN, player_color};
use crate::ui::widgets::{self, Tap};

pub fn draw(area: Rect, model: &Model, turn: &TurnLine, connection: &str, now: f64) {
    draw_rectangle(area.x, area.y, area.w, area.h, PANEL);
    draw_line(
        area.x,
        area.y + area.h,
        area.x + area.w,
        area.y + area.h,
        2.0,
        PANEL_EDGE,
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
    // Whose move it is, at the right (at most half the bar); a connection problem instead
    // while there is one.
    let (right, color) = if connection.is_empty() {
        (turn.text.as_str(), turn.color)
    } else {
        (connection, WARN)
    };
    let right = fit(right, w * 0.5, 18);
    let right_w = measure_text(&right, None, 18, 1.0).width;
    draw_text(&right, x + w - right_w, top, 18.0, color);
    // Where, in the room left between the name and that: shorter forms in a narrow bar (a
    // phone), never over whose move it is.
    let room = w - name_w - 14.0 - right_w - 12.0;
    let (l, d, t) = (me.level, me.depth, view.turn);
    let place = [
        format!("L{l}  Floor {d}  Turn {t}"),
        format!("L{l} F{d} T{t}"),
        format!("L{l} F{d}"),
    ]
    .into_iter()
    .find(|p| measure_text(p, None, 18, 1.0).width <= room)
    .unwrap_or_default();
    draw_text(&place, x + name_w + 14.0, top, 18.0, DIM);
    // HP wide, XP narrower, then the level-up reminder or the effects.
    let by = top + 10.0;
    let hp_w = (w * 0.45).round();
    let hp_frac = me.hp as f32 / me.max_hp.max(1) as f32;
    bar(
        x,
        by,
        hp_w,
        18.0,
        hp_frac,
        hp_color(hp_frac),
        &format!("HP {} / {}", me.hp, me.max_hp),
    );
    let xp_w = (w * 0.25).round();
    bar(
        x + hp_w + 10.0,
        by,
        xp_w,
        18.0,
        xp_frac(me),
        XP,
        &format!("XP {} / {}", me.xp, me.xp_next),
    );
    let rest_x = x + hp_w + xp_w + 20.0;
    if me.points > 0 && me.alive && !me.victory {
        let blink = (now * 3.0).sin() > -0.3;
        let line = if crate::ui::layout::touch() {
            "Level up!"
        } else {
            "Level up! p"
        };
        draw_text(
            line,
            rest_x,
            by + 15.0,
            18.0,
            if blink { GOLD } else { DIM },
        );
        widgets::add(
            Rect::new(rest_x, by - 2.0, x + w - rest_x, 22.0),
            Tap::Command(Command::LevelUp),
        );
    } else {
        draw_effects(&me.effects, rest_x, by - 2.0, x + w - rest_x, now);
    }
}
