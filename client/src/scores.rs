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
mod tests {
    use super::*;

    fn entry(name: &str, score: u32, turns: u64, ended: u64) -> ScoreEntry {
        ScoreEntry {
            name: name.into(),
            score,
            level: 3,
            deepest: 2,
            kills: 7,
            turns,
            victory: false,
            outcome: "killed by a Rabid Mouse on floor 2".into(),
            dungeon: "crypt".into(),
            ended,
            game: None,
        }
    }

    fn mine(name: &str, score: u32, turns: u64) -> Mine {
        Mine {
            name: name.into(),
            dungeon: "crypt".into(),
            turns,
            score,
        }
    }

    /// Every character 10 pixels wide.
    fn mono(s: &str) -> f32 {
        10.0 * s.chars().count() as f32
    }

    #[test]
    fn dates_are_utc_calendar_days() {
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(date(86_399), "1970-01-01");
        assert_eq!(date(86_400), "1970-01-02");
        assert_eq!(date(951_782_400), "2000-02-29");
        assert_eq!(date(1_709_251_199), "2024-02-29");
        assert_eq!(date(1_709_251_200), "2024-03-01");
        // 2100 is not a leap year.
        assert_eq!(date(4_107_542_399), "2100-02-28");
        assert_eq!(date(4_107_542_400), "2100-03-01");
        assert_eq!(date(1_767_225_599), "2025-12-31");
        assert_eq!(date(253_402_300_799), "9999-12-31");
        // Far out of range still gives a date rather than a panic.
        assert!(!date(u64::MAX).is_empty());
    }

