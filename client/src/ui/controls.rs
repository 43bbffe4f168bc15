//! The commands on screen: one table of what a click or a tap can ask for beside the map
//! (explore, wait, rest, the stairs, the pack, ...), drawn as buttons that show their keys: in
//! the side panel's foot on a desktop, as a bar of large buttons on a touch screen. A button
//! gives its command exactly as its key would, so a new command plugs in with one entry here
//! (and its key in the key table, `crate::keymap`). What a button looks like at this moment
//! (dim when nothing would come of it, a count on it, Rest turned into Stop while resting)
//! comes from the player's [`Situation`], in [`offered`].

use super::widgets::Look;
use crate::keymap::{Command, KeyMap};

/// When a control is offered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// While driving a living character.
    Playing,
    /// While driving one with stat points to spend.
    Points,
    /// While not driving a character: dead, won, watching.
    Spectating,
    /// Once one's own game is over (not for a watcher).
    Over,
    /// On a desktop, not on a touch screen: the list of keys, and the message history (a tap
    /// on the log opens it on a phone, whose bar has no room to spare).
    Desk,
    /// While driving a living character with a friend on the floor (to mark a spot for).
    Together,
    /// Always.
    Always,
}

/// A command on screen.
#[derive(Clone, Copy, Debug)]
pub struct Control {
    pub command: Command,
    /// The button's word.
    pub label: &'static str,
    pub when: When,
}

const fn control(command: Command, label: &'static str, when: When) -> Control {
    Control {
        command,
        label,
        when,
    }
}

impl Control {
    /// The button's word where buttons are narrow (a phone's bar).
    pub fn short(&self) -> &'static str {
        match self.command {
            Command::PickUp => "Take",
            Command::Character => "Stats",
            Command::LevelUp => "Level!",
            Command::NewCharacter => "New",
            Command::ToFriend => "Friend",
            _ => self.label,
        }
    }
}

/// Every command offered on screen, in the order shown: what is done every few turns first
/// (a phone's thumbs find them in the same places), the level-up last, so that its coming and
/// going moves no other button. Mark and To friend show only with a friend on the floor; giving to a
/// friend and using a thing on one are the pack's (`crate::pack::item_actions`).
pub const CONTROLS: &[Control] = &[
    control(Command::Explore, "Explore", When::Playing),
    control(Command::Wait, "Wait", When::Playing),
    control(Command::Rest, "Rest", When::Playing),
    control(Command::Fight, "Fight", When::Playing),
    control(Command::Fire, "Throw", When::Playing),
    control(Command::QuickHeal, "Heal", When::Playing),
    control(Command::Descend, "Stairs", When::Playing),
    control(Command::PickUp, "Pick up", When::Playing),
    control(Command::Inventory, "Pack", When::Always),
    control(Command::Character, "Character", When::Always),
    control(Command::Messages, "Log", When::Desk),
    control(Command::Talk, "Chat", When::Always),
    control(Command::NewCharacter, "New", When::Over),
    control(Command::Follow, "Watch", When::Spectating),
    control(Command::Scores, "Scores", When::Spectating),
    control(Command::Mark, "Mark", When::Together),
    control(Command::ToFriend, "To friend", When::Together),
    control(Command::Help, "Keys", When::Desk),
    control(Command::Menu, "Menu", When::Always),
    control(Command::LevelUp, "Level up", When::Points),
];

/// What the player's situation is, for which controls show and how.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Situation {
    /// Driving a living character.
    pub playing: bool,
    /// Stat points to spend.
    pub points: bool,
    /// One's own game is over (dead or won), not a watcher's.
    pub over: bool,
    /// Played by touch.
    pub touch: bool,
    /// The character is resting (the server goes on by itself until something happens).
    pub resting: bool,
    /// How many things in the pack heal (a stack of three Health Packs is three).
    pub heals: u32,
    /// Something lies where the character stands, to pick up.
    pub underfoot: bool,
    /// A monster is in sight (to fight).
    pub foes: bool,
    /// What `f` would aim: the weapon worn shoots (`Shoot`) or something in the pack is
    /// thrown (`Throw`); neither (`None`).
    pub missile: Option<Missile>,
    /// A throw or a shot is being aimed: the Throw button sends it.
    pub aiming: bool,
    /// Another player of the party stands (or lies) on this floor.
    pub friends: bool,
}

