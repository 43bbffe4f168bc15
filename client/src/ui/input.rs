//! Keyboard to commands, by the key map ([`crate::keymap`]): the same table the help screen
//! prints and the key file changes. Keys bound to a straight move combine as chords: Up and
//! Right pressed together go north-east. A chord counts every key pressed within a few
//! milliseconds, so a tap shorter than a frame is never lost. Holding a direction walks: after a
//! short delay the move repeats, but only once the previous turn has resolved, so a held key
//! never piles up intents.
//!
//! Keys that are characters (`>`, `<`, `.`, letters) are read from the typed-character queue, so
//! they work whatever the keyboard layout, and Shift+`.` (`>`) is never taken for `.`.

use delve_protocol::Dir;
use macroquad::prelude::*;

pub use crate::keymap::Command;
use crate::keymap::{Key, KeyMap, Named};

/// How long a chord key waits for its partner.
const CHORD_WAIT: f64 = 0.055;
/// Hold time before a held direction starts repeating, and the pace after that.
const REPEAT_DELAY: f64 = 0.26;
const REPEAT_EVERY: f64 = 0.11;

/// macroquad's code for a key without a character.
pub(super) fn named_code(n: Named) -> Option<KeyCode> {
    Some(match n {
        Named::Up => KeyCode::Up,
        Named::Down => KeyCode::Down,
        Named::Left => KeyCode::Left,
        Named::Right => KeyCode::Right,
        Named::Home => KeyCode::Home,
        Named::End => KeyCode::End,
        Named::PageUp => KeyCode::PageUp,
        Named::PageDown => KeyCode::PageDown,
        Named::Tab => KeyCode::Tab,
        Named::Enter => KeyCode::Enter,
        Named::Escape => KeyCode::Escape,
        Named::KpEnter => KeyCode::KpEnter,
        Named::Kp(n) => [
            KeyCode::Kp0,
            KeyCode::Kp1,
            KeyCode::Kp2,
            KeyCode::Kp3,
            KeyCode::Kp4,
            KeyCode::Kp5,
            KeyCode::Kp6,
            KeyCode::Kp7,
            KeyCode::Kp8,
            KeyCode::Kp9,
        ]
        .get(usize::from(n))
        .copied()?,
        Named::F(n) => [
            KeyCode::F1,
            KeyCode::F2,
            KeyCode::F3,
            KeyCode::F4,
            KeyCode::F5,
            KeyCode::F6,
            KeyCode::F7,
            KeyCode::F8,
            KeyCode::F9,
            KeyCode::F10,
            KeyCode::F11,
            KeyCode::F12,
        ]
        .get(usize::from(n).wrapping_sub(1))
        .copied()?,
    })
}

/// The physical key that types a character, where there is an obvious one: only needed to tell
/// whether a held move key is still down.
fn char_code(c: char) -> Option<KeyCode> {
    const LETTERS: [KeyCode; 26] = [
        KeyCode::A,
        KeyCode::B,
        KeyCode::C,
        KeyCode::D,
        KeyCode::E,
        KeyCode::F,
        KeyCode::G,
        KeyCode::H,
        KeyCode::I,
        KeyCode::J,
        KeyCode::K,
        KeyCode::L,
        KeyCode::M,
        KeyCode::N,
        KeyCode::O,
        KeyCode::P,
        KeyCode::Q,
        KeyCode::R,
        KeyCode::S,
        KeyCode::T,
        KeyCode::U,
        KeyCode::V,
        KeyCode::W,
        KeyCode::X,
        KeyCode::Y,
        KeyCode::Z,
    ];
    match c {
        'a'..='z' => Some(LETTERS[(c as u8 - b'a') as usize]),
        '.' => Some(KeyCode::Period),
        ',' => Some(KeyCode::Comma),
        ' ' => Some(KeyCode::Space),
        _ => None,
    }
}

/// A change of the interface's size asked for with Ctrl and `+`, `-` or `0` (natively: in a
/// browser those keys zoom the page, which scales the game with it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resize {
    Larger,
    Smaller,
    Reset,
}

/// The size change asked for this frame, if any.
pub fn resize_pressed() -> Option<Resize> {
    if cfg!(target_arch = "wasm32") || !ctrl_down() {
        return None;
    }
    let any = |keys: &[KeyCode]| keys.iter().any(|&k| is_key_pressed(k));
    if any(&[KeyCode::Equal, KeyCode::KpAdd]) {
        Some(Resize::Larger)
    } else if any(&[KeyCode::Minus, KeyCode::KpSubtract]) {
        Some(Resize::Smaller)
    } else if any(&[KeyCode::Key0, KeyCode::Kp0]) {
        Some(Resize::Reset)
    } else {
        None
    }
}

fn ctrl_down() -> bool {
    is_key_down(KeyCode::LeftControl) || is_key_down(KeyCode::RightControl)
}

fn is_down(key: Key) -> bool {
    match key {
        Key::Char(c) => char_code(c).is_some_and(is_key_down),
        Key::Named(n) => named_code(n).is_some_and(is_key_down),
    }
}

#[derive(Debug, Default)]
pub struct Input {
    pub keys: KeyMap,
    /// A chord in the making: when its first key went down and the direction of every chord key
    /// pressed since.
    chord: Option<(f64, i32, i32)>,
    /// The command being held down, when it was first given and when it last fired.
    held: Option<(Command, f64, f64)>,
    /// Keys pressed by a script (`--script`) for the next frame, as if by a hand.
    pub injected: Vec<Key>,
}

impl Input {
    pub fn new(keys: KeyMap) -> Input {
        Input {
            keys,
            ..Input::default()
        }
    }

