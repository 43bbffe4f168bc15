//! Without a display the real client binary says what it needs, how to run it under Xvfb, and
//! exits having created nothing: not the solo game's folder, not the config folder.

use std::process::Command;

#[test]
fn without_a_display_the_game_says_so_and_creates_nothing() {
    let home = std::env::temp_dir().join(format!("delve-nodisplay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).expect("test files and runtime");
    let out = Command::new(env!("CARGO_BIN_EXE_delve"))
        .args(["--solo", "--name", "Nobody"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("DELVE_DATA_DIR")
        .env_remove("DELVE_CONFIG_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME")
        .env("HOME", &home)
        .output()
        .expect("the client runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert!(err.contains("needs a graphical display"), "{err}");
    assert!(err.contains("xvfb-run"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&home).expect("test setup").collect();
    assert!(left.is_empty(), "created {left:?}");
    // A DISPLAY that names no server is no display either.
    let out = Command::new(env!("CARGO_BIN_EXE_delve"))
        .args(["--solo", "--name", "Nobody"])
        .env("DISPLAY", ":4321")
        .env("HOME", &home)
        .env_remove("DELVE_DATA_DIR")
        .env_remove("DELVE_CONFIG_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME")
        .output()
        .expect("the client runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert!(err.contains("DISPLAY=:4321"), "{err}");
    assert!(
        std::fs::read_dir(&home)
            .expect("test setup")
            .next()
            .is_none()
    );
    let _ = std::fs::remove_dir_all(&home);
}
