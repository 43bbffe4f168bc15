//! Property tests of the engine's invariants: random scripts of inputs from several players
//! (`delve_server::game::script`) keep nobody in a wall, HP in bounds, packs within their slots
//! and turns going up, and the journal replayed rebuilds the live world.
//!
//! `PROPTEST_CASES` sets how many scripts each property plays (default 48, a few seconds); the
//! fuzzer (docs/FUZZING.md) plays the same scripts by the million. A failure prints the smallest
//! script proptest found, and proptest keeps it under `proptest-regressions/` to play first
//! next time.

use std::sync::{Arc, OnceLock};

use delve_server::game::{Content, Dungeon, script};
use proptest::prelude::*;

/// The starting worlds of seeds 1 to 4, as the fuzz target makes them.
fn starts() -> &'static [Dungeon] {
    static STARTS: OnceLock<Vec<Dungeon>> = OnceLock::new();
    STARTS.get_or_init(|| {
        let content = Arc::new(Content::builtin());
        (1..=4)
            .map(|seed| script::start(seed, Arc::clone(&content)))
            .collect()
    })
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(48)
}

/// A script biased like play: mostly moves chosen and turns resolved, with the rarer inputs
/// (joins, drops, lifts, reloads, forged turns) mixed in by the raw bytes.
fn scripts() -> impl Strategy<Value = Vec<u8>> {
    let playing = (0u8..4, any::<u8>(), 0u8..8).prop_map(|(who, _, dir)| vec![0, who, dir, 4, who]);
    let anything = proptest::collection::vec(any::<u8>(), 1..6);
    proptest::collection::vec(prop_oneof![4 => playing, 1 => anything], 1..120)
        .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn every_script_keeps_the_invariants_and_replays(pick in 0usize..4, bytes in scripts()) {
        let start = &starts()[pick];
        if let Err(broken) = script::play(start, &bytes) {
            prop_assert!(false, "seed {}: {broken}", pick + 1);
        }
    }
}

/// The checks bite: a script that plays turns really moves the world on (so the properties
/// above are not passing over a world that never changes).
#[test]
fn a_script_of_moves_moves_the_world_on() {
    let start = &starts()[0];
    // Ann (who byte 0) chooses a step east then resolves her floor, 40 times over.
    let script: Vec<u8> = (0..40).flat_map(|_| [0, 0, 2, 4, 0]).collect();
    let before = start.floor(1).map(|f| f.turn()).unwrap_or(0);
    let played = script::play(start, &script).unwrap();
    let turn = played.world.floor(1).map(|f| f.turn()).unwrap_or(0);
    assert_eq!(turn, before + 40, "each resolve is one turn of floor 1");
    assert!(
        played.journal.len() >= 40,
        "every turn is journaled: {}",
        played.journal.len()
    );
}

/// Every saved fuzz input (`tests/fuzz_inputs/`: the fuzzer's past failures and far-reaching
/// corpus entries, see its README) plays clean, read exactly as the fuzz target reads it.
#[test]
fn every_saved_fuzz_input_plays_clean() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_inputs");
    let mut played = 0;
    for entry in std::fs::read_dir(&dir).expect("the fuzz inputs folder") {
        let path = entry.expect("a folder entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            continue;
        }
        let data = std::fs::read(&path).expect("a saved input");
        let Some((&pick, rest)) = data.split_first() else {
            continue;
        };
        let start = &starts()[usize::from(pick) % starts().len()];
        if let Err(broken) = script::play(start, rest) {
            panic!("{}: {broken}", path.display());
        }
        played += 1;
    }
    assert!(played > 0, "no saved fuzz input in {}", dir.display());
}
