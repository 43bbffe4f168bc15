//! The messages themselves: what a client may send and what the server answers.

use std::collections::BTreeMap;

use jiff::{Span, civil};
use serde::{Deserialize, Serialize};

use crate::action::Action;
use crate::diff::ViewDiff;
use crate::event::Event;
use crate::geom::Pos;
use crate::view::{Stat, View};

/// Everything a client can send. The first message on a connection must be `hello`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMsg {
    /// Opens a session: join `dungeon` as `name`, resume the character of `token`, or (with
    /// `watch`) follow another player's view without a character of your own. A `password`
    /// opens a private dungeon, or makes a new dungeon private.
    Hello {
        version: u32,
        name: String,
        dungeon: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        password: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        watch: Option<String>,
    },
    /// Before `hello`: asks for the server's dungeons (answered with `dungeons`).
    ListDungeons,
    /// Before or after `hello`: asks for the high-score table (answered with `scores`), the best
    /// `limit` games (at most 100; 20 if left out).
    Scores {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
    },
    /// Spend a stat point, at once (it takes no turn).
    LevelUp { stat: Stat },
    /// After your character died: start a new one, with the same name, in the same dungeon.
    NewCharacter,
    /// A line for everyone in the dungeon.
    Chat { text: String },
    /// Follow another player's view (`name`), or your own again (`null`). For the dead and for
    /// watchers; answered with `watching` and a snapshot.
    Watch {
        #[serde(default)]
        name: Option<String>,
    },
    /// Ask for a fresh snapshot (for example after missing an update).
    Resync,
    /// Instead of `hello`: watch finished game `game` again (answered with `replaying`, a
    /// `welcome` at its turn 0, and a view for each `seek`). A game of a private dungeon needs
    /// its `key` (from `game_over`) or the dungeon's `password`.
    Replay {
        game: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        password: Option<String>,
    },
    /// In a replay: show the character's turn `turn` (answered with an `update` when it is the
    /// turn after the one shown, else a `snapshot`).
    Seek { turn: u64 },
    /// Mark the cell `at`, `[x, y]` (one you have seen), for the friends on your floor to look
    /// at, for a few turns. At once: it takes no turn. A new mark replaces your old one.
    Mark {
        #[serde(with = "crate::action::pos_pair")]
        at: Pos,
    },
    /// What to do with this turn (`move`, `wait`, `use`, ...; see [`Action`]). Replaces any
    /// action already chosen this turn. On the wire an action is its own message: its `type` is
    /// the action's, so this variant adds no tag of its own.
    #[serde(untagged)]
    Act(#[serde(with = "crate::action::Wire")] Action),
}

/// The messages of [`ClientMsg`] that are not actions, as they are read off the wire. The
/// derived reading of `ClientMsg` tries its untagged action variant after a failed tagged one,
/// so a bad field of, say, `level_up` would come out as "data did not match any variant of
/// untagged enum ClientMsg"; read through this enum it says which field and why ("unknown
/// variant `luck`, expected one of ..."). The fields mirror `ClientMsg`'s (a test holds the two
/// to the same messages).
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Control {
    Hello {
        version: u32,
        name: String,
        dungeon: String,
        #[serde(default)]
        token: Option<String>,
        #[serde(default)]
        password: Option<String>,
        #[serde(default)]
        watch: Option<String>,
    },
    ListDungeons,
    Scores {
        #[serde(default)]
        limit: Option<u32>,
    },
    LevelUp {
        stat: Stat,
    },
    NewCharacter,
    Chat {
        text: String,
    },
    Watch {
        #[serde(default)]
        name: Option<String>,
    },
    Resync,
    Replay {
        game: u64,
        #[serde(default)]
        key: Option<String>,
        #[serde(default)]
        password: Option<String>,
    },
    Seek {
        turn: u64,
    },
    Mark {
        #[serde(with = "crate::action::pos_pair")]
        at: Pos,
    },
}

