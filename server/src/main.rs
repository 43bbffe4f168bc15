//! `delve-server`: the dedicated Delve server.

// mimalloc with large (2 MiB) pages, chosen on purpose over the system's allocator (glibc's
// malloc), which the server used before: measured side by side in the same runs
// (docs/BENCHMARKS.md, "Memory per dungeon as its players make it, and the allocator"), an
// update cost the server 11-13% less CPU, and its 3x target held in 80 of 81 rounds, while a
// dungeon takes 1.5-3.3 times the memory (the large pages are committed whole) and an idle
// connection up to 2 KB more (15-17 KB against 15: under its 2.5x target since the
// connection's future was made smaller, "The connection's future, smaller"). The turn's data of
// thousands of dungeons is read cold every turn, and with small pages those reads likely miss
// the address translation cache as well. `--no-default-features` builds the server with the
// system's allocator, and `MIMALLOC_ALLOW_LARGE_OS_PAGES=0` runs it without the large pages
// (README, "Memory or CPU: the heap's pages").
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use std::sync::Arc;

use anyhow::Context;
use clap::{Parser, Subcommand};

mod config_file;
use delve_server::game::content::{BUILTIN, BUILTIN_NAME};
use delve_server::game::input::Input;
use delve_server::game::save::hash_of_save;
use delve_server::game::{Content, Dungeon};
use delve_server::net::{Server, ServerConfig};
use delve_server::sim::{self, SimConfig};
use delve_server::store::{Store, StoreOptions};
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

    /// A TOML file of the server's options (`turn_timeout = 5`, `no_web = true`, ...; see
    /// server/delve-server.example.toml). Options on the command line override it.
    #[arg(long)]
    config: Option<PathBuf>,

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
        /// Print one JSON object of the run's numbers (docs/BALANCE.md) instead of the table.
        #[arg(long)]
        json: bool,
        /// Bots playing together in each game's dungeon (1: solo).
        #[arg(long, default_value_t = 1)]
        party: u32,
    },
    /// Print the high-score table kept in the data directory.
    Scores {
        /// Directory holding the server's database.
        #[arg(long, default_value = "delve-data")]
        data_dir: PathBuf,
        /// How many entries to show.
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Replay a saved dungeon's journal through the engine (from its newest snapshot) and print
    /// the state hash at the end: it equals the hash the server logged when it last saved the
    /// dungeon ("dungeon saved").
    Replay {
        /// Directory holding the server's database.
        #[arg(long, default_value = "delve-data")]
        data_dir: PathBuf,
        /// The dungeon's name.
        #[arg(long)]
        dungeon: String,
        /// Replay from the dungeon's seed through every journal entry instead of from its
        /// newest snapshot (needs a journal kept whole with the server's --keep-journal).
        #[arg(long)]
        from_start: bool,
    },
}

/// Options of the server itself (when no subcommand is given).
#[derive(Debug, clap::Args)]
struct Args {
    /// Address to listen on. The default only accepts connections from this machine; use
    /// 0.0.0.0:7777 to let others join.
    #[arg(long, default_value = "127.0.0.1:7777")]
    bind: SocketAddr,

    /// Directory for the server's database (created if missing): dungeons are saved there and
    /// survive restarts and crashes.
    #[arg(long, default_value = "delve-data")]
    data_dir: PathBuf,

    /// Do not serve the browser client over HTTP (the page, its wasm and scripts). Native
    /// clients and bots connect over WebSocket either way.
    #[arg(long)]
    no_web: bool,

    /// Keep nothing on disk: every dungeon lives in memory and is gone when the server stops.
    #[arg(long)]
    memory_only: bool,

    /// Journal entries (resolved turns, joins, ...) between two snapshots of a dungeon.
    #[arg(long, default_value_t = ServerConfig::default().snapshot_every)]
    snapshot_every: u64,

    /// Keep every journal entry even after snapshots, so `replay --from-start` can rebuild a
    /// dungeon from its seed. The database grows with every turn.
    #[arg(long)]
    keep_journal: bool,

