//! Screens drawn over the game: the character sheet (`c`), the level-up dialog and the message
//! history (`m`). Each closes by its key or its Close button.

use delve_protocol::{SelfView, Slot, Stat, StatGain, View};
use macroquad::prelude::*;

use super::inventory::{BETTER, WORSE};
use super::layout::screen_size;
use super::panel::effect_icon;
use super::sprites::Sprites;
use super::text::{draw_text, fit, measure_text, wrap};
use super::theme::{BOX_EDGE, CHAT, DIM, GOLD, effect_look, message_color, outline};
use super::widgets::{self, Look, Tap};
use crate::keymap::Command;
use crate::model::Model;
use crate::pack;

const GOOD: Color = Color::new(0.35, 0.85, 0.45, 1.0);

/// A framed box centred on the screen, with a Close button (showing `key`, giving `close`) in
/// its top right corner; returns its inner top-left corner.
fn frame(w: f32, h: f32, title: &str, title_color: Color, key: &str, close: Command) -> (f32, f32) {
    let (sw, sh) = screen_size();
    draw_rectangle(0.0, 0.0, sw, sh, Color::new(0.0, 0.0, 0.0, 0.55));
    widgets::add(Rect::new(0.0, 0.0, sw, sh), Tap::Block);
    let (x, y) = (((sw - w) / 2.0).round(), ((sh - h) / 2.0).round());
    draw_rectangle(x, y, w, h, Color::new(0.07, 0.065, 0.095, 0.97));
    outline(x, y, w, h, 2.0, BOX_EDGE);
    let button = Rect::new(x + w - 24.0 - 110.0, y + 18.0, 110.0, 30.0);
    draw_text(
        fit(title, button.x - x - 36.0, 34),
        x + 24.0,
        y + 42.0,
        34.0,
        title_color,
    );
    widgets::button(button, key, "Close", Tap::Command(close), Look::Plain);
    (x + 24.0, y + 74.0)
}

fn row(x: f32, y: f32, label: &str, value: &str) {
    draw_text(label, x, y, 22.0, DIM);
    draw_text(value, x + 210.0, y, 22.0, WHITE);
}

/// The character sheet: the numbers on the left, what is worn and what ails on the right (or,
/// in a narrow window, below).
pub fn character(view: &View, sprites: &Sprites) {
    let me = &view.me;
    let (sw, sh) = screen_size();
    let narrow = sw < 820.0;
    let (w, h) = if narrow {
        ((sw - 16.0).min(420.0), (sh - 16.0).min(860.0))
    } else {
        (800.0, (sh - 16.0).min(500.0))
    };
    let (x, mut y) = frame(
        w,
        h,
        &format!("{}, level {}", me.name, me.level),
        GOLD,
        "c",
        Command::Character,
    );
    let rows = [
        ("Experience", me.xp.to_string()),
        (
            "To next level",
            me.xp_next.saturating_sub(me.xp).to_string(),
        ),
        ("Hit points", format!("{} / {}", me.hp, me.max_hp)),
        ("Attack", format!("{} - {}", me.attack_min, me.attack_max)),
        ("Defence", me.defence.to_string()),
        ("Saving throw", format!("{}%", me.save)),
        ("Sight", me.sight.to_string()),
        ("Kills", me.kills.to_string()),
        ("Turns", me.turns.to_string()),
        ("Deepest floor", me.deepest.to_string()),
        ("Stat points", me.points.to_string()),
        ("Score", me.score.to_string()),
    ];
    let top = y;
    let line = if narrow || h < 500.0 { 26.0 } else { 30.0 };
    for (label, value) in rows {
        row(x, y, label, &value);
        y += line;
    }

    // The right column (or, narrow, what follows): equipment, what it adds up to, and status
    // effects.
    let (rx, mut ry) = if narrow {
        (x, y + 14.0)
    } else {
        (x + 390.0, top)
    };
    draw_text("Equipment", rx, ry, 22.0, DIM);
    ry += 30.0;
    for slot in Slot::ALL {
        let label = match slot {
            Slot::Weapon => "Weapon",
            Slot::Armour => "Armour",
            Slot::Microchip => "Microchip",
        };
        draw_text(label, rx, ry, 20.0, DIM);
        match pack::worn_in(&view.inventory, slot) {
            Some(item) => {
                draw_texture_ex(
                    sprites.item(Some(&item.key)),
                    rx + 100.0,
                    ry - 17.0,
                    WHITE,
                    DrawTextureParams {
                        dest_size: Some(vec2(20.0, 20.0)),
                        ..Default::default()
                    },
                );
                draw_text(&item.name, rx + 128.0, ry, 20.0, WHITE);
                ry += 22.0;
                ry += draw_bonus(rx + 128.0, ry, &item.bonus, 16.0, 230.0);
            }
            None => {
                draw_text("nothing", rx + 128.0, ry, 20.0, DIM);
            }
        }
        ry += 30.0;
    }
    ry += 6.0;
    draw_text("Worn bonuses", rx, ry, 22.0, DIM);
    ry += 26.0;
    ry += draw_bonus(rx, ry, &pack::worn_total(&view.inventory), 18.0, 360.0);
    ry += 40.0;
    draw_text("Status", rx, ry, 22.0, DIM);
    ry += 28.0;
    if me.effects.is_empty() {
        draw_text("no ailments", rx, ry, 20.0, WHITE);
    }
    let mut ex = rx;
    for &e in &me.effects {
        let (word, color) = effect_look(e);
        effect_icon(e, ex + 8.0, ry - 6.0, 7.0, color);
        draw_text(word, ex + 22.0, ry, 20.0, color);
        ex += 122.0;
    }
}

