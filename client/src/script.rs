//! `--script`: a scripted session for screenshot tests and for trying the mouse under Xvfb,
//! where nobody can press keys. A script is steps separated by `;`:
//!
//! - `key NAME`: press a key (a name of the key file: `x`, `?`, `Escape`, `Tab`, `Up`, ...),
//!   once the game is ready for it;
//! - `rush NAME`: press a key at once, ready or not (a hand that does not wait);
//! - `hover WHAT` / `click WHAT`: point at (or left-click) a cell: `DX,DY` from the character,
//!   or the nearest `monster`, `item`, `stairs` (down) or `upstairs` in the view;
//! - `idle`: wait until nothing is under way (no walk, no intent waiting, no animation);
//! - `fight`: click the nearest monster if one is in sight (walk to it or strike it), then
//!   wait until nothing is under way; with none in sight, nothing;
//! - `frames N`: let N frames pass;
//! - `turn N`: wait until the floor's turn is at least N;
//! - `wait lost` / `wait back`: wait until the connection is down (trying again) / up again;
//! - `wait dead`: wait until our character's game is over (death or victory);
//! - `wait resting`: wait until our character is resting (or a rest begun has ended);
//! - `wait scores`: wait until the open high-score table has its answer (and found our game);
//! - `wait floor N`: wait until our character is on floor N;
//! - `wait log TEXT`: wait until a line of the log, from the turn the step began on or later,
//!   holds TEXT;
//! - `watch NAME`: print `watching NAME`, then from now on `seen NAME X,Y turn T` whenever the
//!   player NAME is seen on a new cell (every update counts, not only drawn frames), and
//!   `lost NAME turn T` when they go out of sight: a second client watching the first's walk;
//! - `wait NAME`: wait until the player NAME is in sight;
//! - `wait NAME DX,DY`: wait until the watched player NAME stands `DX,DY` from where this client
//!   first saw them;
//! - `sound NAME`: wait until the sound effect NAME (`hit`, `door`, ... as in
//!   `client/assets/sounds/`) has been played (or would have been, muted or without a device)
//!   and the output has played it out;
//! - `tap WORD` / `point WORD`: click (or point at) a button or line shown on screen, found by
//!   what it does: a command by its key-file name (`explore`, `inventory`, `cancel`,
//!   `new_character`), `row N` for line N of the list open, `use`, `wear`, `drop` in the pack,
//!   `more N` / `less N` for a menu setting, `party ID` for the party list's line of the
//!   friend with character id ID; it waits for the control to be shown;
//! - `auto N`: play N moves by the mouse alone, as a plain player would: choose the first
//!   stat at a level-up, heal by the Heal button when low, click the nearest monster, rest by
//!   the Rest button when hurt, explore by the Explore button, take the stairs by the Stairs
//!   button once all is explored; it ends early when the game does (for long games to look
//!   at under Xvfb, with `shot` steps between);
//! - `select KEY`: with the pack open, select the first thing of content key KEY
//!   (`health_pack`), once the pack holds one (prints `select KEY`);
//! - `shot PATH`: save the window as a PNG;
//!
//! A click prints `click X,Y from X0,Y0`: the cell it clicked, and where the character stood.
//! - `quit`: exit (0).
//!
//! The parsing and the choice of cells are pure (tested here); `ui::app` plays the steps.

use delve_protocol::{EntityKind, Pos, Tile, View};

use crate::keymap::Key;

/// Where to point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Offset(i32, i32),
    Monster,
    Item,
    Stairs { down: bool },
}

