//! The game port speaks HTTP too: the page, the wasm and the scripts with the right content
//! types, gzip when the browser accepts it, cache headers and revalidation; `--no-web` turns the
//! page off while the WebSocket keeps working. (The WebSocket at `ws://HOST:PORT/` is what every
//! other end-to-end test uses.)

use delve_server::net::ServerConfig;
use delve_tests::http::header;
use delve_tests::{Bot, TestServer, test_config};
use hyper::{Response, StatusCode};

/// One GET over a fresh connection, with extra request headers.
async fn get(server: &TestServer, path: &str, headers: &[(&str, &str)]) -> (Response<()>, Vec<u8>) {
    delve_tests::http::get(&server.url, path, headers).await
}

#[tokio::test]
async fn the_game_port_serves_the_page_and_its_assets() {
    let server = TestServer::start(test_config()).await;
    let (page, body) = get(&server, "/", &[]).await;
    assert_eq!(page.status(), StatusCode::OK);
    assert_eq!(header(&page, "content-type"), "text/html; charset=utf-8");
    assert_eq!(
        header(&page, "cache-control"),
        "no-cache",
        "the page is revalidated"
    );
    let html = String::from_utf8_lossy(&body).into_owned();
    if let Err(why) = delve_server::net::web::assets() {
        // Built without the wasm target: the page says how to get the browser client.
        assert!(
            html.contains("rustup target add wasm32-unknown-unknown"),
            "{html}"
        );
        assert!(html.contains(why), "{html}");
        return;
    }
    let wasm = html
        .split('"')
        .find(|s| s.starts_with("/delve-") && s.ends_with(".wasm"))
        .unwrap_or_else(|| panic!("the page loads a hashed wasm: {html}"))
        .to_owned();
    assert!(
        html.contains("/mq_js_bundle-"),
        "the page loads macroquad's loader"
    );

    let (gz, gz_body) = get(&server, &wasm, &[("accept-encoding", "gzip, deflate, br")]).await;
    assert_eq!(gz.status(), StatusCode::OK);
    assert_eq!(header(&gz, "content-type"), "application/wasm");
    assert_eq!(header(&gz, "content-encoding"), "gzip");
    assert!(header(&gz, "cache-control").contains("immutable"));
    assert_eq!(gz_body.get(..2), Some(&[0x1f, 0x8b][..]), "gzip data");

    let (raw, raw_body) = get(&server, &wasm, &[]).await;
    assert_eq!(
        header(&raw, "content-encoding"),
        "",
        "no gzip unless accepted"
    );
    assert_eq!(raw_body.get(..4), Some(&b"\0asm"[..]), "a wasm module");
    assert!(
        gz_body.len() * 2 < raw_body.len(),
        "gzip at least halves the wasm"
    );

    let refused = get(&server, &wasm, &[("accept-encoding", "gzip;q=0")])
        .await
        .0;
    assert_eq!(header(&refused, "content-encoding"), "", "q=0 refuses gzip");

    let etag = header(&raw, "etag").to_owned();
    assert!(etag.starts_with('"'), "{etag}");
    let (again, body) = get(&server, &wasm, &[("if-none-match", &etag)]).await;
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert!(body.is_empty());

    assert_eq!(
        get(&server, "/nothing.txt", &[]).await.0.status(),
        StatusCode::NOT_FOUND
    );
    // The WebSocket still answers on the same port and path.
    let _bob = Bot::join(&server.url, "Bob", "http").await;
    server.stop().await;
}

#[tokio::test]
async fn no_web_turns_the_page_off_but_not_the_game() {
    let server = TestServer::start(ServerConfig {
        web: false,
        ..test_config()
    })
    .await;
    let (page, body) = get(&server, "/", &[]).await;
    assert_eq!(page.status(), StatusCode::NOT_FOUND);
    assert!(String::from_utf8_lossy(&body).contains("--no-web"));
    let bob = Bot::join(&server.url, "Bob", "noweb").await;
    assert!(bob.model.view.is_some(), "native clients still play");
    server.stop().await;
}

/// A connection that never finishes a request (silent, or trickling half a header) is closed
/// after the handshake timeout, as a silent WebSocket is: HTTP opens no way around the limit.
#[tokio::test]
async fn a_connection_that_never_finishes_a_request_is_closed() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut config = test_config();
    config.handshake_timeout = std::time::Duration::from_millis(1000);
    let server = TestServer::start(config).await;
    let addr = server.url.trim_start_matches("ws://").to_owned();
    for first_bytes in [&b""[..], &b"GET / HTTP/1.1\r\nHost: x\r\n"[..]] {
        let mut tcp = tokio::net::TcpStream::connect(&addr)
            .await
            .expect("the server accepts");
        tcp.write_all(first_bytes).await.expect("a write");
        let started = std::time::Instant::now();
        let mut buf = [0u8; 512];
        // The server may answer 408 before it closes; read until the close.
        loop {
            match delve_tests::within(tcp.read(&mut buf)).await {
                Ok(0) | Err(_) => break,
                Ok(_) => continue,
            }
        }
        let waited = started.elapsed();
        assert!(
            waited < std::time::Duration::from_secs(4),
            "closed after {waited:?}, sent {first_bytes:?}"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn metrics_are_scraped_from_the_game_port_and_count_what_happens() {
    let server = TestServer::start(test_config()).await;
    let scrape = || async { get(&server, "/metrics", &[]).await };
    let (empty, _) = scrape().await;
    assert_eq!(empty.status(), StatusCode::OK);
    assert_eq!(
        header(&empty, "content-type"),
        "application/openmetrics-text; version=1.0.0; charset=utf-8"
    );
    // Two players, one turn each: every number an operator watches moves.
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    ann.send(delve_protocol::ClientMsg::Act(delve_protocol::Action::Wait))
        .await;
    bob.send(delve_protocol::ClientMsg::Act(delve_protocol::Action::Wait))
        .await;
    ann.until_turn(1).await;
    bob.until_turn(1).await;
    let (_, body) = scrape().await;
    let text = String::from_utf8(body).expect("text");
    let value = |series: &str| delve_tests::metric(&text, series);
    assert_eq!(value("delve_players_online"), 2.0, "{text}");
    assert_eq!(value("delve_dungeons_loaded"), 1.0);
    assert_eq!(value("delve_connections{state=\"playing\"}"), 2.0);
    assert_eq!(value("delve_turns_total"), 1.0);
    assert!(
        value("delve_updates_total") >= 4.0,
        "the arrival updates and the turn's: {text}"
    );
    assert!(value("delve_resident_memory_bytes") > 1e6, "{text}");
    for series in [
        "delve_refusals_total{reason=\"server_full\"}",
        "delve_journal_write_seconds_count",
        "delve_event_loop_stall_seconds_count",
    ] {
        assert!(text.lines().any(|l| l.starts_with(series)), "no {series}");
    }
    drop((ann, bob));
    server.stop().await;
}

#[tokio::test]
async fn with_metrics_bind_the_game_port_keeps_the_metrics_to_itself() {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let at = probe.local_addr().expect("an address");
    drop(probe);
    let server = TestServer::start(ServerConfig {
        metrics_bind: Some(at),
        ..test_config()
    })
    .await;
    let (on_game_port, _) = get(&server, "/metrics", &[]).await;
    assert_ne!(on_game_port.status(), StatusCode::OK);
    let mut s = tokio::net::TcpStream::connect(at)
        .await
        .expect("metrics listen");
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .expect("asked");
    let mut text = String::new();
    s.read_to_string(&mut text).await.expect("answered");
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.contains("delve_players_online 0"), "{text}");
    server.stop().await;
}
