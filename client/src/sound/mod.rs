//! Which sound a turn makes, and the sound settings: pure, so it is decided (and tested)
//! without a window or a sound card. `ui::audio` plays what [`cues`] picks.
//!
//! The sounds themselves are made here too ([`synth`]), deterministically, and written as WAV
//! files under `client/assets/sounds/` by a test (`tests/sounds.rs`), which also checks that the
//! committed files are what the code makes.

pub mod synth;
pub mod wav;

use delve_protocol::{Event, Tile, View};

/// One sound effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cue {
    /// We hit something.
    Hit,
    /// Something hit us.
    Hurt,
    /// A blow (ours or at us) missed.
    Miss,
    /// Something died in sight.
    Kill,
    LevelUp,
    /// A door in sight opened.
    Door,
    /// We took the stairs.
    Stairs,
    Death,
    Victory,
}

impl Cue {
    pub const ALL: [Cue; 9] = [
        Cue::Hit,
        Cue::Hurt,
        Cue::Miss,
        Cue::Kill,
        Cue::LevelUp,
        Cue::Door,
        Cue::Stairs,
        Cue::Death,
        Cue::Victory,
    ];

    /// The file under `client/assets/sounds/`, without `.wav`.
    pub fn name(self) -> &'static str {
        match self {
            Cue::Hit => "hit",
            Cue::Hurt => "hurt",
            Cue::Miss => "miss",
            Cue::Kill => "kill",
            Cue::LevelUp => "level-up",
            Cue::Door => "door",
            Cue::Stairs => "stairs",
            Cue::Death => "death",
            Cue::Victory => "victory",
        }
    }
}

/// What of a view the sounds depend on, kept from before a message so the next one can be
/// compared with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Glance {
    me: u32,
    depth: u8,
    level: u32,
    over: bool,
    victory: bool,
    /// Map indices of the doors known shut (or locked).
    shut_doors: Vec<usize>,
}

impl Glance {
    pub fn of(view: &View) -> Glance {
        let shut_doors = view
            .map
            .cells()
            .iter()
            .enumerate()
            .filter(|(_, t)| matches!(t, Tile::DoorClosed | Tile::DoorLocked))
            .map(|(i, _)| i)
            .collect();
        Glance {
            me: view.me.id,
            depth: view.me.depth,
            level: view.me.level,
            over: !view.me.alive || view.me.victory,
            victory: view.me.victory,
            shut_doors,
        }
    }
}

/// The sounds one server message makes: `before` is how the view was (none before the first
/// view), `after` how it is now, `events` what the message said happened.
///
/// Few at once, as Brogue does: the end of a game or the stairs drown everything else; a
/// level-up is heard beside one blow (the loudest: a kill, then our hit, a hit on us, a miss)
/// and a door. A view that is someone else's (a new character, a friend followed) makes none:
/// the change is not something that happened.
pub fn cues(before: Option<&Glance>, after: &View, events: &[Event]) -> Vec<Cue> {
    let Some(before) = before else {
        return Vec::new();
    };
    let now = Glance::of(after);
    if now.me != before.me {
        return Vec::new();
    }
    if now.over && !before.over {
        return vec![if now.victory {
            Cue::Victory
        } else {
            Cue::Death
        }];
    }
    if now.depth != before.depth {
        return vec![Cue::Stairs];
    }
    let mut out = Vec::new();
    if now.level > before.level {
        out.push(Cue::LevelUp);
    }
    let me = now.me;
    let mut blow: Option<Cue> = None;
    let mut louder = |c: Cue| {
        let rank = |c: Cue| match c {
            Cue::Kill => 3,
            Cue::Hit => 2,
            Cue::Hurt => 1,
            _ => 0,
        };
        if blow.is_none_or(|b| rank(c) > rank(b)) {
            blow = Some(c);
        }
    };
    for e in events {
        match e {
            Event::Attacked {
                attacker,
                target,
                damage,
            } if *attacker == me || *target == me => louder(match damage {
                None => Cue::Miss,
                Some(_) if *attacker == me => Cue::Hit,
                Some(_) => Cue::Hurt,
            }),
            Event::Died { id, .. } if *id != me => louder(Cue::Kill),
            _ => {}
        }
    }
    out.extend(blow);
    let cells = after.map.cells();
    if before
        .shut_doors
        .iter()
        .any(|&i| cells.get(i) == Some(&Tile::DoorOpen) && after.visible.contains(i))
    {
        out.push(Cue::Door);
    }
    out
}

/// The sound settings, kept in `sound.toml` in the config folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// 0 to 100.
    pub volume: u8,
    pub muted: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            volume: 70,
            muted: false,
        }
    }
}

/// The menu's volume steps.
pub const VOLUME_STEP: u8 = 10;

impl Settings {
    /// The gain a sound is played at, 0 when muted.
    pub fn gain(self) -> f32 {
        if self.muted {
            0.0
        } else {
            f32::from(self.volume.min(100)) / 100.0
        }
    }

    /// Louder (`up`) or softer by one step; a change of volume unmutes.
    pub fn step(&mut self, up: bool) {
        self.volume = if up {
            self.volume.saturating_add(VOLUME_STEP).min(100)
        } else {
            self.volume.saturating_sub(VOLUME_STEP)
        };
        self.muted = false;
    }

    /// What the menu and the log say.
    pub fn describe(self) -> String {
        if self.muted {
            format!("Sound: off (volume {}%)", self.volume)
        } else {
            format!("Sound: volume {}%", self.volume)
        }
    }

