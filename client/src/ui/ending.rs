//! The end of a game: the death screen and the victory screen, drawn over the map until the
//! player chooses what next (a new character, watching a friend, the high scores), by key or
//! by the buttons under the summary.

use delve_protocol::SelfView;
use macroquad::prelude::*;

use super::sprites::Sprites;
use super::text::{draw_text, measure_text, wrap};
use super::theme::{BOX_EDGE, DIM, GOLD, outline};
use super::widgets::{self, Tap};
use crate::keymap::Command;

/// The buttons under a summary, in two rows: what comes next, then hiding it or chatting.
fn choices(x: f32, y: f32, w: f32, k: f32, hide: &str) {
    let h = (32.0 * k).round().max(18.0);
    let gap = (10.0 * k).round();
    widgets::button_row(
        Rect::new(x, y, w, h),
        gap,
        &[
            ("n", "New character", Tap::Command(Command::NewCharacter)),
            ("w", "Watch a friend", Tap::Command(Command::Follow)),
            ("h", "High scores", Tap::Command(Command::Scores)),
        ],
    );
    widgets::button_row(
        Rect::new(x, y + h + gap, w, h),
        gap,
        &[
            ("Esc", hide, Tap::Command(Command::Cancel)),
            ("Enter", "Chat", Tap::Command(Command::Talk)),
        ],
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
        .min((area.h - 16.0) / 360.0)
        .min(1.0);
    let (w, h) = ((700.0 * k).round(), (360.0 * k).round());
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
    widgets::add(area, Tap::Block);
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
    choices(x, y + 164.0 * k, w - 48.0 * k, k, "Hide");
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
    widgets::add(area, Tap::Block);
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
    choices(
        bx + 30.0 * k,
        by + (500.0 - 104.0) * k,
        w - 60.0 * k,
        k,
        "Keep watching",
    );
}
