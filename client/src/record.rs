//! What the server tells of finished games: where our own is kept once it ends (`game_over`,
//! with the character dump the server wrote), and which game a replay plays back (`replay`).
//! Pure data; the death screen shows the first, the replay controls the second.

use delve_protocol::ServerMsg;

/// Our finished game as the server recorded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameOver {
    pub game: u64,
    /// The game's page, a path on the server's HTTP port (`/games/12`, with `?key=` for a
    /// private dungeon's).
    pub page: String,
    /// Its replay's path, when the server keeps one.
    pub replay: Option<String>,
    /// A file name to keep the dump under.
    pub file: String,
    /// The character dump, as text.
    pub dump: String,
}

impl GameOver {
    /// From a `game_over` message (`None` for any other).
    pub fn of(msg: ServerMsg) -> Option<GameOver> {
        match msg {
            ServerMsg::GameOver {
                game,
                page,
                replay,
                file,
                dump,
            } => Some(GameOver {
                game,
                page,
                replay,
                file,
                dump,
            }),
            _ => None,
        }
    }
}

/// The game a replay plays back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayInfo {
    pub game: u64,
    pub name: String,
    pub dungeon: String,
    /// Its last turn: the replay runs from 0 to this.
    pub turns: u64,
    pub outcome: String,
    pub victory: bool,
    pub score: u32,
    pub ended: u64,
}

impl ReplayInfo {
    /// From a `replay` message (`None` for any other).
    pub fn of(msg: ServerMsg) -> Option<ReplayInfo> {
        match msg {
            ServerMsg::Replaying {
                game,
                name,
                dungeon,
                turns,
                outcome,
                victory,
                score,
                ended,
            } => Some(ReplayInfo {
                game,
                name,
                dungeon,
                turns,
                outcome,
                victory,
                score,
                ended,
            }),
            _ => None,
        }
    }
}

/// The web address of `path` on the server reached at `server` (a `ws://` or `wss://` URL):
/// the same host and port over HTTP(S).
pub fn web_address(server: &str, path: &str) -> String {
    let base = server
        .strip_prefix("wss://")
        .map(|h| format!("https://{h}"))
        .or_else(|| server.strip_prefix("ws://").map(|h| format!("http://{h}")))
        .unwrap_or_else(|| server.to_string());
    format!("{}{path}", base.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_put_on_the_servers_web_address() {
        assert_eq!(
            web_address("ws://127.0.0.1:7777", "/games/3"),
            "http://127.0.0.1:7777/games/3"
        );
        assert_eq!(
            web_address("wss://delve.example/", "/replay/3?key=k"),
            "https://delve.example/replay/3?key=k"
        );
    }
}
