//! The key map: one table of which keys give which command, read by the input code, printed by
//! the help screen and written to (and read back from) the player's key file, so the three can
//! never disagree. Pure data: no window here; `ui::input` turns a [`Key`] into macroquad's key
//! codes.
//!
//! A key is either a typed character (`>`, `.`, a letter; letters ignore case, so Shift+K is
//! still north) or a named key without a character (`Up`, `Kp8`, `PageUp`, `Tab`, `F1`, ...).
//! Typed characters work whatever the keyboard layout: `>` is wherever the layout puts it.

use std::collections::BTreeMap;
use std::fmt;

use delve_protocol::Dir;

/// What the player asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Command {
    Move(Dir),
    Wait,
    /// Take the stairs down; away from them, travel to the known down-stair.
    Descend,
    /// Take the stairs up; away from them, travel to the known up-stair.
    Ascend,
    /// Walk to the nearest unexplored place, step after step, until something happens.
    Explore,
    /// Rest until HP and effects are back or something happens (the server goes on by itself).
    Rest,
    /// Use the pack's healing item at once, without opening the pack.
    QuickHeal,
    /// Aim a shot of the weapon worn, or a throw of the first thing thrown.
    Fire,
    /// Attack the nearest monster in view, or take a step towards it (Crawl's Tab).
    Fight,
    /// Mark a spot for the friends on the floor to look at: the cell under the mouse, the one a
    /// finger last held, or your own. Takes no turn.
    Mark,
    /// Walk to the nearest friend on the floor; again, to the next one.
    ToFriend,
    /// Toggle the character screen.
    Character,
    /// Toggle the message history.
    Messages,
    /// Open the level-up dialog.
    LevelUp,
    /// Open the inventory screen.
    Inventory,
    /// Pick up what lies here.
    PickUp,
    /// Open the chat line.
    Talk,
    /// Show every key (this table).
    Help,
    /// The menu (also Esc with nothing open).
    Menu,
    /// Sound off, or on again (the volume is in the menu).
    Mute,
    /// A number key (1-9), for choosing in a dialog.
    Choose(u8),
    /// Follow the next player's view (the dead, watchers).
    Follow,
    /// Start a new character (the dead).
    NewCharacter,
    /// Open the high-score table.
    Scores,
    Confirm,
    /// Close what is open; with nothing open, the menu.
    Cancel,
}

impl Command {
    /// Whether the command spends the turn: sends an action, or starts a walk that does. Any
    /// key stops a rest; one that does not act itself must stop it with a wait.
    pub fn takes_a_turn(self) -> bool {
        match self {
            Command::Move(_)
            | Command::Wait
            | Command::Descend
            | Command::Ascend
            | Command::Explore
            | Command::Rest
            | Command::QuickHeal
            | Command::Fire
            | Command::Fight
            | Command::ToFriend
            | Command::PickUp => true,
            Command::Character
            | Command::Mark
            | Command::Messages
            | Command::LevelUp
            | Command::Inventory
            | Command::Talk
            | Command::Help
            | Command::Menu
            | Command::Mute
            | Command::Choose(_)
            | Command::Follow
            | Command::NewCharacter
            | Command::Scores
            | Command::Confirm
            | Command::Cancel => false,
        }
    }
}

/// When a binding applies. The same letter can mean one thing while playing and another once
/// the game is over (`w` walks north, or follows a friend).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    /// While driving a living character with nothing open over the map.
    Play,
    /// Everywhere.
    Always,
    /// In a dialog, or while not driving a character (dead, won, watching).
    Dialog,
}

/// Keys without a character of their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Named {
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    PageUp,
    PageDown,
    Tab,
    Enter,
    Escape,
    Kp(u8),
    KpEnter,
    F(u8),
}

/// One key of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    /// A typed character; letters are kept lowercase and match either case.
    Char(char),
    Named(Named),
}

