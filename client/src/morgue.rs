//! The character dump written when a game ends, in the manner of Crawl's morgue files: a plain
//! text page to keep, share or compare. A pure function of the model; `keep` saves it.

use std::fmt::Write;

use delve_protocol::View;

use crate::model::Model;

/// How many of the last log lines the dump keeps.
pub const LAST_LINES: usize = 20;

/// The dump of the character in `model`'s view, or `None` with no view. `date` is when it
/// ended, as the caller knows it (the model has no clock).
pub fn dump(model: &Model, date: &str) -> Option<String> {
    let view: &View = model.view.as_ref()?;
    let me = &view.me;
    let mut s = String::new();
    let dungeon = model.dungeon.as_deref().unwrap_or("?");
    let _ = writeln!(s, "Delve character dump: {} ({date})", me.name);
    let _ = writeln!(s, "Dungeon {dungeon}\n");
    let end = if me.victory {
        "Won: the Mouse King is slain.".to_string()
    } else {
        let cause = me.cause.as_deref().unwrap_or("died");
        let mut c = cause.chars();
        let cause: String = c
            .next()
            .map(|f| f.to_uppercase().chain(c).collect())
            .unwrap_or_default();
        format!("{cause}.")
    };
    let _ = writeln!(s, "{end}");
    let _ = writeln!(
        s,
        "Score {}   level {}   deepest floor {}   {} kills   {} turns\n",
        me.score, me.level, me.deepest, me.kills, me.turns
    );
    let _ = writeln!(s, "Stats");
    let _ = writeln!(s, "  HP            {} / {}", me.hp.max(0), me.max_hp);
    let _ = writeln!(s, "  Attack        {}-{}", me.attack_min, me.attack_max);
    let _ = writeln!(s, "  Defence       {}", me.defence);
    let _ = writeln!(s, "  Saving throw  {}%", me.save);
    let _ = writeln!(s, "  Sight         {}", me.sight);
    let _ = writeln!(s, "  Experience    {}\n", me.xp);

    let _ = writeln!(s, "Equipment");
    let worn: Vec<_> = view.inventory.iter().filter(|i| i.equipped).collect();
    if worn.is_empty() {
        let _ = writeln!(s, "  nothing");
    }
    for i in &worn {
        let slot = i.slot.map_or("", |sl| match sl {
            delve_protocol::Slot::Weapon => "weapon",
            delve_protocol::Slot::Armour => "armour",
            delve_protocol::Slot::Microchip => "chip",
        });
        let _ = writeln!(s, "  {slot:<8} {}  ({})", i.name, i.bonus.words());
    }
    let _ = writeln!(s, "\nPack");
    let pack: Vec<_> = view.inventory.iter().filter(|i| !i.equipped).collect();
    if pack.is_empty() {
        let _ = writeln!(s, "  empty");
    }
    for i in &pack {
        let _ = writeln!(s, "  {}", crate::pack::shown_name(i));
    }
    let _ = writeln!(s, "\nKills by kind (seen by this client)");
    if model.kills_by_kind.is_empty() {
        let _ = writeln!(s, "  none");
    }
    let mut kills: Vec<_> = model.kills_by_kind.iter().collect();
    kills.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (name, n) in kills {
        let _ = writeln!(s, "  {n:>4}  {name}");
    }
    let _ = writeln!(s, "\nFloors reached: 1 to {}", me.deepest);
    let _ = writeln!(s, "\nLast messages");
    let skip = model.log.len().saturating_sub(LAST_LINES);
    for line in model.log.iter().skip(skip) {
        let text = match &line.from {
            Some(from) => format!("{from}: {}", line.text),
            None => line.text.clone(),
        };
        if line.count > 1 {
            let _ = writeln!(s, "  {text} (x{})", line.count);
        } else {
            let _ = writeln!(s, "  {text}");
        }
    }
    Some(s)
}

/// A file name for a dump: the character's and the dungeon's names (letters and digits) and the
/// turns it lived, which tell one game from another without a clock.
pub fn file_name(name: &str, dungeon: &str, turns: u64) -> String {
    let clean = |s: &str, or: &str| {
        let c: String = s
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_lowercase();
        if c.is_empty() { or.to_string() } else { c }
    };
    format!(
        "{}-{}-{turns}.txt",
        clean(name, "character"),
        clean(dungeon, "dungeon")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::travel::tests::view_of;
    use delve_protocol::{Bonus, ItemView, MessageKind, Slot};

    #[test]
    fn a_dump_tells_the_whole_game() {
        let mut m = Model::new();
        let mut v = view_of(&["####", "#@.#", "####"]);
        v.me.alive = false;
        v.me.cause = Some("killed by a Rabid Mouse on floor 6".into());
        v.me.deepest = 6;
        v.me.kills = 3;
        v.me.score = 1234;
        v.inventory = vec![
            ItemView {
                id: 1,
                key: "crowbar".into(),
                name: "Crowbar".into(),
                description: "".into(),
                slot: Some(Slot::Weapon),
                equipped: true,
                usable: false,
                bonus: Bonus {
                    attack_max: 3,
                    ..Bonus::default()
                },
                use_: delve_protocol::ItemUse::None,
                count: 1,
                range: 0,
            },
            ItemView {
                id: 2,
                key: "health_pack".into(),
                name: "Health Pack".into(),
                description: "".into(),
                slot: None,
                equipped: false,
                usable: true,
                bonus: Bonus::default(),
                use_: delve_protocol::ItemUse::Heal,
                count: 1,
                range: 0,
            },
        ];
        m.view = Some(v);
        m.dungeon = Some("crypt".into());
        m.kills_by_kind.insert("Micro Mouse".into(), 2);
        m.kills_by_kind.insert("Neo Mouse".into(), 1);
        for k in 0..30 {
            m.push_log(MessageKind::Normal, format!("line {k}"), k);
        }
        let d = dump(&m, "2026-11-25").unwrap();
        assert!(d.contains("Killed by a Rabid Mouse on floor 6."), "{d}");
        assert!(d.contains("Score 1234"), "{d}");
        assert!(d.contains("weapon   Crowbar  (+3 max attack)"), "{d}");
        assert!(d.contains("\nPack\n  Health Pack\n"), "{d}");
        assert!(d.contains("   2  Micro Mouse\n     1  Neo Mouse"), "{d}");
        assert!(d.contains("Floors reached: 1 to 6"), "{d}");
        assert!(d.contains("line 29") && d.contains("line 10") && !d.contains("line 9\n"));
        assert_eq!(dump(&Model::new(), "x"), None);
    }

    #[test]
    fn file_names_are_plain() {
        assert_eq!(
            file_name("Ann O'Neil", "Crypt", 17),
            "annoneil-crypt-17.txt"
        );
        assert_eq!(file_name("???", "", 5), "character-dungeon-5.txt");
    }
}
