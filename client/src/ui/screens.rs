//! Screens drawn over the game: the character sheet (`c`), the level-up dialog, the message
//! history (`m`) and the death screen.

use delve_protocol::{SelfView, Stat, StatGain};
use macroquad::prelude::*;

use super::hud::{message_color, wrap};
use crate::model::Model;

const GOLD: Color = Color::new(0.93, 0.77, 0.33, 1.0);
const DIM: Color = Color::new(0.6, 0.58, 0.66, 1.0);
const GOOD: Color = Color::new(0.35, 0.85, 0.45, 1.0);

/// A framed box centred on the screen; returns its inner top-left corner.
fn frame(w: f32, h: f32, title: &str, title_color: Color) -> (f32, f32) {
    let (sw, sh) = (screen_width(), screen_height());
    draw_rectangle(0.0, 0.0, sw, sh, Color::new(0.0, 0.0, 0.0, 0.55));
    let (x, y) = (((sw - w) / 2.0).round(), ((sh - h) / 2.0).round());
    draw_rectangle(x, y, w, h, Color::new(0.07, 0.065, 0.095, 0.97));
    draw_rectangle_lines(x, y, w, h, 2.0, Color::new(0.35, 0.3, 0.45, 1.0));
    draw_text(title, x + 24.0, y + 42.0, 34.0, title_color);
    (x + 24.0, y + 74.0)
}

fn row(x: f32, y: f32, label: &str, value: &str) {
    draw_text(label, x, y, 22.0, DIM);
    draw_text(value, x + 210.0, y, 22.0, WHITE);
}

pub fn character(me: &SelfView) {
    let (x, mut y) = frame(
        460.0,
        470.0,
        &format!("{}, level {}", me.name, me.level),
        GOLD,
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
    ];
    for (label, value) in rows {
        row(x, y, label, &value);
        y += 30.0;
    }
    draw_text("c or Esc: close", x, y + 14.0, 18.0, DIM);
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
    let title = if me.points > 1 {
        format!("Level up! {} points to spend", me.points)
    } else {
        "Level up! Choose a stat to raise".to_string()
    };
    let (x, mut y) = frame(
        560.0,
        100.0 + 40.0 * model.level_up.len() as f32 + 40.0,
        &title,
        GOLD,
    );
    for (k, g) in model.level_up.iter().enumerate() {
        let (now, then) = stat_values(me, g);
        if k == selected {
            draw_rectangle(
                x - 10.0,
                y - 26.0,
                520.0,
                36.0,
                Color::new(0.25, 0.2, 0.1, 0.8),
            );
        }
        draw_text(format!("{}", k + 1), x, y, 24.0, GOLD);
        draw_text(stat_label(g.stat), x + 36.0, y, 24.0, WHITE);
        draw_text(&now, x + 250.0, y, 24.0, DIM);
        draw_text("->", x + 350.0, y, 24.0, DIM);
        draw_text(&then, x + 390.0, y, 24.0, GOOD);
        y += 40.0;
    }
    draw_text(
        "1-5 or arrows + Enter: choose    Esc: later (p reopens)",
        x,
        y + 6.0,
        18.0,
        DIM,
    );
}

pub fn death(me: &SelfView) {
    let (x, y) = frame(600.0, 230.0, "You died", Color::from_rgba(255, 64, 64, 255));
    let cause = me.cause.clone().unwrap_or_else(|| "killed".into());
    let mut first = cause.chars();
    let cause: String = first
        .next()
        .map(|c| c.to_uppercase().chain(first).collect())
        .unwrap_or_default();
    draw_text(format!("{cause}."), x, y, 24.0, WHITE);
    let summary = format!(
        "Level {}   deepest floor {}   {} kills   {} turns",
        me.level, me.deepest, me.kills, me.turns
    );
    draw_text(&summary, x, y + 40.0, 22.0, DIM);
    draw_text(
        "Your ghost watches the floor where you fell.",
        x,
        y + 90.0,
        20.0,
        DIM,
    );
    draw_text(
        "n: new character    w: watch a friend    Enter: chat",
        x,
        y + 130.0,
        22.0,
        GOLD,
    );
}

/// The whole message log, newest at the bottom; `scroll` lines up from the newest.
pub fn messages(model: &Model, scroll: usize) {
    let (sw, sh) = (screen_width(), screen_height());
    let (x, y) = frame(sw - 160.0, sh - 120.0, "Messages", GOLD);
    let rows = ((sh - 120.0 - 110.0) / 22.0).floor().max(1.0) as usize;
    let lines: Vec<(Color, String)> = model
        .log
        .iter()
        .flat_map(|l| {
            let text = if l.count > 1 {
                format!("{} (x{})", l.text, l.count)
            } else {
                l.text.clone()
            };
            wrap(&text, 110)
                .into_iter()
                .map(move |t| (message_color(l.kind), t))
        })
        .collect();
    let end = lines
        .len()
        .saturating_sub(scroll.min(lines.len().saturating_sub(rows)));
    let start = end.saturating_sub(rows);
    for (k, (c, t)) in lines[start..end].iter().enumerate() {
        draw_text(t, x, y + 22.0 * k as f32, 20.0, *c);
    }
    draw_text(
        "wheel or arrows: scroll    m or Esc: close",
        x,
        sh - 80.0,
        18.0,
        DIM,
    );
}
