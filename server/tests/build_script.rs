//! The browser client arrives with the next build once the wasm target is installed: the build
//! script asks cargo to run it again when the toolchain's targets change (its page tells the
//! reader to do exactly that: install the target, build again). Read from what this very build's
//! script told cargo.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What the build script of this build printed for cargo (`OUT_DIR/../output`).
fn script_output() -> String {
    let out = Path::new(env!("OUT_DIR"));
    let file = out.parent().expect("OUT_DIR has a parent").join("output");
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()))
}

fn sysroot() -> PathBuf {
    let out = Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .expect("rustc runs");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

#[test]
fn the_build_script_runs_again_when_a_target_is_installed() {
    let watched: Vec<PathBuf> = script_output()
        .lines()
        .filter_map(|l| l.strip_prefix("cargo:rerun-if-changed="))
        .map(PathBuf::from)
        .collect();
    let rustlib = sysroot().join("lib/rustlib");
    // rustup rewrites `components` on every `rustup target add`; another toolchain gets a new
    // folder in `lib/rustlib`.
    let expected = if rustlib.join("components").is_file() {
        rustlib.join("components")
    } else {
        rustlib
    };
    assert!(
        watched.contains(&expected),
        "the build script does not watch {} (it watches {watched:?})",
        expected.display()
    );
    assert!(
        expected.exists(),
        "a watched path that is missing would run the script on every build"
    );
}
