//! Links friends can share: the web page's query string says which dungeon to open and under
//! which name (`?dungeon=crypt&name=Ann`). Pure, so it is tested natively.

/// What a page address asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageLink {
    pub dungeon: Option<String>,
    pub name: Option<String>,
    /// The game's own key, for a private dungeon's game (`/replay/7?key=...`).
    pub key: Option<String>,
}

/// The finished game a page address asks to replay: `/replay/ID` (the server serves the
/// client there), with the key of its query for a private dungeon's game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayLink {
    pub game: u64,
    pub key: Option<String>,
}

impl ReplayLink {
    /// Reads the page's path and query; `None` for any other page.
    pub fn parse(path: &str, query: &str) -> Option<ReplayLink> {
        let id = path.strip_prefix("/replay/")?.trim_end_matches('/');
        let game = id.parse().ok()?;
        Some(ReplayLink {
            game,
            key: PageLink::parse(query).key,
        })
    }
}

impl PageLink {
    /// Reads `?dungeon=..&name=..` (with or without the `?`); other keys are ignored, empty
    /// values count as absent, and `+` and `%XX` escapes are decoded.
    pub fn parse(query: &str) -> PageLink {
        let mut link = PageLink::default();
        for pair in query.trim_start_matches('?').split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = decode(value).trim().to_owned();
            if value.is_empty() {
                continue;
            }
            match key {
                "dungeon" => link.dungeon = Some(value),
                "name" => link.name = Some(value),
                "key" => link.key = Some(value),
                _ => {}
            }
        }
        link
    }
}

/// Decodes `application/x-www-form-urlencoded` text; a bad escape is kept as it is.
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut k = 0;
    while k < bytes.len() {
        match bytes[k] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = s
                    .get(k + 1..k + 3)
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                if let Some(b) = hex {
                    out.push(b);
                    k += 2;
                } else {
                    out.push(b'%');
                }
            }
            b => out.push(b),
        }
        k += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replay_page_names_its_game_and_maybe_its_key() {
        assert_eq!(
            ReplayLink::parse("/replay/7", "?key=ab12"),
            Some(ReplayLink {
                game: 7,
                key: Some("ab12".into())
            })
        );
        assert_eq!(
            ReplayLink::parse("/replay/12/", ""),
            Some(ReplayLink {
                game: 12,
                key: None
            })
        );
        assert_eq!(ReplayLink::parse("/", "?dungeon=crypt"), None);
        assert_eq!(ReplayLink::parse("/replay/seven", ""), None);
        assert_eq!(ReplayLink::parse("/replay/", ""), None);
    }

    #[test]
    fn a_shared_link_names_the_dungeon_and_maybe_the_player() {
        assert_eq!(
            PageLink::parse("?dungeon=crypt&name=Ann"),
            PageLink {
                dungeon: Some("crypt".into()),
                name: Some("Ann".into()),
                key: None
            }
        );
        assert_eq!(
            PageLink::parse("?dungeon=the+deep%20crypt&x=1"),
            PageLink {
                dungeon: Some("the deep crypt".into()),
                name: None,
                key: None
            }
        );
        assert_eq!(
            PageLink::parse("name=Zo%C3%AB").name.as_deref(),
            Some("Zoë")
        );
        assert_eq!(PageLink::parse(""), PageLink::default());
        assert_eq!(
            PageLink::parse("?dungeon=&name=%zz").name.as_deref(),
            Some("%zz")
        );
    }
}
