//! The front door of every TCP connection: HTTP/1.1 served by hyper. A WebSocket upgrade on any
//! path (native clients and bots use `ws://HOST:PORT`, path `/`) is answered 101 and handed to
//! [`connection`](super::connection) as before; plain GETs get the browser client (`/` the page,
//! then the wasm, macroquad's JS loader and our plugin), built and embedded by `build.rs`.
//!
//! Assets are served from memory with a gzip copy made at build time (sent when the browser
//! accepts gzip), content-hashed names cached for a year as immutable, and the page itself
//! revalidated every time (`no-cache` + ETag), so a rebuilt server is picked up on reload.
//!
//! `GET /metrics` answers the server's numbers for Prometheus (see [`super::ops`]), here or,
//! with `--metrics-bind`, only on a listener of its own ([`serve_metrics`]). The record of
//! finished games (`/scores`, `/games/...`, `/api/games...`, `/replay/...`) is
//! [`super::pages`]'.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpStream;
use tokio::sync::{oneshot, watch};
use tokio::time::Instant;
use tokio_tungstenite::WebSocketStream;

use super::link::Link;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::Role;
use tracing::debug;

use super::Shared;
use super::admission::{Slot, SlotRefused};
use super::connection;
use super::ops::{Cut, metrics};

/// One embedded file: its public name, ETag, bytes and gzip copy.
#[derive(Debug)]
pub struct Asset {
    pub name: &'static str,
    pub etag: &'static str,
    pub raw: &'static [u8],
    pub gzip: &'static [u8],
}

/// The browser client, as `build.rs` embedded it.
#[derive(Debug)]
pub struct Assets {
    pub page: Asset,
    pub wasm: Asset,
    pub loader: Asset,
    pub plugin: Asset,
}

// Defines `ASSETS: Result<Assets, &str>` (the error says why there is no browser client).
include!(concat!(env!("OUT_DIR"), "/web_assets.rs"));

/// The page shown when the server was built without the browser client.
const MISSING: &str = include_str!("../../../client/web/missing.html");

/// The embedded browser client, or why there is none.
pub fn assets() -> Result<&'static Assets, &'static str> {
    ASSETS.as_ref().map_err(|why| *why)
}

/// How long a browser may keep a connection for downloads: the page and its assets take well
/// under a second on a LAN; this bounds what a slow or idle client can hold.
const HTTP_LIFETIME: Duration = Duration::from_secs(60);

/// How long a refused connection is given to hear why (its request read, the refusal sent and
/// the close done) before it is dropped.
pub const REFUSAL_TIME: Duration = Duration::from_secs(3);

/// A WebSocket upgrade the service accepted, for the connection task to take over once hyper
/// has sent the 101.
type UpgradeSlot = Arc<Mutex<Option<oneshot::Sender<(hyper::upgrade::OnUpgrade, bool)>>>>;

