//! Pins map generation: the same seed must give the same floor, byte for byte, on every machine
//! and build. If generation is changed on purpose, regenerate with `DELVE_BLESS=1 cargo test -p
//! delve-server --test mapgen_golden` and look at the new maps before committing them.

use delve_server::game::mapgen::{GenParams, generate, render};

fn check(seed: u64, depth: u8) {
    let layout = generate(seed, depth, depth < 10, &GenParams::default());
    let got = render(&layout.map);
    let path = format!(
        "{}/tests/golden/floor_seed{seed}_depth{depth}.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    if std::env::var_os("DELVE_BLESS").is_some() {
        std::fs::write(&path, &got).expect("golden file is writable");
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e} (run with DELVE_BLESS=1 to create it)"));
    assert!(
        got == want,
        "floor for seed {seed} depth {depth} changed:\n{got}"
    );
}

#[test]
fn seed_1234_floor_1_is_pinned() {
    check(1234, 1);
}

#[test]
fn seed_777_floor_10_is_pinned() {
    check(777, 10);
}
