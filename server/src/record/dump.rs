//! The character dump: what a finished game was, in the manner of Crawl's morgue files. Kept as
//! JSON in the game's row (`GET /api/games/ID` serves it as it is) and shown as plain text
//! (`/games/ID.txt`, the client's local copy) or as a page (`/games/ID`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use delve_protocol::{ItemView, SelfView, Slot};
use serde::{Deserialize, Serialize};

/// How many of the last lines the character was told a dump keeps.
pub const LAST_LINES: usize = 24;

/// The shape of [`GameDump`]; bumped when a field changes meaning.
pub const DUMP_VERSION: u32 = 1;

/// A finished game, as its dump tells it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameDump {
    pub version: u32,
    pub name: String,
    pub dungeon: String,
    /// How it ended: "killed by a Rabid Mouse on floor 6", or "won".
    pub outcome: String,
    pub victory: bool,
    pub score: u32,
    pub level: u32,
    pub xp: u32,
    pub deepest: u8,
    pub kills: u32,
    pub turns: u64,
    /// Unix seconds, when known.
    pub started: Option<i64>,
    pub ended: i64,
    /// The character as it was before the blow that killed it (for a victory, at the end).
    pub stats: DumpStats,
    /// Worn, as before the death.
    pub equipment: Vec<DumpItem>,
    /// Carried and not worn, as before the death.
    pub pack: Vec<DumpItem>,
    /// Status effects on it at the end ("poison").
    pub effects: Vec<String>,
    /// Monsters it killed over its whole life, by kind, most first.
    pub kills_by_kind: Vec<KindCount>,
    /// Each floor it reached, and the turn of its life it first got there.
    pub floors: Vec<FloorReached>,
    /// The last lines the game told it, oldest first.
    pub messages: Vec<String>,
    /// `false` when the dump was made from the character's state at the end alone (a character
    /// made before this server kept games): kills by kind, floors and messages are then unknown,
    /// and the pack is what was left after the death.
    pub complete: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DumpStats {
    pub hp: i32,
    pub max_hp: i32,
    pub attack_min: i32,
    pub attack_max: i32,
    pub defence: i32,
    /// Saving throw, in percent.
    pub save: i32,
    pub sight: i32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DumpItem {
    pub name: String,
    /// "weapon", "armour" or "chip" for what is worn in a slot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot: Option<String>,
    /// What it adds while worn, in words ("+3 max attack"); empty when nothing.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub bonus: String,
    pub count: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindCount {
    pub kind: String,
    pub count: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FloorReached {
    pub depth: u8,
    pub turn: u64,
}

fn slot_name(slot: Slot) -> &'static str {
    match slot {
        Slot::Weapon => "weapon",
        Slot::Armour => "armour",
        Slot::Microchip => "chip",
    }
}

impl DumpStats {
    pub fn of(me: &SelfView) -> DumpStats {
        DumpStats {
            hp: me.hp,
            max_hp: me.max_hp,
            attack_min: me.attack_min,
            attack_max: me.attack_max,
            defence: me.defence,
            save: me.save,
            sight: me.sight,
        }
    }
}

/// The worn items and the rest of the pack, from a view's inventory.
pub fn kit(inventory: &[ItemView]) -> (Vec<DumpItem>, Vec<DumpItem>) {
    let item = |i: &ItemView| DumpItem {
        name: i.name.to_string(),
        slot: i
            .equipped
            .then_some(i.slot)
            .flatten()
            .map(|s| slot_name(s).to_string()),
        bonus: i.bonus.words(),
        count: i.count.max(1),
    };
    let worn = inventory.iter().filter(|i| i.equipped).map(item).collect();
    let pack = inventory.iter().filter(|i| !i.equipped).map(item).collect();
    (worn, pack)
}

/// Kills by kind, most first, then by name.
pub fn kills_sorted(kills: &BTreeMap<String, u32>) -> Vec<KindCount> {
    let mut out: Vec<KindCount> = kills
        .iter()
        .map(|(kind, count)| KindCount {
            kind: kind.clone(),
            count: *count,
        })
        .collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then(a.kind.cmp(&b.kind)));
    out
}

/// "Killed by a Rabid Mouse on floor 6." / "Won: the Mouse King is slain."
pub fn ending_sentence(outcome: &str, victory: bool) -> String {
    if victory {
        return "Won: the Mouse King is slain.".to_string();
    }
    let mut c = outcome.chars();
    let first: String = c
        .next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_else(|| "Died".to_string());
    format!("{first}.")
}

/// A YYYY-MM-DD HH:MM (UTC) time, or "?" when unknown.
pub fn when(secs: Option<i64>) -> String {
    match secs.and_then(|s| u64::try_from(s).ok()) {
        Some(s) => format!(
            "{} {:02}:{:02} UTC",
            delve_protocol::utc_date(s),
            (s % 86_400) / 3_600,
            (s % 3_600) / 60
        ),
        None => "?".to_string(),
    }
}

impl GameDump {
    /// The dump as plain text (`/games/ID.txt`, the client's local copy).
    pub fn text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "Delve character dump: {}", self.name);
        let _ = writeln!(
            s,
            "Dungeon {}; started {}, ended {}\n",
            self.dungeon,
            when(self.started),
            when(Some(self.ended))
        );
        let _ = writeln!(s, "{}", ending_sentence(&self.outcome, self.victory));
        let _ = writeln!(
            s,
            "Score {}   level {}   deepest floor {}   {} kills   {} turns\n",
            self.score, self.level, self.deepest, self.kills, self.turns
        );
        let st = &self.stats;
        let _ = writeln!(
            s,
            "Stats{}",
            if self.victory || !self.complete {
                ""
            } else {
                " (before the last blow)"
            }
        );
        let _ = writeln!(s, "  HP            {} / {}", st.hp.max(0), st.max_hp);
        let _ = writeln!(s, "  Attack        {}-{}", st.attack_min, st.attack_max);
        let _ = writeln!(s, "  Defence       {}", st.defence);
        let _ = writeln!(s, "  Saving throw  {}%", st.save);
        let _ = writeln!(s, "  Sight         {}", st.sight);
        let _ = writeln!(s, "  Experience    {}", self.xp);
        if !self.effects.is_empty() {
            let _ = writeln!(s, "  Suffering     {}", self.effects.join(", "));
        }
        let _ = writeln!(s, "\nEquipment");
        if self.equipment.is_empty() {
            let _ = writeln!(s, "  nothing");
        }
        for i in &self.equipment {
            let slot = i.slot.as_deref().unwrap_or("");
            if i.bonus.is_empty() {
                let _ = writeln!(s, "  {slot:<8} {}", i.name);
            } else {
                let _ = writeln!(s, "  {slot:<8} {}  ({})", i.name, i.bonus);
            }
        }
        let _ = writeln!(s, "\nPack");
        if self.pack.is_empty() {
            let _ = writeln!(s, "  empty");
        }
        for i in &self.pack {
            if i.count > 1 {
                let _ = writeln!(s, "  {} x{}", i.name, i.count);
            } else {
                let _ = writeln!(s, "  {}", i.name);
            }
        }
        if !self.complete {
            let _ = writeln!(
                s,
                "\n(This character was made before the server kept whole games: its kills by \
                 kind, floors and last messages are not known, and the pack is what was left.)"
            );
            return s;
        }
        let _ = writeln!(s, "\nKills by kind");
        if self.kills_by_kind.is_empty() {
            let _ = writeln!(s, "  none");
        }
        for k in &self.kills_by_kind {
            let _ = writeln!(s, "  {:>4}  {}", k.count, k.kind);
        }
        let _ = writeln!(s, "\nFloors");
        for f in &self.floors {
            let _ = writeln!(s, "  floor {:<3} reached on turn {}", f.depth, f.turn);
        }
        let _ = writeln!(s, "\nLast messages");
        for line in &self.messages {
            let _ = writeln!(s, "  {line}");
        }
        s
    }

    /// A file name for the dump: the character's and the dungeon's names (letters and digits)
    /// and the turns it lived.
    pub fn file_name(&self) -> String {
        let clean = |s: &str, or: &str| {
            let c: String = s
                .chars()
                .filter(|c| c.is_ascii_alphanumeric())
                .collect::<String>()
                .to_lowercase();
            if c.is_empty() { or.to_string() } else { c }
        };
        format!(
            "{}-{}-{}.txt",
            clean(&self.name, "character"),
            clean(&self.dungeon, "dungeon"),
            self.turns
        )
    }
}
