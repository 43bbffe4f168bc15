//! "Your move" in the native window's title: Ann plays the real client under Xvfb by a script;
//! Bob is a second player over a real WebSocket (the client's own network thread and model),
//! steered by this test, which reads Ann's window's title from the X server itself. Once Bob
//! has chosen, the floor waits only for Ann: her window says "Your move – Delve"; she waits a
//! turn, the turn resolves and it says "Delve" again. A turn Ann chose first (the floor waits
//! for Bob alone) leaves it "Delve" (no rename at all, as the X server tells the test); then it
//! turns again to "Your move" on Bob's next choice.
//!
//! Linux only (the title is renamed over X11 there; see client/src/ui/title.rs). Without Xvfb
//! the test says so and passes, except under CI (`CI` set), where it fails.
#![cfg(target_os = "linux")]

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use delve_client::model::Model;
use delve_client::net::{NetEvent, NetThread};
use delve_client::ui::title::{PLAIN, YOUR_MOVE};
use delve_protocol::{Action, ClientMsg};
use x11rb::connection::Connection;
use x11rb::protocol::Event;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ChangeWindowAttributesAux, ConnectionExt as _, EventMask, Window,
};
use x11rb::rust_connection::RustConnection;

mod common;
mod window;
use common::Xvfb;
use window::{TestServer, builtin, play};

/// How long the title may take to follow the game (a frame and the X round trips).
const TITLE_PATIENCE: Duration = Duration::from_secs(30);

