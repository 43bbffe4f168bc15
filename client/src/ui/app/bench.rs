//! `--bench-frames N`: what applying a server update adds to a frame, against drawing alone
//! (issue 14's target: apply + draw, p99 ≤ 2× drawing alone; written up in docs/BENCHMARKS.md).
//!
//! First it records a real game: the solo server of `SoloServer::for_bench` and this app,
//! walking as a player would (auto-explore, fighting what it meets, taking the stairs), keep
//! every message the server sends. Then, in the same window, it replays that game from its
//! welcome, alternating two kinds of frame so a noisy neighbour hits both alike:
//!
//! - **draw alone**: the app's own `draw` of the state as it stands, no message applied;
//! - **apply + draw**: the next recorded update through `on_message` (the path of a received
//!   message: `Model::handle`, the log, sounds, animations, the walk's bookkeeping), then `draw`.
//!
//! Each frame is timed twice on the client's clock (`frames::clock_ms`, as `--frame-stats`):
//! the client's own CPU work (applying, and the drawing calls that fill macroquad's batches),
//! and that plus handing the batches to GL and waiting until they are rasterized (see
//! [`GlWait`]). The network thread's JSON decoding and the buffer swap are in neither.

use super::*;
use crate::travel::{self, Goal};
use delve_protocol::Action;
use delve_protocol::EntityKind;

/// Game time between two updates in the replay: the pace of a walk, which waits for each step's
/// glide (`anim::STEP_TIME`, 0.11 s) before sending the next. Drawing runs on this clock, not
/// the wall's, so animations overlap as they do in play however fast the frames come.
const STEP_SECS: f64 = 0.125;
/// Frame pairs drawn before the measured ones (textures, glyphs and allocations settle).
const WARM_UP: usize = 10;
/// Wall-clock seconds the recording may take at most.
const RECORD_LIMIT: f64 = 300.0;

/// The recorded game: its welcome, then each update with whatever arrived just before it
/// (turn statuses, errors), applied together as one frame's messages.
struct Recording {
    welcome: ServerMsg,
    steps: Vec<Vec<ServerMsg>>,
}

/// One frame's times, in milliseconds from the frame's start.
#[derive(Clone, Copy)]
struct Sample {
    /// Applying the messages (zero in a draw-alone frame).
    apply: f64,
    /// The client's own CPU work: applying and the drawing calls.
    cpu: f64,
    /// That, plus GL drawing the batches and llvmpipe rasterizing them.
    gl: f64,
    /// Untimed context, after the frame: the wait of [`GlWait`] again with nothing new to draw
    /// (its own cost), and `next_frame` (the swap and the window's events).
    idle_wait: f64,
    swap: f64,
}

/// Runs the bench; returns the process's exit code.
pub(super) async fn run(app: &mut App, frames: u32) -> i32 {
    let frames = frames.max(1) as usize;
    let recording = match record(app, frames + WARM_UP).await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("delve: the bench could not record its game: {e}");
            return 1;
        }
    };
    println!("{}", summary(&recording));
    let (alone, applied) = replay(app, &recording, frames).await;
    println!("{}", table(&alone, &applied));
    0
}

/// Plays the game until it has `wanted` updates (or the character's game ends, or time is up),
/// keeping every message the server sent.
async fn record(app: &mut App, wanted: usize) -> Result<Recording, String> {
    app.recorder = Some(Vec::new());
    app.keep_ends = false;
    let started = get_time();
    // Game time for the recording: a second a frame, so every animation is over by the next
    // frame and the walk goes as fast as the server answers. The replay has its own clock.
    let mut now = 0.0;
    let mut tried = None;
    loop {
        now += 1.0;
        app.pump_network(now);
        if let Connection::Ended(reason) = &app.connection {
            return Err(reason.clone());
        }
        drive(app, &mut tried);
        app.trip_tick(now);
        app.draw(now);
        let got = app
            .recorder
            .as_ref()
            .map_or(0, |r| r.iter().filter(|m| is_step(m)).count());
        let over = app
            .model
            .view
            .as_ref()
            .is_some_and(|v| !v.me.alive || v.me.victory);
        if got >= wanted || over {
            break;
        }
        if get_time() - started > RECORD_LIMIT {
            if got == 0 {
                return Err(format!("no update in {RECORD_LIMIT} s"));
            }
            break;
        }
        next_frame().await;
    }
    let mut msgs = app.recorder.take().unwrap_or_default().into_iter();
    let welcome = msgs
        .by_ref()
        .find(|m| matches!(m, ServerMsg::Welcome { .. }))
        .ok_or("no welcome")?;
    let mut steps = Vec::new();
    let mut pending = Vec::new();
    for msg in msgs {
        let step = is_step(&msg);
        pending.push(msg);
        if step {
            steps.push(std::mem::take(&mut pending));
        }
    }
    if steps.is_empty() {
        return Err("no update arrived".into());
    }
    Ok(Recording { welcome, steps })
}

