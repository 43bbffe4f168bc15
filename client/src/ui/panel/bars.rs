//! The panel's small parts: a labelled bar (HP, XP), the colour of health, and the badges and
//! icons of status effects (also on the character sheet).

use delve_protocol::Effect;
use macroquad::prelude::*;

use crate::ui::text::{draw_text, measure_text};
use crate::ui::theme::{PANEL_EDGE, effect_look, outline};

/// A bar `frac` full, with its text centred on it.
pub fn bar(x: f32, y: f32, w: f32, h: f32, frac: f32, fill: Color, text: &str) {
    draw_rectangle(x, y, w, h, Color::new(0.0, 0.0, 0.0, 0.6));
    draw_rectangle(x, y, w * frac.clamp(0.0, 1.0), h, fill);
    outline(x, y, w, h, 1.0, PANEL_EDGE);
    let dim = measure_text(text, None, 16, 1.0);
    draw_text(
        text,
        (x + (w - dim.width) / 2.0).round(),
        (y + h / 2.0 + dim.height / 2.0).round(),
        16.0,
        WHITE,
    );
}

/// The HP bar's colour: green, amber below half, red below a quarter.
pub fn hp_color(frac: f32) -> Color {
    if frac > 0.5 {
        Color::from_rgba(60, 170, 80, 255)
    } else if frac > 0.25 {
        Color::from_rgba(220, 160, 40, 255)
    } else {
        Color::from_rgba(210, 50, 50, 255)
    }
}

/// The XP bar's colour.
pub const XP: Color = Color::new(70.0 / 255.0, 110.0 / 255.0, 220.0 / 255.0, 1.0);

/// How far through the current level `me` is, from the XP it began at to the next level's.
pub fn xp_frac(me: &delve_protocol::SelfView) -> f32 {
    let span = me.xp_next.saturating_sub(me.xp_level).max(1);
    me.xp.saturating_sub(me.xp_level) as f32 / span as f32
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
pub fn draw_effects(effects: &[Effect], x: f32, y: f32, w: f32, now: f64) -> f32 {
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
        outline(
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
