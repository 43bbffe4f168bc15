//! docs/RULES.md tells the numbers the game plays by: this test holds it to the content file the
//! server loads (`server/content/delve.toml`, built in) and to the code's formulas, so that a
//! tuning change that is not written down fails here, naming the row that differs.

use std::path::Path;

use delve_protocol::{INVENTORY_SLOTS, MessageKind};
use delve_server::game::Content;
use delve_server::game::content::{Inflicts, ItemUse};
use delve_server::game::stats::{hit_chance, kill_xp, player_base, xp_for_level};
use delve_tests::docs::{fits, literals};

const FILE: &str = "docs/RULES.md";

/// One Markdown table: its header cells and its rows, each with its line number (1-based).
struct Table {
    line: usize,
    header: Vec<String>,
    rows: Vec<(usize, Vec<String>)>,
}

fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(|c| c.trim().to_owned()).collect()
}

fn tables(text: &str) -> Vec<Table> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < lines.len() {
        let is_rule = |l: &str| {
            let l = l.trim();
            l.starts_with("|") && l.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
        };
        if lines[i].trim().starts_with('|') && is_rule(lines[i + 1]) {
            let mut table = Table {
                line: i + 1,
                header: cells(lines[i]),
                rows: Vec::new(),
            };
            i += 2;
            while i < lines.len() && lines[i].trim().starts_with('|') {
                table.rows.push((i + 1, cells(lines[i])));
                i += 1;
            }
            out.push(table);
        } else {
            i += 1;
        }
    }
    out
}

/// The table whose header begins with `first`, or a failure saying it is missing.
fn find<'t>(all: &'t [Table], first: &[&str]) -> &'t Table {
    all.iter()
        .find(|t| t.header.len() >= first.len() && t.header.iter().zip(first).all(|(h, f)| h == f))
        .unwrap_or_else(|| panic!("{FILE} has no table whose header starts with {first:?}"))
}

/// Reads dashes and minus signs alike, so "1–4" and "−5" compare with "1-4" and "-5".
fn norm(s: &str) -> String {
    s.replace(['–', '−'], "-")
}

fn range(a: impl std::fmt::Display + PartialEq, b: impl std::fmt::Display) -> String {
    if a.to_string() == b.to_string() {
        a.to_string()
    } else {
        format!("{a}–{b}")
    }
}

/// Collects differences between the doc and the code.
struct Check {
    failures: Vec<String>,
}

impl Check {
    fn cell(&mut self, line: usize, row: &str, column: &str, doc: &str, want: &str) {
        if norm(doc) != norm(want) {
            self.failures.push(format!(
                "{FILE}:{line}: {row}, column {column:?}: RULES.md says {doc:?}, but the game has {want:?}"
            ));
        }
    }

    /// Compares a row with the expected cells, column by column.
    fn row(&mut self, table: &Table, line: usize, name: &str, got: &[String], want: &[String]) {
        if got.len() != want.len() {
            self.failures.push(format!(
                "{FILE}:{line}: {name}: {} cells, but the table has {} columns",
                got.len(),
                want.len()
            ));
            return;
        }
        for ((g, w), h) in got.iter().zip(want).zip(&table.header) {
            self.cell(line, name, h, g, w);
        }
    }

    fn missing(&mut self, table: &Table, what: &str) {
        self.failures.push(format!(
            "{FILE}:{}: the table has no row for {what}, which the game has",
            table.line
        ));
    }
}

fn rules() -> (Vec<Table>, Content) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/RULES.md");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    (tables(&text), Content::builtin())
}

fn finish(check: Check) {
    assert!(
        check.failures.is_empty(),
        "docs/RULES.md and the game disagree ({} place(s)); fix the doc, or the content file:\n{}",
        check.failures.len(),
        check.failures.join("\n")
    );
}

#[test]
fn the_monster_table_is_the_content_file_s() {
    let (all, c) = rules();
    finish(monsters(&all, &c));
}