/// A message that changes the view: what a step of the replay applies.
fn is_step(msg: &ServerMsg) -> bool {
    matches!(msg, ServerMsg::Update { .. } | ServerMsg::Snapshot { .. })
}

/// Chooses the next move once the last one has resolved, as a player would: fight the nearest
/// monster in sight (stepping into it attacks), else explore (`x`), else take the stairs down.
/// `tried` is the turn a walk was last started on: a walk that ended at once (nowhere to go)
/// leaves the turn as it was, and then a turn is waited instead of trying forever.
fn drive(app: &mut App, tried: &mut Option<u64>) {
    if app.trip.is_some() || app.awaiting.is_some() || !matches!(app.connection, Connection::Joined)
    {
        return;
    }
    let Some(view) = &app.model.view else { return };
    if !view.me.alive || view.me.victory {
        return;
    }
    let (me, turn) = (view.me.pos, view.turn);
    let monster = view
        .entities
        .iter()
        .filter(|e| e.kind == EntityKind::Monster)
        .min_by_key(|e| (e.pos.dist2(me), e.id))
        .map(|e| e.pos);
    let attack = monster.and_then(|m| {
        Dir::from_delta(m.x - me.x, m.y - me.y).or_else(|| travel::first_step(view, m))
    });
    let explore = monster.is_none() && travel::explore_target(view).is_some();
    let on_stairs = view.map.get(me) == Tile::StairsDown;
    let intent = match attack {
        Some(dir) => Some(Action::Move { dir }),
        None if on_stairs && !explore => Some(Action::Descend),
        None if *tried == Some(turn) => Some(Action::Wait),
        None => None,
    };
    match intent {
        Some(a) => app.act(ClientMsg::Act(a), turn),
        None => {
            *tried = Some(turn);
            app.start_trip(if explore {
                Goal::Explore
            } else {
                Goal::Stairs { down: true }
            });
        }
    }
}

/// Replays the recording from its welcome, one draw-alone frame and one apply + draw frame in
/// turn, `frames` of each measured (after [`WARM_UP`] pairs); a recording shorter than that is
/// played again from its welcome (untimed).
async fn replay(app: &mut App, rec: &Recording, frames: usize) -> (Vec<Sample>, Vec<Sample>) {
    let wait = GlWait::new();
    // The pointer parked off the map, as in a scripted run: no hover text that depends on where
    // Xvfb left the mouse.
    app.pointed = Some(vec2(-100.0, -100.0));
    let (mut alone, mut applied) = (Vec::new(), Vec::new());
    let mut next = rec.steps.len();
    let mut clock = 0.0;
    for pair in 0..frames + WARM_UP {
        if next == rec.steps.len() {
            restart(app, &rec.welcome, clock);
            next = 0;
        }
        // Drawn halfway to the next update: the last one's glides and numbers under way.
        let a = frame(app, &wait, clock + STEP_SECS / 2.0, Vec::new()).await;
        clock += STEP_SECS;
        // Copied before the frame's clock starts: the client receives its messages owned.
        let msgs = rec.steps[next].clone();
        next += 1;
        let b = frame(app, &wait, clock, msgs).await;
        if pair >= WARM_UP {
            alone.push(a);
            applied.push(b);
        }
    }
    (alone, applied)
}

/// The app as a new connection finds it: a fresh model, given the recorded welcome.
fn restart(app: &mut App, welcome: &ServerMsg, now: f64) {
    app.model = Model::new();
    app.anims = super::super::anim::Anims::default();
    app.trip = None;
    app.awaiting = None;
    app.ended = None;
    app.log_scroll = 0;
    app.on_message(welcome.clone(), now);
}

/// One timed frame: apply `msgs` (if any) as received messages, draw, wait for GL.
async fn frame(app: &mut App, wait: &GlWait, now: f64, msgs: Vec<ServerMsg>) -> Sample {
    let start = super::super::frames::clock_ms();
    for msg in msgs {
        app.on_message(msg, now);
    }
    let applied = super::super::frames::clock_ms();
    app.draw(now);
    let drawn = super::super::frames::clock_ms();
    wait.finish();
    let done = super::super::frames::clock_ms();
    wait.finish();
    let idle = super::super::frames::clock_ms();
    next_frame().await;
    Sample {
        apply: applied - start,
        cpu: drawn - start,
        gl: done - start,
        idle_wait: idle - done,
        swap: super::super::frames::clock_ms() - idle,
    }
}

/// Waits until GL has drawn everything asked of it so far, without unsafe code (the workspace
/// forbids it, so no `glFinish`): switching the camera hands macroquad's batches to GL, a dot
/// drawn into a 1×1 render target goes after them, and reading that pixel back makes Mesa flush
/// and wait for it. llvmpipe rasterizes its scenes one after another, so by then the frame's
/// own scene is rasterized too.
struct GlWait {
    camera: Camera2D,
    target: RenderTarget,
}

