//! A bad content file stops the real server at start with an error naming the file, the entry
//! and the field, and a good one is accepted.

use std::process::Command;

fn server(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_delve-server"))
        .args(args)
        .output()
        .expect("runs")
}

#[test]
fn a_bad_content_file_stops_the_server_naming_file_entry_and_field() {
    let dir = std::env::temp_dir().join(format!("delve-content-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = delve_server::game::content::BUILTIN;
    let bad = good.replacen("hp = [20, 49]", "hp = [49, 20]", 1);
    let path = dir.join("broken.toml");
    std::fs::write(&path, bad).unwrap();
    let out = server(&[
        "--content",
        path.to_str().unwrap(),
        "--bind",
        "127.0.0.1:0",
        "--data-dir",
        dir.to_str().unwrap(),
    ]);
    assert!(!out.status.success(), "the server must not start");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("broken.toml"), "{err}");
    assert!(err.contains("tough_mouse"), "{err}");
    assert!(err.contains("field `hp`"), "{err}");

    // A file that is not there is named too.
    let out = server(&[
        "--content",
        "/nonexistent/delve.toml",
        "simulate",
        "--games",
        "1",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/delve.toml"));

    // The shipped file itself is accepted, by the simulation as by the server.
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/content/delve.toml");
    let out = server(&[
        "--content",
        shipped,
        "simulate",
        "--games",
        "4",
        "--max-turns",
        "300",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("deepest floor reached") && report.contains("how games ended"),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(dir);
}
