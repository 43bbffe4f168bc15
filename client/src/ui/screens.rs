//! Screens drawn over the game: the character sheet (`c`), the level-up dialog, the message
//! history (`m`), and the end of a game: the death screen and the victory screen.

use delve_protocol::{SelfView, Slot, Stat, StatGain, View};
use macroquad::prelude::*;

use super::inventory::{BETTER, WORSE};
use super::layout::screen_size;
use super::panel::effect_icon;
use super::sprites::Sprites;
use super::text::{draw_text, measure_text, wrap};
use super::theme::{BOX_EDGE, DIM, GOLD, effect_look, message_color, outline};
use crate::model::Model;
use crate::pack;

const GOOD: Color = Color::new(0.35, 0.85, 0.45, 1.0);

/// A framed box centred on the screen; returns its inner top-left corner.
fn frame(w: f32, h: f32, title: &str, title_color: Color) -> (f32, f32) {
    let (sw, sh) = screen_size();
    draw_rectangle(0.0, 0.0, sw, sh, Color::new(0.0, 0.0, 0.0, 0.55));
    let (x, y) = (((sw - w) / 2.0).round(), ((sh - h) / 2.0).round());
    draw_rectangle(x, y, w, h, Color::new(0.07, 0.065, 0.095, 0.97));
    outline(x, y, w, h, 2.0, BOX_EDGE);
    draw_text(title, x + 24.0, y + 42.0, 34.0, title_color);
    (x + 24.0, y + 74.0)
}

fn row(x: f32, y: f32, label: &str, value: &str) {
    draw_text(label, x, y, 22.0, DIM);
    draw_text(value, x + 210.0, y, 22.0, WHITE);
}

