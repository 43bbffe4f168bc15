//! `GET /api/games` and `GET /api/games/ID`: the record as JSON for outside tools, documented
//! in README ("What the server publishes") well enough to be read by a script that has only it.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::header;
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use super::{
    Answer, Links, MAX_API_ROWS, PAGE_ROWS, Refused, dump_of, guarded, private_ok, read_games, set,
    visible,
};
use crate::net::Shared;
use crate::store::{GameId, GameQuery, GameRow, Order};

/// One game as the API lists it.
fn summary(g: &GameRow, links: &Links) -> Value {
    let r = &g.score;
    json!({
        "id": g.id,
        "name": r.name,
        "dungeon": r.dungeon,
        "score": r.score,
        "level": r.level,
        "deepest": r.deepest,
        "kills": r.kills,
        "turns": r.turns,
        "outcome": r.outcome,
        "victory": g.victory,
        "started": g.started_at,
        "ended": r.ended_at,
        "page": links.game(g),
        "text": links.text(g),
        "json": links.json(g),
        "replay": (g.replay_bytes.is_some() && links.replays).then(|| links.replay(g)),
    })
}

fn answer(status: StatusCode, value: &Value, private: bool) -> Answer {
    let mut r = Response::new(Full::new(Bytes::from(value.to_string())));
    *r.status_mut() = status;
    set(&mut r, header::CONTENT_TYPE, "application/json");
    guarded(r, private)
}

/// `{"error": sentence}` with `status`.
pub(super) fn error(status: StatusCode, sentence: &str) -> Answer {
    answer(status, &json!({ "error": sentence }), false)
}

/// `/api/games`: newest first (or `order=best`), filtered by `dungeon` and `name`, `limit` at a
/// time, the next page at `next`.
pub(super) async fn list(
    shared: &Arc<Shared>,
    q: &HashMap<String, String>,
    ip: IpAddr,
) -> Result<Answer, Refused> {
    let bad = |what: &str| {
        (
            StatusCode::BAD_REQUEST,
            format!("Bad {what}: see README, \"What the server publishes\"."),
        )
    };
    let order = match q.get("order").map(String::as_str) {
        None | Some("newest") => Order::Newest,
        Some("best") => Order::Best,
        Some(_) => return Err(bad("order (newest or best)")),
    };
    let limit = match q.get("limit") {
        None => PAGE_ROWS,
        Some(l) => l
            .parse::<usize>()
            .map_err(|_| bad("limit (a number)"))?
            .min(MAX_API_ROWS),
    };
    let before = match q.get("before") {
        None => None,
        Some(b) => Some(b.parse::<GameId>().map_err(|_| bad("before (a game id)"))?),
    };
    let allowed = private_ok(shared, q, ip).await?;
    let games = read_games(
        shared,
        GameQuery {
            dungeon: q.get("dungeon").cloned(),
            name: q.get("name").cloned(),
            before,
            limit,
            order,
            private_ok: allowed.clone(),
        },
    )
    .await?;
    let links = Links {
        replays: shared.config.replays,
    };
    let next = match (order, games.last()) {
        (Order::Newest, Some(last)) if games.len() == limit && limit > 0 => {
            let mut link = format!("/api/games?before={}&limit={limit}", last.id);
            for k in ["dungeon", "name"] {
                if let Some(v) = q.get(k) {
                    link.push_str(&format!("&{k}={}", super::html::url(v)));
                }
            }
            Some(link)
        }
        _ => None,
    };
    let list: Vec<Value> = games.iter().map(|g| summary(g, &links)).collect();
    Ok(answer(
        StatusCode::OK,
        &json!({ "games": list, "next": next }),
        allowed.is_some(),
    ))
}

/// `/api/games/ID`: the game, with its dump (`null` while it is being written).
pub(super) async fn game(
    shared: &Arc<Shared>,
    id: GameId,
    q: &HashMap<String, String>,
    ip: IpAddr,
) -> Result<Answer, Refused> {
    let g = visible(shared, id, q, ip).await?;
    let links = Links {
        replays: shared.config.replays,
    };
    let mut value = summary(&g, &links);
    value["engine"] = json!(g.engine);
    value["dump"] = dump_of(&g).map_or(Value::Null, |d| json!(d));
    Ok(answer(StatusCode::OK, &value, g.private))
}
