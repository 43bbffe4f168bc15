//! The group's home on the web: the record of finished games, served on the game port.
//!
//! - `GET /scores`: the high-score table, best first (`?dungeon=NAME` for one dungeon's);
//! - `GET /games`: the newest games first, 50 a page (`?dungeon=`, `?name=`, `?before=ID`);
//! - `GET /games/ID`: one game's character dump as a page, `/games/ID.txt` as text;
//! - `GET /api/games`, `GET /api/games/ID`: the same as JSON, for outside tools (README,
//!   "What the server publishes");
//! - `GET /replay/ID`: the browser client, which then plays the game back over its WebSocket
//!   (`net::replay_session`).
//!
//! Games of private dungeons need their key (`?key=`, from the player's links) or the
//! dungeon's password (`?password=`); see [`super::archive`]. The pages are plain HTML with
//! no script (a Content-Security-Policy forbids any), escape every name ([`html::esc`]), and
//! are small: the table of 100 games is about 30 KB.

mod api;
pub mod html;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};

use super::Shared;
use super::archive::Denied;
use crate::record::GameDump;
use crate::store::{GameId, GameQuery, GameRow, Order};

/// Rows of `/scores`.
const SCORES_ROWS: usize = 100;
/// Rows of a page of `/games`, and of `/api/games` unless `limit` says.
const PAGE_ROWS: usize = 50;
/// The most rows `/api/games` gives at once.
const MAX_API_ROWS: usize = 200;
/// A query value longer than this is ignored (no name or password is nearly as long).
const MAX_VALUE: usize = 256;

/// A response body with its type.
pub(super) type Answer = Response<Full<Bytes>>;

/// Whether `path` is one of these pages (so the web front answers it here).
pub fn is_page(path: &str) -> bool {
    path == "/scores"
        || path == "/games"
        || path.starts_with("/games/")
        || path == "/api/games"
        || path.starts_with("/api/games/")
        || path.starts_with("/replay/")
}

/// Answers a request for one of these pages (see [`is_page`]).
pub async fn serve(req: &Request<Incoming>, shared: &Arc<Shared>, ip: IpAddr) -> Answer {
    let q = params(req.uri().query());
    let path = req.uri().path();
    let head = req.method() == Method::HEAD;
    let api = path.starts_with("/api/");
    let answer = if shared.store.is_none() || !shared.config.game_pages {
        Err((StatusCode::NOT_FOUND, Denied::NotKept.sentence(None)))
    } else if path == "/scores" {
        scores(shared, &q, ip).await
    } else if path == "/games" {
        newest(shared, &q, ip).await
    } else if path == "/api/games" {
        api::list(shared, &q, ip).await
    } else if let Some(rest) = path.strip_prefix("/api/games/") {
        match rest.parse::<GameId>() {
            Ok(id) => api::game(shared, id, &q, ip).await,
            Err(_) => Err(not_found()),
        }
    } else if let Some(rest) = path.strip_prefix("/games/") {
        let (id, text) = match rest.strip_suffix(".txt") {
            Some(id) => (id, true),
            None => (rest, false),
        };
        match id.parse::<GameId>() {
            Ok(id) => game(shared, id, text, &q, ip).await,
            Err(_) => Err(not_found()),
        }
    } else if let Some(rest) = path.strip_prefix("/replay/") {
        match rest.parse::<GameId>() {
            Ok(id) => return replay(req, shared, id, &q, ip).await,
            Err(_) => Err(not_found()),
        }
    } else {
        Err(not_found())
    };
    let mut r = match answer {
        Ok(r) => r,
        Err((status, sentence)) if api => api::error(status, &sentence),
        Err((status, sentence)) => {
            let title = match status {
                StatusCode::NOT_FOUND => "Not found",
                StatusCode::FORBIDDEN => "Not shown",
                StatusCode::GONE => "No longer kept",
                _ => "Not now",
            };
            with_status(html(html::notice(title, &sentence)), status)
        }
    };
    if head {
        *r.body_mut() = Full::new(Bytes::new());
    }
    r
}

/// A refusal: the status and the sentence.
pub(super) type Refused = (StatusCode, String);

