//! Plays a `--script` (see [`crate::script`]) in the real window: presses its keys, points and
//! clicks where it says, waits for the game to settle, and saves screenshots. Every wait is for
//! a condition, with a time limit that fails the run rather than shooting the wrong picture.

use std::collections::VecDeque;

use super::*;
use crate::script::Action;

/// Seconds any one step may wait for its condition with no turn passing.
const STEP_PATIENCE: f64 = 30.0;

/// How the server's lines that end a rest begin (server/src/view/tell.rs): a rest ended by
/// something seen, by an attack, or by being whole again.
const REST_ENDS: [&str; 2] = ["You stop resting", "You are fully rested"];

#[derive(Debug)]
pub(super) struct Player {
    steps: VecDeque<Action>,
    /// When the current step began waiting, and frames it has waited.
    since: Option<(f64, u32)>,
    /// The player a `watch` step follows.
    watch: Option<Watch>,
    /// The floor's turn when last looked at: a step waits at most [`STEP_PATIENCE`] without
    /// a turn passing.
    turn_seen: Option<u64>,
    /// The turn the current step began on (`wait log` reads the lines from it on).
    step_turn: Option<u64>,
    /// Where a `marked` step last saw the mark it waited for (the next waits for a new one).
    marked: Option<Pos>,
}

/// A player followed by `watch`: where they were first seen, and last.
#[derive(Debug)]
struct Watch {
    name: String,
    first: Option<Pos>,
    last: Option<Pos>,
}

impl Player {
    pub(super) fn new(steps: Vec<Action>) -> Player {
        Player {
            steps: steps.into(),
            since: None,
            watch: None,
            turn_seen: None,
            step_turn: None,
            marked: None,
        }
    }

    /// Reports where the watched player is in this view, if that changed. Called for every
    /// update from the server, so no step of a walk is missed between two frames.
    pub(super) fn on_view(&mut self, view: &delve_protocol::View) {
        let Some(w) = &mut self.watch else { return };
        let seen = crate::script::player_seen(view, &w.name);
        if seen == w.last {
            return;
        }
        match seen {
            Some(p) => println!("seen {} {},{} turn {}", w.name, p.x, p.y, view.turn),
            None => println!("lost {} turn {}", w.name, view.turn),
        }
        w.first = w.first.or(seen);
        w.last = seen;
    }
}

/// Whether a monster is in sight in `view`.
fn view_has_monster(view: Option<&delve_protocol::View>) -> bool {
    view.is_some_and(|v| crate::script::Target::Monster.cell(v).is_some())
}

impl App {
    /// The next move of `auto` (with `left` moves to go), as script steps made of clicks, as
    /// a plain player by the mouse would choose it; `None` once done (no moves left, or the
    /// game over).
    fn autopilot(&self, left: u32) -> Option<Vec<Action>> {
        use crate::keymap::{Key, Named};
        use crate::script::Target;
        let view = self.model.view.as_ref()?;
        let me = &view.me;
        if left == 0 || !me.alive || me.victory {
            return None;
        }
        let tap = |word: &str| vec![Action::Tap(word.into()), Action::Idle];
        Some(match &self.screen {
            Screen::LevelUp { .. } => vec![Action::Tap("row 0".into())],
            Screen::Game => {
                let last = self.model.log.back().map_or("", |l| l.text.as_str());
                let stuck =
                    last.starts_with("There is no known way") || last.ends_with("in the way.");
                let low = me.hp * 10 < me.max_hp * 4;
                if low && self.situation().heals > 0 {
                    tap("quick_heal")
                } else if stuck {
                    tap("wait")
                } else if let Some(cell) = Target::Monster.cell(view) {
                    // A monster off the screen (a phone shows little of the map) is waited for.
                    let on_screen = self.camera.is_some_and(|c| {
                        let p = c.to_screen(vec2(cell.x as f32, cell.y as f32));
                        c.area.contains(p) && c.area.contains(p + vec2(c.tile, c.tile))
                    });
                    if on_screen {
                        vec![Action::Click(Target::Monster), Action::Idle]
                    } else {
                        tap("wait")
                    }
                } else if me.hp < me.max_hp && !last.starts_with("You cannot rest") {
                    tap("rest")
                } else if last.starts_with("Explored all") {
                    tap("descend")
                } else {
                    tap("explore")
                }
            }
            _ => vec![Action::Key(Key::Named(Named::Escape))],
        })
    }

    /// Nothing under way: joined, a view, no walk, no intent in flight, no animation.
    fn settled(&self, now: f64) -> bool {
        matches!(self.connection, Connection::Joined)
            && self.model.view.is_some()
            && self.trip.is_none()
            && self.awaiting.is_none()
            && self.anims.quiet(now)
            && !self.input.chord_pending()
    }

