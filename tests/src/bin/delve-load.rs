//! `delve-load`: a load generator. Bots join dungeons over real WebSockets and random-walk,
//! measuring the time from sending an intent to receiving the update of its turn.
//!
//! Without `--server` it starts a server in-process (turn timer off, limits raised) so a run
//! measures the server and the network path on this machine. See docs/BENCHMARKS.md.

use delve_protocol::Action;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use delve_client::model::Model;
use delve_client::net::Session;
use delve_protocol::{ClientMsg, Dir, ServerMsg};
use delve_server::net::{Server, ServerConfig};
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

struct Args {
    server: Option<String>,
    clients: usize,
    per_dungeon: usize,
    turns: usize,
    pace_ms: u64,
    seed: u64,
    name: String,
    dungeon: String,
    /// Journal the in-process server's dungeons to a database here (none: memory only).
    data_dir: Option<std::path::PathBuf>,
}

fn usage() -> ! {
    eprintln!(
        "usage: delve-load [--server ws://HOST:PORT] [--clients N] [--per-dungeon K] [--turns T]\n\
         \x20                 [--pace-ms MS] [--seed S] [--name PREFIX] [--dungeon PREFIX]\n\
         \x20                 [--data-dir DIR]\n\
         Bots join dungeons PREFIX-0, PREFIX-1, ... (K bots each) and each plays T turns,\n\
         pausing MS between turns. Prints turn latency percentiles. Without --server it starts\n\
         a server in-process, kept in memory unless --data-dir gives it a database."
    );
    std::process::exit(2)
}

fn parse() -> Args {
    let mut a = Args {
        server: None,
        clients: 8,
        per_dungeon: 1,
        turns: 200,
        pace_ms: 0,
        seed: 1,
        name: "bot".into(),
        dungeon: "load".into(),
        data_dir: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().unwrap_or_else(|| usage());
        let num = |s: String| s.parse::<u64>().unwrap_or_else(|_| usage());
        match flag.as_str() {
            "--server" => a.server = Some(val()),
            "--clients" => a.clients = num(val()) as usize,
            "--per-dungeon" => a.per_dungeon = num(val()).max(1) as usize,
            "--turns" => a.turns = num(val()) as usize,
            "--pace-ms" => a.pace_ms = num(val()),
            "--seed" => a.seed = num(val()),
            "--name" => a.name = val(),
            "--dungeon" => a.dungeon = val(),
            "--data-dir" => a.data_dir = Some(val().into()),
            _ => usage(),
        }
    }
    a
}

