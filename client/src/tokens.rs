//! Resume tokens, remembered per server and dungeon, so the game takes its character back after
//! a restart of the client. Kept in `tokens.json` under the config directory
//! (`$DELVE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/delve`, else `~/.config/delve`), readable only by
//! its owner: a token is the key to a character.
//!
//! In the browser there are no files: tokens live in the page's `localStorage`, under
//! `delve.token <server> <dungeon>`, where the web client's server name includes the player's
//! name (one browser may play several characters on one server).

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

#[derive(Debug, Default)]
pub struct TokenStore {
    /// Where the tokens live; `None` keeps them in memory only.
    path: Option<PathBuf>,
    tokens: BTreeMap<String, String>,
    /// Kept in the browser's `localStorage` instead (the web client).
    #[cfg(target_arch = "wasm32")]
    browser: bool,
}

fn key(server: &str, dungeon: &str) -> String {
    format!(
        "{} {}",
        server.trim_end_matches('/'),
        dungeon.to_lowercase()
    )
}

/// Where the solo game keeps its database (`$DELVE_DATA_DIR`, else `$XDG_DATA_HOME/delve/solo`,
/// else `~/.local/share/delve/solo`).
pub fn solo_data_dir() -> Option<PathBuf> {
    let env = |k| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    env("DELVE_DATA_DIR")
        .or_else(|| env("XDG_DATA_HOME").map(|d| d.join("delve").join("solo")))
        .or_else(|| env("HOME").map(|h| h.join(".local").join("share").join("delve").join("solo")))
}

/// The directory the store lives in, from the environment.
pub fn config_dir() -> Option<PathBuf> {
    let env = |k| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    env("DELVE_CONFIG_DIR")
        .or_else(|| env("XDG_CONFIG_HOME").map(|d| d.join("delve")))
        .or_else(|| env("HOME").map(|h| h.join(".config").join("delve")))
}

impl TokenStore {
    /// The browser's `localStorage`.
    #[cfg(target_arch = "wasm32")]
    pub fn open() -> TokenStore {
        TokenStore {
            browser: true,
            ..TokenStore::default()
        }
    }

    /// The store in the usual place; an unreadable or missing file is an empty store.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn open() -> TokenStore {
        match config_dir() {
            Some(dir) => TokenStore::at(&dir.join("tokens.json")),
            None => TokenStore::default(),
        }
    }

    pub fn at(path: &Path) -> TokenStore {
        let tokens = std::fs::read_to_string(path)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
        TokenStore {
            path: Some(path.to_owned()),
            tokens,
            #[cfg(target_arch = "wasm32")]
            browser: false,
        }
    }

    pub fn get(&self, server: &str, dungeon: &str) -> Option<String> {
        #[cfg(target_arch = "wasm32")]
        if self.browser {
            return delve_web_js::storage_get(&format!("delve.token {}", key(server, dungeon)));
        }
        self.tokens.get(&key(server, dungeon)).cloned()
    }

    /// Remembers `token` and writes the store (a new file renamed over the old, so a crash
    /// never leaves half a file).
    pub fn put(&mut self, server: &str, dungeon: &str, token: &str) -> io::Result<()> {
        if self
            .tokens
            .get(&key(server, dungeon))
            .is_some_and(|t| t == token)
        {
            return Ok(());
        }
        self.tokens.insert(key(server, dungeon), token.to_owned());
        #[cfg(target_arch = "wasm32")]
        if self.browser {
            delve_web_js::storage_set(&format!("delve.token {}", key(server, dungeon)), token);
            return Ok(());
        }
        let Some(path) = &self.path else {
            return Ok(());
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let text = serde_json::to_string_pretty(&self.tokens).map_err(io::Error::other)?;
        let tmp = path.with_extension("json.tmp");
        write_private(&tmp, text.as_bytes())?;
        std::fs::rename(&tmp, path)
    }
}

#[cfg(unix)]
fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(bytes)
}

#[cfg(not(unix))]
fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    std::fs::write(path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_survive_a_restart_per_server_and_dungeon() {
        let dir = std::env::temp_dir().join(format!("delve-tokens-{}", std::process::id()));
        let path = dir.join("tokens.json");
        let _ = std::fs::remove_dir_all(&dir);
        let mut s = TokenStore::at(&path);
        assert_eq!(s.get("ws://a:1", "Crypt"), None);
        s.put("ws://a:1", "Crypt", "t1").unwrap();
        s.put("ws://a:1/", "vault", "t2").unwrap();
        s.put("ws://b:1", "crypt", "t3").unwrap();
        let again = TokenStore::at(&path);
        assert_eq!(
            again.get("ws://a:1", "crypt").as_deref(),
            Some("t1"),
            "dungeon names ignore case"
        );
        assert_eq!(
            again.get("ws://a:1", "VAULT").as_deref(),
            Some("t2"),
            "a trailing slash is the same server"
        );
        assert_eq!(again.get("ws://b:1", "crypt").as_deref(), Some("t3"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "only its owner may read it");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_damaged_file_is_an_empty_store() {
        let dir = std::env::temp_dir().join(format!("delve-tokens-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("tokens.json");
        std::fs::write(&path, "{not json").unwrap();
        assert_eq!(TokenStore::at(&path).get("x", "y"), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
