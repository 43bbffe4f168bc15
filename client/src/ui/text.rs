//! Text laid out to fit: lines wrapped at spaces, a line cut with an ellipsis.

use macroquad::prelude::*;

/// Splits text into lines of at most `width` characters at spaces.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
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
        // A word longer than the width stands alone rather than being cut.
        assert_eq!(
            wrap("a extraordinarily b", 5),
            ["a", "extraordinarily", "b"]
        );
    }
}