    /// Runs the script's steps after a frame is drawn (so a shot saves what was drawn), until
    /// one has to wait. Keys it presses are seen by the next frame.
    pub(super) fn script_tick(&mut self, now: f64) {
        let Some(mut player) = self.script.take() else {
            return;
        };
        self.input.injected.clear();
        self.click = false;
        while let Some(step) = player.steps.front().cloned() {
            // A walk under way is progress: each turn it takes gives the step its patience
            // again (a long explore on a loaded machine is slow, not stuck).
            let turn = self.model.view.as_ref().map(|v| v.turn);
            if turn != player.turn_seen {
                player.turn_seen = turn;
                if let Some(s) = &mut player.since {
                    s.0 = now;
                }
            }
            let (began, frames) = *player.since.get_or_insert((now, 0));
            if frames == 0 && player.step_turn.is_none() {
                player.step_turn = turn;
            }
            if now - began > STEP_PATIENCE {
                eprintln!(
                    "delve: script step {step:?} waited {STEP_PATIENCE} s in vain (screen {:?}, \
                     walking {}, waiting for turn {:?}, animating {}, turn {:?})",
                    self.screen,
                    self.trip.is_some(),
                    self.awaiting,
                    !self.anims.quiet(now),
                    self.model.view.as_ref().map(|v| v.turn),
                );
                std::process::exit(1);
            }
            // A fight: a click on the nearest monster, if there is one, once the game is ready.
            if step == Action::Fight {
                if !self.settled(now) {
                    break;
                }
                player.steps.pop_front();
                player.since = None;
                player.step_turn = None;
                let seen = view_has_monster(self.model.view.as_ref());
                if seen {
                    player.steps.push_front(Action::Idle);
                    player
                        .steps
                        .push_front(Action::Click(crate::script::Target::Monster));
                }
                continue;
            }
            // A move of the autopilot: once the game is ready, the steps it chooses go first.
            if let Action::Auto(n) = step {
                if self.end_guard.is_some()
                    || (matches!(self.screen, Screen::Game) && !self.settled(now))
                {
                    break;
                }
                player.steps.pop_front();
                player.since = None;
                player.step_turn = None;
                if let Some(mut next) = self.autopilot(n) {
                    next.push(Action::Auto(n - 1));
                    for s in next.into_iter().rev() {
                        player.steps.push_front(s);
                    }
                }
                continue;
            }
            let view = self.model.view.as_ref();
            let done = match &step {
                // A key or click waits for the game to be ready for it, then one frame for the
                // press to be read.
                // A control waits until it is shown (and the game is ready for the click).
                Action::Tap(word) | Action::Point(word) if frames == 0 => {
                    let shown = crate::ui::widgets::find(word);
                    let busy = (view.is_some()
                        && matches!(self.screen, Screen::Game)
                        && !self.settled(now))
                        || self.end_guard.is_some();
                    if let (Some(at), false) = (shown, busy) {
                        println!("tap {word}");
                        self.pointed = Some(at);
                        self.click = matches!(step, Action::Tap(_));
                        player.since = Some((began, 1));
                    }
                    false
                }
                Action::Tap(_) | Action::Point(_) => true,
                Action::Rush(k) if frames == 0 => {
                    self.input.injected.push(*k);
                    player.since = Some((began, 1));
                    false
                }
                Action::Rush(_) => true,
                Action::Key(_) | Action::Hover(_) | Action::Click(_) | Action::Mark(_)
                    if frames == 0 =>
                {
                    let ready = view.is_some() || matches!(step, Action::Key(_));
                    // With the connection down nothing will settle: keys go in as they come.
                    let offline = view.is_some() && !matches!(self.connection, Connection::Joined);
                    // After our game ends, keys wait out the moment in which they are ignored.
                    if ready
                        && self.end_guard.is_none()
                        && (self.settled(now) || offline || !matches!(self.screen, Screen::Game))
                    {
                        match &step {
                            Action::Key(k) => self.input.injected.push(*k),
                            Action::Hover(t) | Action::Click(t) | Action::Mark(t) => {
                                let cell = view.and_then(|v| t.cell(v));
                                match (cell, self.camera) {
                                    (Some(c), Some(cam)) => {
                                        if let (Action::Click(_) | Action::Mark(_), Some(v)) =
                                            (&step, view)
                                        {
                                            let me = v.me.pos;
                                            let what = match step {
                                                Action::Mark(_) => "mark",
                                                _ => "click",
                                            };
                                            println!(
                                                "{what} {},{} from {},{}",
                                                c.x, c.y, me.x, me.y
                                            );
                                        }
                                        let at = cam.to_screen(vec2(c.x as f32, c.y as f32));
                                        self.pointed = Some(at + vec2(cam.tile, cam.tile) * 0.5);
                                        self.click = matches!(step, Action::Click(_));
                                        self.right_click = matches!(step, Action::Mark(_));
                                    }
                                    _ => {
                                        eprintln!("delve: script: nothing to point at for {t:?}");
                                        std::process::exit(1);
                                    }
                                }
                            }
                            _ => {}
                        }
                        player.since = Some((began, 1));
                    }
                    false
                }
                Action::Key(_) | Action::Hover(_) | Action::Click(_) | Action::Mark(_) => true,
                Action::Marked(name) => {
                    let mark = (view.and_then(|v| v.marks.iter().find(|m| &*m.name == name)))
                        .filter(|m| player.marked != Some(m.pos));
                    if let Some(m) = mark {
                        println!("marked {name} {},{}", m.pos.x, m.pos.y);
                        player.marked = Some(m.pos);
                    }
                    mark.is_some()
                }
                Action::Select(key) => {
                    let k = view.and_then(|v| v.inventory.iter().position(|i| &*i.key == key));
                    match (&mut self.screen, k) {
                        (Screen::Inventory(st), Some(k)) => {
                            (st.selected, st.note, st.pick) = (k, None, None);
                            println!("select {key}");
                            true
                        }
                        _ => false,
                    }
                }
                Action::Idle => frames >= 1 && self.settled(now),
                Action::Frames(n) => frames >= *n,
                Action::Turn(t) => view.is_some_and(|v| v.turn >= *t),
                Action::Ended => view.is_some_and(|v| !v.me.alive || v.me.victory),
                // A rest cut short in its first turn (a mouse comes into view) is never seen
                // under way: the line that ends it says the rest was taken all the same.
                Action::Resting => {
                    let from = player.step_turn.unwrap_or(0);
                    view.is_some_and(|v| v.me.resting)
                        || self.model.log.iter().any(|l| {
                            l.turn >= from && REST_ENDS.iter().any(|end| l.text.starts_with(end))
                        })
                }
                Action::Scores => matches!(&self.screen, Screen::Scores(b) if b.settled()),
                Action::Floor(depth) => view.is_some_and(|v| v.me.depth == *depth),
                Action::Log(text) => {
                    let from = player.step_turn.unwrap_or(0);
                    self.model
                        .log
                        .iter()
                        .any(|l| l.turn >= from && l.text.contains(text.as_str()))
                }
                Action::Sound(cue) => self.audio.played().contains(cue) && self.audio.drained(),
                Action::Watch(name) => {
                    println!("watching {name}");
                    player.watch = Some(Watch {
                        name: name.clone(),
                        first: None,
                        last: None,
                    });
                    if let Some(v) = view {
                        player.on_view(v);
                    }
                    true
                }
                Action::Sees(name) => {
                    view.is_some_and(|v| crate::script::player_seen(v, name).is_some())
                }
                Action::Arrives(name, dx, dy) => player.watch.as_ref().is_some_and(|w| {
                    &w.name == name
                        && w.first
                            .is_some_and(|f| w.last == Some(Pos::new(f.x + dx, f.y + dy)))
                }),
                Action::Connection(up) => {
                    matches!(self.connection, Connection::Joined) == *up
                        && !matches!(self.connection, Connection::Connecting)
                }
                // Two more frames first: glyphs drawn for the first time reach macroquad's font
                // atlas a frame late, and would show as blocks.
                Action::Shot(_) if frames < 2 => false,
                Action::Shot(path) => {
                    if let Err(e) = screenshot::save(std::path::Path::new(path)) {
                        eprintln!("delve: {e:#}");
                        std::process::exit(1);
                    }
                    println!("saved {path}");
                    true
                }
                Action::Quit => {
                    self.keep_recent_now(now);
                    std::process::exit(0)
                }
                Action::Auto(_) | Action::Fight => true,
            };
            if done {
                player.steps.pop_front();
                player.since = None;
                player.step_turn = None;
                continue;
            }
            if let Some(s) = &mut player.since
                && !matches!(
                    step,
                    Action::Key(_)
                        | Action::Rush(_)
                        | Action::Hover(_)
                        | Action::Click(_)
                        | Action::Tap(_)
                        | Action::Point(_)
                )
            {
                s.1 += 1;
            }
            break;
        }
        if player.steps.is_empty() {
            std::process::exit(0);
        }
        self.script = Some(player);
    }
}