impl Key {
    /// The key a name in the key file means: one character (`>`, `k`), or a key name (`Up`,
    /// `Kp8`, `F1`, `PageDown`, ...), ignoring case.
    pub fn parse(name: &str) -> Option<Key> {
        let mut chars = name.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            return (!c.is_whitespace() && !c.is_control())
                .then(|| Key::Char(c.to_ascii_lowercase()));
        }
        let lower = name.to_ascii_lowercase();
        let named = match lower.as_str() {
            "up" => Named::Up,
            "down" => Named::Down,
            "left" => Named::Left,
            "right" => Named::Right,
            "home" => Named::Home,
            "end" => Named::End,
            "pageup" => Named::PageUp,
            "pagedown" => Named::PageDown,
            "tab" => Named::Tab,
            "enter" | "return" => Named::Enter,
            "escape" | "esc" => Named::Escape,
            "space" => return Some(Key::Char(' ')),
            "kpenter" => Named::KpEnter,
            _ => {
                if let Some(n) = lower.strip_prefix("kp").and_then(|d| d.parse::<u8>().ok()) {
                    (n <= 9).then_some(Named::Kp(n))?
                } else if let Some(n) = lower.strip_prefix('f').and_then(|d| d.parse::<u8>().ok()) {
                    (1..=12).contains(&n).then_some(Named::F(n))?
                } else {
                    return None;
                }
            }
        };
        Some(Key::Named(named))
    }

    /// Whether a typed character is this key.
    pub fn is_char(self, c: char) -> bool {
        self == Key::Char(c.to_ascii_lowercase())
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Char(' ') => f.write_str("Space"),
            Key::Char(c) => write!(f, "{c}"),
            Key::Named(Named::Kp(n)) => write!(f, "Kp{n}"),
            Key::Named(Named::F(n)) => write!(f, "F{n}"),
            Key::Named(n) => write!(f, "{n:?}"),
        }
    }
}

/// One row of the table: a command, what the key file calls it, what help says it does, and
/// when it applies.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub command: Command,
    pub name: &'static str,
    pub help: &'static str,
    pub context: Context,
    pub defaults: &'static [&'static str],
}

const fn entry(
    command: Command,
    name: &'static str,
    help: &'static str,
    context: Context,
    defaults: &'static [&'static str],
) -> Entry {
    Entry {
        command,
        name,
        help,
        context,
        defaults,
    }
}

use Context::{Always, Dialog, Play};

/// Every command that has keys, with its default keys. Arrow keys and WASD on their own move
/// straight; pressed together (Up and Right) they move diagonally: every key bound to a
/// straight move combines with another one pressed at the same moment.
pub const TABLE: &[Entry] = &[
    entry(
        Command::Move(Dir::N),
        "move_n",
        "move north",
        Play,
        &["Up", "w", "k", "Kp8"],
    ),
    entry(
        Command::Move(Dir::S),
        "move_s",
        "move south",
        Play,
        &["Down", "s", "j", "Kp2"],
    ),
    entry(
        Command::Move(Dir::W),
        "move_w",
        "move west",
        Play,
        &["Left", "a", "h", "Kp4"],
    ),
    entry(
        Command::Move(Dir::E),
        "move_e",
        "move east",
        Play,
        &["Right", "d", "l", "Kp6"],
    ),
    entry(
        Command::Move(Dir::Nw),
        "move_nw",
        "move north-west",
        Play,
        &["y", "Home", "Kp7"],
    ),
    entry(
        Command::Move(Dir::Ne),
        "move_ne",
        "move north-east",
        Play,
        &["u", "PageUp", "Kp9"],
    ),
    entry(
        Command::Move(Dir::Sw),
        "move_sw",
        "move south-west",
        Play,
        &["b", "End", "Kp1"],
    ),
    entry(
        Command::Move(Dir::Se),
        "move_se",
        "move south-east",
        Play,
        &["n", "PageDown", "Kp3"],
    ),
    entry(Command::Wait, "wait", "wait a turn", Play, &[".", "Kp5"]),
    entry(
        Command::Descend,
        "descend",
        "stairs down, or walk to them",
        Play,
        &[">"],
    ),
    entry(
        Command::Ascend,
        "ascend",
        "stairs up, or walk to them",
        Play,
        &["<"],
    ),
    entry(
        Command::Explore,
        "explore",
        "explore until something happens",
        Play,
        &["x"],
    ),
    entry(
        Command::Rest,
        "rest",
        "rest until healed or disturbed",
        Play,
        &["r", "%"],
    ),
    entry(
        Command::Fight,
        "fight",
        "fight the nearest monster",
        Play,
        &["Tab"],
    ),
    entry(
        Command::Fire,
        "fire",
        "shoot or throw at a monster",
        Play,
        &["f"],
    ),
    entry(
        Command::QuickHeal,
        "quick_heal",
        "use a healing item",
        Play,
        &["q"],
    ),
    entry(
        Command::Mark,
        "mark",
        "mark a spot for friends",
        Play,
        &["'"],
    ),
    entry(
        Command::ToFriend,
        "to_friend",
        "walk to the nearest friend",
        Play,
        &["\""],
    ),
    entry(
        Command::PickUp,
        "pick_up",
        "pick up what lies here",
        Play,
        &["g", ","],
    ),
    entry(
        Command::Inventory,
        "inventory",
        "pack (inventory)",
        Always,
        &["i"],
    ),
    entry(
        Command::Character,
        "character",
        "character sheet",
        Always,
        &["c"],
    ),
    entry(
        Command::LevelUp,
        "level_up",
        "spend a stat point",
        Always,
        &["p", "+"],
    ),
    entry(
        Command::Messages,
        "messages",
        "message history",
        Always,
        &["m"],
    ),
    entry(
        Command::Talk,
        "chat",
        "chat with the dungeon",
        Always,
        &["t"],
    ),
    entry(
        Command::Scores,
        "scores",
        "high scores (after the end)",
        Dialog,
        &["Tab"],
    ),
    entry(
        Command::Help,
        "help",
        "this list of keys",
        Always,
        &["?", "F1"],
    ),
    entry(Command::Menu, "menu", "the menu", Always, &["F10"]),
    entry(
        Command::Mute,
        "mute",
        "sound off or on (volume: menu)",
        Always,
        &["v", "F8"],
    ),
    entry(
        Command::Cancel,
        "cancel",
        "close; on the map, the menu",
        Always,
        &["Escape"],
    ),
    entry(
        Command::Confirm,
        "confirm",
        "confirm; on the map, chat",
        Always,
        &["Enter", "KpEnter"],
    ),
    entry(
        Command::Follow,
        "follow",
        "watch the next living player",
        Dialog,
        &["w"],
    ),
    entry(
        Command::NewCharacter,
        "new_character",
        "new character (after the end)",
        Dialog,
        &["n"],
    ),
    entry(
        Command::Scores,
        "scores_after",
        "high scores (after the end)",
        Dialog,
        &["h"],
    ),
];