    /// The file's text.
    pub fn to_file(self) -> String {
        format!(
            "# Delve's sound: volume 0-100, and whether it is muted (the mute key toggles it).\n\
             volume = {}\nmuted = {}\n",
            self.volume, self.muted
        )
    }

    /// Reads the file; what is missing or wrong in it keeps its default.
    pub fn from_file(text: &str) -> Settings {
        #[derive(serde::Deserialize)]
        struct File {
            volume: Option<i64>,
            muted: Option<bool>,
        }
        let mut s = Settings::default();
        if let Ok(f) = toml::from_str::<File>(text) {
            if let Some(v) = f.volume {
                s.volume = v.clamp(0, 100) as u8;
            }
            if let Some(m) = f.muted {
                s.muted = m;
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::travel::tests::view_of;
    use delve_protocol::{CellSet, Pos};

    /// A corridor with a shut door, all in sight, on floor `depth` at level `level`.
    fn view(depth: u8, level: u32) -> View {
        let mut v = view_of(&["@.+."]);
        v.depth = depth;
        v.me.depth = depth;
        v.me.level = level;
        v
    }

    fn attack(attacker: u32, target: u32, damage: Option<i32>) -> Event {
        Event::Attacked {
            attacker,
            target,
            damage,
        }
    }

    #[test]
    fn the_first_view_and_an_uneventful_turn_are_silent() {
        let v = view(1, 1);
        assert!(cues(None, &v, &[attack(1, 2, Some(3))]).is_empty());
        assert!(cues(Some(&Glance::of(&v)), &v, &[]).is_empty());
    }

    #[test]
    fn blows_sound_by_who_struck_and_whether_it_landed() {
        let v = view(1, 1);
        let g = Glance::of(&v);
        assert_eq!(cues(Some(&g), &v, &[attack(1, 2, Some(3))]), [Cue::Hit]);
        assert_eq!(cues(Some(&g), &v, &[attack(2, 1, Some(3))]), [Cue::Hurt]);
        assert_eq!(cues(Some(&g), &v, &[attack(2, 1, None)]), [Cue::Miss]);
        assert_eq!(cues(Some(&g), &v, &[attack(1, 2, None)]), [Cue::Miss]);
        // Other people's fights are not ours to hear.
        assert!(cues(Some(&g), &v, &[attack(3, 2, Some(3))]).is_empty());
        // One blow a turn, the loudest.
        let both = [
            attack(2, 1, None),
            attack(1, 2, Some(1)),
            attack(2, 1, Some(4)),
        ];
        assert_eq!(cues(Some(&g), &v, &both), [Cue::Hit]);
        let kill = [
            attack(1, 2, Some(3)),
            Event::Died {
                id: 2,
                pos: Pos::new(1, 0),
            },
        ];
        assert_eq!(cues(Some(&g), &v, &kill), [Cue::Kill]);
    }

    #[test]
    fn a_level_comes_with_the_blow_that_earned_it() {
        let g = Glance::of(&view(1, 1));
        let kill = [Event::Died {
            id: 2,
            pos: Pos::new(1, 0),
        }];
        assert_eq!(
            cues(Some(&g), &view(1, 2), &kill),
            [Cue::LevelUp, Cue::Kill]
        );
    }

    #[test]
    fn the_stairs_and_the_end_drown_everything_else() {
        let g = Glance::of(&view(1, 1));
        let hit = [attack(1, 2, Some(3))];
        assert_eq!(cues(Some(&g), &view(2, 2), &hit), [Cue::Stairs]);
        let mut dead = view(1, 1);
        dead.me.alive = false;
        assert_eq!(cues(Some(&g), &dead, &hit), [Cue::Death]);
        // Once over, it is not heard again.
        assert!(cues(Some(&Glance::of(&dead)), &dead, &[]).is_empty());
        let mut won = view(1, 1);
        won.me.victory = true;
        assert_eq!(cues(Some(&g), &won, &hit), [Cue::Victory]);
    }

    #[test]
    fn a_door_in_sight_opening_is_heard() {
        let v = view(1, 1);
        let g = Glance::of(&v);
        let mut open = v.clone();
        open.map.set(Pos::new(2, 0), Tile::DoorOpen);
        assert_eq!(cues(Some(&g), &open, &[]), [Cue::Door]);
        // Out of sight, nobody hears it.
        open.visible = CellSet::default();
        assert!(cues(Some(&g), &open, &[]).is_empty());
    }

    #[test]
    fn someone_elses_view_is_not_an_event() {
        let g = Glance::of(&view(1, 1));
        let mut other = view(3, 5);
        other.me.id = 9;
        other.me.alive = false;
        assert!(cues(Some(&g), &other, &[attack(9, 2, Some(1))]).is_empty());
    }

    #[test]
    fn settings_step_clamp_mute_and_survive_their_file() {
        let mut s = Settings {
            muted: true,
            ..Settings::default()
        };
        s.step(true);
        assert_eq!((s.volume, s.muted), (80, false));
        for _ in 0..20 {
            s.step(true);
        }
        assert_eq!(s.volume, 100);
        for _ in 0..20 {
            s.step(false);
        }
        assert_eq!(s.volume, 0);
        assert_eq!(s.gain(), 0.0);
        let t = Settings {
            volume: 40,
            muted: true,
        };
        assert_eq!(t.gain(), 0.0);
        assert_eq!(Settings::from_file(&t.to_file()), t);
        assert_eq!(Settings::from_file("volume = 900\n").volume, 100);
        assert_eq!(Settings::from_file("not toml ["), Settings::default());
        assert!(t.describe().contains("off"));
    }
}
