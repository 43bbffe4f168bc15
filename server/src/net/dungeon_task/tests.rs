//! The task under paused time, with outboxes read directly (no sockets).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use delve_protocol::{ServerMsg, decode_server};
use tokio::sync::{Semaphore, mpsc, oneshot};

use super::*;
use crate::game::Action;
use crate::net::outbox_queue;
/// No monsters: these tests are about connections, and idle players must not be killed.
fn config(turn_timeout_ms: u64) -> Arc<ServerConfig> {
    Arc::new(ServerConfig {
        turn_timeout: Duration::from_millis(turn_timeout_ms),
        content: Arc::new(crate::game::Content::builtin_without_monsters()),
        ..ServerConfig::default()
    })
}

async fn join(
    tx: &mpsc::Sender<Command>,
    name: &str,
    conn: ConnId,
    outbox: usize,
) -> (EntityId, outbox_queue::Receiver<Outgoing>) {
    let (out, rx) = outbox_queue::queue(outbox);
    let (reply, answer) = oneshot::channel();
    tx.send(Command::Join {
        name: name.into(),
        token: None,
        from: std::net::Ipv4Addr::LOCALHOST.into(),
        conn,
        out: Outlet::new(out, None),
        reply,
    })
    .await
    .unwrap();
    (answer.await.unwrap().unwrap(), rx)
}

fn frames(rx: &mut outbox_queue::Receiver<Outgoing>) -> Vec<ServerMsg> {
    let mut out = Vec::new();
    while let Ok(o) = rx.try_recv() {
        if let Outgoing::Frame(text) = o {
            out.push(decode_server(&text).unwrap());
        }
    }
    out
}

fn view_seq(m: &ServerMsg) -> Option<u64> {
    match m {
        ServerMsg::Welcome { seq, .. }
        | ServerMsg::Snapshot { seq, .. }
        | ServerMsg::Update { seq, .. } => Some(*seq),
        _ => None,
    }
}