/// The character sheet: the numbers on the left, what is worn and what ails on the right.
pub fn character(view: &View, sprites: &Sprites) {
    let me = &view.me;
    let (x, mut y) = frame(
        800.0,
        500.0,
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
        ("Score", me.score.to_string()),
    ];
    let top = y;
    for (label, value) in rows {
        row(x, y, label, &value);
        y += 30.0;
    }
    draw_text("c or Esc: close", x, y + 14.0, 18.0, DIM);

    // The right column: equipment, what it adds up to, and status effects.
    let rx = x + 390.0;
    let mut ry = top;
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

/// The numbers of a finished game, one line.
fn summary(me: &SelfView) -> String {
    let s = |n: u64| if n == 1 { "" } else { "s" };
    format!(
        "Level {}   deepest floor {}   {} kill{}   {} turn{}",
        me.level,
        me.deepest,
        me.kills,
        s(u64::from(me.kills)),
        me.turns,
        s(me.turns)
    )
}

/// The death screen, inside the map area (`area`), scaled down to fit a small window. `dump`
/// names the character dump saved for this game, if one was.
pub fn death(me: &SelfView, area: Rect, dump: Option<&str>) {
    let k = ((area.w - 16.0) / 700.0)
        .min((area.h - 16.0) / 330.0)
        .min(1.0);
    let (w, h) = ((700.0 * k).round(), (330.0 * k).round());
    let (x, y) = (
        (area.x + (area.w - w) / 2.0).round(),
        (area.y + (area.h - h) / 2.0).round(),
    );
    draw_rectangle(
        area.x,
        area.y,
        area.w,
        area.h,
        Color::new(0.0, 0.0, 0.0, 0.55),
    );
    draw_rectangle(x, y, w, h, Color::new(0.07, 0.065, 0.095, 0.97));
    outline(x, y, w, h, 2.0, BOX_EDGE);
    let red = Color::from_rgba(255, 64, 64, 255);
    let (x, y) = (x + 24.0 * k, y + 42.0 * k);
    draw_text("You died", x, y, 34.0 * k, red);
    let y = y + 32.0 * k;
    let cause = me.cause.clone().unwrap_or_else(|| "killed".into());
    let mut first = cause.chars();
    let cause: String = first
        .next()
        .map(|c| c.to_uppercase().chain(first).collect())
        .unwrap_or_default();
    draw_text(format!("{cause}."), x, y, 24.0 * k, WHITE);
    draw_text(summary(me), x, y + 40.0 * k, 22.0 * k, DIM);
    draw_text("Score", x, y + 80.0 * k, 22.0 * k, DIM);
    draw_text(
        me.score.to_string(),
        x + 70.0 * k,
        y + 80.0 * k,
        28.0 * k,
        GOLD,
    );
    let ghost = match dump {
        Some(path) => format!("Your story is kept in {path}"),
        None => "Your ghost watches the floor where you fell.".to_string(),
    };
    let max = ((w - 48.0 * k) / (10.0 * k)).max(20.0) as usize;
    let mut gy = y + 118.0 * k;
    for line in wrap(&ghost, max).into_iter().take(2) {
        draw_text(&line, x, gy, 20.0 * k, DIM);
        gy += 22.0 * k;
    }
    draw_text(
        "n: new character    w: watch a friend    h: high scores",
        x,
        y + 186.0 * k,
        20.0 * k,
        GOLD,
    );
    draw_text("Esc: hide    Enter: chat", x, y + 214.0 * k, 20.0 * k, GOLD);
}

/// The end of a won game: the Mouse King lies dead, and the numbers of the game that felled him.
/// Drawn inside the map area, scaled down to fit a small window.
pub fn victory(me: &SelfView, sprites: &Sprites, now: f64, area: Rect, dump: Option<&str>) {
    let k = ((area.w - 16.0) / 680.0)
        .min((area.h - 16.0) / 500.0)
        .min(1.0);
    let (w, h) = ((680.0 * k).round(), (500.0 * k).round());
    draw_rectangle(
        area.x,
        area.y,
        area.w,
        area.h,
        Color::new(0.0, 0.0, 0.0, 0.6),
    );
    let (bx, by) = (
        (area.x + (area.w - w) / 2.0).round(),
        (area.y + (area.h - h) / 2.0).round(),
    );
    draw_rectangle(bx, by, w, h, Color::new(0.08, 0.07, 0.05, 0.97));
    outline(bx, by, w, h, 3.0, GOLD);
    outline(
        bx + 6.0 * k,
        by + 6.0 * k,
        w - 12.0 * k,
        h - 12.0 * k,
        1.0,
        Color::new(0.6, 0.48, 0.2, 1.0),
    );
    let centre = |text: &str, y: f32, size: f32, color: Color| {
        let size = size * k;
        let d = measure_text(text, None, size as u16, 1.0);
        draw_text(
            text,
            (bx + (w - d.width) / 2.0).round(),
            by + y * k,
            size,
            color,
        );
    };
    // Sparks of gold rising on either side of the title.
    for n in 0..16u32 {
        let seed = f64::from(n) * 0.618;
        let t = ((now * 0.35 + seed).fract()) as f32;
        let side = ((seed * 977.0) % 1.0) as f32 * 0.22;
        let px = if n % 2 == 0 {
            bx + w * (0.04 + side)
        } else {
            bx + w * (0.74 + side)
        };
        let py = by + (96.0 - t * 72.0) * k;
        draw_circle(px, py, 2.0, Color::new(1.0, 0.85, 0.4, (1.0 - t) * 0.9));
    }
    centre("VICTORY", 78.0, 72.0, GOLD);
    centre("The Mouse King is slain.", 118.0, 26.0, WHITE);

    // The King, fallen: on his back, his crown rolled away beside him.
    let s = (96.0 * k).round();
    let kx = (bx + (w - s) / 2.0 - 24.0 * k).round();
    draw_texture_ex(
        &sprites.fallen_king,
        kx,
        by + 126.0 * k,
        WHITE,
        DrawTextureParams {
            dest_size: Some(vec2(s, s)),
            ..Default::default()
        },
    );
    draw_texture_ex(
        &sprites.crown,
        kx + s - 4.0 * k,
        by + 150.0 * k,
        WHITE,
        DrawTextureParams {
            dest_size: Some(vec2(64.0 * k, 64.0 * k)),
            rotation: 0.45,
            ..Default::default()
        },
    );

    centre(&summary(me), 262.0, 22.0, DIM);
    centre("Score", 306.0, 22.0, DIM);
    centre(&me.score.to_string(), 346.0, 44.0, GOLD);
    if let Some(path) = dump {
        centre(&format!("Kept in {path}"), 382.0, 16.0, DIM);
    }
    centre(
        "n: new character    w: watch a friend",
        500.0 - 54.0,
        20.0,
        GOLD,
    );
    centre(
        "h: high scores    Esc: keep watching",
        500.0 - 26.0,
        20.0,
        GOLD,
    );
}

/// The whole message log, newest at the bottom; `scroll` lines up from the newest.
pub fn messages(model: &Model, scroll: usize) {
    let (sw, sh) = screen_size();
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
