//! Keyboard to commands. Numpad, vi-keys and Home/PgUp/End/PgDn give all eight directions with
//! one key. Arrow keys and WASD give the diagonals as chords: press Up and Right together for
//! north-east. A chord counts every key pressed within a few milliseconds, so a tap shorter than a
//! frame is never lost. Holding a direction walks: after a short delay the move repeats, but
//! only once the previous turn has resolved, so a held key never piles up intents.
//!
//! Keys that are characters (`>`, `<`, `.`, `c`, ...) are read from the typed-character queue,
//! so they work whatever the keyboard layout, and Shift+`.` (`>`) is never taken for `.`.

use delve_protocol::Dir;
use macroquad::prelude::*;

/// How long a chord key waits for its partner.
const CHORD_WAIT: f64 = 0.055;
/// Hold time before a held direction starts repeating, and the pace after that.
const REPEAT_DELAY: f64 = 0.26;
const REPEAT_EVERY: f64 = 0.11;

/// What the player asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Move(Dir),
    Wait,
    Descend,
    Ascend,
    /// Toggle the character screen.
    Character,
    /// Toggle the message history.
    Messages,
    /// Open the level-up dialog.
    LevelUp,
    /// Open the inventory screen.
    Inventory,
    /// Pick up what lies here.
    PickUp,
    /// A number key (1-9), for choosing in a dialog.
    Choose(u8),
    /// Open the chat line.
    Talk,
    /// Follow the next player's view (the dead, watchers).
    Follow,
    /// Start a new character (the dead).
    NewCharacter,
    /// Open the high-score table.
    Scores,
    Confirm,
    Cancel,
}

/// Keys that mean one direction (or waiting) on their own.
const SINGLE: [(KeyCode, Option<Dir>); 21] = [
    (KeyCode::Kp8, Some(Dir::N)),
    (KeyCode::Kp9, Some(Dir::Ne)),
    (KeyCode::Kp6, Some(Dir::E)),
    (KeyCode::Kp3, Some(Dir::Se)),
    (KeyCode::Kp2, Some(Dir::S)),
    (KeyCode::Kp1, Some(Dir::Sw)),
    (KeyCode::Kp4, Some(Dir::W)),
    (KeyCode::Kp7, Some(Dir::Nw)),
    (KeyCode::Kp5, None),
    (KeyCode::K, Some(Dir::N)),
    (KeyCode::U, Some(Dir::Ne)),
    (KeyCode::L, Some(Dir::E)),
    (KeyCode::N, Some(Dir::Se)),
    (KeyCode::J, Some(Dir::S)),
    (KeyCode::B, Some(Dir::Sw)),
    (KeyCode::H, Some(Dir::W)),
    (KeyCode::Y, Some(Dir::Nw)),
    (KeyCode::Home, Some(Dir::Nw)),
    (KeyCode::PageUp, Some(Dir::Ne)),
    (KeyCode::End, Some(Dir::Sw)),
    (KeyCode::PageDown, Some(Dir::Se)),
];

/// Keys that combine: (key, dx, dy).
const CHORD: [(KeyCode, i32, i32); 8] = [
    (KeyCode::Up, 0, -1),
    (KeyCode::Down, 0, 1),
    (KeyCode::Left, -1, 0),
    (KeyCode::Right, 1, 0),
    (KeyCode::W, 0, -1),
    (KeyCode::S, 0, 1),
    (KeyCode::A, -1, 0),
    (KeyCode::D, 1, 0),
];

/// What a typed character means. While `modal` (a dialog is open, or nobody is being driven) a
/// few letters change meaning: `w` follows the next player, `n` starts a new character, `h`
/// opens the high scores, digits choose. (Tab opens the high scores at any time.)
pub fn char_command(c: char, modal: bool) -> Option<Command> {
    Some(match c {
        '>' => Command::Descend,
        '<' => Command::Ascend,
        '.' => Command::Wait,
        'c' | 'C' => Command::Character,
        'm' | 'M' => Command::Messages,
        'p' | 'P' | '+' => Command::LevelUp,
        'i' | 'I' => Command::Inventory,
        'g' | 'G' | ',' => Command::PickUp,
        't' | 'T' => Command::Talk,
        'w' | 'W' if modal => Command::Follow,
        'n' | 'N' if modal => Command::NewCharacter,
        'h' | 'H' if modal => Command::Scores,
        '1'..='9' if modal => Command::Choose(c as u8 - b'0'),
        _ => return None,
    })
}

fn command_of(dir: Option<Dir>) -> Command {
    dir.map_or(Command::Wait, Command::Move)
}