/// A bonus, each part in green (up) or red (down), wrapping at `max_w`. Returns the height of
/// the lines after the first.
fn draw_bonus(x: f32, y: f32, b: &delve_protocol::Bonus, size: f32, max_w: f32) -> f32 {
    let parts = pack::bonus_parts(b);
    if parts.is_empty() {
        draw_text("none", x, y, size, DIM);
        return 0.0;
    }
    let (mut cx, mut cy) = (x, y);
    for (k, (v, name)) in parts.iter().enumerate() {
        let text = if k + 1 < parts.len() {
            format!("{v:+} {name}, ")
        } else {
            format!("{v:+} {name}")
        };
        let w = measure_text(&text, None, size as u16, 1.0).width;
        if cx > x && cx + w > x + max_w {
            cx = x;
            cy += size + 4.0;
        }
        let color = if *v > 0 { BETTER } else { WORSE };
        draw_text(&text, cx, cy, size, color);
        cx += w;
    }
    cy - y
}

fn stat_label(s: Stat) -> &'static str {
    match s {
        Stat::MaxHp => "Max HP",
        Stat::Attack => "Attack",
        Stat::Defence => "Defence",
        Stat::Sight => "Sight",
        Stat::Save => "Saving throw",
    }
}

/// The stat's value now and after one point (as shown, e.g. "3 - 7").
fn stat_values(me: &SelfView, g: &StatGain) -> (String, String) {
    let a = g.amount;
    match g.stat {
        Stat::MaxHp => (me.max_hp.to_string(), (me.max_hp + a).to_string()),
        Stat::Attack => (
            format!("{} - {}", me.attack_min, me.attack_max),
            format!("{} - {}", me.attack_min + a, me.attack_max + a),
        ),
        Stat::Defence => (me.defence.to_string(), (me.defence + a).to_string()),
        Stat::Sight => (me.sight.to_string(), (me.sight + a).to_string()),
        Stat::Save => (format!("{}%", me.save), format!("{}%", me.save + a)),
    }
}

/// The choices of the level-up dialog, in key order (1, 2, ...).
pub fn level_up_choices(model: &Model) -> Vec<Stat> {
    model.level_up.iter().map(|g| g.stat).collect()
}