    /// Seconds a dungeon with nobody connected stays loaded before it is saved and unloaded.
    #[arg(long, default_value_t = 120.0, value_parser = parse_seconds)]
    unload_after: f64,

    /// Flush every commit to the disk (survives power loss, slower). Without it the journal
    /// survives the server being killed, which is what SIGKILL and crashes do.
    #[arg(long)]
    sync_full: bool,

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

    /// New characters one address (an IPv6 /64 counts as one) may make in one dungeon in a row;
    /// it earns one back every 10 minutes. Resuming a character never counts.
    #[arg(long, default_value_t = ServerConfig::default().new_characters_per_address)]
    new_characters_per_address: u32,

    /// Most dungeons loaded at once.
    #[arg(long, default_value_t = ServerConfig::default().max_dungeons)]
    max_dungeons: usize,

    /// New dungeons one address (an IPv6 /64 counts as one) may make in a row; it earns one
    /// back every 10 minutes.
    #[arg(long, default_value_t = ServerConfig::default().new_dungeons_per_address)]
    new_dungeons_per_address: u32,

    /// When a dungeon is full, the characters of an address holding more than this many are
    /// the first to give way to a newcomer (the one whose player has been away longest).
    #[arg(long, default_value_t = ServerConfig::default().characters_per_address)]
    characters_per_address: usize,

    /// Days after which a character whose player has been away gives way to a newcomer when
    /// its dungeon is full (fractions allowed).
    #[arg(long, default_value_t = 30.0, value_parser = parse_days)]
    retire_after: f64,

    /// Seconds between two WebSocket pings to a joined connection; one that answers nothing
    /// for two of them is taken for a dead link and dropped, and its character's grace period
    /// starts.
    #[arg(long, default_value_t = 10.0, value_parser = parse_ping)]
    ping_interval: f64,

    /// Serve `GET /metrics` (Prometheus) on this address only, instead of on the game port.
    #[arg(long)]
    metrics_bind: Option<SocketAddr>,

    /// Messages per second one connection may send.
    #[arg(long, default_value_t = ServerConfig::default().msgs_per_sec)]
    rate: u32,

    /// Messages one connection may send in a burst above --rate.
    #[arg(long, default_value_t = ServerConfig::default().msg_burst)]
    burst: u32,

    /// Seconds a new connection has to complete the WebSocket upgrade and its hello.
    #[arg(long, default_value_t = 10.0, value_parser = parse_seconds)]
    handshake_timeout: f64,

    /// Do not serve the record of finished games on the game port (/scores, /games/ID,
    /// /api/games). Games are still recorded, and each player is still sent their own dump.
    #[arg(long)]
    no_game_pages: bool,

    /// Keep no replays of finished games and serve no /replay/ID (replays kept from before are
    /// deleted).
    #[arg(long)]
    no_replays: bool,

    /// Days a finished game's replay is kept (its dump and score are kept for good).
    #[arg(long, default_value_t = ServerConfig::default().replay_days)]
    replay_days: u32,

    /// Megabytes all kept replays may take together; past it the oldest are deleted first.
    #[arg(long, default_value_t = ServerConfig::default().replay_budget >> 20)]
    replay_budget_mb: u64,

    /// Do not list in the lobby who is playing in each public dungeon and who watches them.
    #[arg(long)]
    no_live_games: bool,
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if !(0.0..=3600.0).contains(&v) {
        return Err("must be between 0 and 3600 seconds".into());
    }
    Ok(v)
}

fn parse_days(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if !(0.0..=3650.0).contains(&v) {
        return Err("must be between 0 and 3650 days".into());
    }
    Ok(v)
}

fn parse_ping(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if !(0.01..=600.0).contains(&v) {
        return Err("must be between 0.01 and 600 seconds".into());
    }
    Ok(v)
}