impl Target {
    /// The cell meant, in this view.
    pub fn cell(&self, view: &View) -> Option<Pos> {
        let me = view.me.pos;
        let nearest = |kind: EntityKind| {
            view.entities
                .iter()
                .filter(|e| e.kind == kind)
                .min_by_key(|e| (e.pos.dist2(me), e.id))
                .map(|e| e.pos)
        };
        match self {
            Target::Offset(dx, dy) => Some(Pos::new(me.x + dx, me.y + dy)),
            Target::Monster => nearest(EntityKind::Monster),
            Target::Item => nearest(EntityKind::Item),
            Target::Stairs { down } => {
                let want = if *down {
                    Tile::StairsDown
                } else {
                    Tile::StairsUp
                };
                let map = &view.map;
                (0..map.cells().len())
                    .filter(|&i| map.cells()[i] == want)
                    .map(|i| map.pos_of(i))
                    .min_by_key(|p| p.dist2(me))
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    Key(Key),
    /// Press a key at once, without waiting for the game to be ready for it.
    Rush(Key),
    Hover(Target),
    Click(Target),
    /// Click a control on screen, named by what it does.
    Tap(String),
    /// Point at a control on screen.
    Point(String),
    /// Right-click this cell (mark it for friends).
    Mark(Target),
    /// Wait until a spot marked by this player is in the view (prints `marked NAME X,Y`).
    Marked(String),
    /// With the pack open, select the first thing of this content key once the pack holds one.
    Select(String),
    Idle,
    /// Click the nearest monster in sight, if any, and wait until nothing is under way.
    Fight,
    Frames(u32),
    Turn(u64),
    /// Wait for the connection to be down (`false`) or up (`true`).
    Connection(bool),
    /// Wait for our character's game to end.
    Ended,
    /// Wait until our character rests, or a rest begun since the step began has ended.
    Resting,
    /// Wait for the high-score table's answer.
    Scores,
    /// Wait until our character is on this floor.
    Floor(u8),
    /// Wait until a log line from the step's turn on holds this text.
    Log(String),
    /// Wait until this sound effect has been played.
    Sound(crate::sound::Cue),
    /// Report where this player is seen, from now on.
    Watch(String),
    /// Wait until this player is in sight.
    Sees(String),
    /// Wait until the watched player stands this far from where they were first seen.
    Arrives(String, i32, i32),
    /// Play this many moves by the mouse alone.
    Auto(u32),
    Shot(String),
    Quit,
}

/// Reads a script; an error names the step at fault.
pub fn parse(text: &str) -> Result<Vec<Action>, String> {
    let mut out = Vec::new();
    for step in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let (word, arg) = step.split_once(' ').unwrap_or((step, ""));
        let arg = arg.trim();
        let bad = || format!("script step {step:?} is not understood");
        let target = || target_of(arg).ok_or_else(bad);
        out.push(match word {
            "key" => Action::Key(Key::parse(arg).ok_or_else(bad)?),
            "rush" => Action::Rush(Key::parse(arg).ok_or_else(bad)?),
            "hover" => Action::Hover(target()?),
            "click" => Action::Click(target()?),
            "mark" => Action::Mark(target()?),
            "tap" if !arg.is_empty() => Action::Tap(arg.to_string()),
            "point" if !arg.is_empty() => Action::Point(arg.to_string()),
            "idle" => Action::Idle,
            "fight" => Action::Fight,
            "frames" => Action::Frames(arg.parse().map_err(|_| bad())?),
            "turn" => Action::Turn(arg.parse().map_err(|_| bad())?),
            "wait" if arg == "lost" => Action::Connection(false),
            "wait" if arg == "back" => Action::Connection(true),
            "wait" if arg == "dead" => Action::Ended,
            "wait" if arg == "resting" => Action::Resting,
            "wait" if arg == "scores" => Action::Scores,
            "wait" if arg.starts_with("floor ") => {
                Action::Floor(arg["floor ".len()..].trim().parse().map_err(|_| bad())?)
            }
            "wait" if arg.starts_with("log ") => {
                Action::Log(arg["log ".len()..].trim().to_string())
            }
            "wait" if !arg.is_empty() => match arg.split_once(' ') {
                None => Action::Sees(arg.to_string()),
                Some((name, offset)) => match target_of(offset.trim()) {
                    Some(Target::Offset(dx, dy)) => Action::Arrives(name.to_string(), dx, dy),
                    _ => return Err(bad()),
                },
            },
            "watch" if !arg.is_empty() => Action::Watch(arg.to_string()),
            "marked" if !arg.is_empty() => Action::Marked(arg.to_string()),
            "select" if !arg.is_empty() => Action::Select(arg.to_string()),
            "sound" => Action::Sound(
                crate::sound::Cue::ALL
                    .into_iter()
                    .find(|c| c.name() == arg)
                    .ok_or_else(bad)?,
            ),
            "auto" => Action::Auto(arg.parse().map_err(|_| bad())?),
            "shot" if !arg.is_empty() => Action::Shot(arg.to_string()),
            "quit" => Action::Quit,
            _ => return Err(bad()),
        });
    }
    Ok(out)
}

/// A cell named in a step: `monster`, `item`, `stairs`, `upstairs` or `DX,DY`.
fn target_of(arg: &str) -> Option<Target> {
    Some(match arg {
        "monster" => Target::Monster,
        "item" => Target::Item,
        "stairs" => Target::Stairs { down: true },
        "upstairs" => Target::Stairs { down: false },
        _ => {
            let (x, y) = arg.split_once(',')?;
            let n = |s: &str| s.trim().parse::<i32>().ok();
            Target::Offset(n(x)?, n(y)?)
        }
    })
}

/// The player called `name` among the entities in sight, if any.
pub fn player_seen(view: &View, name: &str) -> Option<Pos> {
    view.entities
        .iter()
        .find(|e| e.kind == EntityKind::Player && &*e.name == name)
        .map(|e| e.pos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keymap::Named;
    use crate::travel::tests::view_of;

    #[test]
    fn a_script_reads_step_by_step() {
        let s = parse("key x; idle; hover monster; click -2,1; tap row 2; point explore; wait floor 2; wait log You equip; rush h; key Escape; frames 3; turn 4; wait lost; wait back; wait dead; wait resting; fight; sound level-up; watch Ann; wait Bob; wait Ann 4,-1; auto 20; shot /tmp/a b.png; quit").unwrap();
        assert_eq!(
            s,
            vec![
                Action::Key(Key::Char('x')),
                Action::Idle,
                Action::Hover(Target::Monster),
                Action::Click(Target::Offset(-2, 1)),
                Action::Tap("row 2".into()),
                Action::Point("explore".into()),
                Action::Floor(2),
                Action::Log("You equip".into()),
                Action::Rush(Key::Char('h')),
                Action::Key(Key::Named(Named::Escape)),
                Action::Frames(3),
                Action::Turn(4),
                Action::Connection(false),
                Action::Connection(true),
                Action::Ended,
                Action::Resting,
                Action::Fight,
                Action::Sound(crate::sound::Cue::LevelUp),
                Action::Watch("Ann".into()),
                Action::Sees("Bob".into()),
                Action::Arrives("Ann".into(), 4, -1),
                Action::Auto(20),
                Action::Shot("/tmp/a b.png".into()),
                Action::Quit,
            ]
        );
        assert!(parse("jump 3").unwrap_err().contains("jump 3"));
        assert!(parse("click here").is_err());
        assert!(parse("sound trumpet").is_err());
        assert!(parse("wait Ann there").is_err());
        assert!(parse("watch").is_err());
        assert!(parse("tap").is_err());
    }

    #[test]
    fn targets_find_their_cells() {
        let v = view_of(&["#######", "#@.$.m#", "#<...>#", "#######"]);
        assert_eq!(Target::Monster.cell(&v), Some(Pos::new(5, 1)));
        assert_eq!(Target::Item.cell(&v), Some(Pos::new(3, 1)));
        assert_eq!(Target::Stairs { down: true }.cell(&v), Some(Pos::new(5, 2)));
        assert_eq!(
            Target::Stairs { down: false }.cell(&v),
            Some(Pos::new(1, 2))
        );
        assert_eq!(Target::Offset(2, 1).cell(&v), Some(Pos::new(3, 2)));
    }
}
