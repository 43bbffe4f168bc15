//! `delve-load`: the end-to-end load generator. It starts the real `delve-server` binary and a
//! plain tokio-tungstenite echo server (the same WebSocket settings) as processes of their own,
//! then, against each in turn and in the same run:
//!
//! 1. opens `--idle` signed-in connections that do nothing and reads how much the process's
//!    resident memory grew (the server's dungeons are loaded first, so only connections count);
//! 2. for each `--clients` count, runs that many bots sending `--rate` messages a second on an
//!    open-loop schedule (a late answer never delays the next message's due time, and latency is
//!    counted from when a message was due), `--per-dungeon` bots to a dungeon sharing one phase;
//!    it prints latency p50/p99/p99.9/max, bytes per update and the process's CPU per update
//!    (from /proc/PID/stat), each with its ratio to the echo's; and how late the generator
//!    itself sent the messages that fell due while their bot waited for nothing (its own share
//!    of every latency: when that is high too, the tail is the generator's, not the target's);
//!    and the stalls of each event loop, the target's (timers of `net::stall_watch`, 50 ms or
//!    more late, read from its log) and the generator's own (a timer every 5 ms), so that a
//!    tail can be put on the side that held it.
//!
//! With `--pin` the generator runs on CPU 0 and both servers on CPU 1. With `--repeat K` each
//! size is measured K times, echo and server in turn, and the spread of their ratios is printed:
//! on a shared machine one pair of runs can land either side of a target. See
//! docs/BENCHMARKS.md.

/// mimalloc, the allocator `delve-server` used until issue 27, so the echo baseline (this
/// binary, see `echo-server`) stays the one the CPU targets were set against: the server now
/// uses the system's allocator, a little slower, and is measured against this faster baseline.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::BufRead;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, bail};
use delve_server::net::stall_watch;
use delve_tests::load::args::{Args, USAGE, Variant, parse};
use delve_tests::load::bot::{self, EchoPlayer, GamePlayer, Report, Window};
use delve_tests::load::procfs;
use delve_tests::load::schedule::{Schedule, group_offset};
use delve_tests::load::stats::{Summary, ratio, show};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::Semaphore;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // The echo baseline is this same binary, started as its own process.
    if args.first().map(String::as_str) == Some("echo-server") {
        let addr: SocketAddr = args.get(1).context("echo-server ADDR")?.parse()?;
        return tokio::runtime::Runtime::new()?.block_on(async {
            let listener = tokio::net::TcpListener::bind(addr).await?;
            // The same watch as the server's, logged the same way (see `start`).
            tokio::spawn(stall_watch::watch(
                stall_watch::TICK,
                stall_watch::STALL,
                |late| {
                    eprintln!(
                        "WARN the event loop was held up late_ms={}",
                        late.as_millis()
                    )
                },
            ));
            delve_tests::load::echo::serve(listener).await;
            Ok(())
        });
    }
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return Ok(());
    }
    let a = parse(&args)?;
    if a.pin {
        // Before the runtime starts, so every thread it makes inherits CPU 0.
        let me = std::process::id().to_string();
        let ok = Command::new("taskset")
            .args(["-a", "-p", "-c", "0", &me])
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            bail!("cannot pin the generator to CPU 0 (is taskset installed?)");
        }
    }
    tokio::runtime::Runtime::new()?.block_on(run(a))
}

/// A server under test: its process and address.
struct Target {
    name: String,
    /// A Delve server (its bots play), not the echo.
    game: bool,
    child: Child,
    url: String,
    /// How late (ms) each stall its stall watch logged was, in order, so far.
    stalls: Arc<Mutex<Vec<u64>>>,
}

impl Target {
    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// How many stalls it has logged so far.
    fn stalls_so_far(&self) -> usize {
        self.stalls.lock().map_or(0, |s| s.len())
    }

    /// The stalls logged after the first `from`.
    fn stalls_since(&self, from: usize) -> Vec<u64> {
        self.stalls
            .lock()
            .map(|s| s.get(from..).unwrap_or_default().to_vec())
            .unwrap_or_default()
    }
}