fn monsters(all: &[Table], c: &Content) -> Check {
    let table = find(all, &["Key", "Name", "Floors", "HP", "Defence", "Attack"]);
    let mut check = Check {
        failures: Vec::new(),
    };
    for m in &c.monsters {
        let key = format!("`{}`", m.key);
        let Some((line, got)) = table.rows.iter().find(|(_, r)| r[0] == key) else {
            check.missing(table, &format!("monster {key}"));
            continue;
        };
        let inflicts = match m.inflicts {
            Inflicts::None => "—",
            Inflicts::Stun => "stun",
            Inflicts::Poison => "poison",
            Inflicts::Confusion => "confusion",
        };
        let want = [
            key.clone(),
            m.name.to_string(),
            range(m.floors[0], m.floors[1]),
            range(m.hp[0], m.hp[1]),
            m.defence.to_string(),
            range(m.attack[0], m.attack[1]),
            m.sight.to_string(),
            m.xp.to_string(),
            inflicts.to_owned(),
            m.weight.to_string(),
            if m.boss { "yes" } else { "no" }.to_owned(),
        ];
        check.row(table, *line, &format!("monster {key}"), got, &want);
    }
    for (line, row) in &table.rows {
        if !c.monsters.iter().any(|m| row[0] == format!("`{}`", m.key)) {
            check.failures.push(format!(
                "{FILE}:{line}: monster {} is not in the content file",
                row[0]
            ));
        }
    }

    let per_floor = find(all, &["Floor", "Monsters", "Their level"]);
    for d in 1..=c.dungeon.floors {
        let Some((line, got)) = per_floor.rows.iter().find(|(_, r)| r[0] == d.to_string()) else {
            check.missing(per_floor, &format!("floor {d}"));
            continue;
        };
        let boss = c
            .monsters
            .iter()
            .any(|m| m.boss && m.floors[0] <= d && d <= m.floors[1]);
        let count = if boss {
            1
        } else {
            c.spawn.count + c.spawn.count_per_floor * u32::from(d - 1)
        };
        let want = [d.to_string(), count.to_string(), d.to_string()];
        check.row(per_floor, *line, &format!("floor {d}"), got, &want);
    }
    check
}

#[test]
fn the_ways_of_monsters_what_flies_and_what_is_found_are_the_content_file_s() {
    let (all, c) = rules();
    let mut check = Check {
        failures: Vec::new(),
    };
    let dash = |v: String, none: bool| if none { "—".to_owned() } else { v };
    // Monsters with ways of their own.
    let ways = find(&all, &["Key", "Shoots", "Calls for help", "Flees below"]);
    let special: Vec<_> = (c.monsters.iter())
        .filter(|m| m.fires.is_some() || m.calls > 0 || m.flees_below > 0)
        .collect();
    for m in &special {
        let key = format!("`{}`", m.key);
        let Some((line, got)) = ways.rows.iter().find(|(_, r)| r[0] == key) else {
            check.missing(ways, &format!("monster {key}"));
            continue;
        };
        let shoots = m.fires.map_or("—".to_owned(), |f| {
            format!(
                "{} damage, range {}",
                range(f.damage[0], f.damage[1]),
                f.range
            )
        });
        let want = [
            key.clone(),
            shoots,
            dash(format!("{} tiles", m.calls), m.calls == 0),
            dash(format!("{}% HP", m.flees_below), m.flees_below == 0),
        ];
        check.row(ways, *line, &format!("monster {key}"), got, &want);
    }
    if ways.rows.len() != special.len() {
        check.failures.push(format!(
            "{FILE}:{}: {} rows for {} monsters with ways of their own",
            ways.line,
            ways.rows.len(),
            special.len()
        ));
    }
    // Everything that flies: thrown items, weapons that shoot, monsters that shoot.
    let flies = find(&all, &["Key", "Flies", "Damage", "Range", "Blast"]);
    let mut flying: Vec<(String, &str, delve_server::game::content::Missile)> = Vec::new();
    for it in &c.items {
        if let Some(m) = it.thrown {
            flying.push((it.key.to_string(), "thrown", m));
        }
        if let Some(m) = it.fires {
            flying.push((it.key.to_string(), "shot", m));
        }
    }
    for m in &c.monsters {
        if let Some(f) = m.fires {
            flying.push((m.key.to_string(), "shot", f));
        }
    }
    for (key, how, m) in &flying {
        let key = format!("`{key}`");
        let Some((line, got)) = flies.rows.iter().find(|(_, r)| r[0] == key) else {
            check.missing(flies, &format!("{key}, which flies"));
            continue;
        };
        let want = [
            key.clone(),
            (*how).to_owned(),
            dash(range(m.damage[0], m.damage[1]), m.damage[1] == 0),
            m.range.to_string(),
            dash(m.blast.to_string(), m.blast == 0),
            dash(m.daze.to_string(), m.daze == 0),
            if m.lands { "yes" } else { "no" }.to_owned(),
        ];
        check.row(flies, *line, &key, got, &want);
    }
    if flies.rows.len() != flying.len() {
        check.failures.push(format!(
            "{FILE}:{}: {} rows for {} things that fly",
            flies.line,
            flies.rows.len(),
            flying.len()
        ));
    }
    // How many are found together, and how often behind a locked door.
    let found = find(&all, &["Key", "Found together", "Vault weight"]);
    for it in &c.items {
        let key = format!("`{}`", it.key);
        let Some((line, got)) = found.rows.iter().find(|(_, r)| r[0] == key) else {
            check.missing(found, &format!("item {key}"));
            continue;
        };
        let want = [
            key.clone(),
            range(it.found[0], it.found[1]),
            it.vault_weight.to_string(),
        ];
        check.row(found, *line, &format!("item {key}"), got, &want);
    }
    finish(check);
}