impl GlWait {
    fn new() -> GlWait {
        let target = render_target(1, 1);
        let mut camera = Camera2D::from_display_rect(Rect::new(0.0, 0.0, 1.0, 1.0));
        camera.render_target = Some(target.clone());
        GlWait { camera, target }
    }

    fn finish(&self) {
        set_camera(&self.camera);
        draw_rectangle(0.0, 0.0, 1.0, 1.0, WHITE);
        set_default_camera();
        let _ = self.target.texture.get_texture_data();
    }
}

/// What the recorded game holds, so a reader can see it was a game and not an empty room.
fn summary(rec: &Recording) -> String {
    let (mut sighted, mut events, mut blows, mut deaths, mut lines, mut snapshots) =
        (0, 0, 0, 0, 0, 0);
    let mut view = match &rec.welcome {
        ServerMsg::Welcome { view, .. } => Some(view.clone()),
        _ => None,
    };
    let first_turn = view.as_ref().map_or(0, |v| v.me.turns);
    let mut model = Model::new();
    let _ = model.handle(rec.welcome.clone());
    for step in &rec.steps {
        for msg in step {
            match msg {
                ServerMsg::Update { events: e, .. } => {
                    events += e.len();
                    for ev in e {
                        match ev {
                            delve_protocol::Event::Attacked { .. } => blows += 1,
                            delve_protocol::Event::Died { .. } => deaths += 1,
                            delve_protocol::Event::Message { .. } => lines += 1,
                            _ => {}
                        }
                    }
                }
                ServerMsg::Snapshot { .. } => snapshots += 1,
                _ => {}
            }
            let _ = model.handle(msg.clone());
        }
        if let Some(v) = &model.view
            && v.entities.iter().any(|e| e.kind == EntityKind::Monster)
        {
            sighted += 1;
        }
        view = model.view.clone();
    }
    let (last_turn, depth, alive) = view
        .as_ref()
        .map_or((0, 0, false), |v| (v.me.turns, v.depth, v.me.alive));
    format!(
        "Recorded game: {} updates ({snapshots} of them snapshots) over the character's turns \
         {first_turn}–{last_turn}, ending on floor {depth} {}; {sighted} updates \
         with a monster in sight; {events} events ({blows} blows, {deaths} deaths, {lines} log \
         lines).",
        rec.steps.len(),
        if alive { "alive" } else { "dead at the end" },
    )
}

/// The markdown table of both kinds of frame, and the target's ratio.
fn table(alone: &[Sample], applied: &[Sample]) -> String {
    let (w, h) = (screen_width(), screen_height());
    let n = alone.len();
    let pick = |s: &[Sample], f: fn(&Sample) -> f64| -> Vec<f64> {
        let mut v: Vec<f64> = s.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        v
    };
    let row = |v: &[f64]| {
        format!(
            "{:.3} ms | {:.3} ms | {:.3} ms",
            pct(v, 0.50),
            pct(v, 0.99),
            pct(v, 1.0)
        )
    };
    let both = |f: fn(&Sample) -> f64| {
        let mut v = pick(alone, f);
        v.extend(pick(applied, f));
        v.sort_by(f64::total_cmp);
        v
    };
    let cpu = |s: &Sample| s.cpu;
    let gl = |s: &Sample| s.gl;
    let apply = |s: &Sample| s.apply;
    let (a_cpu, a_gl) = (pick(alone, cpu), pick(alone, gl));
    let (b_cpu, b_gl) = (pick(applied, cpu), pick(applied, gl));
    let ratio = |b: &[f64], a: &[f64]| pct(b, 0.99) / pct(a, 0.99);
    let verdict = |r: f64| if r <= 2.0 { "met" } else { "missed" };
    let (r_cpu, r_gl) = (ratio(&b_cpu, &a_cpu), ratio(&b_gl, &a_gl));
    format!(
        "\n| {w}×{h}, {n} frames of each kind | CPU p50 | CPU p99 | CPU max | CPU + GL p50 | CPU + GL p99 | CPU + GL max |\n\
         |---|---|---|---|---|---|---|\n\
         | draw alone | {} | {} |\n\
         | apply + draw | {} | {} |\n\
         | of which apply | {} | — | — | — |\n\
         | **p99 ratio** apply + draw ÷ draw alone (target ≤ 2×) | | **{r_cpu:.2}×** {} | | | **{r_gl:.2}×** {} | |\n\n\
         Not in the table, all frames: the GL wait itself with nothing new to draw p50 {:.3} ms, \
         `next_frame` (swap, window events) p50 {:.3} ms, p99 {:.3} ms.\n",
        row(&a_cpu),
        row(&a_gl),
        row(&b_cpu),
        row(&b_gl),
        row(&pick(applied, apply)),
        verdict(r_cpu),
        verdict(r_gl),
        pct(&both(|s| s.idle_wait), 0.5),
        pct(&both(|s| s.swap), 0.5),
        pct(&both(|s| s.swap), 0.99),
    )
}

/// The `p` quantile of sorted `v` (nearest rank: p99 of 1,000 is the 990th).
fn pct(v: &[f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let rank = (p * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}
