//! The game client's network thread on its own: it reconnects by itself when the server goes
//! away and comes back, and stops for good, with a clear reason, on a protocol mismatch.

use delve_protocol::Action;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use delve_client::net::{NetEvent, NetThread, hello};
use delve_protocol::{ClientMsg, ServerMsg};
use delve_server::net::{Server, ServerConfig};
use delve_tests::test_config;

/// Waits for the first event `want` accepts, failing after 20 s.
fn wait_for(net: &NetThread, what: &str, want: impl Fn(&NetEvent) -> bool) -> NetEvent {
    let until = Instant::now() + Duration::from_secs(20);
    while let Some(left) = until.checked_duration_since(Instant::now()) {
        match net.recv_timeout(left) {
            Some(ev) if want(&ev) => return ev,
            Some(_) => {}
            None => break,
        }
    }
    panic!("no {what} within 20 s");
}

fn start(rt: &tokio::runtime::Runtime, bind: SocketAddr) -> Server {
    let config = ServerConfig {
        bind,
        ..test_config()
    };
    rt.block_on(Server::start(config)).expect("server starts")
}

#[test]
fn the_game_connection_comes_back_by_itself_after_a_server_restart() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let server = start(&rt, ([127, 0, 0, 1], 0).into());
    let addr = server.local_addr();
    let net = NetThread::spawn(server.url(), hello("Ann", "crypt", None)).unwrap();
    let first = wait_for(
        &net,
        "welcome",
        |e| matches!(e, NetEvent::Msg(m) if matches!(**m, ServerMsg::Welcome { .. })),
    );
    let NetEvent::Msg(first) = first else {
        unreachable!()
    };
    let ServerMsg::Welcome {
        token: Some(first_token),
        ..
    } = *first
    else {
        panic!("a token")
    };

    // The server goes away (telling the client so) and comes back on the same address.
    rt.block_on(server.shutdown())
        .expect("every dungeon is saved");
    let lost = wait_for(&net, "reconnecting", |e| {
        matches!(e, NetEvent::Reconnecting { .. })
    });
    let NetEvent::Reconnecting { attempt, wait, .. } = lost else {
        unreachable!()
    };
    assert_eq!(attempt, 1);
    assert!(
        wait <= Duration::from_secs(1),
        "the first retry comes soon: {wait:?}"
    );
    let server = start(&rt, addr);

    // The new server does not know the old token, so the thread starts a fresh character under
    // the same name by itself.
    let again = wait_for(
        &net,
        "a second welcome",
        |e| matches!(e, NetEvent::Msg(m) if matches!(**m, ServerMsg::Welcome { .. })),
    );
    let NetEvent::Msg(again) = again else {
        unreachable!()
    };
    let ServerMsg::Welcome {
        token: Some(token),
        view,
        ..
    } = *again
    else {
        panic!("a token")
    };
    assert_ne!(token, first_token);
    assert_eq!(&*view.me.name, "Ann");
    // And it plays on.
    net.send(ClientMsg::Act(Action::Wait));
    wait_for(
        &net,
        "the next turn",
        |e| matches!(e, NetEvent::Msg(m) if matches!(**m, ServerMsg::Update { turn: 1, .. })),
    );
    drop(net);
    rt.block_on(server.shutdown())
        .expect("every dungeon is saved");
}

#[test]
fn a_protocol_mismatch_stops_the_retries_with_a_clear_reason() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let server = start(&rt, ([127, 0, 0, 1], 0).into());
    let mut old = hello("Ann", "crypt", None);
    if let ClientMsg::Hello { version, .. } = &mut old {
        *version = 99;
    }
    let net = NetThread::spawn(server.url(), old).unwrap();
    let ended = wait_for(&net, "the end", |e| {
        matches!(e, NetEvent::Ended(_) | NetEvent::Reconnecting { .. })
    });
    match ended {
        NetEvent::Ended(reason) => {
            assert!(
                reason.contains("99")
                    && reason.contains(&delve_protocol::PROTOCOL_VERSION.to_string()),
                "{reason}"
            );
        }
        other => panic!("the thread retried a protocol mismatch: {other:?}"),
    }
    // The thread gives up and ends: no retries.
    assert!(net.finished(Duration::from_secs(10)), "it kept trying");
    rt.block_on(server.shutdown())
        .expect("every dungeon is saved");
}