/// What the fire command aims, for its button's word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Missile {
    Shoot,
    Throw,
}

impl Control {
    /// Whether this control is offered now.
    pub fn shown(&self, s: Situation) -> bool {
        match self.when {
            When::Playing => s.playing,
            When::Points => s.playing && s.points,
            When::Spectating => !s.playing,
            When::Over => s.over,
            When::Desk => !s.touch,
            When::Together => s.playing && s.friends,
            When::Always => true,
        }
    }

    /// The key shown on its button: the command's first key (the menu's is Esc, which opens
    /// it from the map).
    pub fn key(&self, keys: &KeyMap) -> String {
        key_of(keys, self.command)
    }
}

/// The first key of `command`, as a button shows it.
fn key_of(keys: &KeyMap, command: Command) -> String {
    let command = match command {
        Command::Menu => Command::Cancel,
        c => c,
    };
    keys.keys_of(command)
        .first()
        .map_or_else(String::new, |k| match k.to_string().as_str() {
            "Escape" => "Esc".to_string(),
            name => name.to_string(),
        })
}

/// A control as it is drawn now.
#[derive(Clone, Debug, PartialEq)]
pub struct Offer {
    /// What a click on it gives.
    pub command: Command,
    /// The key that does the same, to show on it (none on a touch screen).
    pub key: String,
    /// Its word, and the shorter one for a phone's narrow buttons.
    pub label: &'static str,
    pub short: &'static str,
    pub look: Look,
    /// A number in its corner: how many of what it uses are left.
    pub badge: Option<u32>,
}

impl Offer {
    fn of(c: &Control, keys: &KeyMap, s: Situation) -> Offer {
        let mut offer = Offer {
            command: c.command,
            key: c.key(keys),
            label: c.label,
            short: c.short(),
            look: Look::Plain,
            badge: None,
        };
        match c.command {
            // While resting, the rest button stops it (as any key does: a wait).
            Command::Rest if s.resting => {
                offer.command = Command::Wait;
                offer.key = key_of(keys, Command::Wait);
                offer.label = "Stop";
                offer.short = "Stop";
                offer.look = Look::Primary;
            }
            Command::QuickHeal if s.heals > 0 => offer.badge = Some(s.heals),
            // Still clickable: the game says why nothing comes of it.
            Command::QuickHeal => offer.look = Look::Dim,
            Command::PickUp if !s.underfoot => offer.look = Look::Dim,
            Command::Fight if !s.foes => offer.look = Look::Dim,
            Command::Fire => {
                if s.missile == Some(Missile::Shoot) {
                    offer.label = "Shoot";
                    offer.short = "Shoot";
                }
                // Aiming: a second press sends it, as `f` does.
                if s.aiming {
                    offer.look = Look::Primary;
                } else if s.missile.is_none() || !s.foes {
                    offer.look = Look::Dim;
                }
            }
            Command::LevelUp => offer.look = Look::Primary,
            _ => {}
        }
        offer
    }
}

