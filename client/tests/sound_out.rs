//! The native sound output, for real: the client binary in a real window on Xvfb, playing
//! through ALSA as configured by an `.asoundrc` in a home folder of the test's own.
//!
//! - With a device (ALSA's `file` plugin, writing what it is given to a file), the volume step
//!   in the Esc menu plays the hit effect: the file must hold exactly those samples, at the
//!   volume chosen, and the volume is kept in `sound.toml` for the next run.
//! - With no device (a sound card that does not exist: what Xvfb and CI have), the client says
//!   so in one line, prints nothing of ALSA's own, and plays its script to the end.
//!
//! Without Xvfb the tests say so and pass, except under CI (`CI` set), where they fail.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use delve_client::sound::{Cue, synth};

mod common;
use common::Xvfb;

fn display() -> Option<Xvfb> {
    Xvfb::for_test(1024, 768, "the sound tests")
}

/// A home folder with this ALSA configuration, and the client's folders in it.
fn home(name: &str, asoundrc: &str) -> PathBuf {
    let h = std::env::temp_dir().join(format!("delve-sound-{name}"));
    let _ = std::fs::remove_dir_all(&h);
    std::fs::create_dir_all(&h).expect("test files");
    std::fs::write(h.join(".asoundrc"), asoundrc).expect("test files");
    h
}

/// Runs the client, solo, with a script (each step waits for its condition, with a limit).
fn play(x: &Xvfb, home: &Path, script: &str) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_delve"))
        .args([
            "--solo", "--name", "Ann", "--size", "800x600", "--script", script,
        ])
        .env("DISPLAY", &x.display)
        .env("HOME", home)
        .env("DELVE_CONFIG_DIR", home.join("config"))
        .env("DELVE_DATA_DIR", home.join("data"))
        .env_remove("ALSA_CONFIG_PATH")
        .output()
        .expect("the client runs");
    assert!(
        out.status.success(),
        "the client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Esc, down to the sound line, one step louder: the menu plays a sample at the new volume.
const LOUDER: &str = "idle; key Escape; key Down; key Down; key Right; sound hit";

/// Both cases on one display: two tests would each start an Xvfb, and could pick the same
/// free display number at the same moment.
#[test]
fn sound_plays_through_a_device_and_goes_quietly_without_one() {
    let Some(x) = display() else { return };
    through_a_device(&x);
    without_a_sound_card(&x);
}

fn through_a_device(x: &Xvfb) {
    let dir = home("device", "");
    let raw = dir.join("out.raw");
    std::fs::write(
        dir.join(".asoundrc"),
        format!(
            "pcm.!default {{\n type file\n slave.pcm \"null\"\n file \"{}\"\n format \"raw\"\n}}\n",
            raw.display()
        ),
    )
    .expect("test files");
    let out = play(x, &dir, &format!("{LOUDER}; quit"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("no sound"), "{stderr}");

    // The default 70% and one step up: 80%.
    let kept = std::fs::read_to_string(dir.join("config/sound.toml")).expect("sound.toml");
    assert!(kept.contains("volume = 80"), "{kept}");
    let bytes = std::fs::read(&raw).expect("the device's file");
    let got: Vec<i16> = bytes
        .chunks_exact(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect();
    let want: Vec<i16> = synth::render(Cue::Hit)
        .iter()
        .map(|s| (f32::from(*s) * 0.8) as i16)
        .collect();
    assert!(
        got.windows(want.len()).any(|w| w == want.as_slice()),
        "the hit effect at 80% is not in the {} samples the device was given",
        got.len()
    );
    // Paced by the clock, not spinning: a few seconds of run make well under a minute of audio.
    assert!(
        got.len() < 60 * synth::RATE as usize,
        "{} samples",
        got.len()
    );

    // The next run starts at the kept volume: one more step is 90%.
    play(x, &dir, &format!("{LOUDER}; quit"));
    let kept = std::fs::read_to_string(dir.join("config/sound.toml")).expect("sound.toml");
    assert!(kept.contains("volume = 90"), "{kept}");
}

/// Without a device, one line says so and the game goes on.
fn without_a_sound_card(x: &Xvfb) {
    let dir = home("none", "pcm.!default { type hw card 27 }\n");
    let out = play(x, &dir, &format!("{LOUDER}; key Escape; key v; idle; quit"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("sound")).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(lines[0].starts_with("delve: no sound: "), "{stderr}");
    assert!(
        !stderr.contains("ALSA lib"),
        "ALSA's own messages leak: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    // The mute key still answers, and is kept.
    let kept = std::fs::read_to_string(dir.join("config/sound.toml")).expect("sound.toml");
    assert!(kept.contains("muted = true"), "{kept}");
}
