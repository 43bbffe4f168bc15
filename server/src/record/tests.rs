//! Replays and dumps against games played through the real engine by the balance bot, with the
//! view recorded at every turn as it was live.

use std::sync::Arc;

use delve_protocol::View;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::replay::{GameFacts, ReplayError, Replayer};
use crate::game::{Action, Content, Dungeon, EntityId, Input};
use crate::sim::bot::{Bot, Move};
use crate::store::ReplaySlice;
use crate::view::{self, view_of};

/// A game as it was played: every input journaled, and the character's view after each of its
/// turns (index = turns lived), as the server would have built it.
struct Played {
    d: Dungeon,
    id: EntityId,
    seed: u64,
    inputs: Vec<Input>,
    /// The journal entry (1-based) that made the character.
    start_seq: u64,
    views: Vec<View>,
    /// The view just before the last input, when that input killed the character.
    before_death: Option<View>,
}

fn view_with_party(d: &Dungeon, id: EntityId) -> View {
    let mut v = view_of(d, id).expect("a view");
    v.party = view::party_for(&view::party(d), &v);
    v
}

/// Plays the bot on `seed` until it dies or `max_turns` pass. With `bob_at`, a second character
/// joins after that many turns and only waits (its own game is then the one recorded).
fn play(seed: u64, max_turns: u64, bob_at: Option<u64>) -> Played {
    play_with(Arc::new(Content::builtin()), seed, max_turns, bob_at)
}

/// [`play`] with other content.
fn play_with(content: Arc<Content>, seed: u64, max_turns: u64, bob_at: Option<u64>) -> Played {
    let mut d = Dungeon::new(seed, content);
    let mut inputs = Vec::new();
    let step = |d: &mut Dungeon, input: Input, inputs: &mut Vec<Input>| {
        let out = d.step(&input);
        if out.is_ok() && input.journaled() {
            inputs.push(input);
        }
        out
    };
    let ann = step(&mut d, Input::Join { name: "Ann".into() }, &mut inputs)
        .unwrap()
        .character
        .unwrap();
    let mut bob = None;
    let mut start_seq = 1;
    let mut bot = Bot::default();
    let mut views = vec![view_with_party(&d, ann)];
    let mut before_death = None;
    let mut turns = 0;
    while turns < max_turns {
        if bob.is_none() && bob_at == Some(turns) {
            let id = step(&mut d, Input::Join { name: "Bob".into() }, &mut inputs)
                .unwrap()
                .character
                .unwrap();
            bob = Some(id);
            start_seq = inputs.len() as u64;
            views = vec![view_with_party(&d, id)];
        }
        let watched = bob.unwrap_or(ann);
        let Some(p) = d.player(ann).filter(|p| p.alive()) else {
            break;
        };
        let depth = p.depth();
        let resting = d.floor(depth).and_then(|f| f.pending(ann)) == Some(Action::Rest);
        if !resting {
            match bot.decide(&d, ann) {
                Move::Spend(stat) => {
                    let _ = step(&mut d, Input::SpendPoint { id: ann, stat }, &mut inputs);
                    continue;
                }
                Move::Act(action) => {
                    if d.step(&Input::Choose { id: ann, action }).is_err() {
                        let _ = d.step(&Input::Choose {
                            id: ann,
                            action: Action::Wait,
                        });
                    }
                }
            }
        }
        if let Some(b) = bob
            && d.player(b).is_some_and(|p| p.alive())
        {
            let _ = d.step(&Input::Choose {
                id: b,
                action: Action::Wait,
            });
        }
        let before = view_with_party(&d, watched);
        let lived = d.player(watched).map_or(0, |p| p.turns());
        let actions = d.choices(depth);
        let _ = step(&mut d, Input::Turn { depth, actions }, &mut inputs);
        turns += 1;
        let p = d.player(watched).unwrap();
        if p.turns() > lived {
            views.push(view_with_party(&d, watched));
        }
        if !p.alive() {
            before_death = Some(before);
            break;
        }
        // Bob's floor resolves too, when he is on another.
        if let Some(b) = bob
            && d.player(b).is_some_and(|p| p.alive() && p.depth() != depth)
        {
            let bd = d.player(b).unwrap().depth();
            let lived = d.player(b).unwrap().turns();
            let actions = d.choices(bd);
            let _ = step(&mut d, Input::Turn { depth: bd, actions }, &mut inputs);
            if d.player(b).unwrap().turns() > lived {
                views.push(view_with_party(&d, b));
            }
        }
    }
    Played {
        id: bob.unwrap_or(ann),
        d,
        seed,
        inputs,
        start_seq,
        views,
        before_death,
    }
}

fn slice_of(p: &Played) -> ReplaySlice {
    ReplaySlice {
        seed: p.seed,
        base_seq: 0,
        base: None,
        entries: p
            .inputs
            .iter()
            .map(|i| postcard::to_stdvec(i).unwrap())
            .collect(),
    }
}