    #[test]
    fn numbers_are_grouped_and_ranks_have_suffixes() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(grouped(100_000), "100,000");
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112]
            .into_iter()
            .map(ordinal)
            .collect();
        assert_eq!(
            got,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd",
                "101st", "111th", "112th"
            ]
        );
    }

    #[test]
    fn fit_keeps_what_fits_and_cuts_the_rest_with_dots() {
        assert_eq!(fit("Ann", 30.0, mono), "Ann");
        assert_eq!(fit("killed by a mouse", 100.0, mono), "killed...");
        // No space before the dots.
        assert_eq!(fit("killed by a mouse", 90.0, mono), "killed...");
        assert_eq!(fit("killed by a mouse", 110.0, mono), "killed b...");
        assert_eq!(fit("killed by a mouse", 120.0, mono), "killed by...");
        for w in [30.0, 55.0, 99.0, 160.0] {
            let got = fit("killed by a Rabid Mouse on floor 6", w, mono);
            assert!(mono(&got) <= w, "{got:?} in {w}");
            assert!(got.ends_with("..."));
        }
        assert_eq!(fit("killed", 20.0, mono), "");
        assert_eq!(fit("", 0.0, mono), "");
        // Characters, not bytes.
        assert_eq!(fit("Åsa Öberg", 60.0, mono), "Åsa...");
    }

    /// What the columns need for a name, an ending and a dungeon of so many characters.
    fn needs(name: usize, ended: usize, dungeon: usize) -> Needs {
        Needs {
            name: 10.0 * name as f32,
            ended: 10.0 * ended as f32,
            dungeon: 10.0 * dungeon as f32,
        }
    }

    #[test]
    fn needs_measure_the_widest_text_and_the_titles() {
        let mut won = entry("Maximilian", 9000, 10, 1);
        won.victory = true;
        won.outcome = "won".into();
        let n = Needs::of(&[entry("Al", 1, 1, 1), won.clone()], mono);
        assert_eq!(n.name, 100.0);
        // "Killed by a Rabid Mouse on floor 2"; the victory's line is shorter, crown and all.
        assert_eq!(n.ended, 340.0);
        won.name = "Al".into();
        let n = Needs::of(&[won], mono);
        assert_eq!(n.ended, 190.0 + ENDED_ICON);
        // No dungeon name is as wide as the title.
        assert_eq!(n.dungeon, 70.0);
        assert_eq!(Needs::of(&[], mono), needs(4, 12, 7));
    }

    #[test]
    fn columns_fit_the_width_in_order_without_overlap() {
        for width in [1000.0, 1100.0, 1232.0, 1800.0] {
            for need in [needs(4, 12, 7), needs(20, 40, 32), needs(60, 90, 60)] {
                let cols = columns(width, 10.0, need);
                for pair in cols.windows(2) {
                    assert!(pair[0].x + pair[0].w < pair[1].x, "{width}: {pair:?}");
                }
                let last = cols[cols.len() - 1];
                assert!((last.x + last.w - width).abs() < 0.01, "{width}: {last:?}");
            }
        }
        assert_eq!(columns(300.0, 10.0, needs(4, 12, 7))[0].title, "#");
        assert_eq!(columns(300.0, 10.0, needs(4, 12, 7))[9].title, "date");
    }

    #[test]
    fn columns_give_the_name_then_the_ending_then_the_dungeon_what_they_need() {
        // 42 characters of numbers and dates, 9 gaps of 2: 632 of 1232 pixels left to share.
        let cols = columns(1232.0, 10.0, needs(10, 34, 9));
        assert_eq!(cols[NAME].w, 100.0);
        assert_eq!(cols[DUNGEON].w, 90.0);
        // Everything fits: the ending takes what is left over.
        assert_eq!(cols[ENDED].w, 632.0 - 100.0 - 90.0);
        // Too much to show: the name whole, the dungeon its minimum, the ending the rest.
        let cols = columns(1232.0, 10.0, needs(20, 40, 32));
        assert_eq!(
            (cols[NAME].w, cols[ENDED].w, cols[DUNGEON].w),
            (200.0, 352.0, 80.0)
        );
        // Names and dungeons never take more than their longest allowed value.
        let cols = columns(3000.0, 10.0, needs(60, 40, 60));
        assert_eq!(cols[NAME].w, MAX_NAME_CHARS as f32 * 10.0);
        assert_eq!(cols[DUNGEON].w, MAX_DUNGEON_CHARS as f32 * 10.0);
        // Narrower: the dungeon keeps its minimum, taken from the ending.
        let cols = columns(1100.0, 10.0, needs(20, 40, 32));
        assert_eq!(cols[DUNGEON].w, 80.0);
        assert_eq!(cols[NAME].w, 200.0);
        assert_eq!(cols[ENDED].w, 1100.0 - 600.0 - 200.0 - 80.0);
        // Far too narrow: the minimums hold and the table runs over.
        let cols = columns(300.0, 10.0, needs(20, 40, 32));
        assert_eq!(
            (cols[NAME].w, cols[ENDED].w, cols[DUNGEON].w),
            (80.0, 160.0, 80.0)
        );
        // A minimum is never wider than what the column holds.
        let cols = columns(300.0, 10.0, needs(3, 12, 5));
        assert_eq!(
            (cols[NAME].w, cols[ENDED].w, cols[DUNGEON].w),
            (30.0, 120.0, 50.0)
        );
    }

    #[test]
    fn right_aligned_text_ends_at_the_column_edge() {
        let cols = columns(1200.0, 10.0, needs(10, 30, 10));
        let score = cols[2];
        assert_eq!(score.align, Align::Right);
        assert_eq!(score.text_x(30.0) + 30.0, score.x + score.w);
        assert_eq!(cols[NAME].text_x(30.0), cols[NAME].x);
    }

    #[test]
    fn cells_say_rank_numbers_ending_and_date() {
        let mut e = entry("Ann", 12_345, 4_321, 1_709_251_200);
        let c = cells(1, &e);
        assert_eq!(
            c,
            [
                "1",
                "Ann",
                "12,345",
                "3",
                "2",
                "7",
                "4,321",
                "Killed by a Rabid Mouse on floor 2",
                "crypt",
                "2024-03-01"
            ]
        );
        e.victory = true;
        e.outcome = "won".into();
        e.ended = 0;
        let c = cells(12, &e);
        assert_eq!(c[0], "12");
        assert_eq!(c[ENDED], "Slew the Mouse King");
        assert_eq!(c[9], "-");
    }

    #[test]
    fn our_game_is_found_by_name_dungeon_turns_and_score() {
        let mut other_dungeon = entry("Ann", 500, 90, 10);
        other_dungeon.dungeon = "keep".into();
        let entries = vec![
            entry("Bob", 900, 120, 5),
            other_dungeon,
            entry("Ann", 500, 91, 11),
            entry("Ann", 501, 90, 12),
            entry("Ann", 500, 90, 13),
            entry("Ann", 500, 90, 20),
            entry("Ann", 500, 90, 15),
        ];
        // Two identical games: the later one is this one.
        assert_eq!(find_mine(&entries, &mine("Ann", 500, 90)), Some(5));
        assert_eq!(find_mine(&entries, &mine("Ann", 500, 92)), None);
        assert_eq!(find_mine(&entries, &mine("ann", 500, 90)), None);
        assert_eq!(find_mine(&[], &mine("Ann", 500, 90)), None);
    }

    #[test]
    fn a_game_belongs_if_there_is_room_or_it_beats_the_last() {
        let full: Vec<ScoreEntry> = (0..LIMIT).map(|k| entry("Bob", 1000 - k, 1, 1)).collect();
        let last = full.last().unwrap().score;
        assert!(belongs(&full[..5], &mine("Ann", 1, 1), LIMIT));
        assert!(belongs(&[], &mine("Ann", 0, 1), LIMIT));
        assert!(belongs(&full, &mine("Ann", last + 1, 1), LIMIT));
        assert!(!belongs(&full, &mine("Ann", last, 1), LIMIT));
        assert!(!belongs(&full, &mine("Ann", 0, 1), LIMIT));
    }

    #[test]
    fn scrolling_stays_in_range() {
        assert_eq!(clamp_scroll(50, 10, 20), 0);
        assert_eq!(clamp_scroll(95, 100, 20), 80);
        assert_eq!(clamp_scroll(3, 100, 20), 3);
        assert_eq!(scroll_to(0, 100, 21), 0);
        assert_eq!(scroll_to(40, 100, 21), 33);
        assert_eq!(scroll_to(99, 100, 21), 79);
        let mut b = ScoreBoard::open(0, None);
        b.scroll_by(-5, 100, 20);
        assert_eq!(b.scroll, 0);
        b.scroll_by(1000, 100, 20);
        assert_eq!(b.scroll, 80);
        assert_eq!(b.layout(100, 20), 80..100);
        // The table shrank under it.
        assert_eq!(b.layout(30, 20), 10..30);
        assert_eq!(b.layout(5, 20), 0..5);
    }

    #[test]
    fn the_board_waits_for_the_next_answer_and_scrolls_to_our_game() {
        let entries: Vec<ScoreEntry> = (0..60).map(|k| entry("Bob", 1000 - k, 5, 1)).collect();
        let mut entries = entries;
        entries[45] = entry("Ann", 955, 77, 9);
        // Two answers came before this table opened: they are not its answer.
        let mut b = ScoreBoard::open(2, Some(mine("Ann", 955, 77)));
        assert!(!b.poll(&entries, 2, 0.0));
        assert!(!b.loaded());
        assert_eq!(b.mine_note(&entries), None);
        assert!(!b.poll(&entries, 3, 0.1));
        assert!(b.loaded());
        assert_eq!(b.mine_at(), Some(45));
        assert_eq!(b.layout(entries.len(), 20), 39..59);
        assert_eq!(
            b.mine_note(&entries).as_deref(),
            Some("Your game ranks 46th of 60.")
        );
        // The focus is applied once; the player scrolls freely after.
        b.scroll_by(-30, entries.len(), 20);
        assert_eq!(b.layout(entries.len(), 20), 9..29);
    }

    #[test]
    fn a_game_missing_from_a_table_it_belongs_in_is_asked_for_again() {
        let mut entries = vec![entry("Bob", 900, 5, 1)];
        let mut b = ScoreBoard::open(0, Some(mine("Ann", 300, 40)));
        // The answer came before the server wrote our entry.
        assert!(!b.poll(&entries, 1, 10.0));
        assert_eq!(
            b.mine_note(&entries).as_deref(),
            Some("Looking for your game...")
        );
        assert!(!b.poll(&entries, 1, 10.2));
        assert!(b.poll(&entries, 1, 10.5));
        // Asked once; not again until the next answer.
        assert!(!b.poll(&entries, 1, 11.0));
        entries.push(entry("Ann", 300, 40, 2));
        assert!(!b.poll(&entries, 2, 11.1));
        assert_eq!(b.mine_at(), Some(1));
        assert_eq!(
            b.mine_note(&entries).as_deref(),
            Some("Your game ranks 2nd of 2.")
        );
    }

    #[test]
    fn asking_again_gives_up_and_says_so() {
        let entries = vec![entry("Bob", 900, 5, 1)];
        let mut b = ScoreBoard::open(0, Some(mine("Ann", 300, 40)));
        let mut asked = 0;
        let mut answers = 0;
        let mut now = 0.0;
        answers += 1;
        b.poll(&entries, answers, now);
        while now < 20.0 {
            now += 0.1;
            if b.poll(&entries, answers, now) {
                asked += 1;
                answers += 1;
            }
        }
        assert_eq!(asked, RETRY_AFTER.len());
        assert_eq!(
            b.mine_note(&entries).as_deref(),
            Some("Your game is not on the table: the server has not listed it.")
        );
    }

    #[test]
    fn a_score_below_a_full_table_is_not_asked_for_again() {
        let entries: Vec<ScoreEntry> = (0..LIMIT).map(|k| entry("Bob", 1000 - k, 5, 1)).collect();
        let mut b = ScoreBoard::open(0, Some(mine("Ann", 3, 40)));
        for k in 0..50 {
            assert!(!b.poll(&entries, 1, f64::from(k) * 0.1));
        }
        assert_eq!(
            b.mine_note(&entries).as_deref(),
            Some("Your score of 3 does not make the best 100.")
        );
    }

    #[test]
    fn an_empty_table_after_our_game_says_the_server_keeps_none() {
        let mut b = ScoreBoard::open(0, Some(mine("Ann", 0, 3)));
        b.poll(&[], 1, 0.0);
        // Still looking: nothing to conclude yet.
        assert_eq!(b.empty_text(false).1, None);
        let mut answers = 1;
        for k in 1..100 {
            if b.poll(&[], answers, f64::from(k) * 0.1) {
                answers += 1;
            }
        }
        assert!(b.empty_text(false).1.unwrap().contains("no high scores"));
        assert_eq!(b.mine_note(&[]), None);
    }

    #[test]
    fn the_subtitle_says_whether_the_table_is_all_or_the_best() {
        assert_eq!(subtitle(1, false), "1 game on this server, best first");
        assert_eq!(subtitle(57, false), "57 games on this server, best first");
        assert_eq!(subtitle(100, false), "The best 100 games on this server");
        assert_eq!(subtitle(1, true), "1 solo game on this machine, best first");
    }

    #[test]
    fn empty_tables_and_errors_say_why() {
        let mut b = ScoreBoard::open(0, None);
        assert_eq!(
            b.empty_text(false),
            ("No games have ended on this server yet.", None)
        );
        // A solo game's table is this machine's, not a server's.
        assert!(b.empty_text(true).0.contains("solo"));
        assert!(!b.empty_text(true).0.contains("server"));
        b.refused("Too many messages.".into());
        assert_eq!(b.error(), Some("Too many messages."));
        // An answer clears it.
        b.poll(&[], 1, 0.0);
        assert_eq!(b.error(), None);
        assert_eq!(b.mine_note(&[]), None);
        // Once loaded, an unrelated error later does not replace the table.
        b.refused("Nope.".into());
        assert_eq!(b.error(), None);
    }
}