/// The controls offered in a situation, as they are drawn now.
pub fn offered(keys: &KeyMap, s: Situation) -> Vec<Offer> {
    CONTROLS
        .iter()
        .filter(|c| c.shown(s))
        .map(|c| Offer::of(c, keys, s))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_player_can_do_everything_by_click_that_the_map_needs() {
        let keys = KeyMap::default();
        let playing = Situation {
            playing: true,
            points: true,
            ..Situation::default()
        };
        let shown: Vec<Command> = offered(&keys, playing).iter().map(|o| o.command).collect();
        for c in [
            Command::Explore,
            Command::Wait,
            Command::Rest,
            Command::Fight,
            Command::Fire,
            Command::QuickHeal,
            Command::Descend,
            Command::PickUp,
            Command::Inventory,
            Command::LevelUp,
            Command::Menu,
        ] {
            assert!(shown.contains(&c), "{c:?}");
        }
        // The dead start again, watch or read the scores by click too.
        let dead = Situation {
            over: true,
            touch: true,
            ..Situation::default()
        };
        let shown: Vec<Command> = offered(&keys, dead).iter().map(|o| o.command).collect();
        for c in [Command::NewCharacter, Command::Follow, Command::Scores] {
            assert!(shown.contains(&c), "{c:?}");
        }
        assert!(!shown.contains(&Command::Explore));
        assert!(!shown.contains(&Command::Rest));
        // No list of keys where there is no keyboard; the log opens by a tap on it.
        assert!(!shown.contains(&Command::Help));
        assert!(!shown.contains(&Command::Messages));
    }

    #[test]
    fn the_buttons_say_what_would_come_of_them_now() {
        let keys = KeyMap::default();
        let find = |s: Situation, label: &str| {
            offered(&keys, s)
                .into_iter()
                .find(|o| o.label == label)
                .unwrap_or_else(|| panic!("no {label} in {s:?}"))
        };
        let playing = Situation {
            playing: true,
            ..Situation::default()
        };
        // Resting: the rest button stops it, as a wait does.
        let rest = find(playing, "Rest");
        assert_eq!((rest.command, rest.key.as_str()), (Command::Rest, "r"));
        let stop = find(
            Situation {
                resting: true,
                ..playing
            },
            "Stop",
        );
        assert_eq!((stop.command, stop.look), (Command::Wait, Look::Primary));
        // Heal shows how many heals are left, and is dim with none (a click says so).
        let heal = find(
            Situation {
                heals: 3,
                ..playing
            },
            "Heal",
        );
        assert_eq!(
            (heal.badge, heal.look, heal.key.as_str()),
            (Some(3), Look::Plain, "q")
        );
        let none = find(playing, "Heal");
        assert_eq!((none.badge, none.look), (None, Look::Dim));
        // Pick up is lit only with something underfoot.
        assert_eq!(find(playing, "Pick up").look, Look::Dim);
        let here = Situation {
            underfoot: true,
            ..playing
        };
        assert_eq!(find(here, "Pick up").look, Look::Plain);
        // Fight and Throw are lit with a monster in sight, and Throw with something to throw;
        // it says Shoot for a worn shooter, and is the one to press again while aiming.
        assert_eq!(find(playing, "Fight").look, Look::Dim);
        assert_eq!(find(playing, "Throw").look, Look::Dim);
        let foes = Situation {
            foes: true,
            missile: Some(Missile::Throw),
            ..playing
        };
        assert_eq!(find(foes, "Fight").look, Look::Plain);
        let throw = find(foes, "Throw");
        assert_eq!((throw.command, throw.look), (Command::Fire, Look::Plain));
        assert_eq!(throw.key, "f");
        let shoot = Situation {
            missile: Some(Missile::Shoot),
            ..foes
        };
        assert_eq!(find(shoot, "Shoot").command, Command::Fire);
        let aiming = Situation {
            aiming: true,
            ..foes
        };
        assert_eq!(find(aiming, "Throw").look, Look::Primary);
        // A level-up to spend comes last, so no other button moves for it.
        let points = offered(
            &keys,
            Situation {
                points: true,
                ..playing
            },
        );
        assert_eq!(points.last().map(|o| o.command), Some(Command::LevelUp));
        assert_eq!(points.last().map(|o| o.look), Some(Look::Primary));
    }

    #[test]
    fn every_control_shows_a_key_that_gives_its_command() {
        let keys = KeyMap::default();
        for c in CONTROLS {
            let key = c.key(&keys);
            assert!(!key.is_empty(), "{:?} has no key to show", c.command);
        }
        assert_eq!(CONTROLS[0].key(&keys), "x");
        // The buttons show the keys in force: the player's own.
        let mine = KeyMap::from_file("[keys]\nexplore = [\"o\"]\nrest = [\"F5\"]\n").unwrap();
        let playing = Situation {
            playing: true,
            ..Situation::default()
        };
        let keys: Vec<(Command, String)> = offered(&mine, playing)
            .into_iter()
            .map(|o| (o.command, o.key))
            .collect();
        assert!(keys.contains(&(Command::Explore, "o".into())), "{keys:?}");
        assert!(keys.contains(&(Command::Rest, "F5".into())), "{keys:?}");
    }
}
