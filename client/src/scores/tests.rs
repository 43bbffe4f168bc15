//! The score board's pure parts, tested without a window.

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
            "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st",
            "111th", "112th"
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