impl From<Control> for ClientMsg {
    fn from(c: Control) -> ClientMsg {
        match c {
            Control::Hello {
                version,
                name,
                dungeon,
                token,
                password,
                watch,
            } => ClientMsg::Hello {
                version,
                name,
                dungeon,
                token,
                password,
                watch,
            },
            Control::ListDungeons => ClientMsg::ListDungeons,
            Control::Scores { limit } => ClientMsg::Scores { limit },
            Control::LevelUp { stat } => ClientMsg::LevelUp { stat },
            Control::NewCharacter => ClientMsg::NewCharacter,
            Control::Chat { text } => ClientMsg::Chat { text },
            Control::Watch { name } => ClientMsg::Watch { name },
            Control::Resync => ClientMsg::Resync,
            Control::Replay {
                game,
                key,
                password,
            } => ClientMsg::Replay {
                game,
                key,
                password,
            },
            Control::Seek { turn } => ClientMsg::Seek { turn },
            Control::Mark { at } => ClientMsg::Mark { at },
        }
    }
}

impl ClientMsg {
    /// The `type` tags of the messages that are not actions, `hello` first.
    const OWN_TYPES: [&'static str; 11] = [
        "hello",
        "level_up",
        "new_character",
        "chat",
        "watch",
        "mark",
        "list_dungeons",
        "scores",
        "resync",
        "replay",
        "seek",
    ];

    /// Every `type` tag a client may send, for telling an unknown type from a malformed
    /// message: `hello`, then the actions (made from [`Action::TYPES`]), then the others.
    pub const TYPES: &'static [&'static str] = &{
        const OWN: [&str; 11] = ClientMsg::OWN_TYPES;
        const N: usize = OWN.len() + Action::TYPES.len();
        let mut all = [""; N];
        all[0] = OWN[0];
        let mut k = 0;
        while k < Action::TYPES.len() {
            all[1 + k] = Action::TYPES[k];
            k += 1;
        }
        let mut k = 1;
        while k < OWN.len() {
            all[Action::TYPES.len() + k] = OWN[k];
            k += 1;
        }
        all
    };

    /// The `type` tag of this message.
    pub fn type_name(&self) -> &'static str {
        match self {
            ClientMsg::Hello { .. } => "hello",
            ClientMsg::LevelUp { .. } => "level_up",
            ClientMsg::NewCharacter => "new_character",
            ClientMsg::Chat { .. } => "chat",
            ClientMsg::Watch { .. } => "watch",
            ClientMsg::ListDungeons => "list_dungeons",
            ClientMsg::Scores { .. } => "scores",
            ClientMsg::Resync => "resync",
            ClientMsg::Replay { .. } => "replay",
            ClientMsg::Seek { .. } => "seek",
            ClientMsg::Mark { .. } => "mark",
            ClientMsg::Act(action) => action.type_name(),
        }
    }
}

/// A one-line description of every kind of monster and of item, by content key (the `monster`
/// and `item` keys of [`crate::EntityView`]), so a client can say what something is.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Descriptions {
    #[serde(default)]
    pub monsters: BTreeMap<String, String>,
    #[serde(default)]
    pub items: BTreeMap<String, String>,
}

impl Descriptions {
    pub fn is_empty(&self) -> bool {
        self.monsters.is_empty() && self.items.is_empty()
    }
}

