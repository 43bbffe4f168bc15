//! The end of a game: the death screen and the victory screen, drawn over the map until the
//! player chooses what next (a new character, watching a friend, the high scores), by key or
//! by the buttons under the summary. In a narrow map area (a phone held upright) the summary is
//! a column at full size, its lines wrapped and its buttons a finger's height, rather than the
//! wide box shrunk to a sliver.

use delve_protocol::SelfView;
use macroquad::prelude::*;

use super::sprites::Sprites;
use super::text::{capitalise, draw_text, measure_text, wrap};
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
    let [a, b] = summary_parts(me);
    format!("{a}   {b}")
}

/// The numbers of a finished game, in two halves: where, and how much.
fn summary_parts(me: &SelfView) -> [String; 2] {
    let s = |n: u64| if n == 1 { "" } else { "s" };
    [
        format!("Level {}   deepest floor {}", me.level, me.deepest),
        format!(
            "{} kill{}   {} turn{}",
            me.kills,
            s(u64::from(me.kills)),
            me.turns,
            s(me.turns)
        ),
    ]
}

/// Below this width (in the screens' units) the summaries are drawn as a column.
const NARROW: f32 = 560.0;

/// A finished game's summary as a column across a narrow `area`: `lines` of (text, size,
/// colour) wrapped to the width, an optional picture under the first two, then the buttons,
/// one or two to a row at a finger's height on a touch screen.
fn column(
    area: Rect,
    lines: &[(String, f32, Color)],
    picture: Option<(&Texture2D, f32)>,
    edge: Color,
    hide: &str,
) {
    let m = 8.0;
    let (x, w) = (area.x + m, area.w - 2.0 * m);
    let pad = 16.0;
    let bh = if super::layout::touch() { 44.0 } else { 32.0 };
    // The lines as they wrap, to know the box's height before drawing it.
    let mut rows: Vec<(String, f32, Color)> = Vec::new();
    for (text, size, color) in lines {
        let chars = ((w - 2.0 * pad) / (*size * 0.62)).max(12.0) as usize;
        for part in wrap(text, chars) {
            rows.push((part, *size, *color));
        }
    }
    let text_h: f32 = rows.iter().map(|(_, size, _)| size * 1.3).sum();
    let pic_h = picture.map_or(0.0, |(_, s)| s + 12.0);
    let buttons_h = 3.0 * bh + 2.0 * 8.0;
    let h = (pad + text_h + pic_h + 16.0 + buttons_h + pad).min(area.h - 2.0 * m);
    let y0 = (area.y + (area.h - h) / 2.0).max(area.y + m).round();
    draw_rectangle(x, y0, w, h, Color::new(0.07, 0.065, 0.095, 0.97));
    outline(x, y0, w, h, 2.0, edge);
    let mut y = y0 + pad;
    for (k, (text, size, color)) in rows.iter().enumerate() {
        y += size * 1.3;
        draw_text(text, x + pad, (y - size * 0.3).round(), *size, *color);
        if k == 1
            && let Some((tex, s)) = picture
        {
            draw_texture_ex(
                tex,
                (x + (w - s) / 2.0).round(),
                y + 6.0,
                WHITE,
                DrawTextureParams {
                    dest_size: Some(vec2(s, s)),
                    ..Default::default()
                },
            );
            y += s + 12.0;
        }
    }
    let (bx, bw) = (x + pad, w - 2.0 * pad);
    let by = (y0 + h - pad - buttons_h).max(y + 16.0);
    widgets::button_row(
        Rect::new(bx, by, bw, bh),
        8.0,
        &[("n", "New character", Tap::Command(Command::NewCharacter))],
    );
    widgets::button_row(
        Rect::new(bx, by + bh + 8.0, bw, bh),
        8.0,
        &[
            ("w", "Watch a friend", Tap::Command(Command::Follow)),
            ("h", "High scores", Tap::Command(Command::Scores)),
        ],
    );
    widgets::button_row(
        Rect::new(bx, by + 2.0 * (bh + 8.0), bw, bh),
        8.0,
        &[
            ("Esc", hide, Tap::Command(Command::Cancel)),
            ("Enter", "Chat", Tap::Command(Command::Talk)),
        ],
    );
}

