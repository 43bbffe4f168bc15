//! The high-score screen, over the lobby or the game: the table the server sent, its keys, and
//! the game that just ended picked out. The logic is in `crate::scores`; this draws it.

use delve_protocol::ScoreEntry;
use macroquad::prelude::*;

use super::layout::screen_size;
use super::text::{draw_text, measure_text, wrap};
use super::theme::{BOX_EDGE, DIM, GOLD, WARN, outline};
use super::widgets::{self, Look, Tap};
use crate::keymap::{Command, Key};
use crate::scores::{self, ENDED, ENDED_ICON, NAME, Needs, ScoreBoard};

/// The game that just ended: a cool blue, apart from the gold of victories.
const MINE: Color = Color::new(0.45, 0.75, 1.0, 1.0);
/// Names of one's own games in the lobby's table.
const YOURS: Color = Color::new(0.98, 0.9, 0.7, 1.0);

/// Text size of the rows.
const SIZE: f32 = 20.0;
const ROW_H: f32 = 28.0;
/// Box height above the first row and below the last.
const TOP: f32 = 128.0;
const BOTTOM: f32 = 84.0;

/// The box the table is drawn in: x, y, w, h.
fn area() -> (f32, f32, f32, f32) {
    let (sw, sh) = screen_size();
    let w = (sw - 48.0).clamp(320.0, 1280.0);
    let h = (sh - 48.0).max(TOP + BOTTOM + ROW_H);
    (((sw - w) / 2.0).round(), ((sh - h) / 2.0).round(), w, h)
}

/// How many rows fit on the screen now.
pub fn rows_fit() -> usize {
    let (_, _, _, h) = area();
    (((h - TOP - BOTTOM) / ROW_H).floor() as usize).max(1)
}

/// What the table says beside its rows.
#[derive(Clone, Copy, Debug, Default)]
pub struct Context<'a> {
    /// Trouble with the connection, if any ("Lost the server ...").
    pub status: &'a str,
    /// The game runs its own server (`--solo`), which keeps no scores.
    pub solo: bool,
    /// The player's name, to pick out their games (in the lobby).
    pub you: Option<&'a str>,
}

/// Reads the keys of an open table, `len` rows long: Up/Down (or j/k), PgUp/PgDn, Home/End and
/// the wheel scroll. Returns `true` when it should close (Esc, Tab, h or q).
pub fn keys(board: &mut ScoreBoard, chars: &[char], len: usize, injected: &[Key]) -> bool {
    // A key pressed by hand, or by a script (`--script`).
    let is_key_pressed = |k: KeyCode| {
        macroquad::input::is_key_pressed(k)
            || injected.iter().any(|i| match i {
                Key::Named(n) => super::input::named_code(*n) == Some(k),
                Key::Char(_) => false,
            })
    };
    if is_key_pressed(KeyCode::Escape)
        || is_key_pressed(KeyCode::Tab)
        || chars.iter().any(|c| matches!(c, 'h' | 'H' | 'q' | 'Q'))
    {
        return true;
    }
    let rows = rows_fit();
    let page = rows.saturating_sub(1).max(1) as isize;
    let wheel = mouse_wheel().1;
    let mut delta = 0isize;
    if is_key_pressed(KeyCode::Up) || chars.contains(&'k') || wheel > 0.0 {
        delta -= 1;
    }
    if is_key_pressed(KeyCode::Down) || chars.contains(&'j') || wheel < 0.0 {
        delta += 1;
    }
    if is_key_pressed(KeyCode::PageUp) {
        delta -= page;
    }
    if is_key_pressed(KeyCode::PageDown) || chars.contains(&' ') {
        delta += page;
    }
    if is_key_pressed(KeyCode::Home) {
        delta = -(len as isize);
    }
    if is_key_pressed(KeyCode::End) {
        delta = len as isize;
    }
    board.scroll_by(delta, len, rows);
    board.layout(len, rows);
    false
}

/// Scrolls the table to a share of its length (a click on its scroll bar).
pub fn scroll_to(board: &mut ScoreBoard, share: f32, len: usize) {
    let rows = rows_fit();
    board.scroll = scores::clamp_scroll(
        (share * len.saturating_sub(rows) as f32).round() as usize,
        len,
        rows,
    );
}

fn text_w(text: &str, size: f32) -> f32 {
    measure_text(text, None, size as u16, 1.0).width
}

