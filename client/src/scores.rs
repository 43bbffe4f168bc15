//! The high-score table's pure half: dates, the columns and what goes in them, truncation, and
//! the state of an open table (asking, scrolling, finding the game that just ended). No window
//! and no network here, so all of it is tested headless; `ui::scores` draws it.

use std::ops::Range;

use delve_protocol::{ClientMsg, MAX_DUNGEON_CHARS, MAX_NAME_CHARS, MAX_SCORES, ScoreEntry};

/// How many games the table asks for: as many as a server sends.
pub const LIMIT: u32 = MAX_SCORES;

/// The request the table sends, before `hello` (the lobby) or after (the game).
pub fn request() -> ClientMsg {
    ClientMsg::Scores { limit: Some(LIMIT) }
}

/// `ended` (seconds since 1970, UTC) as YYYY-MM-DD.
pub use delve_protocol::utc_date as date;

/// What the table is, over its rows: all the server's games (or, solo, this machine's), or the
/// best of them.
pub fn subtitle(len: usize, solo: bool) -> String {
    let games = if len == 1 { "game" } else { "games" };
    let (games, place) = if solo {
        (format!("solo {games}"), "this machine")
    } else {
        (games.to_string(), "this server")
    };
    if len < LIMIT as usize {
        format!("{} {games} on {place}, best first", grouped(len as u64))
    } else {
        format!("The best {} {games} on {place}", grouped(len as u64))
    }
}

/// `n` with a comma between each group of three digits: 12,345.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// 1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st, ...
pub fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// How a game ended, for the table: "Slew the Mouse King", or the cause of death with a capital.
pub fn how_it_ended(e: &ScoreEntry) -> String {
    if e.victory {
        return "Slew the Mouse King".into();
    }
    let mut chars = e.outcome.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => "Died".into(),
    }
}

/// `text` cut to fit `max_w` as `measure` measures it, ending in "..." if anything was cut
/// (the game's font has no ellipsis character). Empty if not even "..." fits.
pub fn fit(text: &str, max_w: f32, measure: impl Fn(&str) -> f32) -> String {
    if measure(text) <= max_w {
        return text.to_owned();
    }
    let chars: Vec<char> = text.chars().collect();
    let cut = |n: usize| {
        let head: String = chars[..n].iter().collect();
        format!("{}...", head.trim_end())
    };
    // The longest head that fits with its dots: widths only grow with more characters.
    let (mut lo, mut hi) = (0usize, chars.len());
    if measure(&cut(0)) > max_w {
        return String::new();
    }
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if measure(&cut(mid)) <= max_w {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    cut(lo)
}

/// Which side of its column a cell sits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// One column of the table, in pixels from the table's left edge.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Column {
    pub title: &'static str,
    pub x: f32,
    pub w: f32,
    pub align: Align,
}

impl Column {
    /// Where text `text_w` wide starts in this column.
    pub fn text_x(&self, text_w: f32) -> f32 {
        match self.align {
            Align::Left => self.x,
            Align::Right => self.x + self.w - text_w,
        }
    }
}

/// Space between columns, in characters.
const GAP_CHARS: f32 = 2.0;

/// The columns: title, width in characters (`None`: shares what is left), alignment.
const COLUMNS: [(&str, Option<f32>, Align); 10] = [
    ("#", Some(3.0), Align::Right),
    ("name", None, Align::Left),
    ("score", Some(7.0), Align::Right),
    ("level", Some(5.0), Align::Right),
    ("floor", Some(5.0), Align::Right),
    ("kills", Some(5.0), Align::Right),
    ("turns", Some(7.0), Align::Right),
    ("how it ended", None, Align::Left),
    ("dungeon", None, Align::Left),
    ("date", Some(10.0), Align::Left),
];

/// Indices of the columns that share the space left over.
pub const NAME: usize = 1;
pub const ENDED: usize = 7;
pub const DUNGEON: usize = 8;

/// How wide the widest text of each sharing column is (its title included), in pixels.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Needs {
    pub name: f32,
    pub ended: f32,
    pub dungeon: f32,
}

impl Needs {
    /// The needs of `entries`, measured by `measure`.
    pub fn of(entries: &[ScoreEntry], measure: impl Fn(&str) -> f32) -> Needs {
        let mut n = Needs {
            name: measure(COLUMNS[NAME].0),
            ended: measure(COLUMNS[ENDED].0),
            dungeon: measure(COLUMNS[DUNGEON].0),
        };
        for e in entries {
            n.name = n.name.max(measure(&e.name));
            let icon = if e.victory { ENDED_ICON } else { 0.0 };
            n.ended = n.ended.max(measure(&how_it_ended(e)) + icon);
            n.dungeon = n.dungeon.max(measure(&e.dungeon));
        }
        n
    }
}