/// The death cause, as a sentence.
fn cause_line(me: &SelfView) -> String {
    format!("{}.", capitalise(me.cause.as_deref().unwrap_or("killed")))
}

/// The map dimmed under a summary, and kept from clicks.
fn shade(area: Rect, alpha: f32) {
    draw_rectangle(
        area.x,
        area.y,
        area.w,
        area.h,
        Color::new(0.0, 0.0, 0.0, alpha),
    );
    widgets::add(area, Tap::Block);
}

/// While a friend can still bring the fallen character back: what it takes and for how long,
/// and that a new character is still there for the taking.
pub fn hope(me: &SelfView) -> Option<String> {
    let n = me.revive_turns?;
    let turns = if n == 1 { "turn" } else { "turns" };
    Some(format!(
        "A friend can still bring you back with a Health Pack on your remains: {n} {turns} \
         left. Or start anew (n) now."
    ))
}

/// The death screen, inside the map area (`area`), scaled down to fit a small window. `dump`
/// names the character dump saved for this game, if one was.
pub fn death(me: &SelfView, area: Rect, dump: Option<&str>) {
    let red = Color::from_rgba(255, 64, 64, 255);
    let ghost = match (hope(me), dump) {
        (Some(words), _) => words,
        (None, Some(path)) => format!("Your story is kept in {path}"),
        (None, None) => "Your ghost watches the floor where you fell.".to_string(),
    };
    let title = if me.revive_turns.is_some() {
        "You have fallen"
    } else {
        "You died"
    };
    if area.w < NARROW {
        shade(area, 0.55);
        let [place, tally] = summary_parts(me);
        let lines = [
            (title.to_string(), 34.0, red),
            (cause_line(me), 22.0, WHITE),
            (place, 20.0, DIM),
            (tally, 20.0, DIM),
            (format!("Score {}", me.score), 26.0, GOLD),
            (ghost, 16.0, DIM),
        ];
        column(area, &lines, None, BOX_EDGE, "Hide");
        return;
    }
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
    let (x, y) = (x + 24.0 * k, y + 42.0 * k);
    draw_text(title, x, y, 34.0 * k, red);
    let y = y + 32.0 * k;
    draw_text(cause_line(me), x, y, 24.0 * k, WHITE);
    draw_text(summary(me), x, y + 40.0 * k, 22.0 * k, DIM);
    draw_text("Score", x, y + 80.0 * k, 22.0 * k, DIM);
    draw_text(
        me.score.to_string(),
        x + 70.0 * k,
        y + 80.0 * k,
        28.0 * k,
        GOLD,
    );
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
    if area.w < NARROW {
        shade(area, 0.6);
        let [place, tally] = summary_parts(me);
        let mut lines = vec![
            ("VICTORY".to_string(), 48.0, GOLD),
            ("The Mouse King is slain.".to_string(), 22.0, WHITE),
            (place, 20.0, DIM),
            (tally, 20.0, DIM),
            (format!("Score {}", me.score), 30.0, GOLD),
        ];
        if let Some(path) = dump {
            lines.push((format!("Kept in {path}"), 16.0, DIM));
        }
        column(
            area,
            &lines,
            Some((&sprites.fallen_king, 96.0)),
            GOLD,
            "Keep watching",
        );
        return;
    }
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

#[cfg(test)]
mod tests {
    use super::hope;
    use crate::travel::tests::view_of;

    #[test]
    fn the_fallen_hear_how_long_a_friend_has_and_that_they_may_start_anew() {
        let mut me = view_of(&["@"]).me;
        me.alive = false;
        assert_eq!(hope(&me), None);
        me.revive_turns = Some(1);
        let words = hope(&me).unwrap();
        assert!(words.contains("1 turn left"), "{words}");
        assert!(words.contains("start anew"), "{words}");
    }
}