/// Everything the server can send.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// The answer to a good `hello`: who you are, how to come back, and your first snapshot.
    Welcome {
        protocol_version: u32,
        player_id: u32,
        /// Secret that resumes this character later (send it in `hello.token`). Keep it private.
        /// Absent for a watcher, who has no character.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
        dungeon: String,
        /// Milliseconds a floor waits after its first choice before resolving; 0 = waits for all.
        turn_timeout_ms: u64,
        /// What one stat point adds to each stat, for the level-up dialog.
        level_up: Vec<StatGain>,
        /// For a watcher (a `hello` with `watch`): whose view this is. Absent for a player.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        watching: Option<String>,
        /// Sequence number of this snapshot; the next update carries `seq + 1`.
        seq: u64,
        view: View,
        /// One line about each kind of monster and item, for the client to show on hover.
        /// Optional: older servers do not send it.
        #[serde(default, skip_serializing_if = "Descriptions::is_empty")]
        descriptions: Descriptions,
    },
    /// A full view that replaces whatever the client had (after a floor change, a resync, or
    /// when the client fell behind). The next update carries `seq + 1`.
    Snapshot { seq: u64, view: View },
    /// One resolved turn (or a change between turns, such as someone arriving): apply `diff` to
    /// the view of sequence `seq - 1`, then play `events`.
    Update {
        seq: u64,
        turn: u64,
        diff: ViewDiff,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        events: Vec<Event>,
    },
    /// The answer to `list_dungeons`.
    Dungeons { dungeons: Vec<DungeonInfo> },
    /// The answer to `scores`: the best games this server remembers, best first.
    Scores { entries: Vec<ScoreEntry> },
    /// Whose view follows from now on (the answer to `watch`); `null` for your own.
    Watching { name: Option<String> },
    /// Who the floor's next turn is waiting for. Sent when a player on your floor chooses.
    TurnStatus {
        /// The turn being chosen (the next update will carry this number).
        turn: u64,
        /// Names of the players on your floor who have not chosen yet.
        waiting_for: Vec<String>,
        /// Milliseconds until the turn resolves anyway; `null` when it waits for everyone.
        timeout_ms: Option<u64>,
    },
    /// The server cannot save this dungeon's turns (a full disk, a database locked by another
    /// program), so the dungeon waits (`paused: true`): no turn resolves and nothing you do
    /// takes effect until it can save again, which it keeps trying by itself. Then the same
    /// message comes with `paused: false` and play goes on. No turn is ever shown that is not
    /// saved.
    Pause { paused: bool, message: String },
    /// Your character's game just ended and is recorded: where its page is (a path on the
    /// server's HTTP port, `/games/ID`), where its replay is (when the server keeps one), and
    /// its character dump as text, with a file name to keep it under.
    GameOver {
        game: u64,
        page: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        replay: Option<String>,
        file: String,
        dump: String,
    },
    /// The answer to `replay`: which game is played back, and its last turn (the replay runs
    /// from turn 0 to `turns`). A `welcome` with the view at turn 0 follows.
    Replaying {
        game: u64,
        name: String,
        dungeon: String,
        turns: u64,
        outcome: String,
        victory: bool,
        score: u32,
        /// When the game ended, in seconds since 1970 (UTC).
        ended: u64,
    },
    /// Something the server could not do. The connection stays open unless a close follows.
    /// `reason` says which rule refused an action or a character, when one did.
    Error {
        code: ErrorCode,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<Reason>,
    },
}