/// Runs the task until `n` updates have reached Bob, acting for him each turn. Time is
/// paused, so the turn timer fires as soon as the task is idle.
async fn play_turns(
    tx: &mpsc::Sender<Command>,
    bob_rx: &mut outbox_queue::Receiver<Outgoing>,
    n: usize,
) {
    for _ in 0..n {
        tx.send(Command::Act {
            conn: 2,
            action: Action::Wait,
        })
        .await
        .unwrap();
        loop {
            let next = tokio::time::timeout(Duration::from_secs(60), bob_rx.recv()).await;
            match next
                .expect("an update within a minute of game time")
                .unwrap()
            {
                Outgoing::Frame(t) if t.contains(r#""type":"update""#) => break,
                _ => {}
            }
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_client_that_stops_reading_never_stalls_the_dungeon_and_gets_a_snapshot_after() {
    let (tx, rx) = mpsc::channel(64);
    let config = config(50);
    let world = World::new(
        crate::game::Dungeon::new(42, Arc::clone(&config.content)),
        None,
    );
    let task = DungeonTask::new(
        "crypt".into(),
        world,
        HashMap::new(),
        config,
        Arc::new(DungeonStats::default()),
        Arc::new(Semaphore::new(1)),
        Arc::default(),
    );
    tokio::spawn(task.run(rx));
    // Ann's outbox holds 4 frames and nobody reads it.
    let (_ann, mut ann_rx) = join(&tx, "Ann", 1, 4).await;
    let (_bob, mut bob_rx) = join(&tx, "Bob", 2, 64).await;
    let _ = frames(&mut bob_rx); // welcome and "Entering floor #1"

    // Bob plays 30 turns; each resolves on the timer because Ann never chooses. The dungeon
    // goes on although Ann's outbox is full.
    play_turns(&tx, &mut bob_rx, 30).await;

    let first = frames(&mut ann_rx);
    assert_eq!(first.len(), 4, "the outbox kept only what fit");
    let seqs: Vec<u64> = first.iter().filter_map(view_seq).collect();
    assert_eq!(
        seqs,
        (0..seqs.len() as u64).collect::<Vec<_>>(),
        "no gap in what was kept"
    );

    // Ann drains; the next turn brings her a whole snapshot, continuing the sequence.
    play_turns(&tx, &mut bob_rx, 1).await;
    let next = frames(&mut ann_rx);
    let snap = next
        .iter()
        .find(|m| view_seq(m).is_some())
        .expect("a view message");
    match snap {
        ServerMsg::Snapshot { seq, view } => {
            assert_eq!(*seq, seqs.last().unwrap() + 1);
            assert_eq!(view.turn, 31);
        }
        other => panic!("expected a snapshot after falling behind, got {other:?}"),
    }
    // And updates resume after it.
    play_turns(&tx, &mut bob_rx, 1).await;
    let after = frames(&mut ann_rx);
    assert!(
        matches!(
            after.iter().find(|m| view_seq(m).is_some()),
            Some(ServerMsg::Update { turn: 32, .. })
        ),
        "{after:?}"
    );
}

/// Ann's first view, and a session for her that was sent it, whose outbox holds one frame and
/// is read by nobody until told.
fn ann_with_an_outbox_of_one() -> (
    delve_protocol::View,
    Session,
    outbox_queue::Receiver<Outgoing>,
) {
    let content = Arc::new(crate::game::Content::builtin_without_monsters());
    let mut dungeon = crate::game::Dungeon::new(42, content);
    let joined = dungeon.step(&crate::game::Input::Join { name: "Ann".into() });
    let ann = joined.unwrap().character.unwrap();
    let view = crate::view::view_of(&dungeon, ann).unwrap();
    let (out, rx) = outbox_queue::queue(1);
    let chat = crate::net::limits::RateLimiter::new(1, 1);
    let s = Session::new(
        Outlet::new(out, None),
        Some(ann),
        None,
        "Ann".into(),
        view.clone(),
        chat,
    );
    (view, s, rx)
}

/// A connection falls behind (what `delve_fell_behind_total` and the log count) when its
/// backlog refuses an update it did not refuse the last time, also when a resync had already
/// marked it for a whole view (that case used to go uncounted), and once however many are
/// refused after it.
#[test]
fn falling_behind_is_told_once_and_also_just_after_a_resync() {
    use outbox::Pushed;
    let (view, mut s, mut rx) = ann_with_an_outbox_of_one();
    let push = |s: &mut Session| s.push(1, view.clone(), Vec::new(), true, None).0;
    let queued = Pushed {
        queued: 1,
        fell_behind: false,
    };
    let fell = Pushed {
        queued: 0,
        fell_behind: true,
    };
    let still = Pushed {
        queued: 0,
        fell_behind: false,
    };
    assert_eq!(push(&mut s), queued, "the first update fills the outbox");
    s.resend_whole();
    assert_eq!(
        push(&mut s),
        fell,
        "the whole view a resync asked for is refused"
    );
    assert_eq!(push(&mut s), still, "told once");
    assert!(rx.try_recv().is_ok());
    assert_eq!(push(&mut s), queued, "room again: the snapshot goes in");
    assert_eq!(push(&mut s), fell, "and the next refusal is told again");
}

/// An update gives back the view it replaced as its connection's baseline, for the next view
/// to be built in its lists; an update that was not sent gives back its own view and leaves
/// the baseline as it was.
#[test]
fn an_update_gives_back_the_view_it_replaced() {
    let (first, mut s, mut rx) = ann_with_an_outbox_of_one();
    assert_eq!(first.turn, 0);
    let view = |turn: u64| delve_protocol::View {
        turn,
        ..first.clone()
    };
    let (_, spent) = s.push(1, view(1), Vec::new(), true, None);
    assert_eq!(
        spent.map(|v| v.turn),
        Some(0),
        "the first baseline comes back"
    );
    // The outbox is full: turn 2 is not sent, so turn 1 stays the baseline.
    let (pushed, spent) = s.push(1, view(2), Vec::new(), true, None);
    assert_eq!(pushed.queued, 0);
    assert_eq!(
        spent.map(|v| v.turn),
        Some(2),
        "an update not sent comes back"
    );
    assert!(rx.try_recv().is_ok());
    let (_, spent) = s.push(1, view(3), Vec::new(), true, None);
    assert_eq!(spent.map(|v| v.turn), Some(1));
}