#[test]
fn the_item_table_is_the_content_file_s() {
    let (all, c) = rules();
    finish(items(&all, &c));
}

fn items(all: &[Table], c: &Content) -> Check {
    let table = find(all, &["Key", "Name", "Slot", "Use"]);
    let mut check = Check {
        failures: Vec::new(),
    };
    for it in &c.items {
        let key = format!("`{}`", it.key);
        let Some((line, got)) = table.rows.iter().find(|(_, r)| r[0] == key) else {
            check.missing(table, &format!("item {key}"));
            continue;
        };
        let slot = it.slot.map_or("—".to_owned(), |s| {
            serde_json::to_value(s)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        });
        let use_ = match it.use_ {
            ItemUse::None => "—".to_owned(),
            ItemUse::Heal => format!("heal {}% of max HP", it.heal_percent),
            ItemUse::CurePoison => "cure poison".to_owned(),
            ItemUse::Unlock => "unlock a door by walking into it".to_owned(),
            ItemUse::Throw => "throw".to_owned(),
            ItemUse::Teleport => format!("teleport at least {} tiles away", it.distance),
            ItemUse::Reveal => "reveal the floor's map".to_owned(),
            ItemUse::Clear => "clear stun and confusion".to_owned(),
        };
        let b = it.bonus;
        let parts: Vec<String> = [
            (b.max_hp, "maximum HP"),
            (b.attack_min, "minimum attack"),
            (b.attack_max, "maximum attack"),
            (b.defence, "defence"),
            (b.save, "saving throw"),
            (b.sight, "sight"),
        ]
        .into_iter()
        .filter(|(v, _)| *v != 0)
        .map(|(v, what)| format!("{v:+} {what}"))
        .collect();
        let bonus = if it.chip {
            format!(
                "random: {} × floor tweaks of ±1",
                c.placement.chip_tweaks_per_floor
            )
        } else if parts.is_empty() {
            "—".to_owned()
        } else {
            parts.join(", ")
        };
        let want = [
            key.clone(),
            it.name.to_string(),
            slot,
            use_,
            bonus,
            it.weight.to_string(),
            if it.loose { "yes" } else { "no" }.to_owned(),
        ];
        check.row(table, *line, &format!("item {key}"), got, &want);
    }
    for (line, row) in &table.rows {
        if !c.items.iter().any(|i| row[0] == format!("`{}`", i.key)) {
            check.failures.push(format!(
                "{FILE}:{line}: item {} is not in the content file",
                row[0]
            ));
        }
    }
    check
}