/// The keys in force: the table with the player's changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyMap {
    /// Keys of each entry of [`TABLE`], by index.
    keys: Vec<Vec<Key>>,
}

impl Default for KeyMap {
    fn default() -> Self {
        KeyMap {
            keys: TABLE
                .iter()
                .map(|e| e.defaults.iter().filter_map(|k| Key::parse(k)).collect())
                .collect(),
        }
    }
}

/// A key file that could not be read, entry by entry, so the player can fix it.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct KeyFileError(pub String);

impl KeyMap {
    /// The commands a key gives in a context. `dialog` is true in a dialog or while not
    /// driving a character; `Always` entries apply in both.
    pub fn commands(&self, key: Key, dialog: bool) -> Vec<Command> {
        let mut out = Vec::new();
        for (e, keys) in TABLE.iter().zip(&self.keys) {
            let applies = match e.context {
                Always => true,
                Play => !dialog,
                Dialog => dialog,
            };
            if applies && keys.contains(&key) && !out.contains(&e.command) {
                out.push(e.command);
            }
        }
        // Digits choose in a dialog (the level-up choices): not remappable, they are numbers.
        if dialog && let Key::Char(c @ '1'..='9') = key {
            out.push(Command::Choose(c as u8 - b'0'));
        }
        out
    }

    /// Every key bound to anything, once each (what the input code listens for).
    pub fn all_keys(&self) -> Vec<Key> {
        let mut keys: Vec<Key> = self.keys.iter().flatten().copied().collect();
        keys.sort();
        keys.dedup();
        keys
    }

    /// The keys of a command in a context, for help lines and hints.
    pub fn keys_of(&self, command: Command) -> Vec<Key> {
        TABLE
            .iter()
            .zip(&self.keys)
            .filter(|(e, _)| e.command == command)
            .flat_map(|(_, k)| k.iter().copied())
            .collect()
    }