/// Draws the table over whatever is on the screen.
pub fn draw(board: &ScoreBoard, entries: &[ScoreEntry], ctx: &Context) {
    let (sw, sh) = screen_size();
    draw_rectangle(0.0, 0.0, sw, sh, Color::new(0.0, 0.0, 0.0, 0.6));
    widgets::add(Rect::new(0.0, 0.0, sw, sh), Tap::Block);
    let (bx, by, bw, bh) = area();
    draw_rectangle(bx, by, bw, bh, Color::new(0.07, 0.065, 0.095, 1.0));
    outline(bx, by, bw, bh, 2.0, BOX_EDGE);
    let x = bx + 24.0;
    let inner_w = bw - 48.0;
    draw_text("High scores", x, by + 46.0, 38.0, GOLD);
    let any = board.loaded() && !entries.is_empty();
    if any {
        let sub = scores::subtitle(entries.len(), ctx.solo);
        draw_text(&sub, x + inner_w - text_w(&sub, 20.0), by + 44.0, 20.0, DIM);
    }

    let measure = |t: &str| text_w(t, SIZE);
    let cols = scores::columns(
        inner_w,
        text_w("0", SIZE).max(1.0),
        Needs::of(entries, measure),
    );
    let head_y = by + 92.0;
    if any {
        for c in &cols {
            let w = text_w(c.title, 18.0);
            draw_text(c.title, x + c.text_x(w), head_y, 18.0, DIM);
        }
    }
    draw_line(x, head_y + 10.0, x + inner_w, head_y + 10.0, 1.0, DIM);

    let rows = rows_fit();
    let first_y = by + TOP;
    // A line centred in the box, wrapped where the box is narrow (a phone); returns the y
    // under it.
    let centre = |text: &str, mut y: f32, color: Color| {
        let chars = (inner_w / text_w("M", 22.0).max(1.0)).max(12.0) as usize;
        for line in wrap(text, chars) {
            let w = text_w(&line, 22.0).min(inner_w);
            draw_text(&line, x + (inner_w - w) / 2.0, y, 22.0, color);
            y += 28.0;
        }
        y
    };
    if let Some(err) = board.error() {
        centre(
            &format!("The server did not send its scores: {err}"),
            first_y + 40.0,
            WARN,
        );
    } else if !board.loaded() {
        centre(
            "Asking the server for its high scores...",
            first_y + 40.0,
            DIM,
        );
    } else if entries.is_empty() {
        let (text, why) = board.empty_text(ctx.solo);
        let y = centre(text, first_y + 40.0, WHITE);
        if let Some(why) = why {
            centre(why, y + 4.0, DIM);
        }
    }

    let start = scores::clamp_scroll(board.scroll, entries.len(), rows);
    let shown = if board.loaded() {
        start..(start + rows).min(entries.len())
    } else {
        0..0
    };
    for (line, k) in shown.clone().enumerate() {
        let e = &entries[k];
        let y = first_y + ROW_H * line as f32;
        let band = (x - 10.0, y - ROW_H + 8.0, inner_w + 20.0, ROW_H);
        let mine = board.mine_at() == Some(k);
        if mine {
            draw_rectangle(
                band.0,
                band.1,
                band.2,
                band.3,
                Color::new(0.2, 0.38, 0.6, 0.55),
            );
            outline(band.0, band.1, band.2, band.3, 2.0, MINE);
        } else if e.victory {
            draw_rectangle(
                band.0,
                band.1,
                band.2,
                band.3,
                Color::new(0.5, 0.38, 0.1, 0.35),
            );
        } else if k % 2 == 1 {
            draw_rectangle(
                band.0,
                band.1,
                band.2,
                band.3,
                Color::new(1.0, 1.0, 1.0, 0.03),
            );
        }
        let cells = scores::cells(k + 1, e);
        for (col, (c, text)) in cols.iter().zip(&cells).enumerate() {
            let mut c = *c;
            if col == ENDED && e.victory {
                // A crown before the words.
                crown(x + c.x + 6.0, y - 7.0);
                c.x += ENDED_ICON;
                c.w -= ENDED_ICON;
            }
            let text = scores::fit(text, c.w, measure);
            let color = match col {
                0 if mine => MINE,
                0 => DIM,
                NAME if ctx.you == Some(e.name.as_str()) => YOURS,
                ENDED if e.victory => GOLD,
                _ => WHITE,
            };
            draw_text(&text, x + c.text_x(text_w(&text, SIZE)), y, SIZE, color);
        }
    }

    // Under the table: where we are in it, the game that just ended, the keys.
    let foot = by + bh - 52.0;
    if shown.len() < entries.len() {
        let at = format!(
            "{}-{} of {}",
            shown.start + 1,
            shown.end,
            scores::grouped(entries.len() as u64)
        );
        draw_text(&at, x + inner_w - text_w(&at, 18.0), foot, 18.0, DIM);
    }
    if let Some(note) = board.mine_note(entries) {
        draw_rectangle(x, foot - 13.0, 14.0, 14.0, MINE);
        draw_text(&note, x + 22.0, foot, 20.0, MINE);
    } else if !ctx.status.is_empty() {
        draw_text(ctx.status, x, foot, 20.0, WARN);
    }
    let keys = if entries.len() > rows {
        "Up/Down, PgUp/PgDn, Home/End, the wheel or the bar: scroll"
    } else {
        ""
    };
    let close = Rect::new(x + inner_w - 120.0, by + bh - 40.0, 120.0, 28.0);
    widgets::button(
        close,
        "Esc",
        "Close",
        Tap::Command(Command::Cancel),
        Look::Plain,
    );
    draw_text(
        super::text::fit(keys, close.x - x - 16.0, 18),
        x,
        by + bh - 20.0,
        18.0,
        DIM,
    );
    // The bar along the table's right edge, in the box's margin.
    widgets::scroll_bar(
        Rect::new(
            bx + bw - 18.0,
            first_y - ROW_H + 8.0,
            10.0,
            ROW_H * rows as f32,
        ),
        shown.start,
        rows,
        entries.len(),
    );
}

/// A small gold crown before a victory's line.
fn crown(cx: f32, cy: f32) {
    draw_rectangle(cx - 5.0, cy + 1.0, 10.0, 4.0, GOLD);
    for dx in [-5.0, 0.0, 5.0] {
        draw_triangle(
            vec2(cx + dx - 2.5, cy + 1.0),
            vec2(cx + dx + 2.5, cy + 1.0),
            vec2(cx + dx, cy - 5.0),
            GOLD,
        );
    }
}