/// Every number of the content file, as the table at the end of RULES.md writes it.
fn numbers(c: &Content) -> Vec<(&'static str, String)> {
    let odds = |o: [u32; 2]| format!("{} in {}", o[0], o[1]);
    let p = &c.player;
    vec![
        ("dungeon.floors", c.dungeon.floors.to_string()),
        ("player.hp", p.hp.to_string()),
        ("player.hp_per_level", p.hp_per_level.to_string()),
        ("player.defence", p.defence.to_string()),
        ("player.defence_per_level", p.defence_per_level.to_string()),
        ("player.attack_min", p.attack_min.to_string()),
        (
            "player.attack_min_per_level",
            p.attack_min_per_level.to_string(),
        ),
        ("player.attack_max", p.attack_max.to_string()),
        (
            "player.attack_max_per_level",
            p.attack_max_per_level.to_string(),
        ),
        ("player.save", p.save.to_string()),
        ("player.save_per_level", p.save_per_level.to_string()),
        ("player.sight", p.sight.to_string()),
        ("player.regen_turns", p.regen_turns.to_string()),
        ("player.regen_percent", p.regen_percent.to_string()),
        ("levels.step", c.levels.step.to_string()),
        ("levels.growth", c.levels.growth.to_string()),
        ("levels.max_level", c.levels.max_level.to_string()),
        ("level_up.max_hp", c.level_up.max_hp.to_string()),
        ("level_up.attack", c.level_up.attack.to_string()),
        ("level_up.defence", c.level_up.defence.to_string()),
        ("level_up.sight", c.level_up.sight.to_string()),
        ("level_up.save", c.level_up.save.to_string()),
        ("combat.hit_base", c.combat.hit_base.to_string()),
        (
            "combat.hit_per_defence",
            c.combat.hit_per_defence.to_string(),
        ),
        ("combat.hit_min", c.combat.hit_min.to_string()),
        ("combat.hit_max", c.combat.hit_max.to_string()),
        ("xp.level_step", c.xp.level_step.to_string()),
        ("xp.factor_min", c.xp.factor_min.to_string()),
        ("xp.factor_max", format!("{:.1}", c.xp.factor_max)),
        (
            "xp.player_value_per_level",
            c.xp.player_value_per_level.to_string(),
        ),
        ("xp.pickup", c.xp.pickup.to_string()),
        ("spawn.count", c.spawn.count.to_string()),
        ("spawn.count_per_floor", c.spawn.count_per_floor.to_string()),
        ("spawn.safe_distance", c.spawn.safe_distance.to_string()),
        ("spawn.wander_every", c.spawn.wander_every.to_string()),
        ("spawn.wander_distance", c.spawn.wander_distance.to_string()),
        ("effects.chance", odds(c.effects.chance)),
        ("score.per_floor", c.score.per_floor.to_string()),
        ("score.per_kill", c.score.per_kill.to_string()),
        ("score.victory", c.score.victory.to_string()),
        (
            "placement.loose",
            range(c.placement.loose[0], c.placement.loose[1]),
        ),
        ("placement.alcove", odds(c.placement.alcove)),
        (
            "placement.door_corridor",
            c.placement.door_corridor.to_string(),
        ),
        ("placement.locked", odds(c.placement.locked)),
        (
            "placement.vault",
            range(c.placement.vault[0], c.placement.vault[1]),
        ),
        (
            "placement.chip_tweaks_per_floor",
            c.placement.chip_tweaks_per_floor.to_string(),
        ),
        ("party.away_after", c.party.away_after.to_string()),
        ("party.revive_turns", c.party.revive_turns.to_string()),
        (
            "party.revive_hp_percent",
            c.party.revive_hp_percent.to_string(),
        ),
        (
            "party.revive_xp_loss_percent",
            c.party.revive_xp_loss_percent.to_string(),
        ),
        (
            "party.monster_hp_per_friend",
            c.party.monster_hp_per_friend.to_string(),
        ),
        (
            "party.monster_damage_per_friend",
            c.party.monster_damage_per_friend.to_string(),
        ),
        ("party.mark_turns", c.party.mark_turns.to_string()),
        (
            "party.boss_hp_per_friend",
            c.party.boss_hp_per_friend.to_string(),
        ),
        (
            "party.friends_per_health_pack",
            c.party.friends_per_health_pack.to_string(),
        ),
        (
            "party.wanderers_per_friend",
            c.party.wanderers_per_friend.to_string(),
        ),
        ("INVENTORY_SLOTS", INVENTORY_SLOTS.to_string()),
    ]
}