    /// The help screen's rows: (keys, what they do), grouped as the table is.
    pub fn help_rows(&self) -> Vec<(String, &'static str)> {
        TABLE
            .iter()
            .zip(&self.keys)
            .map(|(e, keys)| {
                let names: Vec<String> = keys.iter().map(Key::to_string).collect();
                let shown = if names.is_empty() {
                    "(none)".to_string()
                } else {
                    names.join(" ")
                };
                (shown, e.help)
            })
            .collect()
    }

    /// The key file with these keys, commented, as written on first run.
    pub fn to_file(&self) -> String {
        let mut s = String::from(
            "# Delve's keys. Each line gives a command its keys: a single character (\">\", \"k\";\n\
             # letters match either case) or a key name: Up Down Left Right Home End PageUp PageDown\n\
             # Tab Enter Escape Space KpEnter Kp0..Kp9 F1..F12. Keys bound to a straight move combine\n\
             # into a diagonal when pressed together. Delete this file to get the defaults back.\n\n\
             [keys]\n",
        );
        for (e, keys) in TABLE.iter().zip(&self.keys) {
            let list: Vec<String> = keys
                .iter()
                .map(|k| {
                    let name = k.to_string();
                    let quoted = name.replace('\\', "\\\\").replace('"', "\\\"");
                    format!("\"{quoted}\"")
                })
                .collect();
            s.push_str(&format!(
                "{:<14} = [{}]   # {}\n",
                e.name,
                list.join(", "),
                e.help
            ));
        }
        s
    }

    /// Reads a key file: commands it names get its keys, the others keep their defaults. An
    /// unknown command or key name is an error naming it.
    pub fn from_file(text: &str) -> Result<KeyMap, KeyFileError> {
        #[derive(serde::Deserialize)]
        struct File {
            #[serde(default)]
            keys: BTreeMap<String, Vec<String>>,
        }
        let file: File =
            toml::from_str(text).map_err(|e| KeyFileError(format!("not a key file: {e}")))?;
        let mut map = KeyMap::default();
        for (name, names) in file.keys {
            let k = TABLE.iter().position(|e| e.name == name).ok_or_else(|| {
                KeyFileError(format!(
                    "unknown command {name:?} (see the list in the file)"
                ))
            })?;
            let mut keys = Vec::new();
            for n in &names {
                keys.push(
                    Key::parse(n)
                        .ok_or_else(|| KeyFileError(format!("{name}: unknown key {n:?}")))?,
                );
            }
            map.keys[k] = keys;
        }
        Ok(map)
    }
}