/// Passes the target's log on to ours, noting the stalls its watch reports (`late_ms=N`).
fn read_log(log: impl std::io::Read + Send + 'static, stalls: Arc<Mutex<Vec<u64>>>) {
    // Whatever a line holds (not UTF-8, say) and whether or not our own stderr still takes it,
    // the pipe is read to its end: a full pipe would block the target's logging, and with it
    // one of its threads.
    std::thread::spawn(move || {
        use std::io::Write;
        let mut log = std::io::BufReader::new(log);
        let mut bytes = Vec::new();
        while log.read_until(b'\n', &mut bytes).is_ok_and(|n| n > 0) {
            let line = String::from_utf8_lossy(&bytes);
            if let (Some(late), Ok(mut stalls)) = (stall_ms(&line), stalls.lock()) {
                stalls.push(late);
            }
            let _ = std::io::stderr().write_all(&bytes);
            bytes.clear();
        }
    });
}

impl Drop for Target {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// How late the stall a log line reports was, in ms, if it reports one. The server's log is not
/// coloured when it is not a terminal, so the field reads `late_ms=N`.
fn stall_ms(line: &str) -> Option<u64> {
    if !line.contains("event loop was held up") {
        return None;
    }
    let rest = line.split("late_ms=").nth(1)?;
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// Starts `program args` (on CPU 1 with `pin`) and waits until it accepts connections on `port`.
async fn start(
    name: &str,
    program: &std::path::Path,
    args: &[String],
    env: &[(String, String)],
    port: u16,
    pin: bool,
) -> anyhow::Result<Target> {
    let mut cmd = if pin {
        let mut c = Command::new("taskset");
        c.args(["-c", "1"]).arg(program);
        c
    } else {
        Command::new(program)
    };
    // taskset execs the program, so the child's pid is the server's.
    let mut child = cmd
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start {}", program.display()))?;
    let stalls = Arc::new(Mutex::new(Vec::new()));
    if let Some(log) = child.stderr.take() {
        read_log(log, Arc::clone(&stalls));
    }
    let target = Target {
        name: name.to_owned(),
        game: name != "echo",
        child,
        url: format!("ws://127.0.0.1:{port}"),
        stalls,
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        if Instant::now() > deadline {
            bail!("{name} did not start listening on port {port}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(target)
}

/// One load run against one target.
struct Run {
    latency: Summary,
    /// The generator's own lateness in sending (see `Report::own_lags`).
    own_lag: Summary,
    /// The answers that took `bot::SLOW` or more: (dungeon, when due, latency).
    slow: Vec<(usize, Duration, Duration)>,
    /// How late (ms) each of the target's logged stalls was, in the measured window.
    stalls: Vec<u64>,
    /// How late the generator's own 5 ms timer fired, over the measured window.
    gen_loop: Summary,
    updates: u64,
    bytes: u64,
    frames: u64,
    sent: u64,
    rejected: u64,
    errors: usize,
    cpu: Duration,
    gen_cpu: Duration,
    secs: f64,
}

impl Run {
    fn cpu_per_update(&self) -> f64 {
        self.cpu.as_secs_f64() / self.updates.max(1) as f64
    }
    fn bytes_per_update(&self) -> f64 {
        self.bytes as f64 / self.updates.max(1) as f64
    }
}

/// Connects `n` bots, at most 64 handshakes at a time; `game` bots also join their dungeons.
async fn connect_bots(
    url: &str,
    n: usize,
    per_dungeon: usize,
    game: Option<(&str, u64)>,
) -> anyhow::Result<Vec<(bot::Ws, Option<GamePlayer>)>> {
    let gate = Arc::new(Semaphore::new(64));
    let mut tasks = Vec::with_capacity(n);
    for i in 0..n {
        let (url, gate) = (url.to_owned(), Arc::clone(&gate));
        let game = game.map(|(prefix, seed)| {
            (
                format!("{prefix}-{}", i / per_dungeon),
                // Unique across calls too: each call is given its own seeds.
                format!("bot{}", seed + i as u64),
                seed + i as u64,
            )
        });
        tasks.push(tokio::spawn(async move {
            let _permit = gate.acquire_owned().await?;
            let mut ws = bot::connect(&url).await?;
            let player = match game {
                Some((dungeon, name, seed)) => {
                    Some(GamePlayer::join(&mut ws, &name, &dungeon, seed).await?)
                }
                None => None,
            };
            anyhow::Ok((ws, player))
        }));
    }
    let mut bots = Vec::with_capacity(n);
    for t in tasks {
        bots.push(t.await??);
    }
    Ok(bots)
}

/// Runs `clients` bots against `target` for the warm-up and the measured seconds.
async fn load(
    target: &Target,
    a: &Args,
    clients: usize,
    round: usize,
    ticks: u64,
) -> anyhow::Result<Run> {
    // Each round in dungeons of its own: the last round's characters are still in theirs.
    let game = target
        .game
        .then(|| (format!("load{clients}r{round}"), a.seed));
    let bots = connect_bots(
        &target.url,
        clients,
        a.per_dungeon,
        game.as_ref().map(|(p, s)| (p.as_str(), *s)),
    )
    .await
    .with_context(|| format!("connecting {clients} bots to the {}", target.name))?;
    let period = Duration::from_secs_f64(1.0 / a.rate);
    let groups = clients.div_ceil(a.per_dungeon);
    let w = Window {
        start: Instant::now() + Duration::from_millis(500),
        from: Duration::from_secs_f64(a.warmup),
        until: Duration::from_secs_f64(a.warmup + a.seconds),
    };
    let mut tasks = Vec::with_capacity(clients);
    // No bot closes its socket before every bot has had its last answer (see `bot::run`).
    let done = Arc::new(tokio::sync::Barrier::new(bots.len()));
    for (i, (ws, player)) in bots.into_iter().enumerate() {
        let schedule = Schedule::new(group_offset(i / a.per_dungeon, groups, period), period);
        tasks.push(match player {
            Some(p) => tokio::spawn(bot::run(ws, p, schedule, w, Arc::clone(&done))),
            None => tokio::spawn(bot::run(ws, EchoPlayer, schedule, w, Arc::clone(&done))),
        });
    }
    let gen_loop = tokio::spawn(loop_lateness(w));
    // The process's CPU over exactly the measured window.
    let pid = target.pid();
    let me = std::process::id();
    tokio::time::sleep_until(w.start + w.from).await;
    let (cpu0, gen0) = (procfs::cpu_time(pid, ticks)?, procfs::cpu_time(me, ticks)?);
    let stalls0 = target.stalls_so_far();
    tokio::time::sleep_until(w.start + w.until).await;
    let (cpu1, gen1) = (procfs::cpu_time(pid, ticks)?, procfs::cpu_time(me, ticks)?);
    let stalls = target.stalls_since(stalls0);
    let mut gen_loop = gen_loop.await?;
    let mut all = Report::default();
    let mut errors = 0;
    // Slow answers: (dungeon, when due, latency).
    let mut slow = Vec::new();
    for (i, t) in tasks.into_iter().enumerate() {
        let r = t.await?;
        slow.extend(r.slow.iter().map(|&(due, l)| (i / a.per_dungeon, due, l)));
        if let Some(e) = &r.error {
            if errors < 5 {
                eprintln!("  {} bot failed: {e}", target.name);
            }
            errors += 1;
        }
        all.latencies.extend(r.latencies);
        all.own_lags.extend(r.own_lags);
        all.updates += r.updates;
        all.bytes += r.bytes;
        all.frames += r.frames;
        all.sent += r.sent;
        all.rejected += r.rejected;
    }
    Ok(Run {
        latency: Summary::of(&mut all.latencies),
        own_lag: Summary::of(&mut all.own_lags),
        slow,
        stalls,
        gen_loop: Summary::of(&mut gen_loop),
        updates: all.updates,
        bytes: all.bytes,
        frames: all.frames,
        sent: all.sent,
        rejected: all.rejected,
        errors,
        cpu: cpu1.saturating_sub(cpu0),
        gen_cpu: gen1.saturating_sub(gen0),
        secs: a.seconds,
    })
}

/// How late a timer set every 5 ms fires on this process's event loop over the measured window:
/// the generator's own stalls, which hold up reading answers as much as sending.
async fn loop_lateness(w: Window) -> Vec<Duration> {
    const TICK: Duration = Duration::from_millis(5);
    let (from, until) = (w.start + w.from, w.start + w.until);
    let mut lateness = Vec::new();
    tokio::time::sleep_until(from).await;
    let mut next = from + TICK;
    while next < until {
        tokio::time::sleep_until(next).await;
        let now = Instant::now();
        lateness.push(now.saturating_duration_since(next));
        next = now + TICK;
    }
    lateness
}

/// Resident memory growth of `target` per connection over `n` idle connections: echo
/// connections each exchange one message; server connections sign in to dungeons loaded before
/// the first reading (one signed-in player each), so the floors are not counted. For the
/// server, also the growth once connected but before the hello (the network layer's share),
/// as the second number.
async fn idle_memory(target: &Target, a: &Args, n: usize) -> anyhow::Result<(f64, f64)> {
    let game = target.game;
    let dungeons = n.div_ceil(a.per_dungeon);
    let _warm = if game {
        connect_bots(&target.url, dungeons, 1, Some(("idle", a.seed))).await?
    } else {
        Vec::new()
    };
    settle().await;
    let pid = target.pid();
    let before = procfs::rss(pid)? as f64;
    let mut bots = connect_bots(&target.url, n, a.per_dungeon, None).await?;
    settle().await;
    let connected = procfs::rss(pid)? as f64;
    for (i, (ws, _)) in bots.iter_mut().enumerate() {
        if game {
            let seed = a.seed + 1_000_000 + i as u64;
            let dungeon = format!("idle-{}", i / a.per_dungeon);
            GamePlayer::join(ws, &format!("bot{seed}"), &dungeon, seed).await?;
        } else {
            ws.send(Message::text(bot::ECHO_MSG)).await?;
            ws.next().await.context("no echo")??;
        }
    }
    settle().await;
    let after = procfs::rss(pid)? as f64;
    Ok(((after - before) / n as f64, (connected - before) / n as f64))
}

async fn settle() {
    tokio::time::sleep(Duration::from_secs(2)).await;
}

fn command_output(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_owned())
        .unwrap_or_default()
}

async fn run(a: Args) -> anyhow::Result<()> {
    let ticks = procfs::ticks_per_sec();
    let exe = std::env::current_exe()?;
    let variants = if a.variants.is_empty() {
        vec![Variant {
            name: "server".into(),
            path: a
                .server_bin
                .clone()
                .unwrap_or_else(|| exe.with_file_name("delve-server")),
            env: Vec::new(),
        }]
    } else {
        a.variants.clone()
    };
    let most = (a.clients.iter().copied().max().unwrap_or(0))
        .max(a.idle)
        .max(a.dungeon_memory.iter().max().copied().unwrap_or(0) * a.dungeons);
    let limit = (2 * most + 1000).to_string();
    let server_args = |port: u16, per_dungeon: usize| -> Vec<String> {
        #[rustfmt::skip]
        let args = [
            "--memory-only", "--no-web", "--bind", &format!("127.0.0.1:{port}"),
            "--turn-timeout", "0", "--seed", &a.seed.to_string(),
            "--max-connections", &limit, "--max-connections-per-ip", &limit,
            "--max-dungeons", &limit, "--max-players", &(per_dungeon + 1).to_string(),
            "--max-characters", "1000", "--new-characters-per-address", "1000000",
            "--new-dungeons-per-address", "1000000",
            "--rate", "1000", "--burst", "1000",
        ];
        args.iter().map(|s| s.to_string()).collect()
    };
    println!(
        "delve-load {} | {} | load average {} | pinned: {}",
        std::env::args().skip(1).collect::<Vec<_>>().join(" "),
        command_output("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
        procfs::load_average(),
        if a.pin {
            "generator CPU 0, servers CPU 1"
        } else {
            "no"
        },
    );
    let start_echo = || async {
        let port = free_port()?;
        let args = vec!["echo-server".to_owned(), format!("127.0.0.1:{port}")];
        start("echo", &exe, &args, &[], port, a.pin).await
    };
    let start_server = |v: &Variant, per_dungeon: usize| {
        let v = v.clone();
        let server_args = &server_args;
        let pin = a.pin;
        async move {
            let port = free_port()?;
            start(
                &v.name,
                &v.path,
                &server_args(port, per_dungeon),
                &v.env,
                port,
                pin,
            )
            .await
        }
    };

    if !a.dungeon_memory.is_empty() {
        dungeon_memory(&a, &variants, start_echo, start_server).await?;
    }
    if a.clients.is_empty() && a.idle == 0 {
        return Ok(());
    }
    let echo = start_echo().await?;
    let mut servers = Vec::new();
    for v in &variants {
        servers.push(start_server(v, a.per_dungeon).await?);
    }

    if a.idle > 0 {
        let (e, _) = idle_memory(&echo, &a, a.idle).await?;
        for server in &servers {
            let (s, s_connected) = idle_memory(server, &a, a.idle).await?;
            println!(
                "memory per idle connection ({} connections): echo {:.1} KB, {} signed in {:.1} KB = {:.2}x echo (before its hello: {:.1} KB = {:.2}x) | load average {}",
                a.idle,
                e / 1000.0,
                server.name,
                s / 1000.0,
                ratio(s, e),
                s_connected / 1000.0,
                ratio(s_connected, e),
                procfs::load_average(),
            );
        }
    }
    if a.clients.is_empty() {
        return Ok(());
    }

    println!(
        "| clients | target | p50 | p99 | p99.9 | max | sent | updates | frames | rejected | errors | bytes/update | CPU/update | server CPU | generator CPU | generator late p99, max | stalls ≥ 50 ms: target (count, max); generator loop late max | load avg |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for &clients in &a.clients {
        let mut cpu_ratios = vec![Vec::new(); servers.len()];
        let mut p99s = vec![Vec::new(); servers.len()];
        let mut knees = vec![0; servers.len()];
        for round in 0..a.repeat {
            let e = load(&echo, &a, clients, round, ticks).await?;
            print_row(clients, "echo", &e, None);
            print_slow("echo", &e);
            for (k, server) in servers.iter().enumerate() {
                let s = load(server, &a, clients, round, ticks).await?;
                print_row(clients, &server.name, &s, Some(&e));
                print_slow(&server.name, &s);
                let knee = s.latency.p99 > Duration::from_millis(50) || s.errors > 0;
                let cpu = ratio(s.cpu_per_update(), e.cpu_per_update());
                println!(
                    "  {clients} clients: {}/echo p50 {:.1}x, p99 {:.1}x, CPU per update {cpu:.2}x{}",
                    server.name,
                    ratio(s.latency.p50.as_secs_f64(), e.latency.p50.as_secs_f64()),
                    ratio(s.latency.p99.as_secs_f64(), e.latency.p99.as_secs_f64()),
                    if knee {
                        " | KNEE: p99 over 50 ms or errors"
                    } else {
                        ""
                    },
                );
                cpu_ratios[k].push(cpu);
                p99s[k].push(s.latency.p99);
                knees[k] += usize::from(knee);
            }
        }
        for (k, server) in servers.iter().enumerate() {
            if a.repeat < 2 {
                break;
            }
            let (cpu, p99) = (&mut cpu_ratios[k], &mut p99s[k]);
            cpu.sort_by(f64::total_cmp);
            p99.sort();
            let mid = a.repeat / 2;
            println!(
                "  {clients} clients, {} over {} rounds: CPU per update {:.2}x to {:.2}x of the echo's (median {:.2}x); p99 {} to {} (median {}); knee in {} of {} rounds",
                server.name,
                a.repeat,
                cpu[0],
                cpu[a.repeat - 1],
                cpu[mid],
                show(p99[0]),
                show(p99[a.repeat - 1]),
                show(p99[mid]),
                knees[k],
                a.repeat,
            );
        }
    }
    Ok(())
}

/// `--dungeon-memory`: for each party size, the resident memory of `--dungeons` dungeons made
/// and played (`--turns` turns) by their players, per dungeon and per player, against the
/// echo's per connection; each measured on a fresh process (echo and every variant in turn).
async fn dungeon_memory<E, S, EF, SF>(
    a: &Args,
    variants: &[Variant],
    start_echo: E,
    start_server: S,
) -> anyhow::Result<()>
where
    E: Fn() -> EF,
    EF: std::future::Future<Output = anyhow::Result<Target>>,
    S: Fn(&Variant, usize) -> SF,
    SF: std::future::Future<Output = anyhow::Result<Target>>,
{
    println!(
        "| players a dungeon | target | dungeons | memory per dungeon | per player | echo per connection | per player / echo | load avg |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for &players in &a.dungeon_memory {
        let n = a.dungeons * players;
        let echo = start_echo().await?;
        settle().await;
        let before = procfs::rss(echo.pid())? as f64;
        let held = delve_tests::load::memory::echo_connections(&echo.url, n).await?;
        settle().await;
        let per_echo = (procfs::rss(echo.pid())? as f64 - before) / n as f64;
        drop((held, echo));
        for v in variants {
            let server = start_server(v, players).await?;
            settle().await;
            let before = procfs::rss(server.pid())? as f64;
            let held = delve_tests::load::memory::play_dungeons(
                &server.url,
                &format!("mem{players}"),
                a.dungeons,
                players,
                a.turns,
                a.seed,
            )
            .await
            .with_context(|| format!("playing dungeons on {}", v.name))?;
            settle().await;
            let grown = procfs::rss(server.pid())? as f64 - before;
            let (per_dungeon, per_player) = (grown / a.dungeons as f64, grown / n as f64);
            println!(
                "| {players} | {} | {} | {:.0} KB | {:.0} KB | {:.1} KB | {:.1}x | {} |",
                v.name,
                a.dungeons,
                per_dungeon / 1000.0,
                per_player / 1000.0,
                per_echo / 1000.0,
                ratio(per_player, per_echo),
                procfs::load_average(),
            );
            drop((held, server));
        }
    }
    Ok(())
}

/// Where the slow answers were: how many dungeons they came from, and how many fell due in the
/// busiest 100 ms. All of them at one moment is a stall of everyone; spread out, a few slow
/// dungeons or connections.
fn print_slow(name: &str, r: &Run) {
    if r.slow.is_empty() {
        return;
    }
    let mut dungeons: Vec<usize> = r.slow.iter().map(|(d, _, _)| *d).collect();
    dungeons.sort_unstable();
    dungeons.dedup();
    let mut buckets = std::collections::BTreeMap::<u128, usize>::new();
    for (_, due, _) in &r.slow {
        *buckets.entry(due.as_millis() / 100).or_default() += 1;
    }
    let (at, most) = buckets
        .iter()
        .max_by_key(|(_, n)| **n)
        .map_or((0, 0), |(b, n)| (*b, *n));
    let mut moments: Vec<String> = buckets
        .iter()
        .map(|(b, n)| format!("{:.1} s: {n}", *b as f64 / 10.0))
        .collect();
    moments.truncate(12);
    println!(
        "  {name}: {} answers took {} ms or more, from {} dungeons; the busiest 100 ms ({:.1} s) holds {most}; by when due: {}",
        r.slow.len(),
        bot::SLOW.as_millis(),
        dungeons.len(),
        at as f64 / 10.0,
        moments.join(", "),
    );
}

fn print_row(clients: usize, name: &str, r: &Run, base: Option<&Run>) {
    let x = |v: f64, b: Option<f64>| match b {
        Some(b) => format!(" ({:.1}x)", ratio(v, b)),
        None => String::new(),
    };
    let d = |f: fn(&Summary) -> Duration| {
        let v = f(&r.latency);
        format!(
            "{}{}",
            show(v),
            x(v.as_secs_f64(), base.map(|b| f(&b.latency).as_secs_f64()))
        )
    };
    println!(
        "| {clients} | {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.0} B{} | {:.1} µs{} | {:.0}% | {:.0}% | {}, {} | {}, {} ms; {} | {} |",
        d(|s| s.p50),
        d(|s| s.p99),
        d(|s| s.p999),
        d(|s| s.max),
        r.sent,
        r.updates,
        r.frames,
        r.rejected,
        r.errors,
        r.bytes_per_update(),
        x(r.bytes_per_update(), base.map(Run::bytes_per_update)),
        r.cpu_per_update() * 1e6,
        x(r.cpu_per_update(), base.map(Run::cpu_per_update)),
        100.0 * r.cpu.as_secs_f64() / r.secs,
        100.0 * r.gen_cpu.as_secs_f64() / r.secs,
        show(r.own_lag.p99),
        show(r.own_lag.max),
        r.stalls.len(),
        r.stalls.iter().max().copied().unwrap_or(0),
        show(r.gen_loop.max),
        procfs::load_average(),
    );
}

#[cfg(test)]
mod tests {
    use super::stall_ms;

    #[test]
    fn stall_reports_are_read_from_the_server_and_echo_logs() {
        let server = "2026-11-26T15:02:11.123456Z  WARN delve_server::net: the event loop was held up: connections it serves waited as long late_ms=137";
        assert_eq!(stall_ms(server), Some(137));
        assert_eq!(
            stall_ms("WARN the event loop was held up late_ms=52"),
            Some(52)
        );
        assert_eq!(
            stall_ms("2026-11-26T15:02:11Z  WARN delve_server::net: accept failed error=late_ms=3"),
            None
        );
    }
}
