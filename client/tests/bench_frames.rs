//! `delve --bench-frames N` (docs/BENCHMARKS.md): the real binary, in a real window on a virtual
//! display, records a game on its own solo server and measures a few frames of each kind. Only
//! the shape of its answer is checked: speed is never asserted in a test.

use std::process::Command;

mod common;
use common::Xvfb;

#[test]
fn the_frame_bench_records_a_game_and_prints_both_rows() {
    let Some(x) = Xvfb::for_test(1024, 768, "the window tests") else {
        return;
    };
    let home = std::env::temp_dir().join("delve-bench-frames");
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).expect("test files");
    let out = Command::new(env!("CARGO_BIN_EXE_delve"))
        .args(["--bench-frames", "20", "--size", "800x600"])
        .env("DISPLAY", &x.display)
        .env("DELVE_CONFIG_DIR", home.join("config"))
        .env("DELVE_DATA_DIR", home.join("data"))
        .output()
        .expect("the client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("Recorded game: "), "{stdout}");
    // Each row: three times for the CPU, three with GL, every one a number of milliseconds.
    for label in ["draw alone", "apply + draw"] {
        let row = stdout
            .lines()
            .find(|l| l.starts_with(&format!("| {label} |")))
            .unwrap_or_else(|| panic!("no {label:?} row in:\n{stdout}"));
        let times: Vec<f64> = row
            .split('|')
            .filter_map(|c| c.trim().strip_suffix(" ms"))
            .map(|t| t.parse().expect("a number of milliseconds"))
            .collect();
        assert_eq!(times.len(), 6, "{row}");
        assert!(times.iter().all(|t| t.is_finite() && *t >= 0.0), "{row}");
    }
    assert!(stdout.contains("**p99 ratio**"), "{stdout}");
    // The throwaway character leaves nothing behind: no saved game, no dump, no score.
    assert!(
        !home.join("data").exists(),
        "the bench wrote to the data folder"
    );
}