/// Serves one accepted TCP stream: HTTP until a WebSocket upgrade, then the game connection.
pub async fn serve(
    stream: TcpStream,
    peer: SocketAddr,
    shared: Arc<Shared>,
    mut slot: Result<Slot, SlotRefused>,
    mut shutdown: watch::Receiver<bool>,
) {
    let _ = stream.set_nodelay(true);
    // One deadline from TCP accept to a successful hello, upgrade included.
    let deadline = Instant::now() + shared.config.handshake_timeout;
    let (upgrade_tx, upgrade_rx) = oneshot::channel();
    let upgrade: UpgradeSlot = Arc::new(Mutex::new(Some(upgrade_tx)));
    let full = slot.is_err();
    let served = Arc::new(AtomicU32::new(0));
    let service = {
        let shared = Arc::clone(&shared);
        hyper::service::service_fn(move |req: Request<Incoming>| {
            let upgrade = Arc::clone(&upgrade);
            let first = served.fetch_add(1, Ordering::Relaxed) == 0;
            let shared = Arc::clone(&shared);
            async move {
                let page = !full
                    && (req.method() == Method::GET || req.method() == Method::HEAD)
                    && !is_websocket(&req)
                    && super::pages::is_page(req.uri().path());
                let answer = if page {
                    super::pages::serve(&req, &shared, peer.ip()).await
                } else {
                    respond(req, &upgrade, first, full, &shared)
                };
                Ok::<_, Infallible>(answer)
            }
        })
    };
    // A refused connection only has the time to hear why.
    let header_time = if full {
        REFUSAL_TIME
    } else {
        shared.config.handshake_timeout
    };
    // Boxed, and so let go of once the HTTP part is over: kept inline, its state would stay in
    // the task of every game connection for good (see the boxed game connection below).
    let conn = Box::pin(
        hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            // A client that trickles its request headers is dropped (slowloris).
            .header_read_timeout(header_time)
            .max_buf_size(16 * 1024)
            .serve_connection(TokioIo::new(stream), service)
            .with_upgrades(),
    );
    let gave_way = async {
        match &mut slot {
            Ok(slot) => slot.evicted().await,
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        r = tokio::time::timeout(HTTP_LIFETIME, conn) => match r {
            Ok(Ok(())) => {}
            Ok(Err(e)) if e.is_timeout() => {
                debug!(%peer, "HTTP request headers too slow (slowloris?)");
                shared.ops.cut(Cut::HandshakeTimeout, Some(peer.ip()));
            }
            Ok(Err(e)) => debug!(%peer, error = %e, "HTTP connection failed"),
            Err(_) => debug!(%peer, "HTTP connection held too long"),
        },
        _ = shutdown.changed() => return,
        // Closed at once: the server is full and a newcomer took this place.
        () = gave_way => return,
    }
    // The connection ended; if it was by a WebSocket upgrade, the game takes over.
    let Ok((on_upgrade, first)) = upgrade_rx.await else {
        return;
    };
    // A browser may upgrade a connection that has served files for a while: its hello gets
    // the usual time from the upgrade request.
    let deadline = if first {
        deadline
    } else {
        Instant::now() + shared.config.handshake_timeout
    };
    let upgraded = match tokio::time::timeout_at(deadline, on_upgrade).await {
        Ok(Ok(u)) => u,
        Ok(Err(e)) => {
            debug!(%peer, error = %e, "WebSocket upgrade failed");
            return;
        }
        Err(_) => {
            debug!(%peer, "WebSocket upgrade timed out");
            shared.ops.cut(Cut::HandshakeTimeout, Some(peer.ip()));
            return;
        }
    };
    // The game speaks straight to the TCP stream: hyper's upgraded IO wraps it in a boxed
    // reader that replays what hyper read ahead, and every read and write of the connection's
    // life went through those layers. What hyper read past the upgrade request (a client may
    // send its hello at once) is handed to tungstenite as already read.
    // The read-ahead is copied out and let go at once: it is a slice of hyper's whole read
    // buffer, which it would otherwise keep alive for the connection's life.
    let (stream, read_ahead) = match upgraded.downcast::<TokioIo<TcpStream>>() {
        Ok(parts) => (parts.io.into_inner(), parts.read_buf.to_vec()),
        Err(_) => {
            debug!(%peer, "WebSocket upgrade on an unexpected stream type");
            return;
        }
    };
    let ws = WebSocketStream::from_partially_read(
        Link::new(stream),
        read_ahead,
        Role::Server,
        Some(shared.ws_config()),
    )
    .await;
    // Boxed, so this task's future is not the size of the HTTP state and the game connection's
    // together (rustc lays out an awaited future beside this function's own state): an idle
    // connection then holds only the game connection's future. The box is made apart from its
    // await (see `wire::send`).
    let game = Box::pin(connection::serve(
        ws, peer, shared, slot, shutdown, deadline,
    ));
    game.await;
}

/// Whether `req` asks for a WebSocket (RFC 6455 §4.2.1).
fn is_websocket(req: &Request<Incoming>) -> bool {
    let has = |name: header::HeaderName, token: &str| {
        req.headers().get_all(name).iter().any(|v| {
            v.to_str()
                .is_ok_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
        })
    };
    req.method() == Method::GET
        && has(header::CONNECTION, "upgrade")
        && has(header::UPGRADE, "websocket")
        && req.headers().contains_key(header::SEC_WEBSOCKET_KEY)
}

fn respond(
    mut req: Request<Incoming>,
    upgrade: &UpgradeSlot,
    first: bool,
    server_full: bool,
    shared: &Shared,
) -> Response<Full<Bytes>> {
    if is_websocket(&req) {
        return accept_websocket(&mut req, upgrade, first);
    }
    if server_full {
        return text(
            StatusCode::SERVICE_UNAVAILABLE,
            "The server has as many connections as it allows. Try again later.\n",
        );
    }
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return text(StatusCode::METHOD_NOT_ALLOWED, "Only GET is served here.\n");
    }
    if req.uri().path() == "/metrics" && shared.config.metrics_bind.is_none() {
        return metrics_answer(shared);
    }
    if !shared.config.web {
        return text(
            StatusCode::NOT_FOUND,
            "This Delve server does not serve the browser client (it runs with --no-web).\n\
             Join it with the game: delve --server ws://HOST:PORT\n",
        );
    }
    let path = req.uri().path();
    let assets = match assets() {
        Ok(a) => a,
        Err(why) if path == "/" || path == "/index.html" => {
            let mut r = Response::new(Full::new(Bytes::from(MISSING.replace("{{why}}", why))));
            set(&mut r, header::CONTENT_TYPE, "text/html; charset=utf-8");
            set(&mut r, header::CACHE_CONTROL, "no-cache");
            return r;
        }
        Err(_) => return text(StatusCode::NOT_FOUND, "Not found.\n"),
    };
    let (asset, kind, cache) = match path {
        "/" | "/index.html" => (&assets.page, "text/html; charset=utf-8", "no-cache"),
        p if p.strip_prefix('/') == Some(assets.wasm.name) => {
            (&assets.wasm, "application/wasm", IMMUTABLE)
        }
        p if p.strip_prefix('/') == Some(assets.loader.name) => {
            (&assets.loader, "text/javascript; charset=utf-8", IMMUTABLE)
        }
        p if p.strip_prefix('/') == Some(assets.plugin.name) => {
            (&assets.plugin, "text/javascript; charset=utf-8", IMMUTABLE)
        }
        _ => return text(StatusCode::NOT_FOUND, "Not found.\n"),
    };
    file(&req, asset, kind, cache)
}