#[test]
fn the_numbers_at_a_glance_are_the_content_file_s() {
    let (all, c) = rules();
    let table = find(&all, &["Content field", "Value"]);
    let mut check = Check {
        failures: Vec::new(),
    };
    let want = numbers(&c);
    for (field, value) in &want {
        let key = format!("`{field}`");
        match table.rows.iter().find(|(_, r)| r[0] == key) {
            Some((line, row)) => check.cell(*line, &key, "Value", &row[1], value),
            None => check.missing(table, &key),
        }
    }
    for (line, row) in &table.rows {
        if !want.iter().any(|(f, _)| row[0] == format!("`{f}`")) {
            check.failures.push(format!(
                "{FILE}:{line}: {} is no number this test knows; add it to `numbers`",
                row[0]
            ));
        }
    }
    let points = find(&all, &["Stat", "One point adds"]);
    let u = &c.level_up;
    for (stat, amount) in [
        ("max_hp", u.max_hp),
        ("attack", u.attack),
        ("defence", u.defence),
        ("sight", u.sight),
        ("save", u.save),
    ] {
        let key = format!("`{stat}`");
        match points.rows.iter().find(|(_, r)| r[0] == key) {
            Some((line, row)) => {
                let said = row[1]
                    .trim_start_matches('+')
                    .split(' ')
                    .next()
                    .unwrap_or("");
                check.cell(
                    *line,
                    &format!("stat point {key}"),
                    "One point adds",
                    said,
                    &amount.to_string(),
                );
            }
            None => check.missing(points, &format!("stat point {key}")),
        }
    }
    finish(check);
}

#[test]
fn the_formula_tables_are_the_code_s() {
    let (all, c) = rules();
    let mut check = Check {
        failures: Vec::new(),
    };

    let curve = find(&all, &["Level", "Total XP to reach it"]);
    assert!(
        curve.rows.len() >= 5,
        "{FILE}:{}: too few levels",
        curve.line
    );
    for (line, row) in &curve.rows {
        let level: u32 = row[0].parse().expect("a level number");
        let total = xp_for_level(&c, level);
        let more = if level == 1 {
            "—".to_owned()
        } else {
            (total - xp_for_level(&c, level - 1)).to_string()
        };
        let want = [level.to_string(), total.to_string(), more];
        check.row(curve, *line, &format!("level {level}"), row, &want);
    }

    let stats = find(&all, &["Level", "Max HP", "Attack"]);
    assert!(
        stats.rows.len() >= 5,
        "{FILE}:{}: too few levels",
        stats.line
    );
    for (line, row) in &stats.rows {
        let level: u32 = row[0].parse().expect("a level number");
        let s = player_base(&c, level);
        let want = [
            level.to_string(),
            s.max_hp.to_string(),
            range(s.attack_min, s.attack_max),
            s.defence.to_string(),
            s.save.to_string(),
            s.sight.to_string(),
        ];
        check.row(stats, *line, &format!("level {level}"), row, &want);
    }

    let hit = find(&all, &["Defender's defence", "Chance to be hit"]);
    for (line, row) in &hit.rows {
        let defence: i32 = row[0].parse().expect("a defence");
        let want = [
            defence.to_string(),
            format!("{}%", hit_chance(&c.combat, defence)),
        ];
        check.row(hit, *line, &format!("defence {defence}"), row, &want);
    }

    let factors = find(&all, &["Victim's level − killer's level", "Factor"]);
    for (line, row) in &factors.rows {
        let diff: i32 = norm(&row[0]).parse().expect("a level difference");
        // The factor as the game applies it: the worth of a kill valued 1000.
        let killer = 20;
        let victim = u32::try_from(killer + diff).expect("a level");
        let worth = kill_xp(&c.xp, 1000, victim, killer as u32);
        let want = [row[0].clone(), format!("{:.1}", f64::from(worth) / 1000.0)];
        check.row(factors, *line, &format!("difference {diff}"), row, &want);
    }
    finish(check);
}

#[test]
fn the_message_colours_are_the_client_s() {
    let (all, _) = rules();
    let table = find(&all, &["Kind", "Colour", "RGB"]);
    let mut check = Check {
        failures: Vec::new(),
    };
    for kind in [
        MessageKind::Normal,
        MessageKind::Good,
        MessageKind::Bad,
        MessageKind::Warning,
    ] {
        let name = serde_json::to_value(kind).expect("a kind encodes");
        let key = format!("`{}`", name.as_str().unwrap_or_default());
        let color = delve_client::ui::theme::message_color(kind);
        let rgb = [color.r, color.g, color.b]
            .map(|x| ((x * 255.0).round() as u8).to_string())
            .join(", ");
        match table.rows.iter().find(|(_, r)| r[0] == key) {
            Some((line, row)) => check.cell(*line, &format!("kind {key}"), "RGB", &row[2], &rgb),
            None => check.missing(table, &format!("kind {key}")),
        }
    }
    finish(check);
}