pub fn level_up(model: &Model, me: &SelfView, selected: usize) {
    // 560 units wide, or the window's width on a phone: the columns share what there is, and
    // the title is shorter beside its Close button.
    let w = (screen_size().0 - 16.0).min(560.0);
    let narrow = w < 480.0;
    let title = match (me.points, narrow) {
        (1, false) => "Level up! Raise a stat".to_string(),
        (1, true) => "Level up!".to_string(),
        (n, false) => format!("Level up! {n} points to spend"),
        (n, true) => format!("Level up! {n} points"),
    };
    let k = (w - 48.0) / 512.0;
    let (x, mut y) = frame(
        w,
        100.0 + 40.0 * model.level_up.len() as f32 + 40.0,
        &title,
        GOLD,
        "Esc",
        Command::Cancel,
    );
    let line_w = w - 40.0;
    for (n, g) in model.level_up.iter().enumerate() {
        let (now, then) = stat_values(me, g);
        // A click on a line raises that stat.
        let line = Rect::new(x - 10.0, y - 26.0, line_w, 36.0);
        widgets::add(line, Tap::Row(n));
        if n == selected {
            draw_rectangle(
                line.x,
                line.y,
                line.w,
                line.h,
                Color::new(0.25, 0.2, 0.1, 0.8),
            );
        }
        draw_text(format!("{}", n + 1), x, y, 24.0, GOLD);
        draw_text(stat_label(g.stat), x + 36.0 * k, y, 24.0, WHITE);
        draw_text(&now, x + 250.0 * k, y, 24.0, DIM);
        draw_text("->", x + 350.0 * k, y, 24.0, DIM);
        draw_text(&then, x + 390.0 * k, y, 24.0, GOOD);
        y += 40.0;
    }
    // Keys mean nothing under a finger.
    let hint = if super::layout::touch() {
        "Tap a stat to raise it.  Close: later"
    } else {
        "1-5, arrows + Enter, or a click: choose    Close: later"
    };
    draw_text(fit(hint, line_w, 18), x, y + 6.0, 18.0, DIM);
}

/// The whole message log, newest at the bottom; `scroll` lines up from the newest.
pub fn messages(model: &Model, scroll: usize) {
    let (sw, sh) = screen_size();
    // Margins round the box, smaller in a small window (a phone).
    let (mx, my) = if sw >= 960.0 {
        (80.0, 60.0)
    } else {
        (8.0, 8.0)
    };
    let (w, h) = (sw - 2.0 * mx, sh - 2.0 * my);
    let (x, y) = frame(w, h, "Messages", GOLD, "m", Command::Messages);
    let rows = ((h - 110.0) / 22.0).floor().max(1.0) as usize;
    // Wrapped to the box, leaving the scroll bar its margin.
    let chars = ((w - 80.0) / measure_text("M", None, 20, 1.0).width.max(1.0)).max(20.0) as usize;
    let lines: Vec<(Color, String)> = model
        .log
        .iter()
        .flat_map(|l| {
            let mut text = match &l.from {
                Some(from) => format!("{from}: {}", l.text),
                None => l.text.clone(),
            };
            if l.count > 1 {
                text = format!("{text} (x{})", l.count);
            }
            let color = if l.from.is_some() {
                CHAT
            } else {
                message_color(l.kind)
            };
            wrap(&text, chars).into_iter().map(move |t| (color, t))
        })
        .collect();
    let end = lines
        .len()
        .saturating_sub(scroll.min(lines.len().saturating_sub(rows)));
    let start = end.saturating_sub(rows);
    for (k, (c, t)) in lines[start..end].iter().enumerate() {
        draw_text(t, x, y + 22.0 * k as f32, 20.0, *c);
    }
    let right = (sw - w) / 2.0 + w;
    widgets::scroll_bar(
        Rect::new(right - 22.0, y - 16.0, 10.0, 22.0 * rows as f32),
        start,
        rows,
        lines.len(),
    );
    draw_text(
        if super::layout::touch() {
            "Drag or the bar: scroll"
        } else {
            "The wheel, arrows or the bar: scroll"
        },
        x,
        my + h - 20.0,
        18.0,
        DIM,
    );
}
