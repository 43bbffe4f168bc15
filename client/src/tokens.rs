//! Resume tokens, remembered per server, dungeon and character name, so the game takes its
//! character back after a restart of the client, and two clients with different `--name` on one
//! machine are two characters (the server resumes whatever character a token names, whatever
//! name comes with it). Kept in `tokens.json` under the config directory
//! (`$DELVE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/delve`, else `~/.config/delve`), readable only by
//! its owner: a token is the key to a character.
//!
//! In the browser there are no files: tokens live in the page's `localStorage`, under
//! `delve.token <server> <name> <dungeon>` (one browser may play several characters on one
//! server).
//!
//! Older clients kept one token per server and dungeon, without the name. Such a token is still
//! found (by any name) until a token is stored for that server and dungeon under a name, which
//! replaces it: the first character to come back after the upgrade keeps it.

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

fn key(server: &str, dungeon: &str, name: &str) -> String {
    format!(
        "{} {} {}",
        server.trim_end_matches('/'),
        name.to_lowercase(),
        dungeon.to_lowercase()
    )
}

/// How older clients keyed a token: no name.
fn legacy_key(server: &str, dungeon: &str) -> String {
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

    pub fn get(&self, server: &str, dungeon: &str, name: &str) -> Option<String> {
        #[cfg(target_arch = "wasm32")]
        if self.browser {
            return delve_web_js::storage_get(&format!(
                "delve.token {}",
                key(server, dungeon, name)
            ));
        }
        self.tokens
            .get(&key(server, dungeon, name))
            .or_else(|| self.tokens.get(&legacy_key(server, dungeon)))
            .cloned()
    }

    /// Remembers `token` and writes the store (a new file renamed over the old, so a crash
    /// never leaves half a file).
    pub fn put(&mut self, server: &str, dungeon: &str, name: &str, token: &str) -> io::Result<()> {
        let k = key(server, dungeon, name);
        let legacy = self.tokens.remove(&legacy_key(server, dungeon)).is_some();
        if !legacy && self.tokens.get(&k).is_some_and(|t| t == token) {
            return Ok(());
        }
        self.tokens.insert(k.clone(), token.to_owned());
        #[cfg(target_arch = "wasm32")]
        if self.browser {
            delve_web_js::storage_set(&format!("delve.token {k}"), token);
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
        assert_eq!(s.get("ws://a:1", "Crypt", "Ann"), None);
        s.put("ws://a:1", "Crypt", "Ann", "t1").unwrap();
        s.put("ws://a:1/", "vault", "Ann", "t2").unwrap();
        s.put("ws://b:1", "crypt", "Ann", "t3").unwrap();
        let again = TokenStore::at(&path);
        assert_eq!(
            again.get("ws://a:1", "crypt", "ann").as_deref(),
            Some("t1"),
            "dungeon and character names ignore case"
        );
        assert_eq!(
            again.get("ws://a:1", "VAULT", "Ann").as_deref(),
            Some("t2"),
            "a trailing slash is the same server"
        );
        assert_eq!(again.get("ws://b:1", "crypt", "Ann").as_deref(), Some("t3"));
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
        assert_eq!(TokenStore::at(&path).get("x", "y", "z"), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn two_names_in_one_dungeon_are_two_characters() {
        let dir = std::env::temp_dir().join(format!("delve-tokens-two-{}", std::process::id()));
        let path = dir.join("tokens.json");
        let _ = std::fs::remove_dir_all(&dir);
        let mut s = TokenStore::at(&path);
        s.put("ws://a:1", "crypt", "Ann", "ann-token").unwrap();
        // Bob, started beside Ann on the same machine, must not take Ann's character.
        assert_eq!(s.get("ws://a:1", "crypt", "Bob"), None);
        s.put("ws://a:1", "crypt", "Bob", "bob-token").unwrap();
        let again = TokenStore::at(&path);
        assert_eq!(
            again.get("ws://a:1", "crypt", "Ann").as_deref(),
            Some("ann-token")
        );
        assert_eq!(
            again.get("ws://a:1", "crypt", "Bob").as_deref(),
            Some("bob-token")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_older_token_without_a_name_is_kept_by_the_first_to_come_back() {
        let dir = std::env::temp_dir().join(format!("delve-tokens-old-{}", std::process::id()));
        let path = dir.join("tokens.json");
        let _ = std::fs::create_dir_all(&dir);
        std::fs::write(&path, r#"{"ws://a:1 crypt": "old"}"#).unwrap();
        let mut s = TokenStore::at(&path);
        assert_eq!(s.get("ws://a:1", "crypt", "Ann").as_deref(), Some("old"));
        // The server welcomed Ann back with it: it is hers now, and no one else's.
        s.put("ws://a:1", "crypt", "Ann", "old").unwrap();
        let again = TokenStore::at(&path);
        assert_eq!(
            again.get("ws://a:1", "crypt", "Ann").as_deref(),
            Some("old")
        );
        assert_eq!(again.get("ws://a:1", "crypt", "Bob"), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