/// Which rule refused an action or a character: one stable code per rule, beside the broader
/// [`ErrorCode`] (`rejected`, `cannot_act`, ...) that older clients already handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// A wall is in the way of the step.
    Wall,
    /// The step would leave the map.
    OffMap,
    /// `descend`/`ascend` away from the matching stairs.
    NoStairs,
    /// `ascend` on floor 1: the way up is sealed.
    NoWayUp,
    /// The character is not on a floor now (lifted out, or not joined).
    NotPresent,
    /// The character is dead.
    Dead,
    /// The character's game ended in victory.
    Won,
    /// `level_up` without a point to spend.
    NoPoints,
    /// A locked door and no Key in the pack.
    Locked,
    /// The item is not in the pack.
    NotCarried,
    /// The pack is full.
    PackFull,
    /// `pick_up` where nothing lies.
    NothingHere,
    /// `equip` of something that is not worn.
    NotWearable,
    /// `unequip` of something not worn now.
    NotWorn,
    /// `equip` of something already worn.
    AlreadyWorn,
    /// `use` of something that cannot be used.
    NotUsable,
    /// `use` of a Key: keys open doors by walking into them.
    KeyNotUsable,
    /// `use` of a healing item at full health.
    FullHealth,
    /// `use` of an antidote without poison.
    NotPoisoned,
    /// Pack handling while stunned.
    Stunned,
    /// Pack handling while confused.
    Confused,
    /// The stairs' far end is blocked (told when the turn comes).
    StairsBlocked,
    /// The name is taken in this dungeon.
    NameTaken,
    /// No free place to arrive on floor 1.
    NoRoom,
    /// `new_character` while the character still lives.
    StillAlive,
    /// The character is not in the dungeon.
    UnknownCharacter,
    /// `rest` with a monster in sight.
    MonsterInSight,
    /// `rest` with full HP and no status effect: nothing to rest for.
    Rested,
    /// `throw` of something that is not thrown.
    NotThrowable,
    /// `fire` without a weapon that shoots.
    NoRangedWeapon,
    /// `throw` or `fire` at your own cell.
    OwnCell,
    /// `throw` or `fire` at a cell you do not see.
    OutOfSight,
    /// `throw` or `fire` beyond the range of what flies.
    OutOfRange,
    /// `use` of something that clears the head (Smelling Salts) while not stunned or confused.
    ClearHead,
    /// `give` or `use_on` naming no character of the party on your floor.
    NoSuchFriend,
    /// `give` or `use_on` naming yourself.
    Yourself,
    /// `give` or `use_on` to a friend (or remains) not next to you.
    NotNextTo,
    /// `use_on` of something that does nothing for a friend (a Pocket Teleporter), or of
    /// anything but a Health Pack on a fallen friend's remains.
    NotForFriend,
    /// `use_on` of a Health Pack on a fallen friend too late to bring back.
    TooLate,
    /// `give` to a friend who has fallen.
    FriendFallen,
    /// `mark` of a cell you have never seen.
    UnknownCell,
}

/// One dungeon in the lobby. A private dungeon shows only its name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DungeonInfo {
    pub name: String,
    pub private: bool,
    /// Players online; `null` for a private dungeon.
    pub online: Option<u32>,
    /// The deepest floor any character has reached; `null` for a private dungeon.
    pub deepest: Option<u8>,
    /// Who is playing there now, and who watches them: for a loaded public dungeon whose
    /// server lists its live games. Left out when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub players: Vec<LivePlayer>,
}

/// A player connected to a dungeon, as the lobby lists it: a click watches them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LivePlayer {
    pub name: String,
    /// The floor they are on.
    pub depth: u8,
    pub level: u32,
    /// `false` once their character has died (they may be watching a friend).
    pub alive: bool,
    /// The names of those watching them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub watchers: Vec<String>,
}

/// One finished game in the high-score table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreEntry {
    pub name: String,
    /// XP, plus a bonus per floor reached and per kill, plus a big one for a victory (the
    /// server's content file says how much).
    pub score: u32,
    pub level: u32,
    pub deepest: u8,
    pub kills: u32,
    pub turns: u64,
    /// `true` if the Mouse King fell while the character lived.
    pub victory: bool,
    /// How the game ended: "killed by a Rabid Mouse on floor 6", or "won".
    pub outcome: String,
    pub dungeon: String,
    /// When it ended, in seconds since 1970 (UTC).
    pub ended: u64,
    /// The game's id: its page is `/games/ID` on the server's HTTP port. Absent for games the
    /// server recorded before it kept pages, and in a solo game's own table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<u64>,
}

/// `secs` (seconds since 1970, UTC) as YYYY-MM-DD: how score dates are shown, by the client
/// and by `delve-server scores` alike.
pub fn utc_date(secs: u64) -> String {
    // Whole days after 1970-01-01 rather than a jiff `Timestamp`: a timestamp's range stops a
    // day short of the calendar's last day so that it fits every time zone, and UTC needs none.
    // Past 9999-12-31 (no real score is) shows that day rather than failing.
    let date = i64::try_from(secs / 86_400)
        .ok()
        .and_then(|days| Span::new().try_days(days).ok())
        .and_then(|days| civil::date(1970, 1, 1).checked_add(days).ok())
        .unwrap_or(civil::Date::MAX);
    format!("{:04}-{:02}-{:02}", date.year(), date.month(), date.day())
}

