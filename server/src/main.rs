//! `delve-server`: the dedicated Delve server.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use std::sync::Arc;

use anyhow::Context;
use clap::{Parser, Subcommand};
use delve_server::game::Content;
use delve_server::game::content::{BUILTIN, BUILTIN_NAME};
use delve_server::net::{Server, ServerConfig};
use delve_server::sim::{self, SimConfig};
use tracing::info;

/// Runs a Delve server: friends join dungeons on it by name with `delve --server ws://HOST:PORT`.
#[derive(Debug, Parser)]
#[command(name = "delve-server", version)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// Content file (monsters and tuning numbers) to use instead of the built-in one.
    #[arg(long, global = true)]
    content: Option<PathBuf>,

    #[command(flatten)]
    serve: Args,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Play whole games with bots through the engine (no network) and print how deep they got
    /// and what killed them.
    Simulate {
        /// Games to play.
        #[arg(long, default_value_t = 1000)]
        games: u32,
        /// Seed of the first game's dungeon; each game derives its own from it.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Turns after which a game is stopped.
        #[arg(long, default_value_t = 20_000)]
        max_turns: u64,
        /// Threads to play on (default: every core).
        #[arg(long)]
        threads: Option<usize>,
    },
}

/// Options of the server itself (when no subcommand is given).
#[derive(Debug, clap::Args)]
struct Args {
    /// Address to listen on. The default only accepts connections from this machine; use
    /// 0.0.0.0:7777 to let others join.
    #[arg(long, default_value = "127.0.0.1:7777")]
    bind: SocketAddr,

    /// Directory for the server's data (created if missing).
    #[arg(long, default_value = "delve-data")]
    data_dir: PathBuf,

    /// Seconds a floor waits after its first player chose before resolving the turn anyway
    /// (fractions allowed). 0 waits for every connected player.
    #[arg(long, default_value_t = 3.0, value_parser = parse_seconds)]
    turn_timeout: f64,

    /// Seconds a disconnected player's character stays on its floor (never holding up a turn)
    /// before it is lifted out until the player returns.
    #[arg(long, default_value_t = 10.0, value_parser = parse_seconds)]
    grace: f64,

    /// Seed every new dungeon with this number instead of a random one.
    #[arg(long)]
    seed: Option<u64>,

    /// Most open connections at once.
    #[arg(long, default_value_t = ServerConfig::default().max_connections)]
    max_connections: usize,

    /// Most open connections from one IP address.
    #[arg(long, default_value_t = ServerConfig::default().max_connections_per_ip)]
    max_connections_per_ip: usize,

    /// Most players online in one dungeon.
    #[arg(long, default_value_t = ServerConfig::default().max_players_per_dungeon)]
    max_players: usize,

    /// Most characters one dungeon keeps, online or not, the dead included (dead characters
    /// whose players have left are forgotten first to make room).
    #[arg(long, default_value_t = ServerConfig::default().max_characters_per_dungeon)]
    max_characters: usize,

    /// Most dungeons loaded at once.
    #[arg(long, default_value_t = ServerConfig::default().max_dungeons)]
    max_dungeons: usize,

    /// Messages per second one connection may send.
    #[arg(long, default_value_t = ServerConfig::default().msgs_per_sec)]
    rate: u32,

    /// Messages one connection may send in a burst above --rate.
    #[arg(long, default_value_t = ServerConfig::default().msg_burst)]
    burst: u32,

    /// Seconds a new connection has to complete the WebSocket upgrade and its hello.
    #[arg(long, default_value_t = 10.0, value_parser = parse_seconds)]
    handshake_timeout: f64,
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if !(0.0..=3600.0).contains(&v) {
        return Err("must be between 0 and 3600 seconds".into());
    }
    Ok(v)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let result = load_content(cli.content.as_deref()).and_then(|content| match cli.command {
        None => run(cli.serve, content),
        Some(Command::Simulate {
            games,
            seed,
            max_turns,
            threads,
        }) => {
            let threads = threads
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            simulate(
                content,
                SimConfig {
                    games,
                    seed,
                    max_turns,
                    threads,
                },
            )
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("delve-server: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The content file given, or the built-in one, checked.
fn load_content(path: Option<&std::path::Path>) -> anyhow::Result<Arc<Content>> {
    let content = match path {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read content file {}", p.display()))?;
            Content::parse(&text, &p.display().to_string())?
        }
        None => Content::parse(BUILTIN, BUILTIN_NAME)?,
    };
    Ok(Arc::new(content))
}

fn simulate(content: Arc<Content>, cfg: SimConfig) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let results = sim::run(Arc::clone(&content), &cfg);
    let secs = started.elapsed().as_secs_f64();
    println!(
        "Delve balance simulation: {} games, seed {}, cap {} turns, {} threads, {:.1} s",
        cfg.games, cfg.seed, cfg.max_turns, cfg.threads, secs
    );
    println!();
    print!("{}", sim::report(&results, content.dungeon.floors));
    Ok(())
}

fn run(args: Args, content: Arc<Content>) -> anyhow::Result<()> {
    std::fs::create_dir_all(&args.data_dir)
        .with_context(|| format!("cannot create data directory {}", args.data_dir.display()))?;
    let config = ServerConfig {
        bind: args.bind,
        data_dir: args.data_dir,
        turn_timeout: Duration::from_secs_f64(args.turn_timeout),
        seed: args.seed,
        max_connections: args.max_connections,
        max_connections_per_ip: args.max_connections_per_ip,
        max_players_per_dungeon: args.max_players,
        max_characters_per_dungeon: args.max_characters,
        max_dungeons: args.max_dungeons,
        msgs_per_sec: args.rate,
        msg_burst: args.burst,
        handshake_timeout: Duration::from_secs_f64(args.handshake_timeout),
        grace: Duration::from_secs_f64(args.grace),
        content,
        ..ServerConfig::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let server = Server::start(config.clone())
            .await
            .with_context(|| format!("cannot listen on {}", config.bind))?;
        info!(
            url = %server.url(),
            turn_timeout_s = config.turn_timeout.as_secs_f64(),
            data_dir = %config.data_dir.display(),
            "Delve server ready; players join with: delve --server {} --dungeon NAME",
            server.url()
        );
        wait_for_signal().await?;
        server.shutdown().await;
        anyhow::Ok(())
    })
}

/// Resolves on Ctrl-C, or SIGTERM on Unix.
async fn wait_for_signal() -> anyhow::Result<()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).context("cannot listen for SIGTERM")?;
        tokio::select! {
            r = tokio::signal::ctrl_c() => r.context("cannot listen for Ctrl-C")?,
            _ = term.recv() => info!("SIGTERM received"),
        }
    }
    #[cfg(not(unix))]
    tokio::signal::ctrl_c()
        .await
        .context("cannot listen for Ctrl-C")?;
    Ok(())
}
