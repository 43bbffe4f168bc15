//! The game's content: monsters and every tuning number, read from a TOML data file
//! (`server/content/delve.toml`, built into the server as the default) and checked before use.
//!
//! Parsing takes text, not a path: reading the file is the shell's job, so the engine stays
//! free of IO. Every problem is reported with the file, the entry and the field at fault.

use std::sync::Arc;

use delve_protocol::{Bonus, Slot};
use serde::Deserialize;

/// The content built into the server.
pub const BUILTIN: &str = include_str!("../../content/delve.toml");
/// How the built-in content is named in messages.
pub const BUILTIN_NAME: &str = "server/content/delve.toml (built in)";

/// What went wrong with a content file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContentError {
    /// The file is not valid TOML, or a field is missing, unknown or of the wrong type.
    #[error("{file}: {message}")]
    Syntax { file: String, message: String },
    /// A value is out of range or inconsistent with another.
    #[error("{file}: {entry}: field `{field}`: {problem}")]
    Invalid {
        file: String,
        entry: String,
        field: String,
        problem: String,
    },
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Content {
    pub dungeon: DungeonRules,
    pub player: PlayerRules,
    pub levels: LevelRules,
    pub level_up: LevelUpRules,
    pub combat: CombatRules,
    pub xp: XpRules,
    pub spawn: SpawnRules,
    pub effects: EffectRules,
    pub score: ScoreRules,
    pub placement: PlacementRules,
    /// Playing together: away players, revivals, marks, monsters grown for a party.
    #[serde(default)]
    pub party: super::party::PartyRules,
    #[serde(rename = "monster")]
    pub monsters: Vec<MonsterKind>,
    #[serde(rename = "item")]
    pub items: Vec<ItemKind>,
    /// SHA-256 of the file's text, in hex: a saved dungeon remembers which content it was
    /// played with, since replaying its journal with other numbers would go differently.
    #[serde(skip)]
    pub source_hash: String,
}

/// A chance of `n` in `d`, written `[n, d]`.
pub type Odds = [u32; 2];

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EffectRules {
    pub chance: Odds,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoreRules {
    pub per_floor: u32,
    pub per_kill: u32,
    pub victory: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlacementRules {
    pub loose: [u32; 2],
    pub alcove: Odds,
    pub door_corridor: u32,
    pub locked: Odds,
    /// Items in every alcove behind a locked door, drawn by `vault_weight`.
    pub vault: [u32; 2],
    pub chip_tweaks_per_floor: u32,
}

/// What `use` does with an item: the protocol's own type, so the content file's words
/// (`use = "heal"`) are the ones each item's view carries to clients.
pub use delve_protocol::ItemUse;

/// Something that flies, as the content file writes it (`thrown = { damage = [2, 5], range = 6 }`
/// for an item thrown, `fires = { ... }` for a weapon or a monster that shoots): it goes in a
/// line from its thrower to the cell aimed at, and stops at the first creature, wall or shut
/// door on the way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Missile {
    /// The damage of a hit, a roll between the two (both included); `[0, 0]` for none.
    #[serde(default)]
    pub damage: [i32; 2],
    /// How far it goes, in tiles, measured as sight is.
    pub range: i32,
    /// Where it stops, a blast of this radius strikes every creature it reaches (walls and shut
    /// doors shelter), with no roll to hit; 0 for a missile that strikes the creature it hits.
    #[serde(default)]
    pub blast: i32,
    /// Monsters it strikes lose this many turns, dazed; players it strikes are stunned.
    #[serde(default)]
    pub daze: u32,
    /// The thrown item lies where it stopped, to be picked up again (a Dart); otherwise it is
    /// used up.
    #[serde(default)]
    pub lands: bool,
}

/// What an item adds while worn, as written in the content file.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BonusSpec {
    #[serde(default)]
    pub max_hp: i32,
    #[serde(default)]
    pub attack_min: i32,
    #[serde(default)]
    pub attack_max: i32,
    #[serde(default)]
    pub defence: i32,
    #[serde(default)]
    pub save: i32,
    #[serde(default)]
    pub sight: i32,
}

