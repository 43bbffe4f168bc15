//! The sound effects under `client/assets/sounds/` are what `sound::synth` makes: this test is
//! their generator as well as their check. After changing a recipe, write them again with
//! `DELVE_UPDATE_SOUNDS=1 cargo test -p delve-client --test sounds`, and listen to them.

use std::path::{Path, PathBuf};

use delve_client::sound::{Cue, synth, wav};

fn file(cue: Cue) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/sounds")
        .join(format!("{}.wav", cue.name()))
}

#[test]
fn the_committed_sounds_are_what_the_recipes_make() {
    let update = std::env::var_os("DELVE_UPDATE_SOUNDS").is_some();
    let mut problems = Vec::new();
    for cue in Cue::ALL {
        let made = synth::render(cue);
        let path = file(cue);
        if update {
            std::fs::write(&path, wav::encode(synth::RATE, &made)).expect("the assets folder");
            continue;
        }
        let Some((rate, committed)) = std::fs::read(&path).ok().and_then(|b| wav::decode(&b))
        else {
            problems.push(format!("{}: missing or not a Delve WAV", path.display()));
            continue;
        };
        // Another machine's sine may round a last bit differently: one step of 65,536 is
        // inaudible, anything more is a changed recipe.
        let same = rate == synth::RATE
            && committed.len() == made.len()
            && committed
                .iter()
                .zip(&made)
                .all(|(a, b)| a.abs_diff(*b) <= 1);
        if !same {
            problems.push(format!(
                "{} is not what the recipe makes (DELVE_UPDATE_SOUNDS=1 writes it again)",
                path.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
