//! Friends saving each other, through the real client window: Ann plays the real client under
//! Xvfb by a script; Bob is a second player over a real WebSocket (the client's own network
//! thread and model), steered by this test. Ann gathers a Pipe Bomb and Health Packs, walks
//! back to Bob by the To friend button (the `"` key's command), gives him the Pipe Bomb from
//! the pack (`g`); Bob walks away from her and throws it next to himself, and falls; Ann walks
//! to his remains by a click on his line of the party list and uses a Health Pack on them from
//! the pack (`o`): Bob lives again, weak, and a second Health Pack used on him heals him.
//! Ann's script waits for each line her screen's log must show ("You give the Pipe Bomb to
//! Bob.", "Bob has fallen", "You bring Bob back!", "You use the Health Pack on Bob: they
//! heal"); Bob's side checks what the server did and told him.
//!
//! Without Xvfb the test says so and passes, except under CI (`CI` set), where it fails.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use delve_client::model::Model;
use delve_client::net::{NetEvent, NetThread};
use delve_client::travel::{first_step, steps_to};
use delve_protocol::{Action, ClientMsg, Pos, View};

mod common;
mod window;
use common::Xvfb;
use window::{CLIENT_PATIENCE, TestServer, builtin, play};

/// The built-in content with floor cells strewn only with Health Packs and Pipe Bombs, no
/// monsters, and Pipe Bombs that kill (a fall to revive).
fn bombs_and_packs() -> String {
    let bomb = "thrown = { damage = [5, 10], range = 5, blast = 1 }";
    let text = builtin()
        .replace("weight = 3\nloose = true", "weight = 3")
        .replace(
            bomb,
            "thrown = { damage = [40, 40], range = 5, blast = 1 }\nloose = true",
        )
        .replace("loose = [0, 2]", "loose = [30, 30]")
        .replace("\ncount = 10\n", "\ncount = 0\n")
        .replace("\ncount_per_floor = 2\n", "\ncount_per_floor = 0\n");
    assert!(text.contains("[40, 40], range = 5, blast = 1 }\nloose = true"));
    assert!(text.contains("loose = [30, 30]") && text.contains("\ncount = 0\n"));
    assert_eq!(
        text.matches("\nloose = true").count(),
        2,
        "only packs and bombs"
    );
    text
}

/// What Bob went through.
#[derive(Debug, Default)]
struct Bob {
    given: bool,
    thrown: bool,
    fell: bool,
    revived: bool,
    healed: bool,
}

/// Where Ann is, as Bob knows it (in sight, or told by the party).
fn ann(v: &View) -> Option<Pos> {
    let a = v.party.iter().find(|p| &*p.name == "Ann")?;
    delve_client::friends::pos_of(v, a)
}

/// Bob's choice this turn: wait until he holds a Pipe Bomb; then walk until Ann is 3 or more
/// steps away and throw it at a free cell next to himself that is 2 or more from her.
fn choose(v: &View, bob: &mut Bob) -> Action {
    let Some(bomb) = v.inventory.iter().find(|i| &*i.key == "pipe_bomb") else {
        return Action::Wait;
    };
    bob.given = true;
    let (me, Some(her)) = (v.me.pos, ann(v)) else {
        return Action::Wait;
    };
    let free = |c: Pos| {
        v.map.get(c).is_walkable() && v.is_visible(c) && !v.entities.iter().any(|e| e.pos == c)
    };
    if me.chebyshev(her) >= 3
        && let Some(at) = delve_protocol::Dir::ALL
            .into_iter()
            .map(|d| me.step(d))
            .find(|&c| free(c) && c.chebyshev(her) >= 2)
    {
        bob.thrown = true;
        return Action::Throw { item: bomb.id, at };
    }
    let far = (0..v.map.cells().len())
        .map(|i| v.map.pos_of(i))
        .filter(|&p| v.map.get(p).is_walkable() && p.chebyshev(her) >= 4)
        .filter_map(|p| steps_to(v, p).map(|s| (s, p)))
        .min();
    match far.and_then(|(_, p)| first_step(v, p)) {
        Some(dir) => Action::Move { dir },
        None => Action::Wait,
    }
}