/// One bot's run: its turn latencies.
async fn bot(
    url: String,
    name: String,
    dungeon: String,
    turns: usize,
    pace: Duration,
    seed: u64,
) -> anyhow::Result<Vec<Duration>> {
    let (mut s, first) = Session::join(&url, &name, &dungeon, None).await?;
    let mut model = Model::new();
    if !matches!(first, ServerMsg::Welcome { .. }) {
        bail!("{name}: refused: {first:?}");
    }
    model.handle(first)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut lat = Vec::with_capacity(turns);
    let mut done = 0;
    while done < turns {
        let view = model.view.as_ref().context("no view")?;
        // Dead: start again, as a player would.
        if !view.me.alive {
            s.send(&ClientMsg::NewCharacter).await?;
            loop {
                let m = tokio::time::timeout(Duration::from_secs(30), s.recv())
                    .await
                    .context("no welcome within 30 s")??;
                let welcome = matches!(m, ServerMsg::Welcome { .. });
                if model.handle(m).is_err() {
                    s.send(&ClientMsg::Resync).await?;
                }
                if welcome {
                    break;
                }
            }
            continue;
        }
        // Hit a monster next to us, else wander.
        let me = view.me.pos;
        let foe = view
            .entities
            .iter()
            .find(|e| e.kind == delve_protocol::EntityKind::Monster && e.pos.chebyshev(me) == 1)
            .and_then(|e| Dir::from_delta(e.pos.x - me.x, e.pos.y - me.y));
        let open: Vec<Dir> = Dir::ALL
            .into_iter()
            .filter(|&d| view.map.get(me.step(d)).is_walkable())
            .collect();
        let msg = match (foe, open.choose(&mut rng)) {
            (Some(dir), _) => ClientMsg::Act(Action::Move { dir }),
            (None, Some(&dir)) if rng.random_ratio(9, 10) => ClientMsg::Act(Action::Move { dir }),
            _ => ClientMsg::Act(Action::Wait),
        };
        let target = view.turn + 1;
        let sent = Instant::now();
        s.send(&msg).await?;
        let resolved = loop {
            let m = tokio::time::timeout(Duration::from_secs(30), s.recv())
                .await
                .context("no update within 30 s")??;
            let is_update = matches!(m, ServerMsg::Update { turn, .. } | ServerMsg::Snapshot { view: delve_protocol::View { turn, .. }, .. } if turn >= target);
            if let ServerMsg::Error { code, message, .. } = &m {
                match code {
                    // Not queued (a stale view, or dead): choose again.
                    delve_protocol::ErrorCode::Rejected | delve_protocol::ErrorCode::CannotAct => {
                        break false;
                    }
                    _ => bail!("{name}: error {code:?}: {message}"),
                }
            }
            if model.handle(m).is_err() {
                s.send(&ClientMsg::Resync).await?;
            }
            if is_update {
                break true;
            }
        };
        if resolved {
            lat.push(sent.elapsed());
            done += 1;
        }
        if !pace.is_zero() {
            tokio::time::sleep(pace).await;
        }
    }
    s.close().await;
    Ok(lat)
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let k = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[k]
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let a = parse();
    let local = match &a.server {
        Some(_) => None,
        None => Some(
            Server::start(ServerConfig {
                bind: ([127, 0, 0, 1], 0).into(),
                turn_timeout: Duration::ZERO,
                max_connections: a.clients + 16,
                max_connections_per_ip: a.clients + 16,
                max_players_per_dungeon: a.per_dungeon,
                max_dungeons: a.clients + 1,
                msgs_per_sec: 100_000,
                msg_burst: 100_000,
                seed: Some(a.seed),
                data_dir: a.data_dir.clone(),
                ..ServerConfig::default()
            })
            .await?,
        ),
    };
    let url = a
        .server
        .clone()
        .or_else(|| local.as_ref().map(Server::url))
        .context("no server")?;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..a.clients {
        let dungeon = format!("{}-{}", a.dungeon, i / a.per_dungeon);
        let name = if a.clients == 1 {
            a.name.clone()
        } else {
            format!("{}{i}", a.name)
        };
        tasks.push(tokio::spawn(bot(
            url.clone(),
            name,
            dungeon,
            a.turns,
            Duration::from_millis(a.pace_ms),
            a.seed + i as u64,
        )));
    }
    let mut all = Vec::new();
    let mut failed = 0;
    for t in tasks {
        match t.await? {
            Ok(l) => all.extend(l),
            Err(e) => {
                failed += 1;
                eprintln!("bot failed: {e:#}");
            }
        }
    }
    let elapsed = started.elapsed();
    all.sort();
    println!(
        "clients {} per-dungeon {} turns/bot {} pace {} ms | {} turns in {:.2} s = {:.0} turns/s | latency p50 {:?} p90 {:?} p99 {:?} max {:?} | failed bots {}",
        a.clients,
        a.per_dungeon,
        a.turns,
        a.pace_ms,
        all.len(),
        elapsed.as_secs_f64(),
        all.len() as f64 / elapsed.as_secs_f64(),
        pct(&all, 0.5),
        pct(&all, 0.9),
        pct(&all, 0.99),
        all.last().copied().unwrap_or_default(),
        failed
    );
    if let Some(s) = local
        && let Err(e) = s.shutdown().await
    {
        eprintln!("the local server did not shut down cleanly: {e}");
    }
    if failed > 0 {
        bail!("{failed} bots failed");
    }
    Ok(())
}