fn facts_of(p: &Played) -> GameFacts {
    GameFacts {
        player: p.id,
        start_seq: p.start_seq,
        end_hash: p.d.state_hash(),
        engine: "the test's".into(),
        content_hash: String::new(),
    }
}

#[test]
fn a_replay_shows_every_turn_exactly_as_the_character_saw_it() {
    let p = play(26, 600, None);
    let (mut r, _, _) = Replayer::open(&slice_of(&p), Arc::new(Content::builtin()), &facts_of(&p))
        .expect("the replay opens");
    let last = p.views.len() as u64 - 1;
    assert_eq!(r.last_turn(), last);
    assert!(last > 2 * super::replay::KEYFRAME_TURNS, "{last} turns");
    // Forward turn by turn: each an update's worth (a step), with what happened in it.
    let mut told = 0;
    for t in 0..=last {
        let shown = r.show(t).unwrap();
        assert_eq!(shown.view, p.views[t as usize], "turn {t}");
        assert_eq!(shown.step, t > 0, "turn {t}");
        told += shown.events.len();
    }
    assert!(told > 100, "the turns' events are told ({told})");
    // Jumps anywhere, back and forth, and steps back.
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let turns: Vec<u64> = (0..=last).collect();
    for _ in 0..40 {
        let t = *turns.choose(&mut rng).unwrap();
        let shown = r.show(t).unwrap();
        assert_eq!(shown.view, p.views[t as usize], "jump to {t}");
        let back = t.saturating_sub(rng.random_range(1..3));
        assert_eq!(r.show(back).unwrap().view, p.views[back as usize]);
    }
    // Past the end is the end.
    assert_eq!(r.show(last + 50).unwrap().turn, last);
}

#[test]
fn in_a_shared_dungeon_one_characters_game_is_replayed_from_its_own_start() {
    // Ann plays; Bob joins after 40 turns and waits. Bob's game is replayed: his turn 0 is his
    // arrival, and every turn is his own view (Ann shows only where Bob sees her).
    let p = play(26, 300, Some(40));
    assert!(p.start_seq > 40);
    let (mut r, _, _) = Replayer::open(&slice_of(&p), Arc::new(Content::builtin()), &facts_of(&p))
        .expect("the replay opens");
    assert_eq!(r.last_turn(), p.views.len() as u64 - 1);
    for t in (0..=r.last_turn()).rev().step_by(7) {
        assert_eq!(r.show(t).unwrap().view, p.views[t as usize], "turn {t}");
        assert_eq!(r.show(t).unwrap().view.me.name.as_ref(), "Bob");
    }
}

#[test]
fn the_dump_tells_the_pack_as_before_the_death_and_every_kill() {
    // The first of these bot games to die holding something (the engine's balance decides
    // which; say so if none does).
    let seeds = [26, 9, 22, 29, 45, 42, 46, 55];
    let p = seeds
        .iter()
        .map(|s| play(*s, 2500, None))
        .find(|p| {
            p.before_death
                .as_ref()
                .is_some_and(|v| !v.inventory.is_empty())
        })
        .expect("none of the seeds' bot games died holding something: pick others");
    let before = p.before_death.clone().unwrap();
    let (dump, _) = super::dump_of(
        &slice_of(&p),
        Arc::new(Content::builtin()),
        &facts_of(&p),
        "crypt",
    )
    .unwrap();
    let me = p.d.player(p.id).unwrap();
    assert!(!me.alive());
    // What the death dropped is in the dump: worn and carried, as before the blow.
    let after = view_of(&p.d, p.id).unwrap();
    assert!(
        after.inventory.len() < before.inventory.len(),
        "the death dropped the pack"
    );
    let (worn, pack) = super::dump::kit(&before.inventory);
    assert_eq!((dump.equipment.clone(), dump.pack.clone()), (worn, pack));
    assert_eq!(dump.stats.attack_max, before.me.attack_max);
    assert_eq!(dump.stats.hp, before.me.hp, "the HP the last blow met");
    assert!(dump.stats.hp > 0);
    // Every kill of its life, by kind, adds up to its count.
    let by_kind: u32 = dump.kills_by_kind.iter().map(|k| k.count).sum();
    assert_eq!(by_kind, me.kills());
    assert!(by_kind > 0);
    assert_eq!(
        (dump.kills, dump.turns, dump.deepest),
        (me.kills(), me.turns(), me.deepest())
    );
    assert_eq!(dump.floors.last().map(|f| f.depth), Some(me.deepest()));
    assert!(!dump.messages.is_empty() && dump.messages.len() <= super::dump::LAST_LINES);
    assert!(dump.complete && !dump.victory);
    let text = dump.text();
    assert!(
        text.contains(&format!(
            "Killed by {}",
            &dump.outcome["killed by ".len()..]
        )),
        "{text}"
    );
    for i in &dump.pack {
        assert!(text.contains(&i.name), "{text}");
    }
}