/// Hashed names never change content: a browser keeps them without asking again.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

pub(super) fn file(
    req: &Request<Incoming>,
    asset: &Asset,
    kind: &'static str,
    cache: &'static str,
) -> Response<Full<Bytes>> {
    let fresh = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .any(|t| t.trim() == asset.etag || t.trim() == "*")
        });
    let gzip = accepts_gzip(req);
    let body = match (fresh, req.method() == Method::HEAD, gzip) {
        (true, _, _) | (_, true, _) => Bytes::new(),
        (_, _, true) => Bytes::from_static(asset.gzip),
        (_, _, false) => Bytes::from_static(asset.raw),
    };
    let mut r = Response::new(Full::new(body));
    if fresh {
        *r.status_mut() = StatusCode::NOT_MODIFIED;
    }
    set(&mut r, header::CONTENT_TYPE, kind);
    set(&mut r, header::CACHE_CONTROL, cache);
    set(&mut r, header::ETAG, asset.etag);
    set(&mut r, header::VARY, "Accept-Encoding");
    if gzip && !fresh {
        set(&mut r, header::CONTENT_ENCODING, "gzip");
    }
    r
}

/// Whether the request's Accept-Encoding allows gzip (and does not rule it out with q=0).
fn accepts_gzip(req: &Request<Incoming>) -> bool {
    req.headers()
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|coding| {
            let mut parts = coding.split(';').map(str::trim);
            let name = parts.next().unwrap_or("");
            let refused = parts.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            (name.eq_ignore_ascii_case("gzip") || name == "*") && !refused
        })
}

/// Answers 101 and passes the pending upgrade to the connection task.
fn accept_websocket(
    req: &mut Request<Incoming>,
    upgrade: &UpgradeSlot,
    first: bool,
) -> Response<Full<Bytes>> {
    let version_ok = req
        .headers()
        .get(header::SEC_WEBSOCKET_VERSION)
        .is_some_and(|v| v == "13");
    if !version_ok {
        let mut r = text(StatusCode::BAD_REQUEST, "WebSocket version 13 only.\n");
        set(&mut r, header::SEC_WEBSOCKET_VERSION, "13");
        return r;
    }
    let Some(key) = req.headers().get(header::SEC_WEBSOCKET_KEY) else {
        return text(StatusCode::BAD_REQUEST, "No Sec-WebSocket-Key.\n");
    };
    let accept = derive_accept_key(key.as_bytes());
    let taker = upgrade.lock().ok().and_then(|mut s| s.take());
    let Some(taker) = taker else {
        return text(StatusCode::BAD_REQUEST, "One WebSocket per connection.\n");
    };
    let _ = taker.send((hyper::upgrade::on(req), first));
    let mut r = Response::new(Full::new(Bytes::new()));
    *r.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    set(&mut r, header::CONNECTION, "Upgrade");
    set(&mut r, header::UPGRADE, "websocket");
    if let Ok(v) = HeaderValue::from_str(&accept) {
        r.headers_mut().insert(header::SEC_WEBSOCKET_ACCEPT, v);
    }
    r
}

/// The answer to `GET /metrics`.
fn metrics_answer(shared: &Shared) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(shared.metrics_text())));
    set(&mut r, header::CONTENT_TYPE, metrics::CONTENT_TYPE);
    set(&mut r, header::CACHE_CONTROL, "no-store");
    r
}

/// Connections the metrics listener serves at once; a scraper needs one.
const METRICS_CONNECTIONS: usize = 16;

/// Serves `GET /metrics` (and nothing else) on a listener of its own (`--metrics-bind`), for as
/// long as the task runs. Its connections take no game slot.
pub async fn serve_metrics(listener: tokio::net::TcpListener, shared: Arc<Shared>) {
    let room = Arc::new(tokio::sync::Semaphore::new(METRICS_CONNECTIONS));
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let Ok(permit) = Arc::clone(&room).try_acquire_owned() else {
            continue;
        };
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                let answer = if req.uri().path() == "/metrics" {
                    metrics_answer(&shared)
                } else {
                    text(StatusCode::NOT_FOUND, "Only /metrics is served here.\n")
                };
                async move { Ok::<_, Infallible>(answer) }
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(Duration::from_secs(10))
                .serve_connection(TokioIo::new(stream), service);
            let _ = tokio::time::timeout(HTTP_LIFETIME, conn).await;
            drop(permit);
        });
    }
}

fn text(status: StatusCode, body: &'static str) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *r.status_mut() = status;
    set(&mut r, header::CONTENT_TYPE, "text/plain; charset=utf-8");
    set(&mut r, header::CACHE_CONTROL, "no-cache");
    r
}

fn set(r: &mut Response<Full<Bytes>>, name: header::HeaderName, value: &'static str) {
    r.headers_mut()
        .insert(name, HeaderValue::from_static(value));
}