/// What the test tells Bob to do.
enum Do {
    /// Choose a wait, the next turn he has not chosen in yet.
    Act,
    /// Say this in the chat (Ann's script waits for these lines).
    Say(&'static str),
}

/// What Bob tells the test.
#[derive(Debug, PartialEq)]
enum Saw {
    /// Ann is in the dungeon with him.
    Ann,
    /// The floor's status names only him.
    WaitedForAlone,
    /// His view is at this turn.
    Turn(u64),
}

/// Bob's side: joins, then does what the test says, and tells what he saw.
fn play_bob(url: String, orders: mpsc::Receiver<Do>, saw: mpsc::Sender<Saw>) {
    let hello = delve_client::net::hello("Bob", "crypt", None);
    let net = NetThread::spawn(url, hello).expect("Bob's network thread");
    let mut model = Model::default();
    let (mut told_ann, mut told_alone) = (false, None);
    let (mut acts, mut acted, mut turn) = (0, None, None);
    loop {
        let event = net.recv_timeout(Duration::from_millis(20));
        if let Some(NetEvent::Ended(why)) = &event {
            panic!("Bob's session ended: {why}");
        }
        if let Some(NetEvent::Msg(m)) = event
            && model.handle(*m).is_err()
        {
            net.send(ClientMsg::Resync);
        }
        let Some(v) = &model.view else { continue };
        if !told_ann && v.party.iter().any(|p| &*p.name == "Ann") {
            told_ann = true;
            let _ = saw.send(Saw::Ann);
        }
        if let Some(s) = &model.turn_status
            && s.waiting_for == ["Bob"]
            && told_alone != Some(s.turn)
        {
            told_alone = Some(s.turn);
            let _ = saw.send(Saw::WaitedForAlone);
        }
        if turn != Some(v.turn) {
            turn = Some(v.turn);
            let _ = saw.send(Saw::Turn(v.turn));
        }
        if acts > 0 && acted != Some(v.turn) {
            acts -= 1;
            acted = Some(v.turn);
            net.send(ClientMsg::Act(Action::Wait));
        }
        match orders.try_recv() {
            Ok(Do::Act) => acts += 1,
            Ok(Do::Say(text)) => net.send(ClientMsg::Chat { text: text.into() }),
            Err(mpsc::TryRecvError::Empty) => {}
            Err(mpsc::TryRecvError::Disconnected) => return,
        }
    }
}

/// Ann's window, as the X server has it: the test's own X connection, told of every change
/// of the window's properties.
struct AnnWindow {
    conn: RustConnection,
    window: Window,
    net_wm_name: Atom,
}

impl AnnWindow {
    /// The client's window on `display` (the one of WM_CLASS "delve"), once it is there.
    fn find(display: &str) -> AnnWindow {
        let (conn, screen) = x11rb::connect(Some(display)).expect("the test's X connection");
        let root = conn.setup().roots[screen].root;
        let net_wm_name = conn
            .intern_atom(false, b"_NET_WM_NAME")
            .expect("atom")
            .reply()
            .expect("atom")
            .atom;
        let until = Instant::now() + TITLE_PATIENCE;
        while Instant::now() < until {
            let tree = conn.query_tree(root).expect("tree").reply().expect("tree");
            let ours = tree
                .children
                .into_iter()
                .find(|&w| property(&conn, w, AtomEnum::WM_CLASS.into()).starts_with("delve\0"));
            if let Some(window) = ours {
                let changes =
                    ChangeWindowAttributesAux::new().event_mask(EventMask::PROPERTY_CHANGE);
                conn.change_window_attributes(window, &changes)
                    .expect("events")
                    .check()
                    .expect("events");
                return AnnWindow {
                    conn,
                    window,
                    net_wm_name,
                };
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("no window of WM_CLASS delve on {display} in {TITLE_PATIENCE:?}");
    }

    /// Its title, as (`_NET_WM_NAME`, `WM_NAME`).
    fn title(&self) -> (String, String) {
        (
            property(&self.conn, self.window, self.net_wm_name),
            property(&self.conn, self.window, AtomEnum::WM_NAME.into()),
        )
    }

    /// Waits until both of its names are `want`.
    fn becomes(&self, want: &str) {
        let until = Instant::now() + TITLE_PATIENCE;
        while Instant::now() < until {
            if self.title() == (want.to_owned(), want.to_owned()) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!(
            "the window was not titled {want:?} in {TITLE_PATIENCE:?}: {:?}",
            self.title()
        );
    }

    /// How many times its WM_NAME was set since last asked (the X server tells of each in
    /// order, so all those before the title now read are counted).
    fn renames(&self) -> usize {
        let mut n = 0;
        while let Some(event) = self.conn.poll_for_event().expect("events") {
            if let Event::PropertyNotify(e) = event
                && e.atom == u32::from(AtomEnum::WM_NAME)
            {
                n += 1;
            }
        }
        n
    }
}

/// A property of window `w` as text ("" when it has none).
fn property(conn: &RustConnection, w: Window, property: Atom) -> String {
    let reply = conn
        .get_property(false, w, property, AtomEnum::ANY, 0, 256)
        .expect("property")
        .reply()
        .expect("property");
    String::from_utf8_lossy(&reply.value).into_owned()
}

/// Waits until Bob tells `what` (what he told before it passes by).
fn expect(saw: &mpsc::Receiver<Saw>, what: Saw) {
    let until = Instant::now() + TITLE_PATIENCE;
    let mut told = Vec::new();
    while let Ok(s) = saw.recv_timeout(until.saturating_duration_since(Instant::now())) {
        if s == what {
            return;
        }
        told.push(s);
    }
    panic!("Bob did not see {what:?} in {TITLE_PATIENCE:?}, only {told:?}");
}

#[test]
fn the_window_title_says_your_move_while_the_floor_waits_for_you() {
    let Some(x) = Xvfb::for_test(1280, 800, "the window tests") else {
        return;
    };
    let home: PathBuf = std::env::temp_dir().join("delve-title");
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).expect("test files");
    // A long timer: a turn resolves only when both have chosen.
    let server = TestServer::with_timer(&builtin(), &home.join("server"), Duration::from_secs(60));
    let url = server.url();
    let (order, orders) = mpsc::channel();
    let (saw_tx, saw) = mpsc::channel();
    std::thread::spawn({
        let url = url.clone();
        move || play_bob(url, orders, saw_tx)
    });
    let shot = home.join("title-ann.png").display().to_string();
    let script = format!(
        "wait Bob; wait log now you; key Kp5; wait log you first; key Kp5; \
         wait log seen; shot {shot}; wait log turned; shot {shot}; wait log bye; quit"
    );
    let display = x.display.clone();
    let (shot_tx, shots) = mpsc::channel();
    let ann = std::thread::spawn(move || {
        let args = ["--server", &url, "--dungeon", "crypt"];
        play(&x, "800x600", &args, &script, &home, |p| {
            let _ = shot_tx.send(p.to_string());
        });
    });
    // Should an assertion fail, Ann's script is let through to its end (and her client and
    // display are gone before the test ends).
    let mut bob = Steer {
        order,
        ann: Some(ann),
    };
    expect(&saw, Saw::Ann);
    let window = AnnWindow::find(&display);
    window.becomes(PLAIN);
    // Bob chooses: the floor waits for Ann alone.
    bob.order(Do::Act);
    window.becomes(YOUR_MOVE);
    // Ann waits a turn: it resolves.
    bob.order(Do::Say("now you"));
    window.becomes(PLAIN);
    window.renames();
    // Ann chooses first: the floor waits for Bob, not for her. Ann's client sees that (Bob's
    // next line comes after it) and draws a picture; Bob chooses, the turn resolves, and Ann's
    // client sees and draws that too.
    bob.order(Do::Say("you first"));
    expect(&saw, Saw::WaitedForAlone);
    bob.order(Do::Say("seen"));
    assert!(shots.recv_timeout(TITLE_PATIENCE).is_ok(), "Ann's picture");
    bob.order(Do::Act);
    expect(&saw, Saw::Turn(2));
    bob.order(Do::Say("turned"));
    assert!(
        shots.recv_timeout(TITLE_PATIENCE).is_ok(),
        "Ann's second picture"
    );
    // Bob chooses first in the next turn: her move once more, and the only rename since
    // (a title that had said "Your move" while the floor waited for Bob would have been
    // renamed back before this).
    bob.order(Do::Act);
    window.becomes(YOUR_MOVE);
    assert_eq!(
        window.renames(),
        1,
        "the title changed while the floor waited for Bob alone"
    );
    bob.order(Do::Say("bye"));
    let ann = bob.ann.take().expect("Ann");
    ann.join().expect("Ann's client");
}

/// Bob's orders, and Ann's client to wait for.
struct Steer {
    order: mpsc::Sender<Do>,
    ann: Option<std::thread::JoinHandle<()>>,
}

impl Steer {
    fn order(&self, what: Do) {
        self.order.send(what).expect("Bob is there");
    }
}

impl Drop for Steer {
    fn drop(&mut self) {
        if let Some(ann) = self.ann.take() {
            for line in ["now you", "you first", "seen", "turned", "bye"] {
                let _ = self.order.send(Do::Say(line));
            }
            let _ = ann.join();
        }
    }
}
