//! The commands on screen: one table of what a click or a tap can ask for beside the map
//! (explore, wait, the stairs, the pack, ...), drawn as buttons that show their keys: in the
//! side panel's foot on a desktop, as a bar of large buttons on a touch screen. A button gives
//! its command exactly as its key would, so a new command plugs in with one entry here (and
//! its key in the key table, `crate::keymap`).

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
    /// Where there is a keyboard (not on a touch screen): the list of keys.
    Keyboard,
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
            _ => self.label,
        }
    }
}

/// Every command offered on screen, in the order shown. Rest, fight-nearest, throw and
/// quick-heal (the engine's new actions) and give and mark (co-op) slot in here as one line
/// each once their commands are in the key table, e.g.
/// `control(Command::Rest, "Rest", When::Playing),`.
pub const CONTROLS: &[Control] = &[
    control(Command::Explore, "Explore", When::Playing),
    control(Command::Wait, "Wait", When::Playing),
    control(Command::Descend, "Stairs", When::Playing),
    control(Command::PickUp, "Pick up", When::Playing),
    control(Command::Inventory, "Pack", When::Always),
    control(Command::LevelUp, "Level up", When::Points),
    control(Command::Character, "Character", When::Always),
    control(Command::Messages, "Log", When::Always),
    control(Command::Talk, "Chat", When::Always),
    control(Command::NewCharacter, "New", When::Over),
    control(Command::Follow, "Watch", When::Spectating),
    control(Command::Scores, "Scores", When::Spectating),
    control(Command::Help, "Keys", When::Keyboard),
    control(Command::Menu, "Menu", When::Always),
];

/// What the player's situation is, for which controls show.
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
}

impl Control {
    /// Whether this control is offered now.
    pub fn shown(&self, s: Situation) -> bool {
        match self.when {
            When::Playing => s.playing,
            When::Points => s.playing && s.points,
            When::Spectating => !s.playing,
            When::Over => s.over,
            When::Keyboard => !s.touch,
            When::Always => true,
        }
    }

    /// The key shown on its button: the command's first key (the menu's is Esc, which opens
    /// it from the map).
    pub fn key(&self, keys: &KeyMap) -> String {
        let command = match self.command {
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
}

/// The controls offered in a situation, with the keys to show on them.
pub fn offered(keys: &KeyMap, s: Situation) -> Vec<(String, Control)> {
    CONTROLS
        .iter()
        .filter(|c| c.shown(s))
        .map(|c| (c.key(keys), *c))
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
            over: false,
            touch: false,
        };
        let shown: Vec<Command> = offered(&keys, playing)
            .iter()
            .map(|(_, c)| c.command)
            .collect();
        for c in [
            Command::Explore,
            Command::Wait,
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
            playing: false,
            points: false,
            over: true,
            touch: true,
        };
        let shown: Vec<Command> = offered(&keys, dead)
            .iter()
            .map(|(_, c)| c.command)
            .collect();
        for c in [Command::NewCharacter, Command::Follow, Command::Scores] {
            assert!(shown.contains(&c), "{c:?}");
        }
        assert!(!shown.contains(&Command::Explore));
        // No list of keys where there is no keyboard.
        assert!(!shown.contains(&Command::Help));
    }

    #[test]
    fn every_control_shows_a_key_that_gives_its_command() {
        let keys = KeyMap::default();
        for c in CONTROLS {
            let key = c.key(&keys);
            assert!(!key.is_empty(), "{:?} has no key to show", c.command);
        }
        assert_eq!(CONTROLS[0].key(&keys), "x");
    }
}
