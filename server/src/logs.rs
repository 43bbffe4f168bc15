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
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_filter(wanted)
        .with_filter(secret_cap());
    tracing_subscriber::registry().with(layer).init();
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
}
