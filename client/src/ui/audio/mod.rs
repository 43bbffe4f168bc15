//! Plays the sound effects `sound::cues` picks, at the player's volume, and keeps that volume
//! (and mute) in `sound.toml` in the config folder.
//!
//! Two outputs, one per platform, behind one face:
//! - natively, `delve-alsa`: our own small ALSA player, which loads the system's
//!   `libasound.so.2` when the game starts instead of linking to it, so the build needs no
//!   sound package and a machine with no sound library or no sound card (Xvfb, CI) plays
//!   nothing and says so in one line. (macroquad's `audio` feature links `-lasound`, so it
//!   needs `libasound2-dev` to build, and its player panics without a device.) Linux only;
//!   elsewhere it says so and stays silent.
//! - in the browser, macroquad's audio (Web Audio, through the loader's `macroquad_audio`
//!   plugin); browsers start sound only after the first key or click, which the loader handles.

#[cfg(target_arch = "wasm32")]
mod web;

use crate::sound::{Cue, Settings};

/// The effects, as the test in `tests/sounds.rs` wrote them, in [`Cue::ALL`] order.
const FILES: [&[u8]; 9] = [
    include_bytes!("../../../assets/sounds/hit.wav"),
    include_bytes!("../../../assets/sounds/hurt.wav"),
    include_bytes!("../../../assets/sounds/miss.wav"),
    include_bytes!("../../../assets/sounds/kill.wav"),
    include_bytes!("../../../assets/sounds/level-up.wav"),
    include_bytes!("../../../assets/sounds/door.wav"),
    include_bytes!("../../../assets/sounds/stairs.wav"),
    include_bytes!("../../../assets/sounds/death.wav"),
    include_bytes!("../../../assets/sounds/victory.wav"),
];

fn index(cue: Cue) -> usize {
    Cue::ALL.iter().position(|c| *c == cue).unwrap_or(0)
}

pub struct Audio {
    settings: Settings,
    #[cfg(not(target_arch = "wasm32"))]
    out: delve_alsa::Player,
    #[cfg(target_arch = "wasm32")]
    out: web::Player,
    /// Effects played so far, by kind (for `--script`'s `sounds` check and the tests).
    played: Vec<Cue>,
}

impl Audio {
    /// Starts the output (in the background: the game never waits for it) with the settings
    /// kept from the last run.
    pub fn start() -> Audio {
        Audio {
            settings: load(),
            #[cfg(not(target_arch = "wasm32"))]
            out: delve_alsa::Player::start(
                FILES
                    .iter()
                    .map(|f| {
                        crate::sound::wav::decode(f)
                            .map(|(_, s)| s)
                            .unwrap_or_default()
                    })
                    .collect(),
                crate::sound::synth::RATE,
            ),
            #[cfg(target_arch = "wasm32")]
            out: web::Player::start(&FILES),
            played: Vec::new(),
        }
    }

    pub fn play(&mut self, cues: &[Cue]) {
        let gain = self.settings.gain();
        for &cue in cues {
            self.played.push(cue);
            if gain > 0.0 {
                self.out.play(index(cue), gain);
            }
        }
    }

    /// Whether what was played has been played out (natively; a page plays on by itself).
    pub fn drained(&self) -> bool {
        self.out.drained()
    }

    /// Every effect played so far.
    pub fn played(&self) -> &[Cue] {
        &self.played
    }

    pub fn settings(&self) -> Settings {
        self.settings
    }

    /// Mutes or unmutes; returns what to tell the player.
    pub fn toggle_mute(&mut self) -> String {
        self.settings.muted = !self.settings.muted;
        self.save();
        self.settings.describe()
    }

    /// One step louder or softer, with a sample of the new volume.
    pub fn step(&mut self, up: bool) {
        self.settings.step(up);
        self.save();
        self.play(&[Cue::Hit]);
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn save(&self) {
        let Some(dir) = crate::tokens::config_dir() else {
            return;
        };
        let written = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(dir.join("sound.toml"), self.settings.to_file()));
        if let Err(e) = written {
            eprintln!("delve: cannot keep the sound settings: {e}");
        }
    }

    /// A page keeps nothing: the next visit starts at the default volume.
    #[cfg(target_arch = "wasm32")]
    fn save(&self) {}
}

#[cfg(not(target_arch = "wasm32"))]
fn load() -> Settings {
    crate::tokens::config_dir()
        .and_then(|d| std::fs::read_to_string(d.join("sound.toml")).ok())
        .map(|t| Settings::from_file(&t))
        .unwrap_or_default()
}

#[cfg(target_arch = "wasm32")]
fn load() -> Settings {
    Settings::default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cue_has_its_own_file() {
        for (cue, bytes) in Cue::ALL.iter().zip(FILES) {
            let (_, samples) = crate::sound::wav::decode(bytes).expect("a Delve WAV");
            // Every effect has its own length: the same length is the same effect.
            assert_eq!(
                samples.len(),
                crate::sound::synth::render(*cue).len(),
                "{cue:?}"
            );
        }
    }
}