fn main() -> ExitCode {
    let pages = large_pages::allow();
    let cli: Cli = config_file::parse();
    // RUST_LOG to stderr; never what a client sent, at any level.
    delve_server::logs::init();
    large_pages::log(pages);
    let result = load_content(cli.content.as_deref()).and_then(|content| match cli.command {
        None => run(cli.serve, content),
        Some(Command::Scores { data_dir, limit }) => scores(&data_dir, limit),
        Some(Command::Replay {
            data_dir,
            dungeon,
            from_start,
        }) => replay(&data_dir, &dungeon, from_start, content),
        Some(Command::Simulate {
            games,
            seed,
            max_turns,
            threads,
            json,
            party,
        }) => {
            let threads = threads
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            let cfg = SimConfig {
                games,
                seed,
                max_turns,
                threads,
            };
            if party > 1 {
                simulate_party(content, cfg, json, party)
            } else {
                simulate(content, cfg, json)
            }
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

/// `simulate --party N`: games of N bots together; the solo report of how the games ended, and
/// the party's own numbers (always as JSON, which `--json` prints alone).
fn simulate_party(
    content: Arc<Content>,
    cfg: SimConfig,
    json: bool,
    party: u32,
) -> anyhow::Result<()> {
    let results = sim::party::run_party(Arc::clone(&content), &cfg, party);
    let floors = content.dungeon.floors;
    let summary = sim::party::party_summary(&results, cfg.seed, floors, party);
    if !json {
        let games: Vec<sim::GameResult> = results.iter().map(|r| r.game.clone()).collect();
        println!(
            "Delve balance simulation: {} games of a party of {party}, seed {}, cap {} turns",
            cfg.games, cfg.seed, cfg.max_turns
        );
        println!();
        print!("{}", sim::report(&games, floors));
        println!();
    }
    println!("{}", serde_json::to_string(&summary)?);
    Ok(())
}

fn simulate(content: Arc<Content>, cfg: SimConfig, json: bool) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let results = sim::run(Arc::clone(&content), &cfg);
    let secs = started.elapsed().as_secs_f64();
    if json {
        let summary = sim::measure::summary(&results, cfg.seed, content.dungeon.floors);
        println!("{}", serde_json::to_string(&summary)?);
        return Ok(());
    }
    println!(
        "Delve balance simulation: {} games, seed {}, cap {} turns, {} threads, {:.1} s",
        cfg.games, cfg.seed, cfg.max_turns, cfg.threads, secs
    );
    println!();
    print!("{}", sim::report(&results, content.dungeon.floors));
    Ok(())
}

/// Opens the database of an existing data directory for the offline commands; never creates
/// one.
fn open_existing(data_dir: &std::path::Path) -> anyhow::Result<Store> {
    let db = delve_server::store::db_path(data_dir);
    anyhow::ensure!(
        db.is_file(),
        "there is no Delve database at {} (start the server with --data-dir {} first)",
        db.display(),
        data_dir.display()
    );
    // Without the lock: the server may be running and holds it.
    Ok(Store::open(
        data_dir,
        StoreOptions {
            exclusive: false,
            ..StoreOptions::default()
        },
    )?)
}

fn scores(data_dir: &std::path::Path, limit: usize) -> anyhow::Result<()> {
    let store = open_existing(data_dir)?;
    let rows = store.top_scores(limit)?;
    if rows.is_empty() {
        println!("No games have ended yet.");
        return Ok(());
    }
    println!(
        "{:>4}  {:<20} {:>7} {:>5} {:>5} {:>5} {:>7}  {:<16} {:<10}  how it ended",
        "rank", "name", "score", "level", "floor", "kills", "turns", "dungeon", "date"
    );
    for (i, r) in rows.iter().enumerate() {
        let date = delve_protocol::utc_date(u64::try_from(r.ended_at).unwrap_or(0));
        println!(
            "{:>4}  {:<20} {:>7} {:>5} {:>5} {:>5} {:>7}  {:<16} {:<10}  {}",
            i + 1,
            r.name,
            r.score,
            r.level,
            r.deepest,
            r.kills,
            r.turns,
            r.dungeon,
            date,
            r.outcome
        );
    }
    Ok(())
}

fn replay(
    data_dir: &std::path::Path,
    name: &str,
    from_start: bool,
    content: Arc<Content>,
) -> anyhow::Result<()> {
    let store = open_existing(data_dir)?;
    let row = store.find_dungeon(name)?.with_context(|| {
        format!(
            "there is no dungeon called {name} in {}",
            data_dir.display()
        )
    })?;
    if row.content_hash != content.source_hash {
        eprintln!(
            "warning: dungeon {} was played with another content file; give it with --content",
            row.name
        );
    }
    let mut saved = store.load(row.id)?;
    saved
        .check()
        .map_err(|why| anyhow::anyhow!("dungeon {} cannot be replayed: {why}", row.name))?;
    if from_start {
        // From the seed, every entry up to the newest must still be there: a journal compacted
        // into a snapshot (even down to nothing) would replay into another world.
        let newest = saved.journal.last().map_or(saved.saved_seq, |(s, _)| *s);
        let journal = store.journal(row.id)?;
        let whole =
            journal.len() as u64 == newest && journal.first().is_none_or(|(seq, _)| *seq == 1);
        anyhow::ensure!(
            whole,
            "the journal of dungeon {} does not go back to its start (it holds {} of its {newest} entries); run the server with --keep-journal to replay from the start",
            row.name,
            journal.len()
        );
        saved.snapshot = None;
        saved.journal = journal;
        saved.saved_seq = 0;
        saved.check().map_err(|why| {
            anyhow::anyhow!(
                "dungeon {} cannot be replayed from its start: {why}",
                row.name
            )
        })?;
    }
    let (mut world, from) = match &saved.snapshot {
        Some((seq, data, hash)) => {
            let found = hash_of_save(data);
            anyhow::ensure!(
                found == *hash,
                "the snapshot of dungeon {} at entry {seq} is damaged: its state hash is {found}, {hash} was saved",
                row.name
            );
            (
                Dungeon::load(data, Arc::clone(&content))
                    .with_context(|| format!("the snapshot of dungeon {} is damaged", row.name))?,
                format!("its snapshot after journal entry {seq}"),
            )
        }
        None => (
            Dungeon::new(row.seed, Arc::clone(&content)),
            format!("its seed {}", row.seed),
        ),
    };
    for (seq, entry) in &saved.journal {
        let input: Input = postcard::from_bytes(entry)
            .with_context(|| format!("journal entry {seq} of dungeon {} is damaged", row.name))?;
        world.replay(&input);
    }
    println!(
        "dungeon {}: replayed {} journal entries onto {from}",
        row.name,
        saved.journal.len()
    );
    if let Some((seq, _, hash)) = &saved.snapshot {
        println!("snapshot hash (entry {seq}): {hash}");
    }
    println!("state hash: {}", world.state_hash());
    Ok(())
}

fn run(args: Args, content: Arc<Content>) -> anyhow::Result<()> {
    let config = ServerConfig {
        bind: args.bind,
        data_dir: (!args.memory_only).then_some(args.data_dir),
        snapshot_every: args.snapshot_every,
        keep_journal: args.keep_journal,
        unload_after: Duration::from_secs_f64(args.unload_after),
        sync_full: args.sync_full,
        turn_timeout: Duration::from_secs_f64(args.turn_timeout),
        seed: args.seed,
        max_connections: args.max_connections,
        max_connections_per_ip: args.max_connections_per_ip,
        max_players_per_dungeon: args.max_players,
        max_characters_per_dungeon: args.max_characters,
        new_characters_per_address: args.new_characters_per_address,
        max_dungeons: args.max_dungeons,
        new_dungeons_per_address: args.new_dungeons_per_address,
        characters_per_address: args.characters_per_address,
        retire_after: Duration::from_secs_f64(args.retire_after * 86_400.0),
        ping_interval: Duration::from_secs_f64(args.ping_interval),
        metrics_bind: args.metrics_bind,
        msgs_per_sec: args.rate,
        msg_burst: args.burst,
        handshake_timeout: Duration::from_secs_f64(args.handshake_timeout),
        grace: Duration::from_secs_f64(args.grace),
        web: !args.no_web,
        game_pages: !args.no_game_pages,
        replays: !args.no_replays,
        replay_days: args.replay_days,
        replay_budget: args.replay_budget_mb.saturating_mul(1 << 20),
        live_games: !args.no_live_games,
        content,
        ..ServerConfig::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let server = Server::start(config.clone()).await.with_context(|| {
            match &config.data_dir {
                Some(dir) => format!(
                    "cannot start (database in {}, listening on {})",
                    dir.display(),
                    config.bind
                ),
                None => format!("cannot listen on {}", config.bind),
            }
        })?;
        info!(
            url = %server.url(),
            turn_timeout_s = config.turn_timeout.as_secs_f64(),
            data_dir = %config.data_dir.as_ref().map_or("(memory only)".into(), |d| d.display().to_string()),
            "Delve server ready; players join with: delve --server {} --dungeon NAME",
            server.url()
        );
        match (config.web, delve_server::net::web::assets()) {
            (false, _) => info!("the browser client is off (--no-web)"),
            (true, Ok(_)) => info!(
                "friends play in a browser at {}/",
                server.url().replace("ws://", "http://")
            ),
            (true, Err(why)) => info!("no browser client in this build: {why}"),
        }
        wait_for_signal().await?;
        // A failed save is the exit code's business: whoever runs the server should know.
        server.shutdown().await?;
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

/// mimalloc's large pages for the heap (see the top of this file). mimalloc reads its options
/// from the environment before `main` runs, so a server started without the option runs itself
/// again with it: the same process (an `exec` keeps its id, its files and its limits), whose
/// allocator now sees the option from its first allocation. An operator's own
/// `MIMALLOC_ALLOW_LARGE_OS_PAGES` (0 to do without) is left as it is.
mod large_pages {
    /// mimalloc's option.
    pub const VAR: &str = "MIMALLOC_ALLOW_LARGE_OS_PAGES";

    /// What the process runs with.
    pub enum Pages {
        /// The operator's setting, or the one this server gave itself.
        Set(String),
        /// Built with the system's allocator.
        SystemAllocator,
        /// Running itself again failed: small pages, and why.
        Failed(String),
    }

    /// Runs the server again with large pages allowed, unless the option is set already. Only
    /// returns when it is set, or running again failed.
    pub fn allow() -> Pages {
        if !cfg!(feature = "mimalloc") {
            return Pages::SystemAllocator;
        }
        if let Some(v) = std::env::var_os(VAR) {
            return Pages::Set(v.to_string_lossy().into_owned());
        }
        Pages::Failed(again())
    }

    /// Replaces this process with the same program, arguments and name, the option set. Returns
    /// only why it could not.
    #[cfg(target_os = "linux")]
    fn again() -> String {
        use std::os::unix::process::CommandExt;
        let mut args = std::env::args_os();
        let mut cmd = std::process::Command::new("/proc/self/exe");
        if let Some(name) = args.next() {
            cmd.arg0(name);
        }
        cmd.args(args).env(VAR, "1").exec().to_string()
    }

    #[cfg(not(target_os = "linux"))]
    fn again() -> String {
        "not on Linux".into()
    }

    /// Says in the log what the heap runs with.
    pub fn log(pages: Pages) {
        match pages {
            Pages::Set(v) if v == "1" => {
                tracing::info!("heap: mimalloc, large pages allowed ({VAR}=1)")
            }
            Pages::Set(v) => tracing::info!("heap: mimalloc, {VAR}={v}"),
            Pages::SystemAllocator => tracing::info!("heap: the system's allocator"),
            Pages::Failed(e) => tracing::warn!(
                "heap: mimalloc with small pages: could not run again with {VAR}=1: {e}"
            ),
        }
    }
}