/// Most score entries one `scores` answer holds.
pub const MAX_SCORES: u32 = 100;

/// What one stat point spent on `stat` adds to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatGain {
    pub stat: Stat,
    pub amount: i32,
}

/// Stable, machine-readable error codes. The `message` beside them is for people.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The client speaks another protocol version. Sent before closing.
    BadVersion,
    /// The frame was not JSON, or not a JSON object with a string `type`.
    Malformed,
    /// The `type` is not one this server knows.
    UnknownType,
    /// The `type` is known but its fields are missing or wrong.
    BadFields,
    /// Something other than `hello` came first, or `hello` came twice.
    BadHandshake,
    /// The player name is empty, too long or has characters that are not allowed.
    BadName,
    /// The dungeon name is empty, too long or has characters that are not allowed.
    BadDungeon,
    /// The resume token matches no character in that dungeon.
    BadToken,
    /// The dungeon is private and the password is missing or wrong.
    BadPassword,
    /// Nobody of that name is in the dungeon (for `watch`).
    NoSuchPlayer,
    /// Someone in this dungeon already has that name.
    NameTaken,
    /// The dungeon has as many players as it allows.
    DungeonFull,
    /// The server has as many connections or dungeons as it allows.
    ServerFull,
    /// Too many messages too fast; this one was dropped. Also: too many new characters from
    /// one address in a dungeon for now.
    RateLimited,
    /// A frame larger than the server accepts. Sent before closing.
    TooLarge,
    /// Binary frames are not part of the protocol.
    BinaryFrame,
    /// The action breaks a rule (a wall in the way, ...). Nothing changed.
    Rejected,
    /// The character cannot act now (not in the dungeon yet, dead, won, or too stunned or
    /// confused to handle its pack).
    CannotAct,
    /// The item named is not in your pack.
    NoSuchItem,
    /// Your pack holds as many items as it can (26).
    PackFull,
    /// This session was taken over by a newer connection with the same token.
    Replaced,
    /// The server is shutting down.
    ShuttingDown,
    /// The server failed; not your fault.
    Internal,
    /// No game with that id is kept, or it is not shown to you (a private dungeon's game
    /// without its key or password).
    NoSuchGame,
    /// The game is kept but cannot be replayed (its replay expired, or the server plays it
    /// out differently now); the message says which.
    NoReplay,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates_read_as_yyyy_mm_dd() {
        for (secs, date) in [
            (0, "1970-01-01"),
            (86_399, "1970-01-01"),
            (86_400, "1970-01-02"),
            (951_782_400, "2000-02-29"),
            (1_700_000_000, "2023-11-14"),
            (4_107_542_399, "2100-02-28"),
            (4_107_542_400, "2100-03-01"),
            (253_402_300_799, "9999-12-31"),
            // Past the calendar's end: its last day, not a panic.
            (u64::MAX, "9999-12-31"),
        ] {
            assert_eq!(utc_date(secs), date, "{secs}");
        }
    }

    #[test]
    fn every_day_follows_the_one_before() {
        // Walk 1970..2400 day by day: each date is the day after the last, at any second of it.
        let (mut y, mut m, mut d) = (1970, 1, 1);
        for day in 0..(430 * 366) {
            let secs = day * 86_400 + day % 86_400;
            assert_eq!(utc_date(secs), format!("{y:04}-{m:02}-{d:02}"), "day {day}");
            let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
            let len = match m {
                2 if leap => 29,
                2 => 28,
                4 | 6 | 9 | 11 => 30,
                _ => 31,
            };
            d += 1;
            if d > len {
                d = 1;
                m += 1;
            }
            if m > 12 {
                m = 1;
                y += 1;
            }
        }
    }
}
