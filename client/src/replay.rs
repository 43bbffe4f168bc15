//! The controls of a replay (a finished game watched again, PROTOCOL.md §15): play and pause,
//! speed, a step forward or back, a jump to any turn. Pure: it says which turn to ask the
//! server for (`seek`) and when; the UI (`ui::app::replay`) reads the keys and draws the bar.

/// Turns shown per second at each speed, slowest first.
pub const SPEEDS: [f64; 7] = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0];

/// The speed a replay starts at (4 turns a second: a brisk walk that can still be followed).
pub const START_SPEED: usize = 3;

/// How far Page Up and Page Down jump, in turns.
pub const PAGE_TURNS: u64 = 50;

/// The most digits of a turn typed to jump to.
const MAX_TYPED: usize = 7;

/// What the player asks of the replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// Play or pause (at the end, play starts again from turn 0).
    Toggle,
    /// One turn forward or back (pauses).
    Step(i64),
    Faster,
    Slower,
    /// Show this turn (pauses); past the end is the end.
    Jump(u64),
    /// A digit of a turn to jump to.
    Digit(u8),
    /// Rub out the last digit typed.
    Rubout,
    /// Jump to the turn typed (nothing typed: nothing).
    Enter,
    /// Forget the turn typed.
    Clear,
}

/// The state of the controls.
#[derive(Clone, Debug, PartialEq)]
pub struct Controls {
    /// The replay's last turn, once the server said (`replaying`).
    pub turns: u64,
    pub playing: bool,
    /// An index into [`SPEEDS`].
    pub speed: usize,
    /// A turn being typed, to jump to on Enter.
    pub typed: String,
    /// The turn asked for and not yet shown.
    asked: Option<u64>,
    /// When the last step of play was asked (seconds, the UI's clock).
    stepped_at: f64,
}

impl Default for Controls {
    fn default() -> Self {
        Controls::new()
    }
}

impl Controls {
    /// Playing from the start, at the starting speed.
    pub fn new() -> Controls {
        Controls {
            turns: 0,
            playing: true,
            speed: START_SPEED,
            typed: String::new(),
            asked: None,
            stepped_at: f64::NEG_INFINITY,
        }
    }

    /// Turns a second now.
    pub fn rate(&self) -> f64 {
        SPEEDS[self.speed]
    }

    /// A view arrived: the turn asked for is shown.
    pub fn shown(&mut self) {
        self.asked = None;
    }

    /// Whether a `seek` waits for its answer.
    pub fn waiting(&self) -> bool {
        self.asked.is_some()
    }

    /// The turn to ask for now while playing, if it is time; `at` is the turn shown.
    pub fn tick(&mut self, now: f64, at: u64) -> Option<u64> {
        if !self.playing || self.asked.is_some() {
            return None;
        }
        if at >= self.turns {
            self.playing = false;
            return None;
        }
        if now - self.stepped_at < 1.0 / self.rate() {
            return None;
        }
        self.stepped_at = now;
        Some(self.ask(at + 1))
    }

    /// Does what the player asked with turn `at` shown: the turn to ask for, if any. A step
    /// counts from the turn asked for last if it is not shown yet (keys pressed faster than
    /// the answers come each count).
    pub fn apply(&mut self, ask: Ask, at: u64) -> Option<u64> {
        let at = self.asked.unwrap_or(at);
        match ask {
            Ask::Toggle => {
                self.playing = !self.playing;
                if self.playing && at >= self.turns {
                    return Some(self.ask(0));
                }
                None
            }
            Ask::Step(by) => {
                self.playing = false;
                let to = at.saturating_add_signed(by).min(self.turns);
                (to != at).then(|| self.ask(to))
            }
            Ask::Faster => {
                self.speed = (self.speed + 1).min(SPEEDS.len() - 1);
                None
            }
            Ask::Slower => {
                self.speed = self.speed.saturating_sub(1);
                None
            }
            Ask::Jump(to) => {
                self.playing = false;
                Some(self.ask(to.min(self.turns)))
            }
            Ask::Digit(d) => {
                if self.typed.len() < MAX_TYPED {
                    self.typed.push(char::from(b'0' + d.min(9)));
                }
                None
            }
            Ask::Rubout => {
                self.typed.pop();
                None
            }
            Ask::Enter => {
                let to = self.typed.parse::<u64>().ok()?;
                self.typed.clear();
                self.apply(Ask::Jump(to), at)
            }
            Ask::Clear => {
                self.typed.clear();
                None
            }
        }
    }

    fn ask(&mut self, turn: u64) -> u64 {
        self.asked = Some(turn);
        turn
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn controls(turns: u64) -> Controls {
        Controls {
            turns,
            ..Controls::new()
        }
    }

    #[test]
    fn play_asks_the_next_turn_at_the_pace_of_the_speed_and_waits_for_each_answer() {
        let mut c = controls(3);
        assert_eq!(c.tick(10.0, 0), Some(1));
        // Not before the answer...
        assert_eq!(c.tick(20.0, 0), None);
        c.shown();
        // ...nor before a quarter of a second has gone (4 turns a second).
        assert_eq!(c.tick(10.1, 1), None);
        assert_eq!(c.tick(10.25, 1), Some(2));
        c.shown();
        c.apply(Ask::Faster, 2);
        assert_eq!(c.rate(), 8.0);
        assert_eq!(c.tick(10.38, 2), Some(3));
        c.shown();
        // At the end it stops; play again starts from the beginning.
        assert_eq!(c.tick(11.0, 3), None);
        assert!(!c.playing);
        assert_eq!(c.apply(Ask::Toggle, 3), Some(0));
        assert!(c.playing);
    }

    #[test]
    fn steps_and_jumps_pause_and_stay_within_the_game() {
        let mut c = controls(40);
        assert_eq!(c.apply(Ask::Step(1), 5), Some(6));
        assert!(!c.playing);
        c.shown();
        assert_eq!(c.apply(Ask::Step(-1), 6), Some(5));
        // Pressed again before the answer: from the turn asked for.
        assert_eq!(c.apply(Ask::Step(-1), 6), Some(4));
        c.shown();
        assert_eq!(c.apply(Ask::Step(-1), 0), None);
        c.shown();
        assert_eq!(c.apply(Ask::Step(PAGE_TURNS as i64), 30), Some(40));
        c.shown();
        assert_eq!(c.apply(Ask::Jump(400), 3), Some(40));
        c.shown();
        c.playing = true;
        for d in [1, 7] {
            c.apply(Ask::Digit(d), 3);
        }
        assert_eq!(c.typed, "17");
        c.apply(Ask::Rubout, 3);
        c.apply(Ask::Digit(2), 3);
        assert_eq!(c.apply(Ask::Enter, 3), Some(12));
        assert!(c.typed.is_empty() && !c.playing);
        c.shown();
        assert_eq!(c.apply(Ask::Enter, 12), None, "nothing typed");
    }

    #[test]
    fn the_speed_stays_among_the_speeds() {
        let mut c = controls(5);
        for _ in 0..20 {
            c.apply(Ask::Slower, 0);
        }
        assert_eq!(c.rate(), SPEEDS[0]);
        for _ in 0..20 {
            c.apply(Ask::Faster, 0);
        }
        assert_eq!(c.rate(), SPEEDS[SPEEDS.len() - 1]);
    }
}