#[test]
fn a_replay_that_would_not_come_out_the_same_is_refused_with_a_sentence() {
    let p = play(26, 120, None);
    let content = Arc::new(Content::builtin());
    let mut facts = facts_of(&p);
    facts.end_hash = "not the world's".into();
    let err = Replayer::open(&slice_of(&p), Arc::clone(&content), &facts).unwrap_err();
    assert!(matches!(err, ReplayError::Diverged { .. }), "{err}");
    assert!(err.to_string().contains("the test's"), "{err}");

    let mut facts = facts_of(&p);
    facts.content_hash = "0123456789abcdef".into();
    let err = Replayer::open(&slice_of(&p), Arc::clone(&content), &facts).unwrap_err();
    assert!(matches!(err, ReplayError::OtherContent { .. }), "{err}");

    let mut slice = slice_of(&p);
    slice.entries[5] = vec![0xff; 3];
    let err = Replayer::open(&slice, Arc::clone(&content), &facts_of(&p)).unwrap_err();
    assert!(matches!(err, ReplayError::Damaged(_)), "{err}");
    assert!(err.to_string().contains("journal entry 6"), "{err}");

    // A dropped entry is a different game.
    let mut slice = slice_of(&p);
    slice.entries.remove(30);
    let err = Replayer::open(&slice, content, &facts_of(&p)).unwrap_err();
    assert!(matches!(err, ReplayError::Diverged { .. }), "{err}");
}

/// A measurement for docs/BENCHMARKS.md ("Replays"), not a check (speed is never asserted):
/// what a long game's replay costs to keep, to open, and to jump in. Run it in release:
/// `cargo test --release -p delve-server --lib record::tests::what_a_long_games_replay_costs
/// -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement: run in release with --ignored --nocapture"]
fn what_a_long_games_replay_costs() {
    use std::time::Instant;
    // A character who lasts: the balance bot with HP enough to play 5,000 turns.
    let mut c = Content::builtin();
    c.player.hp = 1_000_000;
    let content = Arc::new(c);
    for seed in [26, 27, 28] {
        let p = play_with(Arc::clone(&content), seed, 5_000, None);
        let slice = slice_of(&p);
        let packed = slice.pack().len();
        let turns = p.views.len() as u64 - 1;
        // A character who came after a snapshot has it in its slice too: what that costs,
        // deflated with the rest (the world at the end stands in for it).
        let snapshot = ReplaySlice {
            base: Some(p.d.save()),
            ..slice.clone()
        }
        .pack()
        .len()
            - packed;
        let opened = Instant::now();
        let (mut r, _, _) =
            Replayer::open(&slice, Arc::clone(&content), &facts_of(&p)).expect("the replay opens");
        let open_ms = opened.elapsed().as_secs_f64() * 1e3;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut worst: f64 = 0.0;
        let mut total = 0.0;
        let mut mismatches = 0;
        let jumps = 50;
        for k in 0..jumps {
            let t = if k == 0 {
                turns
            } else {
                rng.random_range(0..=turns)
            };
            let at = Instant::now();
            let shown = r.show(t).expect("a turn");
            let ms = at.elapsed().as_secs_f64() * 1e3;
            let want = &p.views[t as usize];
            if shown.view != *want {
                let v = &shown.view;
                let differs: Vec<&str> = [
                    ("turn", v.turn != want.turn),
                    ("depth", v.depth != want.depth),
                    ("map", v.map != want.map),
                    ("visible", v.visible != want.visible),
                    ("entities", v.entities != want.entities),
                    ("me", v.me != want.me),
                    ("party", v.party != want.party),
                    ("inventory", v.inventory != want.inventory),
                ]
                .into_iter()
                .filter(|(_, d)| *d)
                .map(|(n, _)| n)
                .collect();
                println!(
                    "seed {seed}: turn {t} of {turns} differs in {differs:?}: turn {} vs {}, \
                     me {:?} vs {:?}",
                    v.turn, want.turn, v.me, want.me
                );
                mismatches += 1;
            }
            worst = worst.max(ms);
            total += ms;
        }
        let stepped = Instant::now();
        for t in 1..=200.min(turns) {
            r.show(t).expect("a step");
        }
        let step_ms = stepped.elapsed().as_secs_f64() * 1e3 / 200.0_f64.min(turns as f64);
        println!(
            "seed {seed}: {turns} turns, {} entries; kept {packed} bytes deflated ({:.0} bytes \
             per 1,000 turns), plus {snapshot} bytes for a snapshot when the character came \
             after one; open {open_ms:.0} ms; {jumps} jumps: mean {:.1} ms, worst {worst:.1} \
             ms; a step {step_ms:.2} ms",
            slice.entries.len(),
            packed as f64 * 1000.0 / turns as f64,
            total / f64::from(jumps),
        );
        println!("seed {seed}: {mismatches} of {jumps} jumps showed another view");
    }
}