/// Every weapon that inflicts an effect has its row (effect and chance), and every row is such a
/// weapon.
fn weapon_effects(all: &[Table], c: &Content) -> Check {
    let table = find(all, &["Weapon", "Inflicts", "Chance a damaging hit"]);
    let mut check = Check {
        failures: Vec::new(),
    };
    let inflicting: Vec<_> = c
        .items
        .iter()
        .filter(|i| i.inflicts != Inflicts::None)
        .collect();
    for it in &inflicting {
        let key = format!("`{}`", it.key);
        let Some((line, got)) = table.rows.iter().find(|(_, r)| r[0] == key) else {
            check.missing(table, &format!("weapon {key}"));
            continue;
        };
        let effect = match it.inflicts {
            Inflicts::None => "none",
            Inflicts::Stun => "stun",
            Inflicts::Poison => "poison",
            Inflicts::Confusion => "confusion",
        };
        let [n, d] = it.inflict_chance;
        let want = [key.clone(), effect.to_owned(), format!("{n} in {d}")];
        check.row(table, *line, &format!("weapon {key}"), got, &want);
    }
    for (line, row) in &table.rows {
        if !inflicting.iter().any(|i| row[0] == format!("`{}`", i.key)) {
            check.failures.push(format!(
                "{FILE}:{line}: {} inflicts nothing in the content file",
                row[0]
            ));
        }
    }
    check
}

#[test]
fn the_weapon_effects_are_the_content_file_s() {
    let (all, c) = rules();
    finish(weapon_effects(&all, &c));
    // And the check bites: another chance is reported.
    let mut changed = c.clone();
    let baton = changed
        .item_index("stun_baton")
        .expect("the content has a Stun Baton");
    changed.items[baton].inflict_chance = [1, 6];
    assert_eq!(weapon_effects(&all, &changed).failures.len(), 1);
}

#[test]
fn a_changed_number_is_reported_with_its_row() {
    // The checks above would pass vacuously if they read nothing: show that a change to the
    // content is caught, and named with its line.
    let (all, c) = rules();
    let mut changed = c.clone();
    changed.monsters[0].xp += 1;
    let key = format!("`{}`", changed.monsters[0].key);
    let failures = monsters(&all, &changed).failures;
    assert_eq!(failures.len(), 1, "{failures:?}");
    let table = find(&all, &["Key", "Name", "Floors", "HP", "Defence", "Attack"]);
    let (line, _) = table
        .rows
        .iter()
        .find(|(_, r)| r[0] == key)
        .expect("its row");
    assert!(
        failures[0].starts_with(&format!(
            "{FILE}:{line}: monster {key}, column \"XP value\""
        )),
        "{failures:?}"
    );

    let mut changed = c.clone();
    changed.items.pop();
    let failures = items(&all, &changed).failures;
    assert!(
        failures.len() == 1 && failures[0].contains("is not in the content file"),
        "{failures:?}"
    );
}

#[test]
fn every_message_in_the_rules_is_one_the_server_can_send() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/RULES.md");
    let text = std::fs::read_to_string(&path).expect("RULES.md is readable");
    let all = tables(&text);
    let table = find(&all, &["Text", "Kind", "Who is told"]);
    let code = literals(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../server/src"))
        .expect("server/src is readable");
    let mut failures = Vec::new();
    let mut checked = 0;
    for (line, row) in &table.rows {
        for (k, quoted) in row[0].split('`').enumerate() {
            if k % 2 == 0 || quoted.is_empty() {
                continue;
            }
            checked += 1;
            if !code.iter().any(|pattern| fits(pattern, quoted)) {
                failures.push(format!(
                    "{FILE}:{line}: no string in server/src can say {quoted:?}"
                ));
            }
        }
        let kinds = ["normal", "good", "bad", "warning"];
        if !kinds.contains(&row[1].as_str()) {
            failures.push(format!("{FILE}:{line}: {:?} is no message kind", row[1]));
        }
    }
    assert!(checked >= 60, "only {checked} messages found in {FILE}");
    assert!(
        failures.is_empty(),
        "{} message(s) in {FILE} the server cannot send (a changed sentence?):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(fits("You hit \0 for \0.", "You hit the Micro Mouse for 3."));
    assert!(!fits("You hit \0 for \0.", "You hit the Micro Mouse for ."));
    assert!(!fits("You miss \0.", "You hit the Micro Mouse."));
}