fn not_found() -> Refused {
    (
        StatusCode::NOT_FOUND,
        "There is no such page on this server.".to_string(),
    )
}

fn refused(d: Denied, id: Option<GameId>) -> Refused {
    let status = match d {
        Denied::NotFound | Denied::NotKept => StatusCode::NOT_FOUND,
        Denied::WrongPassword(_) => StatusCode::FORBIDDEN,
        Denied::ShutOut => StatusCode::TOO_MANY_REQUESTS,
    };
    (status, d.sentence(id))
}

/// The query string's values, decoded (`+` and `%XX`); empty and over-long ones left out.
pub(super) fn params(query: Option<&str>) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for pair in query.unwrap_or("").split('&') {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let v = decode(v);
        let v = v.trim();
        if !v.is_empty() && v.chars().count() <= MAX_VALUE {
            out.insert(decode(k), v.to_string());
        }
    }
    out
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut k = 0;
    while k < bytes.len() {
        match bytes[k] {
            b'+' => out.push(b' '),
            b'%' => match s
                .get(k + 1..k + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                Some(b) => {
                    out.push(b);
                    k += 2;
                }
                None => out.push(b'%'),
            },
            b => out.push(b),
        }
        k += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// How a page links to games: with the game's key when it is a private dungeon's (the visitor
/// was let in with the password or the key), and to replays only when they are served.
pub struct Links {
    pub replays: bool,
}

impl Links {
    fn suffix(g: &GameRow) -> String {
        match (&g.view_key, g.private) {
            (Some(k), true) => format!("?key={}", html::url(k)),
            _ => String::new(),
        }
    }
    pub fn game(&self, g: &GameRow) -> String {
        format!("/games/{}{}", g.id, Links::suffix(g))
    }
    pub fn text(&self, g: &GameRow) -> String {
        format!("/games/{}.txt{}", g.id, Links::suffix(g))
    }
    pub fn json(&self, g: &GameRow) -> String {
        format!("/api/games/{}{}", g.id, Links::suffix(g))
    }
    pub fn replay(&self, g: &GameRow) -> String {
        format!("/replay/{}{}", g.id, Links::suffix(g))
    }
}

/// The private dungeon whose games a visitor may see: `?dungeon=` with its right `?password=`.
/// `Ok(None)` without a password (or for a public dungeon).
pub(super) async fn private_ok(
    shared: &Arc<Shared>,
    q: &HashMap<String, String>,
    ip: IpAddr,
) -> Result<Option<String>, Refused> {
    let (Some(dungeon), Some(password)) = (q.get("dungeon"), q.get("password")) else {
        return Ok(None);
    };
    match shared.opens_dungeon(dungeon, password, ip).await {
        Ok(true) => Ok(Some(dungeon.clone())),
        Ok(false) => Ok(None),
        Err(d) => Err(refused(d, None)),
    }
}

/// Reads games on the blocking pool.
pub(super) async fn read_games(
    shared: &Arc<Shared>,
    query: GameQuery,
) -> Result<Vec<GameRow>, Refused> {
    let Some(store) = shared.store.clone() else {
        return Err(refused(Denied::NotKept, None));
    };
    tokio::task::spawn_blocking(move || store.games(&query))
        .await
        .ok()
        .and_then(Result::ok)
        .ok_or((
            StatusCode::SERVICE_UNAVAILABLE,
            "The games cannot be read right now; try again in a moment.".to_string(),
        ))
}

/// Whether dungeon `name` is private (a line for the page when its games are left out).
async fn is_private(shared: &Arc<Shared>, name: &str) -> bool {
    let (Some(store), name) = (shared.store.clone(), name.to_owned()) else {
        return false;
    };
    tokio::task::spawn_blocking(move || store.find_dungeon(&name))
        .await
        .ok()
        .and_then(Result::ok)
        .flatten()
        .is_some_and(|d| d.password_hash.is_some())
}

/// A line saying a private dungeon's games are left out, when they are.
async fn private_line(
    shared: &Arc<Shared>,
    dungeon: Option<&String>,
    allowed: &Option<String>,
) -> String {
    match dungeon {
        Some(d) if allowed.is_none() && is_private(shared, d).await => format!(
            "<p class=\"dim\">Dungeon {} is private: give its password to see its games.</p>",
            html::esc(d)
        ),
        _ => String::new(),
    }
}

async fn scores(
    shared: &Arc<Shared>,
    q: &HashMap<String, String>,
    ip: IpAddr,
) -> Result<Answer, Refused> {
    let allowed = private_ok(shared, q, ip).await?;
    let dungeon = q.get("dungeon");
    let games = read_games(
        shared,
        GameQuery {
            dungeon: dungeon.cloned(),
            limit: SCORES_ROWS,
            order: Order::Best,
            private_ok: allowed.clone(),
            ..GameQuery::default()
        },
    )
    .await?;
    let links = Links {
        replays: shared.config.replays,
    };
    let title = match dungeon {
        Some(d) => format!("High scores in {d}"),
        None => "High scores".to_string(),
    };
    let body = format!(
        "<h1>{}</h1>{}{}{}<p class=\"dim\">The best {SCORES_ROWS} games{}. For tools: \
         <a href=\"/api/games?order=best\">/api/games</a>.</p>",
        html::esc(&title),
        html::filter_form("/scores", dungeon.map(String::as_str), None),
        private_line(shared, dungeon, &allowed).await,
        html::games_table(&games, true, &links),
        if dungeon.is_some() {
            " of this dungeon"
        } else {
            " of every public dungeon"
        },
    );
    Ok(page_answer(html::page(&title, &body), allowed.is_some()))
}

async fn newest(
    shared: &Arc<Shared>,
    q: &HashMap<String, String>,
    ip: IpAddr,
) -> Result<Answer, Refused> {
    let allowed = private_ok(shared, q, ip).await?;
    let dungeon = q.get("dungeon");
    let name = q.get("name");
    let before = q.get("before").and_then(|b| b.parse::<GameId>().ok());
    let games = read_games(
        shared,
        GameQuery {
            dungeon: dungeon.cloned(),
            name: name.cloned(),
            before,
            limit: PAGE_ROWS,
            order: Order::Newest,
            private_ok: allowed.clone(),
        },
    )
    .await?;
    let links = Links {
        replays: shared.config.replays,
    };
    let older = match games.last() {
        Some(last) if games.len() == PAGE_ROWS => {
            let mut link = format!("/games?before={}", last.id);
            for (k, v) in [("dungeon", dungeon), ("name", name)] {
                if let Some(v) = v {
                    link.push_str(&format!("&{k}={}", html::url(v)));
                }
            }
            format!("<p><a href=\"{}\">Older games</a></p>", html::esc(&link))
        }
        _ => String::new(),
    };
    let body = format!(
        "<h1>Newest games</h1>{}{}{}{older}",
        html::filter_form(
            "/games",
            dungeon.map(String::as_str),
            name.map(String::as_str)
        ),
        private_line(shared, dungeon, &allowed).await,
        html::games_table(&games, false, &links),
    );
    Ok(page_answer(
        html::page("Newest games", &body),
        allowed.is_some(),
    ))
}

/// The game `id` if the visitor may see it (`?key=` or `?password=`).
pub(super) async fn visible(
    shared: &Arc<Shared>,
    id: GameId,
    q: &HashMap<String, String>,
    ip: IpAddr,
) -> Result<GameRow, Refused> {
    shared
        .visible_game(
            id,
            q.get("key").map(String::as_str),
            q.get("password").map(String::as_str),
            ip,
        )
        .await
        .map_err(|d| refused(d, Some(id)))
}

/// A game's dump, when written.
pub(super) fn dump_of(g: &GameRow) -> Option<GameDump> {
    g.dump.as_deref().and_then(|d| serde_json::from_str(d).ok())
}

async fn game(
    shared: &Arc<Shared>,
    id: GameId,
    text: bool,
    q: &HashMap<String, String>,
    ip: IpAddr,
) -> Result<Answer, Refused> {
    let g = visible(shared, id, q, ip).await?;
    let links = Links {
        replays: shared.config.replays,
    };
    let dump = dump_of(&g);
    if text {
        let body = match &dump {
            Some(d) => d.text(),
            None => format!(
                "{} in {}: {}. The character dump is being written; try again in a moment.\n",
                g.score.name, g.score.dungeon, g.score.outcome
            ),
        };
        let mut r = Response::new(Full::new(Bytes::from(body)));
        set(&mut r, header::CONTENT_TYPE, "text/plain; charset=utf-8");
        return Ok(guarded(r, g.private));
    }
    Ok(page_answer(
        html::game_page(&g, dump.as_ref(), &links),
        g.private,
    ))
}

/// `/replay/ID`: the browser client's page, if the game can be replayed and shown to the
/// visitor; the client reads the game from the address and asks for it over its WebSocket.
async fn replay(
    req: &Request<Incoming>,
    shared: &Arc<Shared>,
    id: GameId,
    q: &HashMap<String, String>,
    ip: IpAddr,
) -> Answer {
    let refusal = match visible(shared, id, q, ip).await {
        Err(r) => r,
        Ok(_) if !shared.config.web => (
            StatusCode::NOT_FOUND,
            "This server does not serve the browser client (it runs with --no-web), so it \
             cannot show replays."
                .to_string(),
        ),
        Ok(_) if !shared.config.replays => (
            StatusCode::NOT_FOUND,
            "This server does not keep replays (it runs with --no-replays).".to_string(),
        ),
        Ok(g) if g.replay_bytes.is_none() => (
            StatusCode::GONE,
            format!(
                "The replay of game {id} is no longer kept (replays are kept {} days). Its \
                 character dump is still at /games/{id}.",
                shared.config.replay_days
            ),
        ),
        Ok(g) => match super::web::assets() {
            Ok(assets) => {
                let r = super::web::file(req, &assets.page, "text/html; charset=utf-8", "no-cache");
                return guarded(r, g.private);
            }
            Err(why) => (
                StatusCode::NOT_FOUND,
                format!("This server has no browser client to replay games in: {why}"),
            ),
        },
    };
    let (status, sentence) = refusal;
    with_status(html(html::notice("No replay", &sentence)), status)
}

fn set(r: &mut Answer, name: header::HeaderName, value: &'static str) {
    r.headers_mut()
        .insert(name, HeaderValue::from_static(value));
}

fn with_status(mut r: Answer, status: StatusCode) -> Answer {
    *r.status_mut() = status;
    r
}

/// An HTML page: no script may run in it, and no address of it (which may hold a key) is
/// sent on as a referrer.
fn html(body: String) -> Answer {
    let mut r = Response::new(Full::new(Bytes::from(body)));
    set(&mut r, header::CONTENT_TYPE, "text/html; charset=utf-8");
    set(
        &mut r,
        header::CONTENT_SECURITY_POLICY,
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
    );
    guarded(r, false)
}

fn page_answer(body: String, private: bool) -> Answer {
    guarded(html(body), private)
}

/// The headers every answer here carries: revalidated each time (games are added), never
/// kept by shared caches when it showed something private, no referrer.
fn guarded(mut r: Answer, private: bool) -> Answer {
    set(
        &mut r,
        header::CACHE_CONTROL,
        if private {
            "private, no-cache"
        } else {
            "no-cache"
        },
    );
    set(&mut r, header::REFERRER_POLICY, "no-referrer");
    set(&mut r, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_are_decoded_and_bounded() {
        let q = params(Some("dungeon=the+crypt&name=Zo%C3%AB&empty=&x=%zz"));
        assert_eq!(q.get("dungeon").map(String::as_str), Some("the crypt"));
        assert_eq!(q.get("name").map(String::as_str), Some("Zoë"));
        assert_eq!(q.get("x").map(String::as_str), Some("%zz"));
        assert!(!q.contains_key("empty"));
        let long = format!("name={}", "a".repeat(MAX_VALUE + 1));
        assert!(params(Some(&long)).is_empty());
    }

    #[test]
    fn names_are_escaped_in_text_and_attributes() {
        assert_eq!(
            html::esc(r#"<b>"Ann" & 'Bo'</b>"#),
            "&lt;b&gt;&quot;Ann&quot; &amp; &#39;Bo&#39;&lt;/b&gt;"
        );
        assert_eq!(html::url("a b/ö"), "a%20b%2F%C3%B6");
    }
}
