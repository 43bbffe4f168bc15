//! The last lines of a character's message log, kept on this machine beside its resume token,
//! so a game taken back after the client restarts (or the page reloads) opens with what was
//! happening instead of an empty log. The server sends no messages with its welcome; what the
//! player saw is only here. Natively a small JSON file a character under
//! `<config>/recent/`; in a browser, the page's `localStorage` (`delve.recent <key>`).

use std::collections::VecDeque;

use delve_protocol::MessageKind;
use serde::{Deserialize, Serialize};

use crate::model::LogLine;

/// How many of the newest lines are kept.
pub const KEPT: usize = 40;

/// One kept line (the log's line, as JSON).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Kept {
    kind: MessageKind,
    text: String,
    turn: u64,
    #[serde(default = "one")]
    count: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    from: Option<String>,
}

fn one() -> u32 {
    1
}

/// The newest [`KEPT`] lines of `log`, as kept.
pub fn to_text(log: &VecDeque<LogLine>) -> String {
    let kept: Vec<Kept> = log
        .iter()
        .skip(log.len().saturating_sub(KEPT))
        .map(|l| Kept {
            kind: l.kind,
            text: l.text.clone(),
            turn: l.turn,
            count: l.count,
            from: l.from.clone(),
        })
        .collect();
    serde_json::to_string(&kept).unwrap_or_default()
}

/// The lines kept in `text` (none if it cannot be read).
pub fn from_text(text: &str) -> Vec<LogLine> {
    serde_json::from_str::<Vec<Kept>>(text)
        .unwrap_or_default()
        .into_iter()
        .take(KEPT)
        .map(|k| LogLine {
            kind: k.kind,
            text: k.text,
            turn: k.turn,
            count: k.count.max(1),
            from: k.from,
        })
        .collect()
}

/// The name the lines of (server, dungeon, name) are kept under: letters, digits, `-` and `_`
/// (a file name on every system, a readable `localStorage` key).
pub fn key(server: &str, dungeon: &str, name: &str) -> String {
    format!(
        "{}-{}-{}",
        server.trim_end_matches('/'),
        dungeon.to_lowercase(),
        name.to_lowercase()
    )
    .chars()
    .map(|c| {
        if c.is_ascii_alphanumeric() || c == '-' {
            c
        } else {
            '_'
        }
    })
    .collect()
}

/// The lines kept under `key`.
pub fn load(key: &str) -> Vec<LogLine> {
    #[cfg(not(target_arch = "wasm32"))]
    let text = crate::tokens::config_dir()
        .and_then(|d| std::fs::read_to_string(d.join("recent").join(format!("{key}.json"))).ok());
    #[cfg(target_arch = "wasm32")]
    let text = delve_web_js::storage_get(&format!("delve.recent {key}"));
    text.map(|t| from_text(&t)).unwrap_or_default()
}

/// Keeps the newest lines of `log` under `key`.
pub fn save(key: &str, log: &VecDeque<LogLine>) -> Result<(), String> {
    let text = to_text(log);
    #[cfg(not(target_arch = "wasm32"))]
    {
        let dir = crate::tokens::config_dir()
            .ok_or("no config folder (HOME is not set)")?
            .join("recent");
        let path = dir.join(format!("{key}.json"));
        std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&path, text))
            .map_err(|e| format!("{}: {e}", path.display()))
    }
    #[cfg(target_arch = "wasm32")]
    {
        delve_web_js::storage_set(&format!("delve.recent {key}"), &text);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, turn: u64) -> LogLine {
        LogLine {
            kind: MessageKind::Good,
            text: text.into(),
            turn,
            count: 2,
            from: None,
        }
    }

    #[test]
    fn the_newest_lines_come_back_as_they_were() {
        let mut log = VecDeque::new();
        for k in 0..(KEPT as u64 + 10) {
            log.push_back(line(&format!("line {k}"), k));
        }
        log.push_back(LogLine {
            from: Some("Bob".into()),
            ..line("hi", 99)
        });
        let back = from_text(&to_text(&log));
        assert_eq!(back.len(), KEPT);
        assert_eq!(back.last(), log.back());
        assert_eq!(back[0], log[log.len() - KEPT]);
        assert!(from_text("not json").is_empty());
    }

    #[test]
    fn keys_are_plain_file_names() {
        let k = key("ws://127.0.0.1:7777/", "Crypt", "Ann");
        assert_eq!(k, "ws___127_0_0_1_7777-crypt-ann");
        assert!(
            k.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        );
    }
}
