//! The link through real sockets on loopback: a WebSocket client reads what the two writers
//! wrote, and must find every frame whole and each writer's frames in order.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::Role;

use super::*;

/// A server-side link and the client's WebSocket over loopback.
async fn pair() -> (WebSocketStream<Link>, WebSocketStream<TcpStream>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (client, accepted) = tokio::join!(TcpStream::connect(addr), listener.accept());
    let server =
        WebSocketStream::from_raw_socket(Link::new(accepted.unwrap().0), Role::Server, None).await;
    let client = WebSocketStream::from_raw_socket(client.unwrap(), Role::Client, None).await;
    (server, client)
}

/// A payload big enough that the socket keeps filling up (so writes are cut short and wait),
/// naming its writer and its number.
fn payload(writer: char, i: usize) -> String {
    let pad = "x".repeat(20_000 + i % 7 * 3000);
    format!("{writer}{i} {pad}")
}

fn within<F: std::future::Future>(f: F) -> tokio::time::Timeout<F> {
    tokio::time::timeout(Duration::from_secs(60), f)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_from_both_writers_arrive_whole_and_in_order() {
    const EACH: usize = 300;
    let (mut server, mut client) = pair().await;
    let writer = server.get_ref().writer();
    // The dungeon's side: straight writes, waiting its turn when the client is behind.
    let dungeon = tokio::spawn({
        let writer = writer.clone();
        async move {
            let mut full = 0;
            for i in 0..EACH {
                let text = payload('d', i);
                loop {
                    match writer.write_text(text.as_bytes()) {
                        Ok(()) => break,
                        Err(Refused::Full) => {
                            full += 1;
                            tokio::task::yield_now().await;
                        }
                        Err(Refused::Closed) => panic!("closed at frame {i}"),
                    }
                }
            }
            full
        }
    });
    // The connection's side: tungstenite's own messages, and writing what waits.
    let connection = tokio::spawn(async move {
        for i in 0..EACH {
            server.send(Message::text(payload('t', i))).await.unwrap();
        }
        while !dungeon.is_finished() {
            tokio::select! {
                () = writer.has_waiting() => writer.drain().await.unwrap(),
                () = tokio::time::sleep(Duration::from_millis(5)) => {}
            }
        }
        writer.drain().await.unwrap();
        (server, dungeon.await.unwrap())
    });
    let mut next = [0usize; 2];
    while next != [EACH, EACH] {
        let msg = within(client.next())
            .await
            .expect("every frame arrives")
            .expect("the stream goes on")
            .expect("every frame is whole");
        let text = msg.into_text().unwrap();
        let (head, pad) = text.split_once(' ').unwrap();
        let who = usize::from(head.starts_with('t'));
        let i: usize = head[1..].parse().unwrap();
        assert_eq!(i, next[who], "{head} out of order");
        assert_eq!(pad.len(), 20_000 + i % 7 * 3000, "{head} cut");
        next[who] += 1;
    }
    let (_server, full) = connection.await.unwrap();
    // The test is only worth something if the socket filled and frames had to wait.
    assert!(full > 0, "the dungeon's writer never found the link full");
}

#[tokio::test]
async fn a_client_that_stops_reading_gets_no_more_than_the_bound() {
    let (server, _client) = pair().await;
    let writer = server.get_ref().writer();
    let text = payload('d', 0);
    let mut taken = 0;
    let refused = loop {
        match writer.write_text(text.as_bytes()) {
            Ok(()) => taken += 1,
            Err(why) => break why,
        }
        assert!(taken < 100_000, "the link never filled");
    };
    assert_eq!(refused, Refused::Full);
    let waiting = writer.shared.lock().waiting();
    assert!(
        waiting <= MAX_WAITING_BYTES && waiting > 0,
        "{waiting} bytes wait"
    );
    // A small frame does not slip in behind a refused one either: the bound is for bytes.
    assert_eq!(
        writer.write_text(&vec![b'y'; MAX_WAITING_BYTES]),
        Err(Refused::Full)
    );
    // Once the dungeon has closed the session, nothing more is taken, whatever the room.
    writer.shut();
    assert_eq!(writer.write_text(b"late"), Err(Refused::Closed));
}

/// The connection's own answers and pings still go in when the dungeon's frames are refused,
/// up to their own bound, and reach the client whole, behind the frames taken before them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_and_pings_have_room_past_a_full_backlog() {
    let (server, mut client) = pair().await;
    let writer = server.get_ref().writer();
    let mut taken = 0;
    while writer.write_text(payload('d', taken).as_bytes()).is_ok() {
        taken += 1;
        assert!(taken < 100_000, "the link never filled");
    }
    writer
        .write_ping()
        .expect("a ping past the dungeon's bound");
    writer
        .write_answer(b"the answer")
        .expect("an answer past it");
    // Answers are bounded too.
    let answers = std::iter::repeat_with(|| writer.write_answer(&[b'a'; 10_000]));
    let refused = answers.take(100).find(Result::is_err);
    assert_eq!(refused, Some(Err(Refused::Full)));
    let waiting = writer.shared.lock().waiting();
    assert!(
        waiting <= MAX_WAITING_BYTES + ANSWER_ROOM,
        "{waiting} bytes wait"
    );
    // The connection's loop drains while the client reads: every frame taken arrives, then
    // the ping (answered by the client's library, so seen as a ping) and the answer.
    let drain = tokio::spawn(async move {
        let mut server = server;
        let link = server.get_ref().writer();
        link.drain().await.expect("drained");
        // Reading keeps the server side alive until the client is done.
        let _ = within(server.next()).await;
    });
    for i in 0..taken {
        let frame = within(client.next()).await.unwrap().unwrap().unwrap();
        let text = frame.into_text().unwrap();
        assert!(
            text.starts_with(&format!("d{i} ")),
            "frame {i}: {}",
            &text[..10]
        );
    }
    let ping = within(client.next()).await.unwrap().unwrap().unwrap();
    assert!(
        matches!(ping, Message::Ping(ref p) if p.is_empty()),
        "{ping:?}"
    );
    let answer = within(client.next()).await.unwrap().unwrap().unwrap();
    assert_eq!(answer.into_text().unwrap().as_str(), "the answer");
    drop(client);
    let _ = within(drain).await;
}

#[tokio::test]
async fn nothing_is_written_once_the_connection_let_go() {
    let (server, mut client) = pair().await;
    let writer = server.get_ref().writer();
    writer.write_text(b"first").unwrap();
    drop(server);
    assert_eq!(writer.write_text(b"second"), Err(Refused::Closed));
    let first = within(client.next()).await.unwrap().unwrap().unwrap();
    assert_eq!(first.into_text().unwrap().as_str(), "first");
    // The socket was closed when the connection let go, though the dungeon still holds its
    // writer: the client sees the end of the stream, not a wait.
    let end = within(client.next()).await.unwrap();
    assert!(!matches!(end, Some(Ok(Message::Text(_)))), "{end:?}");
    drop(writer);
}