/// Room before a victory's words for its crown, in pixels.
pub const ENDED_ICON: f32 = 18.0;

/// Lays the columns out across `width` pixels for a font whose characters are about `char_w`
/// wide, the sharing columns after what they `need`. The numbers get what they need; then the
/// name, then how the game ended, then the dungeon get what they need of the rest, as far as
/// it goes, each keeping a minimum. Space left over goes to how the game ended, so the last
/// columns end at the right edge. Below the minimums the table runs wider than `width` rather
/// than crushing a column.
pub fn columns(width: f32, char_w: f32, need: Needs) -> [Column; 10] {
    let gap = GAP_CHARS * char_w;
    let fixed: f32 = COLUMNS.iter().filter_map(|c| c.1).sum::<f32>() * char_w;
    let gaps = gap * (COLUMNS.len() - 1) as f32;
    let free = width - fixed - gaps;
    let name_need = need.name.min(MAX_NAME_CHARS as f32 * char_w);
    let dungeon_need = need.dungeon.min(MAX_DUNGEON_CHARS as f32 * char_w);
    let name_min = (8.0 * char_w).min(name_need);
    let ended_min = (16.0 * char_w).min(need.ended);
    let dungeon_min = (8.0 * char_w).min(dungeon_need);
    let (name_w, ended_w, dungeon_w) = if free <= name_min + ended_min + dungeon_min {
        (name_min, ended_min, dungeon_min)
    } else {
        let name = name_need.min(free - ended_min - dungeon_min);
        let rest = free - name;
        let ended = need.ended.min(rest - dungeon_min);
        let dungeon = (rest - ended).min(dungeon_need);
        (name, rest - dungeon, dungeon)
    };
    let mut x = 0.0;
    let mut k = 0;
    COLUMNS.map(|(title, chars, align)| {
        let w = match k {
            NAME => name_w,
            ENDED => ended_w,
            DUNGEON => dungeon_w,
            _ => chars.unwrap_or(0.0) * char_w,
        };
        k += 1;
        let c = Column { title, x, w, align };
        x += w + gap;
        c
    })
}

/// The text of each column for the entry ranked `rank` (from 1).
pub fn cells(rank: usize, e: &ScoreEntry) -> [String; 10] {
    [
        rank.to_string(),
        e.name.clone(),
        grouped(u64::from(e.score)),
        e.level.to_string(),
        e.deepest.to_string(),
        grouped(u64::from(e.kills)),
        grouped(e.turns),
        how_it_ended(e),
        e.dungeon.clone(),
        if e.ended == 0 {
            "-".into()
        } else {
            date(e.ended)
        },
    ]
}

/// A game of ours that just ended, to find in the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mine {
    pub name: String,
    pub dungeon: String,
    pub turns: u64,
    pub score: u32,
}

impl Mine {
    pub fn matches(&self, e: &ScoreEntry) -> bool {
        e.name == self.name
            && e.dungeon == self.dungeon
            && e.turns == self.turns
            && e.score == self.score
    }
}

/// Where our game is in `entries`: of the entries that match it (the same name may have
/// played an identical game before), the one that ended last.
pub fn find_mine(entries: &[ScoreEntry], mine: &Mine) -> Option<usize> {
    entries
        .iter()
        .enumerate()
        .filter(|(_, e)| mine.matches(e))
        .max_by_key(|(k, e)| (e.ended, *k))
        .map(|(k, _)| k)
}

/// Whether a table of `entries` (asked for `limit`) must hold our game once the server has
/// written it: there is room, or our score beats the last one shown. Equal scores go by who
/// ended first, so a tie with the last entry does not make it.
pub fn belongs(entries: &[ScoreEntry], mine: &Mine, limit: u32) -> bool {
    entries.len() < limit as usize || entries.last().is_some_and(|e| mine.score > e.score)
}

/// The first row to show so that scrolling stays within `len` rows, `rows` at a time.
pub fn clamp_scroll(scroll: usize, len: usize, rows: usize) -> usize {
    scroll.min(len.saturating_sub(rows))
}

/// The first row to show so that row `index` is in view, a third of the way down if possible.
pub fn scroll_to(index: usize, len: usize, rows: usize) -> usize {
    clamp_scroll(index.saturating_sub(rows / 3), len, rows)
}

/// How long to wait before asking again for a game the server should have listed by now (its
/// entry is written a moment after the game ends).
const RETRY_AFTER: [f64; 3] = [0.4, 0.8, 1.6];