/// The direction of every chord key held now, summed (opposites cancel).
fn chord_dir() -> Option<Dir> {
    let (mut dx, mut dy) = (0, 0);
    for (key, kx, ky) in CHORD {
        if is_key_down(key) {
            dx += kx;
            dy += ky;
        }
    }
    Dir::from_delta(dx.signum(), dy.signum())
}

#[derive(Debug, Default)]
pub struct Input {
    /// A chord in the making: when its first key went down and the direction of every chord key
    /// pressed since.
    chord: Option<(f64, i32, i32)>,
    /// The command being held down, when it was first given and when it last fired.
    held: Option<(Command, f64, f64)>,
}

impl Input {
    /// The commands of this frame, from its typed characters (`chars`) and keys. While `modal`
    /// (a dialog is open) only dialog keys count; `can_repeat` is false while our last intent's
    /// turn has not resolved yet.
    pub fn poll(
        &mut self,
        now: f64,
        can_repeat: bool,
        modal: bool,
        chars: &[char],
    ) -> Vec<Command> {
        let mut out = Vec::new();
        out.extend(chars.iter().filter_map(|&c| char_command(c, modal)));
        if is_key_pressed(KeyCode::Escape) {
            out.push(Command::Cancel);
        }
        if is_key_pressed(KeyCode::Enter) || is_key_pressed(KeyCode::KpEnter) {
            out.push(Command::Confirm);
        }
        if is_key_pressed(KeyCode::Tab) {
            out.push(Command::Scores);
        }
        if modal {
            self.chord = None;
            self.held = None;
            out.retain(|c| {
                !matches!(
                    c,
                    Command::Move(_)
                        | Command::Wait
                        | Command::Descend
                        | Command::Ascend
                        | Command::PickUp
                )
            });
            return out;
        }
        if is_key_down(KeyCode::LeftControl) || is_key_down(KeyCode::RightControl) {
            return out;
        }
        if let Some(m) = self.movement(now, can_repeat) {
            out.push(m);
        }
        if out.contains(&Command::Wait) {
            self.held = Some((Command::Wait, now, now));
        }
        out
    }

    /// Forgets keys held down: a screen that reads the keys itself has taken over.
    pub fn reset(&mut self) {
        self.chord = None;
        self.held = None;
    }

    fn movement(&mut self, now: f64, can_repeat: bool) -> Option<Command> {
        for (key, dir) in SINGLE {
            if is_key_pressed(key) {
                let cmd = command_of(dir);
                self.held = Some((cmd, now, now));
                self.chord = None;
                return Some(cmd);
            }
        }
        for (key, kx, ky) in CHORD {
            if is_key_pressed(key) {
                let c = self.chord.get_or_insert((now, 0, 0));
                if kx != 0 {
                    c.1 = kx;
                }
                if ky != 0 {
                    c.2 = ky;
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
                    return Some(cmd);
                }
            }
        }
        self.repeat(now, can_repeat)
    }

    fn repeat(&mut self, now: f64, can_repeat: bool) -> Option<Command> {
        let (cmd, since, last) = self.held?;
        let still_held = match cmd {
            Command::Move(d) => {
                SINGLE
                    .iter()
                    .any(|(k, sd)| *sd == Some(d) && is_key_down(*k))
                    || chord_dir() == Some(d)
            }
            Command::Wait => is_key_down(KeyCode::Kp5) || is_key_down(KeyCode::Period),
            _ => false,
        };
        if !still_held {
            // Held chord keys may have changed direction (let go of one of two).
            self.held = chord_dir().map(|d| (Command::Move(d), since, last));
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
    fn pack_keys_open_the_inventory_and_pick_up() {
        for c in ['i', 'I'] {
            assert_eq!(char_command(c, false), Some(Command::Inventory));
        }
        for c in ['g', 'G', ','] {
            assert_eq!(char_command(c, false), Some(Command::PickUp));
        }
    }

    #[test]
    fn new_keys_take_no_direction_letter() {
        // vi-keys and WASD move; none of them may be swallowed as a typed command.
        for c in "hjklyubnwasd".chars() {
            assert_eq!(char_command(c, false), None, "{c}");
        }
        assert_eq!(char_command('w', true), Some(Command::Follow));
        assert_eq!(char_command('n', true), Some(Command::NewCharacter));
        // h walks west while playing; only once nobody is driven does it open the high scores.
        assert_eq!(char_command('h', true), Some(Command::Scores));
        assert_eq!(char_command('H', true), Some(Command::Scores));
        assert_eq!(char_command('3', true), Some(Command::Choose(3)));
        assert_eq!(char_command('3', false), None);
    }
}