    /// The keys pressed this frame: typed characters, then keys without one.
    fn pressed(&self, chars: &[char]) -> Vec<Key> {
        let mut out: Vec<Key> = chars
            .iter()
            .filter(|c| !c.is_control())
            .map(|c| Key::Char(c.to_ascii_lowercase()))
            .collect();
        for k in self.keys.all_keys() {
            if let Key::Named(n) = k
                && named_code(n).is_some_and(is_key_pressed)
            {
                out.push(k);
            }
        }
        out.extend(self.injected.iter().filter(|k| matches!(k, Key::Named(_))));
        out
    }

    /// Whether a key without a character was pressed this frame (by hand or by a script).
    pub fn named_pressed(&self, n: Named) -> bool {
        named_code(n).is_some_and(is_key_pressed) || self.injected.contains(&Key::Named(n))
    }

    /// The characters a script types this frame.
    pub fn injected_chars(&self) -> Vec<char> {
        self.injected
            .iter()
            .filter_map(|k| match k {
                Key::Char(c) => Some(*c),
                Key::Named(_) => None,
            })
            .collect()
    }

    /// The commands of this frame, from its typed characters (`chars`) and keys. While `modal`
    /// (a dialog is open, or nobody is being driven) the dialog bindings apply; `can_repeat` is
    /// false while our last intent's turn has not resolved yet. The second value says whether
    /// any key at all was pressed (a key stops travel).
    pub fn poll(
        &mut self,
        now: f64,
        can_repeat: bool,
        modal: bool,
        chars: &[char],
    ) -> (Vec<Command>, bool) {
        let ctrl = ctrl_down();
        // Ctrl with a character is not a game key (Ctrl + resizes the interface; `+` alone
        // spends a stat point).
        let pressed = if ctrl {
            self.pressed(&[])
        } else {
            self.pressed(chars)
        };
        let any = !pressed.is_empty() || get_last_key_pressed().is_some();
        let mut out = Vec::new();
        if modal {
            self.chord = None;
            self.held = None;
        }
        for key in pressed {
            for cmd in self.keys.commands(key, modal) {
                match cmd {
                    Command::Move(_) | Command::Wait if ctrl => {}
                    Command::Move(d) if d.delta().0 == 0 || d.delta().1 == 0 => {
                        // A straight move waits a moment for a partner key.
                        let (kx, ky) = d.delta();
                        let c = self.chord.get_or_insert((now, 0, 0));
                        if kx != 0 {
                            c.1 = kx;
                        }
                        if ky != 0 {
                            c.2 = ky;
                        }
                    }
                    Command::Move(_) | Command::Wait => {
                        self.held = Some((cmd, now, now));
                        self.chord = None;
                        out.push(cmd);
                    }
                    _ => out.push(cmd),
                }
            }
        }
        if let Some((start, dx, dy)) = self.chord {
            // Both axes pressed: the diagonal is complete, no need to wait longer.
            if (dx != 0 && dy != 0) || now - start >= CHORD_WAIT {
                self.chord = None;
                if let Some(d) = Dir::from_delta(dx, dy) {
                    let cmd = Command::Move(d);
                    self.held = Some((cmd, now, now));
                    out.push(cmd);
                }
            }
        } else if !modal
            && !ctrl
            && out.is_empty()
            && let Some(cmd) = self.repeat(now, can_repeat)
        {
            out.push(cmd);
        }
        (out, any)
    }

    /// Whether a straight move is waiting for a partner key (it is given a moment later).
    pub fn chord_pending(&self) -> bool {
        self.chord.is_some()
    }

    /// Forgets keys held down: a screen that reads the keys itself has taken over.
    pub fn reset(&mut self) {
        self.chord = None;
        self.held = None;
    }

    /// Whether any key bound to `cmd` is down now.
    fn held_down(&self, cmd: Command) -> bool {
        self.keys.keys_of(cmd).into_iter().any(is_down)
    }

    /// The direction of every straight-move key held now, summed (opposites cancel).
    fn chord_dir(&self) -> Option<Dir> {
        let (mut dx, mut dy) = (0, 0);
        for d in [Dir::N, Dir::S, Dir::W, Dir::E] {
            if self.held_down(Command::Move(d)) {
                let (x, y) = d.delta();
                dx += x;
                dy += y;
            }
        }
        Dir::from_delta(dx.signum(), dy.signum())
    }

    fn repeat(&mut self, now: f64, can_repeat: bool) -> Option<Command> {
        let (cmd, since, last) = self.held?;
        let still_held = match cmd {
            Command::Move(d) => self.held_down(cmd) || self.chord_dir() == Some(d),
            Command::Wait => self.held_down(cmd),
            _ => false,
        };
        if !still_held {
            // Held chord keys may have changed direction (let go of one of two).
            self.held = self.chord_dir().map(|d| (Command::Move(d), since, last));
            return None;
        }
        if can_repeat && now - since >= REPEAT_DELAY && now - last >= REPEAT_EVERY {
            self.held = Some((cmd, since, now));
            return Some(cmd);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_the_map_can_name_has_a_code() {
        for k in KeyMap::default().all_keys() {
            match k {
                Key::Named(n) => assert!(named_code(n).is_some(), "{k}"),
                // Move and wait keys must be known to be held, for walking by holding them.
                Key::Char(_) => {}
            }
        }
        for n in 0..=9 {
            assert!(named_code(Named::Kp(n)).is_some());
        }
        for n in 1..=12 {
            assert!(named_code(Named::F(n)).is_some());
        }
        for c in "hjklyubnwasd.".chars() {
            assert!(char_code(c).is_some(), "{c}");
        }
    }
}
