//! The server's log: `RUST_LOG` (default `info`) to standard error, except that no level ever
//! shows what a client sent.
//!
//! The WebSocket library logs every message it receives at trace level ("Received message ..."),
//! which would print passwords and resume tokens from hellos. Its targets are capped at debug
//! whatever `RUST_LOG` asks for; nothing of ours logs a password, a token or a frame's text.

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// Libraries that log frame contents at trace level, capped at debug.
const CAPPED: &[&str] = &["tungstenite", "tokio_tungstenite"];

/// What the log never shows, whatever `RUST_LOG` says: the capped libraries' trace lines.
pub fn secret_cap() -> Targets {
    CAPPED.iter().fold(
        Targets::new().with_default(LevelFilter::TRACE),
        |cap, target| cap.with_target(*target, LevelFilter::DEBUG),
    )
}

/// Installs the log for the `delve-server` binary: `RUST_LOG` (default `info`), capped by
/// [`secret_cap`], to standard error, coloured only for a person at a terminal.
pub fn init() {
    use std::io::IsTerminal;
    let wanted = EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let most = wanted.max_level_hint().unwrap_or(LevelFilter::TRACE);
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_filter(wanted)
        .with_filter(secret_cap());
    tracing_subscriber::registry().with(layer).init();
    // `init` lets every `log` record through to be turned into an event and then filtered; the
    // WebSocket library makes several per frame (4% of the server's CPU under load). Records
    // more detailed than `RUST_LOG` could ever show are now dropped where they are made.
    log::set_max_level(log_level(most));
}

/// The `log` crate's level filter that lets through what `filter` does.
fn log_level(filter: LevelFilter) -> log::LevelFilter {
    match filter.into_level() {
        None => log::LevelFilter::Off,
        Some(tracing::Level::ERROR) => log::LevelFilter::Error,
        Some(tracing::Level::WARN) => log::LevelFilter::Warn,
        Some(tracing::Level::INFO) => log::LevelFilter::Info,
        Some(tracing::Level::DEBUG) => log::LevelFilter::Debug,
        Some(tracing::Level::TRACE) => log::LevelFilter::Trace,
    }
}

#[cfg(test)]
mod tests {
    use tracing::Level;

    use super::*;

    #[test]
    fn the_websocket_library_is_capped_at_debug_and_nothing_else_is() {
        let cap = secret_cap();
        for target in ["tungstenite::protocol", "tokio_tungstenite", "tungstenite"] {
            assert!(!cap.would_enable(target, &Level::TRACE), "{target}");
            assert!(cap.would_enable(target, &Level::DEBUG), "{target}");
        }
        assert!(cap.would_enable("delve_server::net", &Level::TRACE));
        assert!(cap.would_enable("hyper", &Level::TRACE));
    }

    #[test]
    fn log_records_are_cut_at_the_most_detailed_level_asked_for() {
        let most = |spec: &str| EnvFilter::new(spec).max_level_hint().unwrap();
        assert_eq!(log_level(most("info")), log::LevelFilter::Info);
        assert_eq!(
            log_level(most("warn,delve_server::net=debug")),
            log::LevelFilter::Debug
        );
        assert_eq!(log_level(most("trace")), log::LevelFilter::Trace);
        assert_eq!(log_level(LevelFilter::OFF), log::LevelFilter::Off);
    }
}
