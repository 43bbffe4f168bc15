//! The engine driven by any string of inputs from several players (see
//! `delve_server::game::script`): no panic, every invariant after every input, and replay
//! equals live.
#![no_main]

use std::sync::{Arc, OnceLock};

use delve_server::game::{Content, Dungeon, script};
use libfuzzer_sys::fuzz_target;

/// Four starting worlds (four seeds), made once: a script's first byte picks one.
fn starts() -> &'static [Dungeon] {
    static STARTS: OnceLock<Vec<Dungeon>> = OnceLock::new();
    STARTS.get_or_init(|| {
        let content = Arc::new(Content::builtin());
        (1..=4)
            .map(|seed| script::start(seed, Arc::clone(&content)))
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let starts = starts();
    let start = &starts[usize::from(pick) % starts.len()];
    if let Err(broken) = script::play(start, rest) {
        panic!("{broken}");
    }
});