/// Bob's side: joins (telling `id` his character's id), acts once a turn (so nobody waits on
/// him), and reports once he has fallen, come back and been healed, or when `until` passes.
fn play_bob(url: String, until: Instant, id: mpsc::Sender<u32>) -> Bob {
    let hello = delve_client::net::hello("Bob", "crypt", None);
    let net = NetThread::spawn(url, hello).expect("Bob's network thread");
    let mut model = Model::default();
    let mut bob = Bob::default();
    let mut acted = None;
    while Instant::now() < until {
        match net.recv_timeout(Duration::from_millis(50)) {
            Some(NetEvent::Msg(m)) => match model.handle(*m) {
                // A choice refused leaves the turn to be chosen again.
                Ok(h) if h.error.is_some() => acted = None,
                Ok(_) => {}
                Err(_) => net.send(ClientMsg::Resync),
            },
            Some(NetEvent::Ended(why)) => panic!("Bob's session ended: {why}"),
            _ => {}
        }
        let Some(v) = &model.view else { continue };
        if acted.is_none() {
            let _ = id.send(v.me.id);
        }
        if !v.me.alive {
            bob.fell |= bob.thrown;
            continue;
        }
        bob.revived |= bob.fell;
        let told = |t: &str| model.log.iter().any(|l| l.text.starts_with(t));
        if bob.revived && told("Ann uses a Health Pack on you: you heal") {
            bob.healed = true;
            return bob;
        }
        if acted != Some(v.turn) {
            acted = Some(v.turn);
            net.send(ClientMsg::Act(choose(v, &mut bob)));
        }
    }
    bob
}

#[test]
fn a_friend_is_given_a_pipe_bomb_falls_by_it_is_brought_back_and_healed() {
    let Some(x) = Xvfb::for_test(1280, 800, "the window tests") else {
        return;
    };
    let home: PathBuf = std::env::temp_dir().join("delve-co-op");
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).expect("test files");
    // A short timer: Ann, waiting for Bob's fall, is soon away and does not hold his turns.
    let server = TestServer::with_timer(
        &bombs_and_packs(),
        &home.join("server"),
        Duration::from_millis(300),
    );
    let url = server.url();
    let until = Instant::now() + CLIENT_PATIENCE;
    let (id_tx, id_rx) = mpsc::channel();
    let bob = std::thread::spawn({
        let url = url.clone();
        move || play_bob(url, until, id_tx)
    });
    let bob_id = id_rx
        .recv_timeout(Duration::from_secs(30))
        .expect("Bob joins");
    let gather = "key x; idle; ".repeat(14);
    let shot = home.join("co-op-ann.png").display().to_string();
    let script = format!(
        "idle; wait Bob; {gather}tap to_friend; idle; \
         key i; select pipe_bomb; key g; wait log You give the Pipe Bomb to Bob; \
         wait log Bob has fallen; tap party {bob_id}; idle; \
         key i; select health_pack; key o; wait log You bring Bob back; \
         key i; select health_pack; key o; wait log You use the Health Pack on Bob: they heal; \
         frames 2; shot {shot}; quit"
    );
    let (tx, shots) = mpsc::channel();
    play(
        &x,
        "1280x800",
        &["--server", &url, "--dungeon", "crypt"],
        &script,
        &home,
        |p| tx.send(p.to_string()).expect("heard"),
    );
    let bob = bob.join().expect("Bob's side");
    assert!(
        bob.given && bob.thrown && bob.fell && bob.revived && bob.healed,
        "Bob was given the bomb, threw it, fell, came back and was healed: {bob:?}"
    );
    assert_eq!(shots.try_iter().count(), 1, "Ann's picture of it");
}
