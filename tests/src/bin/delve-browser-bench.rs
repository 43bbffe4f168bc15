//! `delve-browser-bench [SECONDS]`: the browser client's budgets, measured in headless Chromium
//! against a real server on loopback (docs/BENCHMARKS.md records the results):
//! - the bytes a browser downloads (page, loader, plugin, wasm; gzip as served);
//! - page load to the first drawn map (navigation start to the first frame with a map);
//! - frame interval and the client's own work per frame, averaged over the last frames of
//!   SECONDS (default 10) of play, to compare with the native client's `--frame-stats`.
//!
//! A native scripted player shares the dungeon and answers the turn clock, as in the tests.
//! Then, if `xvfb-run` and the native `delve` (beside this binary) are there, the native client
//! plays the same dungeon in a window of the same size under Xvfb for the same time, with
//! `--frame-stats`, and the ratios browser/native are printed.

use delve_protocol::Action;
use std::time::Duration;

use anyhow::{Context, bail};
use delve_protocol::{ClientMsg, ServerMsg};
use delve_server::net::ServerConfig;
use delve_tests::browser::Browser;
use delve_tests::{Bot, TestServer, test_config};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let seconds: u64 = match std::env::args().nth(1) {
        Some(s) => s.parse().context("SECONDS must be a whole number")?,
        None => 10,
    };
    let server = TestServer::start(ServerConfig {
        bind: ([127, 0, 0, 1], 0).into(),
        ..test_config()
    })
    .await;
    let assets = match delve_server::net::web::assets() {
        Ok(a) => a,
        Err(why) => bail!("the server has no browser client: {why}"),
    };
    let parts = [&assets.page, &assets.loader, &assets.plugin, &assets.wasm];
    let gzip: usize = parts.iter().map(|a| a.gzip.len()).sum();
    let raw: usize = parts.iter().map(|a| a.raw.len()).sum();
    println!(
        "download: {gzip} bytes gzip ({raw} raw); wasm {} gzip ({} raw)",
        assets.wasm.gzip.len(),
        assets.wasm.raw.len()
    );

    let mut bob = Bot::join(&server.url, "Bob", "bench").await;
    let bob_task = tokio::spawn(async move {
        while let Ok(msg) = bob.session.recv().await {
            if let ServerMsg::TurnStatus { waiting_for, .. } = &msg
                && waiting_for.iter().any(|n| n == "Bob")
                && bob
                    .session
                    .send(&ClientMsg::Act(Action::Wait))
                    .await
                    .is_err()
            {
                return;
            }
        }
    });
    let mut browser = Browser::launch(1280, 800).await?;
    let page = format!(
        "{}/?dungeon=bench&name=Ann",
        server.url.replace("ws://", "http://")
    );
    browser.navigate(&page).await?;
    let st = browser
        .wait_status("the first drawn map", Duration::from_secs(30), |st| {
            st["map"] == true
        })
        .await?;
    println!(
        "first map: {:.0} ms after navigation (first frame drawn at {:.0} ms)",
        st["first_map_ms"].as_f64().unwrap_or(f64::NAN),
        st["first_frame_ms"].as_f64().unwrap_or(f64::NAN)
    );
    let loads = browser
        .eval(
            "performance.getEntriesByType('resource').map(e => \
             e.name.split('/').pop() + ' ' + Math.round(e.startTime) + '-' + Math.round(e.responseEnd) + ' ms')",
        )
        .await?;
    println!("downloads: {loads}");
    // Play on: the frame statistics cover the last 300 frames.
    let started = std::time::Instant::now();
    let st = browser
        .wait_status(
            "the game to run on",
            Duration::from_secs(seconds + 30),
            |_| started.elapsed() >= Duration::from_secs(seconds),
        )
        .await?;
    println!(
        "frames: mean interval {:.3} ms, mean work {:.3} ms",
        st["frame_ms"].as_f64().unwrap_or(f64::NAN),
        st["work_ms"].as_f64().unwrap_or(f64::NAN)
    );
    drop(browser);
    let browser_frames = (
        st["frame_ms"].as_f64().unwrap_or(f64::NAN),
        st["work_ms"].as_f64().unwrap_or(f64::NAN),
    );
    match native_frames(&server.url, seconds).await {
        Ok((interval, work)) => {
            println!("native: mean interval {interval:.3} ms, mean work {work:.3} ms");
            println!(
                "browser/native: interval {:.2}x, work {:.2}x",
                browser_frames.0 / interval,
                browser_frames.1 / work
            );
        }
        Err(e) => println!("native: not measured ({e:#})"),
    }
    bob_task.abort();
    server.stop().await;
    Ok(())
}

/// Runs the native client (`delve` beside this binary) under Xvfb in the same dungeon for
/// `seconds` and returns its last `--frame-stats` line's (interval, work).
async fn native_frames(url: &str, seconds: u64) -> anyhow::Result<(f64, f64)> {
    let exe = std::env::current_exe()?;
    let delve = exe.with_file_name("delve");
    if !delve.is_file() {
        bail!("no native client at {}", delve.display());
    }
    let url = url.to_owned();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("xvfb-run")
            .args(["-a", "-s", "-screen 0 1280x800x24", "timeout"])
            .arg((seconds + 1).to_string())
            .arg(&delve)
            .args(["--server", &url, "--dungeon", "bench", "--name", "Nat"])
            .arg("--frame-stats")
            .output()
    })
    .await?
    .context("cannot run xvfb-run")?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr
        .lines()
        .rfind(|l| l.starts_with("frames:"))
        .with_context(|| format!("the native client printed no frame statistics: {stderr}"))?;
    // "frames: N mean interval X ms, mean work Y ms"
    let number_after = |label: &str| -> anyhow::Result<f64> {
        line.split(label)
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .with_context(|| format!("cannot read {label} in {line}"))
    };
    Ok((number_after("interval ")?, number_after("work ")?))
}