/// An open high-score table: whether its answer has come, where it is scrolled, and the game
/// it should highlight.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreBoard {
    /// The model's count of answers when the table last took one in.
    seen: u64,
    /// An answer has arrived since the table opened.
    loaded: bool,
    /// The first row shown.
    pub scroll: usize,
    /// A row to bring into view at the next layout.
    focus: Option<usize>,
    /// The game that just ended, to highlight.
    mine: Option<Mine>,
    /// Where it is in the table, once found.
    mine_at: Option<usize>,
    /// Times asked again because our game was missing, and when to ask next.
    retries: usize,
    retry_at: Option<f64>,
    /// What the server said instead of answering.
    error: Option<String>,
}

impl ScoreBoard {
    /// A table that has just sent [`request`]; `received` is the model's count of answers so
    /// far, so the next one is taken as the answer.
    pub fn open(received: u64, mine: Option<Mine>) -> ScoreBoard {
        ScoreBoard {
            seen: received,
            loaded: false,
            scroll: 0,
            focus: None,
            mine,
            mine_at: None,
            retries: 0,
            retry_at: None,
            error: None,
        }
    }

    /// Takes in a new answer if there is one (`received` answers so far, the latest being
    /// `entries`). Returns `true` when the table should send [`request`] again now: our game
    /// should be in the table but is not yet.
    pub fn poll(&mut self, entries: &[ScoreEntry], received: u64, now: f64) -> bool {
        if received > self.seen {
            self.seen = received;
            self.loaded = true;
            self.error = None;
            self.retry_at = None;
            if let Some(mine) = &self.mine {
                self.mine_at = find_mine(entries, mine);
                if let Some(k) = self.mine_at {
                    self.focus = Some(k);
                } else if belongs(entries, mine, LIMIT) && self.retries < RETRY_AFTER.len() {
                    self.retry_at = Some(now + RETRY_AFTER[self.retries]);
                    self.retries += 1;
                }
            }
        }
        if self.retry_at.is_some_and(|at| now >= at) {
            self.retry_at = None;
            return true;
        }
        false
    }

    /// The server answered with an error while the table was waiting.
    pub fn refused(&mut self, message: String) {
        if !self.loaded || self.retry_at.is_some() {
            self.error = Some(message);
            self.retry_at = None;
        }
    }

    /// Whether the answer has come.
    pub fn loaded(&self) -> bool {
        self.loaded
    }

    /// An answer is in and the table is not looking for our game any more.
    pub fn settled(&self) -> bool {
        self.loaded && self.retry_at.is_none()
    }

    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The row of the game that just ended.
    pub fn mine_at(&self) -> Option<usize> {
        self.mine_at
    }

    /// Brings a pending row into view and keeps the scroll in range; returns the rows to draw.
    pub fn layout(&mut self, len: usize, rows: usize) -> Range<usize> {
        if let Some(k) = self.focus.take() {
            self.scroll = scroll_to(k, len, rows);
        }
        self.scroll = clamp_scroll(self.scroll, len, rows);
        self.scroll..(self.scroll + rows).min(len)
    }

    /// Scrolls by `delta` rows (negative: up).
    pub fn scroll_by(&mut self, delta: isize, len: usize, rows: usize) {
        self.scroll = clamp_scroll(self.scroll.saturating_add_signed(delta), len, rows);
    }

    /// What to say in place of an empty table, and why it may be empty.
    pub fn empty_text(&self, solo: bool) -> (&'static str, Option<&'static str>) {
        if solo {
            return (
                "No solo game has ended on this machine yet.",
                Some("Solo games keep their own table here; a server keeps its own."),
            );
        }
        let why = if self.mine.is_some() && self.retry_at.is_none() {
            // Our game just ended, yet the table is empty.
            Some("Not even yours is listed: this server seems to keep no high scores.")
        } else {
            None
        };
        ("No games have ended on this server yet.", why)
    }

    /// A line about the game that just ended, under the table.
    pub fn mine_note(&self, entries: &[ScoreEntry]) -> Option<String> {
        let mine = self.mine.as_ref()?;
        if !self.loaded || entries.is_empty() && self.retry_at.is_none() {
            return None;
        }
        Some(match self.mine_at {
            Some(k) => format!(
                "Your game ranks {} of {}.",
                ordinal(k + 1),
                grouped(entries.len() as u64)
            ),
            None if self.retry_at.is_some() => "Looking for your game...".into(),
            None if belongs(entries, mine, LIMIT) => {
                "Your game is not on the table: the server has not listed it.".into()
            }
            None => format!(
                "Your score of {} does not make the best {}.",
                grouped(u64::from(mine.score)),
                entries.len()
            ),
        })
    }
}

#[cfg(test)]
mod tests;
