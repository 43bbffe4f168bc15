//! Frames that break the WebSocket protocol itself get the close code RFC 6455 gives them (1002,
//! or 1007 for text that is not UTF-8), and an oversized message gets `too_large` before its
//! 1009 however it is cut into fragments. Each breaks only its own connection: Ann and Bob, in
//! the same dungeon, play on.

use delve_protocol::close;
use delve_protocol::{Action, ClientMsg, ErrorCode, MAX_CLIENT_FRAME, ServerMsg};
use delve_tests::raw_ws::{CONTINUATION, FIN, RSV1, RawWs, TEXT, frame};
use delve_tests::{Bot, TestServer, test_config};

/// Connects by hand and joins the dungeon as `name`, so the violation hits a live session.
async fn joined(url: &str, name: &str) -> RawWs {
    let mut ws = RawWs::connect(url).await;
    let hello = format!(r#"{{"type":"hello","version":3,"name":"{name}","dungeon":"crypt"}}"#);
    ws.send_frame(FIN | TEXT, hello.as_bytes(), true).await;
    let first = ws.next_text().await;
    assert!(first.contains(r#""type":"welcome""#), "{name}: {first}");
    ws
}

/// Both friends choose a wait and see the turn resolve: the dungeon goes on.
async fn both_play_a_turn(ann: &mut Bot, bob: &mut Bot) {
    let (a0, b0) = (ann.view().turn, bob.view().turn);
    ann.send(ClientMsg::Act(Action::Wait)).await;
    bob.send(ClientMsg::Act(Action::Wait)).await;
    ann.until_turn(a0 + 1).await;
    bob.until_turn(b0 + 1).await;
    assert_eq!(ann.view().turn, a0 + 1);
    assert_eq!(bob.view().turn, b0 + 1);
}

#[tokio::test]
async fn each_protocol_violation_is_closed_with_its_rfc_code() {
    let server = TestServer::start(test_config()).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    let _ = ann.next_view().await;

    let wait = br#"{"type":"wait"}"#;
    let cases: [(&str, Vec<u8>, u16); 6] = [
        (
            "text that is not UTF-8",
            frame(
                FIN | TEXT,
                b"{\"type\":\"chat\",\"text\":\"\xff\xfe\"}",
                true,
            ),
            close::INVALID_PAYLOAD,
        ),
        (
            "RSV1 set",
            frame(FIN | RSV1 | TEXT, wait, true),
            close::PROTOCOL_ERROR,
        ),
        (
            "the reserved data opcode 3",
            frame(FIN | 0x3, wait, true),
            close::PROTOCOL_ERROR,
        ),
        (
            "the reserved control opcode 11",
            frame(FIN | 0xB, b"", true),
            close::PROTOCOL_ERROR,
        ),
        (
            "an unmasked client frame",
            frame(FIN | TEXT, wait, false),
            close::PROTOCOL_ERROR,
        ),
        (
            "a continuation with no message begun",
            frame(FIN | CONTINUATION, wait, true),
            close::PROTOCOL_ERROR,
        ),
    ];
    for (i, (what, bytes, want)) in cases.into_iter().enumerate() {
        let mut ws = joined(&server.url, &format!("Raw{i}")).await;
        ws.send_bytes(&bytes).await;
        let ending = ws.until_closed().await;
        assert_eq!(ending.close_code, Some(want), "{what}: {ending:?}");
        assert_eq!(ending.error, None, "{what}: a clean end of stream");
    }
    // Before a hello, too.
    let mut ws = RawWs::connect(&server.url).await;
    ws.send_frame(FIN | RSV1 | TEXT, wait, true).await;
    assert_eq!(
        ws.until_closed().await.close_code,
        Some(close::PROTOCOL_ERROR)
    );

    both_play_a_turn(&mut ann, &mut bob).await;
    server.stop().await;
}

/// The message in `pieces` fragments, each under the frame limit, the whole over the message
/// limit, written in one go (as a client that does not wait for answers would).
fn fragmented(total: usize, pieces: usize) -> Vec<u8> {
    let text = format!(r#"{{"type":"chat","text":"{}"}}"#, "x".repeat(total));
    let chunk = text.len().div_ceil(pieces);
    let parts: Vec<&[u8]> = text.as_bytes().chunks(chunk).collect();
    let mut bytes = Vec::new();
    for (k, part) in parts.iter().enumerate() {
        let op = if k == 0 { TEXT } else { CONTINUATION };
        let fin = if k + 1 == parts.len() { FIN } else { 0 };
        bytes.extend(frame(fin | op, part, true));
    }
    bytes
}

#[tokio::test]
async fn an_oversized_message_in_fragments_gets_too_large_then_1009() {
    let server = TestServer::start(test_config()).await;
    let mut ann = Bot::join(&server.url, "Ann", "crypt").await;
    let mut bob = Bot::join(&server.url, "Bob", "crypt").await;
    let _ = ann.next_view().await;

    // Small fragments, big ones, and one frame: the same answer each time.
    let shapes = [
        (4 * MAX_CLIENT_FRAME, 16),
        (64 * 1024, 64),
        (200 * 1024, 120),
        (3 * MAX_CLIENT_FRAME, 2),
        (64 * 1024, 1),
    ];
    for (i, (total, pieces)) in shapes.into_iter().enumerate() {
        let mut ws = joined(&server.url, &format!("Big{i}")).await;
        ws.send_bytes(&fragmented(total, pieces)).await;
        let ending = ws.until_closed().await;
        let shape = format!("{total} bytes in {pieces} fragments");
        let error = ending
            .texts
            .iter()
            .find_map(|t| match delve_protocol::decode_server(t) {
                Ok(ServerMsg::Error { code, .. }) => Some(code),
                _ => None,
            });
        assert_eq!(error, Some(ErrorCode::TooLarge), "{shape}: {ending:?}");
        assert_eq!(ending.close_code, Some(close::TOO_BIG), "{shape}");
        assert_eq!(ending.error, None, "{shape}: a clean end, not a reset");
    }

    // A message far larger than the socket buffers, written whole before anything is read:
    // the server reads on (and drops) what comes after its close, so the client's writes do
    // not fail with a broken pipe before it can read the error and the close.
    for i in 0..3 {
        let mut ws = joined(&server.url, &format!("Stream{i}")).await;
        ws.send_bytes(&fragmented(4 << 20, 4096)).await;
        let ending = ws.until_closed().await;
        let shape = format!("4 MiB in 1 KiB fragments, try {i}");
        let error = ending
            .texts
            .iter()
            .find_map(|t| match delve_protocol::decode_server(t) {
                Ok(ServerMsg::Error { code, .. }) => Some(code),
                _ => None,
            });
        assert_eq!(error, Some(ErrorCode::TooLarge), "{shape}: {ending:?}");
        assert_eq!(ending.close_code, Some(close::TOO_BIG), "{shape}");
        assert_eq!(ending.error, None, "{shape}: a clean end, not a reset");
    }

    both_play_a_turn(&mut ann, &mut bob).await;
    server.stop().await;
}
