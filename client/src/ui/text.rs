//! Text: drawn sharp at any scale, and laid out to fit (lines wrapped at spaces, a line cut
//! with an ellipsis).
//!
//! [`draw_text`] and [`measure_text`] take the same arguments as macroquad's and mean the same,
//! in the units of the space being drawn in ([`crate::ui::layout`]); modules that draw import
//! them in place of macroquad's. Under a camera macroquad's own would rasterize the glyphs at
//! the size asked for and stretch them (blurred at a UI scale of 2); these rasterize them at
//! the size they end up on screen.
//!
//! Each pixel size has a font of its own ([`font_at`]), and so a glyph atlas of its own. With
//! one atlas for every size, macroquad's atlas grew by doubling (its check for room is off by
//! its gap, so a glyph that ends a row within two pixels of the edge doubles the atlas and
//! places every glyph again, with the same chance each row): with the interface's sizes at
//! three scales it reached 16384 pixels square (a gigabyte) and sometimes overflowed its u16
//! width, a panic. One size's glyphs fill a row or two of a small atlas.

use std::cell::RefCell;
use std::collections::HashMap;

use macroquad::prelude::*;
use macroquad::text::{Font, TextDimensions, TextParams, draw_text_ex, load_ttf_font_from_bytes};

use super::layout;

/// macroquad's own font (ProggyClean, by Tristan Grimmer, free under the MIT licence), the one
/// it draws with when given none: loaded once per pixel size.
const FONT: &[u8] = include_bytes!("../../assets/ProggyClean.ttf");

thread_local! {
    /// The font of each rasterized size, made on first use and kept for the program's life.
    static FONTS: RefCell<HashMap<u16, &'static Font>> = RefCell::new(HashMap::new());
}

/// The font glyphs rasterized at `size` pixels come from, with an atlas of their own.
fn font_at(size: u16) -> &'static Font {
    FONTS.with_borrow_mut(|fonts| {
        *fonts.entry(size).or_insert_with(|| {
            let mut font = load_ttf_font_from_bytes(FONT).expect("macroquad's font loads");
            // As macroquad's default font.
            font.set_filter(FilterMode::Linear);
            Box::leak(Box::new(font))
        })
    })
}

/// Draws text with its baseline's left end at (`x`, `y`), `font_size` units high.
pub fn draw_text(
    text: impl AsRef<str>,
    x: f32,
    y: f32,
    font_size: f32,
    color: Color,
) -> TextDimensions {
    let f = layout::factor();
    let size = rasterized(font_size, f);
    draw_text_ex(
        text,
        x,
        y,
        TextParams {
            font: Some(font_at(size)),
            font_size: size,
            font_scale: 1.0 / f,
            color,
            ..Default::default()
        },
    )
}

/// How large text would be drawn, in the current space's units.
pub fn measure_text(
    text: impl AsRef<str>,
    font: Option<&Font>,
    font_size: u16,
    font_scale: f32,
) -> TextDimensions {
    let f = layout::factor();
    let size = rasterized(f32::from(font_size), f);
    macroquad::text::measure_text(
        text,
        Some(font.unwrap_or_else(|| font_at(size))),
        size,
        font_scale / f,
    )
}

/// The pixel size glyphs of `size` units are rasterized at under a factor of `f`.
fn rasterized(size: f32, f: f32) -> u16 {
    if f == 1.0 {
        // As macroquad's own draw_text: the pictures drawn at scale 1 stay as they were.
        size as u16
    } else {
        (size * f).round() as u16
    }
}

/// The text sizes the interface draws in, in units.
const SIZES: [u16; 18] = [
    12, 14, 15, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 38, 40, 44, 48, 64,
];

/// Puts every printable ASCII glyph, at the sizes the interface draws text in at these scales,
/// into the atlas of its size's font before anything is drawn with them. A glyph met for the first
/// time mid-frame can grow the atlas, and macroquad then deletes the atlas texture that text
/// drawn earlier in the same frame still uses: the browser logged "glBindTexture called with an
/// already deleted texture", and that text could be missing for a frame. Called at start and
/// whenever the scales change.
pub fn warm(scales: layout::Scales) {
    let chars: Vec<char> = (' '..='~').collect();
    let dpi = screen_dpi_scale();
    let mut done = Vec::new();
    for f in [1.0, scales.ui, scales.screens] {
        for size in SIZES {
            let size = rasterized(f32::from(size), f);
            if !done.contains(&size) {
                done.push(size);
                // What draw_text_ex asks the atlas for: the size times the display's density.
                let px = (f32::from(size) * dpi).ceil() as u16;
                font_at(size).populate_font_cache(&chars, px);
            }
        }
    }
}

/// Splits text into lines of at most `width` characters at spaces. A word longer than a line
/// (a file's path on a phone) is cut into pieces of the width, rather than running out of its
/// box.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    let pieces = text.split_whitespace().flat_map(|word| {
        let chars: Vec<char> = word.chars().collect();
        chars
            .chunks(width)
            .map(String::from_iter)
            .collect::<Vec<_>>()
    });
    for word in pieces {
        let word = word.as_str();
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// Text cut to fit `w` pixels at `size`, with an ellipsis.
pub fn fit(text: &str, w: f32, size: u16) -> String {
    if measure_text(text, None, size, 1.0).width <= w {
        return text.to_string();
    }
    let mut s: String = text.to_string();
    while !s.is_empty() && measure_text(format!("{s}...").as_str(), None, size, 1.0).width > w {
        s.pop();
    }
    format!("{s}...")
}

/// `s` with its first letter in capitals ("killed by ..." -> "Killed by ...").
pub fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_breaks_at_spaces_within_the_width() {
        assert_eq!(
            wrap("the quick brown fox jumps", 10),
            ["the quick", "brown fox", "jumps"]
        );
        assert_eq!(wrap("", 10), Vec::<String>::new());
        // A word longer than the width is cut into lines of the width.
        assert_eq!(
            wrap("a extraordinarily b", 5),
            ["a", "extra", "ordin", "arily", "b"]
        );
        assert_eq!(
            wrap("kept in /home/ann/.local/delve/ann.txt", 12),
            ["kept in", "/home/ann/.l", "ocal/delve/a", "nn.txt"]
        );
    }
}