/// The player's keys from `keys.toml` in the config folder (beside `tokens.json`), written with
/// the defaults when it does not exist yet. Returns the keys and a line for the help screen:
/// where the file is, or what is wrong with it (the defaults are used then).
#[cfg(not(target_arch = "wasm32"))]
pub fn load_key_file(dir: Option<&std::path::Path>) -> (KeyMap, String) {
    let Some(dir) = dir else {
        return (
            KeyMap::default(),
            "No config folder (HOME is not set): the default keys.".into(),
        );
    };
    let path = dir.join("keys.toml");
    match std::fs::read_to_string(&path) {
        Ok(text) => match KeyMap::from_file(&text) {
            Ok(map) => (map, format!("Change the keys in {}", path.display())),
            Err(e) => {
                eprintln!("delve: {}: {e}; using the default keys", path.display());
                (
                    KeyMap::default(),
                    format!("{}: {e} (default keys in use)", path.display()),
                )
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let map = KeyMap::default();
            let written =
                std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, map.to_file()));
            match written {
                Ok(()) => (map, format!("Change the keys in {}", path.display())),
                Err(e) => (
                    map,
                    format!("Cannot write {}: {e} (default keys)", path.display()),
                ),
            }
        }
        Err(e) => (
            KeyMap::default(),
            format!("Cannot read {}: {e} (default keys)", path.display()),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ch(c: char) -> Key {
        Key::Char(c)
    }

    #[test]
    fn the_defaults_keep_the_old_keys() {
        let m = KeyMap::default();
        assert_eq!(m.commands(ch('>'), false), vec![Command::Descend]);
        assert_eq!(m.commands(ch('k'), false), vec![Command::Move(Dir::N)]);
        assert_eq!(
            m.commands(ch('K'.to_ascii_lowercase()), false),
            vec![Command::Move(Dir::N)]
        );
        assert_eq!(
            m.commands(Key::Named(Named::Kp(9)), false),
            vec![Command::Move(Dir::Ne)]
        );
        assert_eq!(m.commands(ch('x'), false), vec![Command::Explore]);
        assert_eq!(m.commands(ch('?'), false), vec![Command::Help]);
        assert_eq!(
            m.commands(Key::Named(Named::Escape), false),
            vec![Command::Cancel]
        );
        // Letters that walk while playing mean something else once the game is over.
        assert_eq!(m.commands(ch('w'), true), vec![Command::Follow]);
        assert_eq!(m.commands(ch('n'), true), vec![Command::NewCharacter]);
        assert_eq!(m.commands(ch('h'), true), vec![Command::Scores]);
        assert_eq!(m.commands(ch('3'), true), vec![Command::Choose(3)]);
        assert!(m.commands(ch('3'), false).is_empty());
        // Moves are not commands in a dialog.
        assert!(m.commands(Key::Named(Named::Up), true).is_empty());
    }

    #[test]
    fn every_command_name_is_unique_and_every_default_parses() {
        let mut names: Vec<&str> = TABLE.iter().map(|e| e.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TABLE.len());
        for e in TABLE {
            for k in e.defaults {
                assert!(Key::parse(k).is_some(), "{k}");
            }
        }
    }

    #[test]
    fn key_names_round_trip() {
        for k in KeyMap::default().all_keys() {
            assert_eq!(Key::parse(&k.to_string()), Some(k), "{k}");
        }
        assert_eq!(Key::parse("pagedown"), Some(Key::Named(Named::PageDown)));
        assert_eq!(Key::parse("Kp10"), None);
        assert_eq!(Key::parse("Q"), Some(ch('q')));
        assert_eq!(Key::parse("Banana"), None);
    }

    #[test]
    fn the_written_file_reads_back_as_the_defaults() {
        let m = KeyMap::default();
        assert_eq!(KeyMap::from_file(&m.to_file()), Ok(m));
    }

    #[test]
    fn a_file_changes_only_what_it_names() {
        let m = KeyMap::from_file("[keys]\nexplore = [\"o\", \"F5\"]\n").unwrap();
        assert_eq!(m.commands(ch('o'), false), vec![Command::Explore]);
        assert_eq!(
            m.commands(Key::Named(Named::F(5)), false),
            vec![Command::Explore]
        );
        assert!(m.commands(ch('x'), false).is_empty());
        assert_eq!(m.commands(ch('>'), false), vec![Command::Descend]);
    }

    #[test]
    fn a_bad_file_says_what_is_wrong() {
        let e = KeyMap::from_file("[keys]\nfly = [\"f\"]\n").unwrap_err();
        assert!(e.0.contains("fly"), "{e}");
        let e = KeyMap::from_file("[keys]\nwait = [\"Hyperspace\"]\n").unwrap_err();
        assert!(e.0.contains("Hyperspace"), "{e}");
        assert!(KeyMap::from_file("keys = 3 = 4").is_err());
    }

    #[test]
    fn the_key_file_is_written_on_first_run_and_read_after() {
        let dir = std::env::temp_dir().join(format!("delve-keys-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (map, note) = load_key_file(Some(&dir));
        assert_eq!(map, KeyMap::default());
        assert!(note.contains("keys.toml"), "{note}");
        let text = std::fs::read_to_string(dir.join("keys.toml")).unwrap();
        assert!(text.contains("explore"), "{text}");
        // The player changes a key: the next start uses it.
        std::fs::write(dir.join("keys.toml"), text.replace("[\"x\"]", "[\"o\"]")).unwrap();
        let (map, _) = load_key_file(Some(&dir));
        assert_eq!(map.commands(Key::Char('o'), false), vec![Command::Explore]);
        // A broken file keeps the defaults and says what is wrong.
        std::fs::write(dir.join("keys.toml"), "[keys]\nexplore = [\"Nope\"]\n").unwrap();
        let (map, note) = load_key_file(Some(&dir));
        assert_eq!(map, KeyMap::default());
        assert!(note.contains("Nope"), "{note}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn help_lists_every_entry_with_its_keys() {
        let m = KeyMap::from_file("[keys]\nexplore = [\"o\"]\n").unwrap();
        let rows = m.help_rows();
        assert_eq!(rows.len(), TABLE.len());
        assert!(rows.contains(&("o".to_string(), "explore until something happens")));
        assert!(rows.contains(&("Up w k Kp8".to_string(), "move north")));
    }
}
