//! A one-line text field: the chat line and the lobby's prompts. It takes the characters typed
//! this frame (the caller reads them once and hands them out), Backspace, and nothing else.

use macroquad::prelude::*;

use super::text::draw_text;

/// This frame's typed characters, read once and handed to whoever needs them.
pub fn typed() -> Vec<char> {
    std::iter::from_fn(get_char_pressed).collect()
}

#[derive(Clone, Debug)]
pub struct TextInput {
    pub text: String,
    max: usize,
    /// Shown as dots (passwords).
    secret: bool,
}

impl TextInput {
    pub fn new(max: usize, secret: bool) -> TextInput {
        TextInput {
            text: String::new(),
            max,
            secret,
        }
    }

    /// The most characters the field takes.
    pub fn max(&self) -> usize {
        self.max
    }

    /// Whether what is typed is shown as dots (a password).
    pub fn is_secret(&self) -> bool {
        self.secret
    }

    /// Takes this frame's typed characters; control characters are ignored.
    pub fn feed(&mut self, chars: &[char]) {
        for &c in chars {
            if !c.is_control() && self.text.chars().count() < self.max {
                self.text.push(c);
            }
        }
        if is_key_pressed(KeyCode::Backspace) {
            self.text.pop();
        }
    }

    /// Draws the field with its label at (x, y), `w` wide.
    pub fn draw(&self, label: &str, x: f32, y: f32, w: f32) {
        draw_rectangle(x, y - 22.0, w, 30.0, Color::new(0.04, 0.035, 0.06, 1.0));
        super::theme::outline(x, y - 22.0, w, 30.0, 1.0, Color::new(0.45, 0.4, 0.55, 1.0));
        let shown = if self.secret {
            "*".repeat(self.text.chars().count())
        } else {
            self.text.clone()
        };
        let caret = if (get_time() * 2.0) as i64 % 2 == 0 {
            "_"
        } else {
            " "
        };
        draw_text(format!("{label}{shown}{caret}"), x + 8.0, y, 20.0, WHITE);
    }
}