impl BonusSpec {
    pub fn to_bonus(self) -> Bonus {
        Bonus {
            max_hp: self.max_hp,
            attack_min: self.attack_min,
            attack_max: self.attack_max,
            defence: self.defence,
            save: self.save,
            sight: self.sight,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemKind {
    /// Stable identifier, sent to clients so they can pick a sprite.
    pub key: Arc<str>,
    pub name: Arc<str>,
    pub glyph: String,
    pub description: Arc<str>,
    #[serde(default, rename = "use")]
    pub use_: ItemUse,
    #[serde(default)]
    pub heal_percent: i32,
    #[serde(default)]
    pub slot: Option<Slot>,
    #[serde(default)]
    pub bonus: BonusSpec,
    #[serde(default)]
    pub chip: bool,
    pub weight: u32,
    #[serde(default)]
    pub loose: bool,
    /// For a weapon: the effect its damaging hits may strike, on monsters too (only `stun`
    /// for now), with a chance of `inflict_chance[0]` in `inflict_chance[1]` a hit.
    #[serde(default)]
    pub inflicts: Inflicts,
    #[serde(default)]
    pub inflict_chance: Odds,
    /// For what is thrown (`use = "throw"`): what it does when it flies.
    #[serde(default)]
    pub thrown: Option<Missile>,
    /// For a weapon that shoots (a Slingshot): its shot, with `fire`.
    #[serde(default)]
    pub fires: Option<Missile>,
    /// How many are found together, a roll between the two (Darts come in handfuls).
    #[serde(default = "one_each")]
    pub found: [u32; 2],
    /// How often it is the loot behind a locked door, compared with the others (0: never).
    #[serde(default)]
    pub vault_weight: u32,
    /// For a teleporter: the least distance, in tiles, it carries you.
    #[serde(default)]
    pub distance: i32,
}

fn one_each() -> [u32; 2] {
    [1, 1]
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DungeonRules {
    pub floors: u8,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerRules {
    pub hp: i32,
    pub hp_per_level: i32,
    pub defence: i32,
    pub defence_per_level: i32,
    pub attack_min: i32,
    pub attack_min_per_level: i32,
    pub attack_max: i32,
    pub attack_max_per_level: f64,
    pub save: i32,
    pub save_per_level: f64,
    pub sight: i32,
    pub regen_turns: u32,
    /// HP natural healing brings back each time, in percent of the maximum (at least 1).
    #[serde(default)]
    pub regen_percent: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelRules {
    pub step: u32,
    pub growth: u32,
    pub max_level: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelUpRules {
    pub max_hp: i32,
    pub attack: i32,
    pub defence: i32,
    pub sight: i32,
    pub save: i32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CombatRules {
    pub hit_base: i32,
    pub hit_per_defence: i32,
    pub hit_min: i32,
    pub hit_max: i32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct XpRules {
    pub level_step: f64,
    pub factor_min: f64,
    pub factor_max: f64,
    pub player_value_per_level: u32,
    pub pickup: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpawnRules {
    pub count: u32,
    pub count_per_floor: u32,
    pub safe_distance: u32,
    /// A wandering monster arrives on a floor every this many of its turns (0: never), while
    /// the floor holds fewer monsters than it was made with.
    #[serde(default)]
    pub wander_every: u32,
    /// A wanderer arrives out of every player's sight, at least this many tiles from each.
    #[serde(default)]
    pub wander_distance: u32,
}

/// The status effect a monster's hits (or a weapon's) can inflict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Inflicts {
    #[default]
    None,
    Stun,
    Poison,
    Confusion,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MonsterKind {
    /// Stable identifier, sent to clients so they can pick a sprite.
    pub key: Arc<str>,
    pub name: Arc<str>,
    /// One character for text displays.
    pub glyph: String,
    pub hp: [i32; 2],
    pub defence: i32,
    pub attack: [i32; 2],
    pub sight: i32,
    pub xp: u32,
    pub inflicts: Inflicts,
    pub floors: [u8; 2],
    pub weight: u32,
    #[serde(default)]
    pub boss: bool,
    /// One line saying what it is, shown when the mouse is over one.
    pub description: Arc<str>,
    /// A monster that shoots: its shot. It keeps its distance and shoots when its line is clear.
    #[serde(default)]
    pub fires: Option<Missile>,
    /// A monster that calls for help: when it first sees a player, and again when it flees, the
    /// monsters within this radius (walls do not stop a squeak) hunt where it saw the player.
    #[serde(default)]
    pub calls: i32,
    /// Below this share of its HP, in percent, it flees from the player it sees.
    #[serde(default)]
    pub flees_below: i32,
}

impl Content {
    /// The one-line description of every kind of monster and item, for clients to show.
    pub fn descriptions(&self) -> delve_protocol::Descriptions {
        delve_protocol::Descriptions {
            monsters: self
                .monsters
                .iter()
                .map(|m| (m.key.to_string(), m.description.to_string()))
                .collect(),
            items: self
                .items
                .iter()
                .map(|i| (i.key.to_string(), i.description.to_string()))
                .collect(),
        }
    }

    /// The content built into the server.
    pub fn builtin() -> Content {
        // The built-in file is checked by a unit test, so this cannot fail in a tested build.
        Content::parse(BUILTIN, BUILTIN_NAME).unwrap_or_else(|e| panic!("built-in content: {e}"))
    }

    /// Parses and checks content text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Content, ContentError> {
        let mut content: Content = toml::from_str(text).map_err(|e| ContentError::Syntax {
            file: file.to_owned(),
            message: e.to_string().trim_end().to_owned(),
        })?;
        content.validate(file)?;
        use sha2::Digest;
        content.source_hash = sha2::Sha256::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Ok(content)
    }

    /// The built-in content with no monsters on floors 1 to 9: for tests about movement,
    /// sight and turns that monsters would only disturb.
    pub fn builtin_without_monsters() -> Content {
        let mut c = Content::builtin();
        c.spawn.count = 0;
        c.spawn.count_per_floor = 0;
        c
    }

    /// The item kind with this key.
    pub fn item(&self, key: &str) -> Option<&ItemKind> {
        self.items.iter().find(|i| *i.key == *key)
    }

    /// The index of the item kind with this key.
    pub fn item_index(&self, key: &str) -> Option<usize> {
        self.items.iter().position(|i| *i.key == *key)
    }

    /// The monster kind with this key.
    pub fn monster(&self, key: &str) -> Option<&MonsterKind> {
        self.monsters.iter().find(|m| *m.key == *key)
    }

    fn validate(&self, file: &str) -> Result<(), ContentError> {
        let bad = |entry: &str, field: &str, problem: String| invalid(file, entry, field, problem);
        let at_least = |entry: &str, field: &str, v: i64, min: i64| {
            if v < min {
                Err(bad(
                    entry,
                    field,
                    format!("{v} is below the minimum of {min}"),
                ))
            } else {
                Ok(())
            }
        };
        let floors = self.dungeon.floors;
        at_least("[dungeon]", "floors", floors.into(), 1)?;
        let p = &self.player;
        at_least("[player]", "hp", p.hp.into(), 1)?;
        at_least("[player]", "attack_min", p.attack_min.into(), 1)?;
        if p.attack_max < p.attack_min {
            return Err(bad(
                "[player]",
                "attack_max",
                format!("{} is below attack_min {}", p.attack_max, p.attack_min),
            ));
        }
        at_least("[player]", "sight", p.sight.into(), 1)?;
        for (field, v) in [
            ("hp_per_level", p.hp_per_level),
            ("defence", p.defence),
            ("defence_per_level", p.defence_per_level),
            ("attack_min_per_level", p.attack_min_per_level),
            ("save", p.save),
        ] {
            at_least("[player]", field, v.into(), 0)?;
        }
        for (field, v) in [
            ("attack_max_per_level", p.attack_max_per_level),
            ("save_per_level", p.save_per_level),
        ] {
            if !(0.0..=1000.0).contains(&v) {
                return Err(bad(
                    "[player]",
                    field,
                    format!("{v} is not between 0 and 1000"),
                ));
            }
        }
        at_least("[levels]", "step", self.levels.step.into(), 1)?;
        at_least("[levels]", "max_level", self.levels.max_level.into(), 1)?;
        let c = &self.combat;
        if !(0..=100).contains(&c.hit_min)
            || !(0..=100).contains(&c.hit_max)
            || c.hit_min > c.hit_max
        {
            return Err(bad(
                "[combat]",
                "hit_min",
                format!(
                    "hit_min {} and hit_max {} must satisfy 0 <= hit_min <= hit_max <= 100",
                    c.hit_min, c.hit_max
                ),
            ));
        }
        let x = &self.xp;
        if !(x.factor_min > 0.0 && x.factor_min <= x.factor_max) {
            return Err(bad(
                "[xp]",
                "factor_min",
                format!(
                    "factor_min {} and factor_max {} must satisfy 0 < factor_min <= factor_max",
                    x.factor_min, x.factor_max
                ),
            ));
        }
        if self.monsters.is_empty() {
            return Err(bad("[[monster]]", "key", "there are no monsters".into()));
        }
        for (i, m) in self.monsters.iter().enumerate() {
            let entry = format!("[[monster]] #{} ({:?})", i + 1, m.key);
            let taken = self.monsters[..i].iter().any(|o| o.key == m.key);
            check_entry(file, &entry, "monster", &m.key, taken, &m.name, &m.glyph)?;
            if m.description.trim().is_empty() || m.description.contains('\n') {
                return Err(bad(
                    &entry,
                    "description",
                    "must be one line of text".into(),
                ));
            }
            if m.hp[0] < 1 || m.hp[0] > m.hp[1] {
                return Err(bad(
                    &entry,
                    "hp",
                    format!("{:?} must be [min, max] with 1 <= min <= max", m.hp),
                ));
            }
            if m.attack[0] < 1 || m.attack[0] > m.attack[1] {
                return Err(bad(
                    &entry,
                    "attack",
                    format!("{:?} must be [min, max] with 1 <= min <= max", m.attack),
                ));
            }
            at_least(&entry, "defence", m.defence.into(), 0)?;
            at_least(&entry, "sight", m.sight.into(), 1)?;
            if m.floors[0] < 1 || m.floors[0] > m.floors[1] || m.floors[1] > floors {
                return Err(bad(
                    &entry,
                    "floors",
                    format!(
                        "{:?} must be [first, last] with 1 <= first <= last <= {floors}",
                        m.floors
                    ),
                ));
            }
            at_least(&entry, "weight", m.weight.into(), 1)?;
            if let Some(shot) = m.fires {
                self.check_missile(file, &entry, "fires", shot)?;
                if shot.blast > 0 || shot.lands {
                    return Err(bad(
                        &entry,
                        "fires",
                        "a monster's shot has no blast and leaves nothing lying".into(),
                    ));
                }
            }
            at_least(&entry, "calls", m.calls.into(), 0)?;
            if !(0..=100).contains(&m.flees_below) {
                return Err(bad(
                    &entry,
                    "flees_below",
                    format!("{} is not a percentage", m.flees_below),
                ));
            }
        }
        self.validate_items(file)?;
        let pr = &self.party;
        for (field, v, max) in [
            ("revive_hp_percent", pr.revive_hp_percent, 100),
            ("revive_xp_loss_percent", pr.revive_xp_loss_percent, 100),
            ("monster_hp_per_friend", pr.monster_hp_per_friend, 1000),
            ("boss_hp_per_friend", pr.boss_hp_per_friend, 1000),
            (
                "monster_damage_per_friend",
                pr.monster_damage_per_friend,
                1000,
            ),
            ("wanderers_per_friend", pr.wanderers_per_friend, 1000),
        ] {
            if v > max {
                return Err(bad("[party]", field, format!("{v} is above {max}")));
            }
        }
        at_least(
            "[party]",
            "revive_hp_percent",
            pr.revive_hp_percent.into(),
            1,
        )?;
        let bosses: Vec<&MonsterKind> = self.monsters.iter().filter(|m| m.boss).collect();
        if bosses.len() > 1 {
            return Err(bad(
                &format!("[[monster]] {:?}", bosses[1].key),
                "boss",
                "only one monster can be the boss".into(),
            ));
        }
        for d in 1..=floors {
            if !self
                .monsters
                .iter()
                .any(|m| m.floors[0] <= d && d <= m.floors[1])
            {
                return Err(bad(
                    "[[monster]]",
                    "floors",
                    format!("no monster appears on floor {d}"),
                ));
            }
        }
        Ok(())
    }

    fn validate_items(&self, file: &str) -> Result<(), ContentError> {
        let bad = |entry: &str, field: &str, problem: String| invalid(file, entry, field, problem);
        let odds = |entry: &str, field: &str, o: Odds| {
            if o[1] == 0 || o[0] > o[1] {
                Err(bad(
                    entry,
                    field,
                    format!("{o:?} must be [n, d] with 0 <= n <= d and d >= 1"),
                ))
            } else {
                Ok(())
            }
        };
        odds("[effects]", "chance", self.effects.chance)?;
        let pl = &self.placement;
        odds("[placement]", "alcove", pl.alcove)?;
        odds("[placement]", "locked", pl.locked)?;
        if pl.loose[0] > pl.loose[1] || pl.loose[1] > 50 {
            return Err(bad(
                "[placement]",
                "loose",
                format!("{:?} must be [min, max] with min <= max <= 50", pl.loose),
            ));
        }
        if pl.vault[0] > pl.vault[1] || pl.vault[1] > 10 {
            return Err(bad(
                "[placement]",
                "vault",
                format!("{:?} must be [min, max] with min <= max <= 10", pl.vault),
            ));
        }
        if pl.vault[1] > 0 && self.items.iter().all(|i| i.vault_weight == 0) {
            return Err(bad(
                "[[item]]",
                "vault_weight",
                "[placement] asks for vault items but every vault_weight is 0".into(),
            ));
        }
        if pl.door_corridor < 2 {
            return Err(bad(
                "[placement]",
                "door_corridor",
                format!("{} is below the minimum of 2", pl.door_corridor),
            ));
        }
        if self.items.is_empty() {
            return Err(bad("[[item]]", "key", "there are no items".into()));
        }
        for (i, it) in self.items.iter().enumerate() {
            let entry = format!("[[item]] #{} ({:?})", i + 1, it.key);
            let taken = self.items[..i].iter().any(|o| o.key == it.key);
            check_entry(file, &entry, "item", &it.key, taken, &it.name, &it.glyph)?;
            if it.description.trim().is_empty() || it.description.contains('\n') {
                return Err(bad(
                    &entry,
                    "description",
                    "must be one line of text".into(),
                ));
            }
            if it.slot.is_some() && it.use_ != ItemUse::None {
                return Err(bad(
                    &entry,
                    "use",
                    "equipment (an item with a slot) cannot also be used".into(),
                ));
            }
            if it.chip && it.slot.is_none() {
                return Err(bad(&entry, "chip", "a chip needs a slot".into()));
            }
            match it.inflicts {
                Inflicts::None => {}
                Inflicts::Stun if it.slot == Some(Slot::Weapon) => {
                    odds(&entry, "inflict_chance", it.inflict_chance)?;
                }
                _ => {
                    return Err(bad(
                        &entry,
                        "inflicts",
                        "only a weapon can inflict an effect, and only stun".into(),
                    ));
                }
            }
            match (it.use_, it.thrown) {
                (ItemUse::Throw, Some(m)) => self.check_missile(file, &entry, "thrown", m)?,
                (ItemUse::Throw, None) => {
                    return Err(bad(&entry, "thrown", "a thrown item needs `thrown`".into()));
                }
                (_, Some(_)) => {
                    return Err(bad(
                        &entry,
                        "thrown",
                        "only an item with `use = \"throw\"` is thrown".into(),
                    ));
                }
                (_, None) => {}
            }
            if let Some(shot) = it.fires {
                if it.slot != Some(Slot::Weapon) {
                    return Err(bad(&entry, "fires", "only a weapon shoots".into()));
                }
                self.check_missile(file, &entry, "fires", shot)?;
                if shot.blast > 0 || shot.lands {
                    return Err(bad(
                        &entry,
                        "fires",
                        "a weapon's shot has no blast and leaves nothing lying".into(),
                    ));
                }
            }
            if it.found[0] < 1 || it.found[0] > it.found[1] || it.found[1] > 20 {
                return Err(bad(
                    &entry,
                    "found",
                    format!(
                        "{:?} must be [min, max] with 1 <= min <= max <= 20",
                        it.found
                    ),
                ));
            }
            if it.found[1] > 1 && it.slot.is_some() {
                return Err(bad(
                    &entry,
                    "found",
                    "equipment is found one at a time".into(),
                ));
            }
            if it.use_ == ItemUse::Teleport && it.distance < 1 {
                return Err(bad(
                    &entry,
                    "distance",
                    "a teleporter needs a distance of at least 1".into(),
                ));
            }
            if it.use_ == ItemUse::Heal && !(1..=100).contains(&it.heal_percent) {
                return Err(bad(
                    &entry,
                    "heal_percent",
                    format!("{} is not between 1 and 100", it.heal_percent),
                ));
            }
        }
        if self.items.iter().all(|i| i.weight == 0) {
            return Err(bad(
                "[[item]]",
                "weight",
                "every weight is 0: alcoves could hold nothing".into(),
            ));
        }
        if pl.loose[1] > 0 && !self.items.iter().any(|i| i.loose) {
            return Err(bad(
                "[[item]]",
                "loose",
                "[placement] asks for loose items but no item is loose".into(),
            ));
        }
        Ok(())
    }
}

impl Content {
    /// A missile's numbers: damage a range from 0 up, a range from 1 to the player's sight (so
    /// nothing shoots from out of a player's sight), a blast of at most 3, a daze of at most 10.
    fn check_missile(
        &self,
        file: &str,
        entry: &str,
        field: &str,
        m: Missile,
    ) -> Result<(), ContentError> {
        let problem = if m.damage[0] < 0 || m.damage[0] > m.damage[1] {
            format!(
                "damage {:?} must be [min, max] with 0 <= min <= max",
                m.damage
            )
        } else if !(1..=self.player.sight).contains(&m.range) {
            format!(
                "range {} must be between 1 and the player's sight, {}",
                m.range, self.player.sight
            )
        } else if !(0..=3).contains(&m.blast) {
            format!("blast {} must be between 0 and 3", m.blast)
        } else if m.daze > 10 {
            format!("daze {} must be at most 10", m.daze)
        } else {
            return Ok(());
        };
        Err(invalid(file, entry, field, problem))
    }
}

fn invalid(file: &str, entry: &str, field: &str, problem: String) -> ContentError {
    ContentError::Invalid {
        file: file.to_owned(),
        entry: entry.to_owned(),
        field: field.to_owned(),
        problem,
    }
}

/// The fields every monster and item has: a key of lowercase letters, digits and `_` that no
/// earlier entry of its kind has (`taken`), a name, and a one-character glyph.
fn check_entry(
    file: &str,
    entry: &str,
    kind: &str,
    key: &str,
    taken: bool,
    name: &str,
    glyph: &str,
) -> Result<(), ContentError> {
    let plain = |c: char| c.is_ascii_lowercase() || c == '_' || c.is_ascii_digit();
    if key.is_empty() || !key.chars().all(plain) {
        return Err(invalid(
            file,
            entry,
            "key",
            "must be lowercase letters, digits and _".into(),
        ));
    }
    if taken {
        return Err(invalid(
            file,
            entry,
            "key",
            format!("another {kind} has the same key"),
        ));
    }
    if name.trim().is_empty() {
        return Err(invalid(file, entry, "name", "is empty".into()));
    }
    if glyph.chars().count() != 1 {
        return Err(invalid(
            file,
            entry,
            "glyph",
            format!("{glyph:?} is not one character"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_content_is_valid_and_holds_the_given_numbers() {
        let c = Content::parse(BUILTIN, BUILTIN_NAME).unwrap();
        assert_eq!(c.dungeon.floors, 10);
        let given = [
            ("micro_mouse", [1, 4], 1, [1, 3], 12, 10, Inflicts::None),
            ("tough_mouse", [20, 49], 12, [1, 16], 32, 50, Inflicts::Stun),
            ("rabid_mouse", [12, 46], 9, [1, 10], 4, 65, Inflicts::Poison),
            (
                "meta_mouse",
                [20, 54],
                1,
                [12, 16],
                12,
                105,
                Inflicts::Confusion,
            ),
        ];
        for (key, hp, def, atk, sight, xp, inflicts) in given {
            let m = c.monster(key).unwrap_or_else(|| panic!("{key} missing"));
            assert_eq!(
                (m.hp, m.defence, m.attack, m.sight, m.xp, m.inflicts),
                (hp, def, atk, sight, xp, inflicts),
                "{key}"
            );
        }
        let neo = c.monster("neo_mouse").unwrap();
        let (micro, tough) = (
            c.monster("micro_mouse").unwrap(),
            c.monster("tough_mouse").unwrap(),
        );
        assert!(
            micro.xp < neo.xp && neo.xp < tough.xp,
            "the Neo Mouse sits between Micro and Tough"
        );
        let king = c.monster("mouse_king").unwrap();
        assert!(king.boss && king.floors == [10, 10]);
        assert_eq!((c.player.hp, c.player.sight, c.xp.pickup), (25, 8, 1));
        assert_eq!((c.levels.step, c.levels.growth), (100, 50));
        assert_eq!(
            (
                c.level_up.max_hp,
                c.level_up.attack,
                c.level_up.defence,
                c.level_up.sight,
                c.level_up.save
            ),
            (10, 1, 1, 1, 5)
        );
    }

    #[test]
    fn the_builtin_items_and_placement_hold_the_given_rules() {
        let c = Content::builtin();
        let names = [
            ("health_pack", "Health Pack", ItemUse::Heal, None),
            ("key", "Key", ItemUse::Unlock, None),
            ("antivenom", "Vial of Antivenom", ItemUse::CurePoison, None),
            ("crowbar", "Crowbar", ItemUse::None, Some(Slot::Weapon)),
            (
                "stun_baton",
                "Stun Baton",
                ItemUse::None,
                Some(Slot::Weapon),
            ),
            (
                "biker_jacket",
                "Biker Jacket",
                ItemUse::None,
                Some(Slot::Armour),
            ),
            (
                "bulletproof_vest",
                "Bulletproof Vest",
                ItemUse::None,
                Some(Slot::Armour),
            ),
            (
                "microchip",
                "Microchip",
                ItemUse::None,
                Some(Slot::Microchip),
            ),
        ];
        for (key, name, use_, slot) in names {
            let it = c.item(key).unwrap_or_else(|| panic!("{key} missing"));
            assert_eq!((&*it.name, it.use_, it.slot), (name, use_, slot));
            assert!(!it.description.is_empty() && !it.description.contains('\n'));
        }
        assert!(c.item("microchip").unwrap().chip);
        for m in &c.monsters {
            assert!(
                !m.description.is_empty() && !m.description.contains('\n'),
                "{}",
                m.key
            );
        }
        let loose: Vec<&str> = c
            .items
            .iter()
            .filter(|i| i.loose)
            .map(|i| &*i.key)
            .collect();
        assert_eq!(
            loose,
            ["health_pack", "key"],
            "loose items are Keys or Health Packs (given)"
        );
        let p = &c.placement;
        assert_eq!(
            (
                p.loose,
                p.alcove,
                p.door_corridor,
                p.locked,
                p.chip_tweaks_per_floor
            ),
            ([0, 2], [2, 3], 3, [1, 3], 2)
        );
        assert_eq!(c.effects.chance, [1, 10]);
        assert_eq!(
            (
                c.monster("tough_mouse").unwrap().inflicts,
                c.monster("rabid_mouse").unwrap().inflicts,
                c.monster("meta_mouse").unwrap().inflicts
            ),
            (Inflicts::Stun, Inflicts::Poison, Inflicts::Confusion)
        );
        let e = Content::parse(&with("chance = [1, 10]", "chance = [1, 0]"), "x.toml").unwrap_err();
        assert!(e.to_string().contains("[effects]: field `chance`"), "{e}");
        let e = Content::parse(
            &with(
                "slot = \"weapon\"\nbonus",
                "slot = \"weapon\"\nuse = \"heal\"\nbonus",
            ),
            "x.toml",
        )
        .unwrap_err();
        assert!(e.to_string().contains("(\"crowbar\"): field `use`"), "{e}");
    }

    fn with(find: &str, replace: &str) -> String {
        assert!(BUILTIN.contains(find), "{find}");
        BUILTIN.replacen(find, replace, 1)
    }

    #[test]
    fn errors_name_the_file_the_entry_and_the_field() {
        let e = Content::parse(&with("hp = [20, 49]", "hp = [49, 20]"), "x.toml").unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.starts_with("x.toml: [[monster]] #3 (\"tough_mouse\"): field `hp`:"),
            "{msg}"
        );

        let e = Content::parse(&with("hit_min = 15", "hit_min = 150"), "x.toml").unwrap_err();
        assert!(e.to_string().contains("[combat]: field `hit_min`"), "{e}");

        let e = Content::parse(&with("weight = 4", "weight = 0"), "x.toml").unwrap_err();
        assert!(e.to_string().contains("field `weight`"), "{e}");

        let e = Content::parse(&with("floors = [8, 9]", "floors = [8, 11]"), "x.toml").unwrap_err();
        assert!(
            e.to_string().contains("(\"meta_mouse\"): field `floors`"),
            "{e}"
        );
    }

    #[test]
    fn unknown_missing_and_mistyped_fields_are_syntax_errors_with_a_line() {
        let e = Content::parse(&with("sight = 4 ", "sigth = 4 "), "x.toml").unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.starts_with("x.toml:") && msg.contains("sigth") && msg.contains("line"),
            "{msg}"
        );

        let e = Content::parse(&with("xp = 65", "xp = \"lots\""), "x.toml").unwrap_err();
        assert!(
            e.to_string().contains("line") && e.to_string().contains("xp"),
            "{e}"
        );

        let e = Content::parse("[dungeon]\nfloors = 10\n", "x.toml").unwrap_err();
        assert!(e.to_string().contains("missing field"), "{e}");

        assert!(Content::parse("this is = not [toml", "x.toml").is_err());
    }

    #[test]
    fn every_floor_needs_a_monster() {
        // The Micro Mouse is the only monster on floor 1.
        let text = with("floors = [1, 4]", "floors = [2, 4]");
        let e = Content::parse(&text, "x.toml").unwrap_err();
        assert!(
            e.to_string().contains("no monster appears on floor 1"),
            "{e}"
        );
    }
}
