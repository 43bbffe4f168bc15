//! What the mouse is pointing at, in words: the hover box over the map. A pure function of the
//! view (and the descriptions the server sent), so it can be tested without a window.

use delve_protocol::{Descriptions, EntityKind, EntityView, Pos, Tile, View};

/// The hover box: a title and a few lines under it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Description {
    pub title: String,
    pub lines: Vec<String>,
}

/// What a tile is, as a player would say it.
fn tile_words(t: Tile) -> &'static str {
    match t {
        Tile::Unknown => "Unexplored",
        Tile::Wall => "A wall",
        Tile::Floor => "Floor",
        Tile::StairsDown => "Stairs down (> or Stairs takes them)",
        Tile::StairsUp => "Stairs up (< takes them)",
        Tile::DoorClosed => "A shut door (walk into it to open it)",
        Tile::DoorOpen => "An open door",
        Tile::DoorLocked => "A locked door (a Key from your pack opens it)",
    }
}

fn item_description<'a>(view: &'a View, d: &'a Descriptions, e: &EntityView) -> Option<&'a str> {
    let key = e.item.as_deref()?;
    d.items.get(key).map(String::as_str).or_else(|| {
        // An older server sends no descriptions; one of the same kind in the pack has its own.
        view.inventory
            .iter()
            .find(|i| &*i.key == key)
            .map(|i| &*i.description)
    })
}

/// The things in `items` by name, each name once with its count ("Health Pack x3"), in the
/// order first seen.
fn pile_words(items: &[&EntityView]) -> Vec<String> {
    let mut names: Vec<(&str, u32)> = Vec::new();
    for i in items {
        match names.iter_mut().find(|(n, _)| *n == &*i.name) {
            Some((_, count)) => *count += 1,
            None => names.push((&i.name, 1)),
        }
    }
    names
        .into_iter()
        .map(|(n, count)| match count {
            1 => n.to_string(),
            _ => format!("{n} x{count}"),
        })
        .collect()
}

/// What a fallen friend's remains offer: a Health Pack brings them back, for so many turns.
fn remains_words(view: &View, id: u32) -> Vec<String> {
    let turns = (view.party.iter())
        .find(|p| p.id == id)
        .and_then(|p| p.revive_turns);
    match turns {
        Some(n) => vec![
            "A Health Pack used on them (Use on, standing next to them) brings them back."
                .to_string(),
            format!("{n} {} left to do it.", plural(n, "turn")),
        ],
        None => vec!["Too late to bring them back.".to_string()],
    }
}

/// Who marked the cell at `at` for their friends to look at, if anyone did.
fn mark_words(view: &View, at: Pos) -> Vec<String> {
    (view.marks.iter())
        .filter(|m| m.pos == at)
        .map(|m| format!("{} marked this spot: look here.", m.name))
        .collect()
}

fn plural(n: u32, word: &str) -> String {
    if n == 1 {
        word.to_string()
    } else {
        format!("{word}s")
    }
}

/// Describes the cell at `at`, or `None` where nothing is known.
pub fn describe(view: &View, d: &Descriptions, at: Pos) -> Option<Description> {
    let tile = view.map.get(at);
    if !view.map.in_bounds(at) || tile == Tile::Unknown {
        return None;
    }
    if !view.is_visible(at) {
        // Entities are known only while in sight: a remembered cell is just its tile.
        let mut lines = vec!["Remembered: you do not see it now.".to_string()];
        lines.extend(mark_words(view, at));
        return Some(Description {
            title: tile_words(tile).to_string(),
            lines,
        });
    }
    let here: Vec<&EntityView> = view.entities.iter().filter(|e| e.pos == at).collect();
    let creature = here.iter().find(|e| e.kind != EntityKind::Item);
    let items: Vec<&EntityView> = here
        .iter()
        .filter(|e| e.kind == EntityKind::Item)
        .copied()
        .collect();
    let item = items.first();
    // Several things on one cell (a fallen friend's pack): each kind once, with its count.
    let pile = pile_words(&items);
    let mut lines = Vec::new();
    let title = if let Some(c) = creature {
        let title = if c.kind == EntityKind::Remains {
            format!("{} (fallen), level {}", c.name, c.level)
        } else if c.id == view.me.id {
            format!("You ({}), level {}", c.name, c.level)
        } else {
            format!("{}, level {}", c.name, c.level)
        };
        if c.kind != EntityKind::Remains {
            lines.push(format!("HP {} / {}", c.hp, c.max_hp));
        }
        if c.kind == EntityKind::Monster
            && let Some(text) = c.monster.as_deref().and_then(|k| d.monsters.get(k))
        {
            lines.push(text.clone());
        }
        if c.kind == EntityKind::Player && c.id != view.me.id {
            lines.push("A friend.".to_string());
        }
        if c.kind == EntityKind::Remains {
            lines.extend(remains_words(view, c.id));
        }
        if !pile.is_empty() {
            lines.push(format!("On the floor: {}", pile.join(", ")));
        }
        title
    } else if let Some(i) = item {
        if let Some(text) = item_description(view, d, i) {
            lines.push(text.to_string());
        }
        if pile.len() > 1 {
            lines.push(format!("With it: {}", pile[1..].join(", ")));
        }
        lines.push(if items.len() > 1 {
            "Walk onto them to pick them up.".to_string()
        } else {
            "Walk onto it to pick it up.".to_string()
        });
        pile[0].clone()
    } else {
        return Some(Description {
            title: tile_words(tile).to_string(),
            lines: mark_words(view, at),
        });
    };
    if tile != Tile::Floor {
        lines.push(tile_words(tile).to_string());
    }
    lines.extend(mark_words(view, at));
    Some(Description { title, lines })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::travel::tests::view_of;
    use delve_protocol::CellSet;

    fn lore() -> Descriptions {
        let mut d = Descriptions::default();
        d.monsters
            .insert("micro_mouse".into(), "A mouse the size of a thumb.".into());
        d.items
            .insert("crowbar".into(), "A heavy steel bar.".into());
        d
    }

    #[test]
    fn a_monster_says_its_name_level_hp_and_what_it_is() {
        let v = view_of(&["#####", "#@.m#", "#####"]);
        let got = describe(&v, &lore(), Pos::new(3, 1)).unwrap();
        assert_eq!(got.title, "Micro Mouse, level 1");
        assert_eq!(
            got.lines,
            vec![
                "HP 3 / 4".to_string(),
                "A mouse the size of a thumb.".into()
            ]
        );
    }

    #[test]
    fn remains_say_a_health_pack_brings_them_back_and_for_how_long() {
        use delve_protocol::{MarkedSpot, PartyMember};
        let mut v = view_of(&["#####", "#@..#", "#####"]);
        let bob = |revive_turns| PartyMember {
            id: 7,
            name: "Bob".into(),
            level: 2,
            hp: 0,
            max_hp: 25,
            depth: 1,
            alive: false,
            connected: true,
            away: false,
            pos: Some(Pos::new(3, 1)),
            revive_turns,
        };
        v.entities.push(EntityView {
            id: 7,
            kind: EntityKind::Remains,
            name: "Bob".into(),
            pos: Pos::new(3, 1),
            hp: 0,
            max_hp: 25,
            level: 2,
            monster: None,
            item: None,
        });
        v.party = vec![bob(Some(42))];
        let got = describe(&v, &lore(), Pos::new(3, 1)).unwrap();
        assert_eq!(got.title, "Bob (fallen), level 2");
        assert!(got.lines[0].contains("Health Pack"), "{:?}", got.lines);
        assert_eq!(got.lines[1], "42 turns left to do it.");
        v.party = vec![bob(None)];
        let got = describe(&v, &lore(), Pos::new(3, 1)).unwrap();
        assert_eq!(got.lines, vec!["Too late to bring them back.".to_string()]);
        // A marked spot says who marked it.
        v.marks = vec![MarkedSpot {
            by: 7,
            name: "Bob".into(),
            pos: Pos::new(2, 1),
            until: 10,
        }];
        let got = describe(&v, &lore(), Pos::new(2, 1)).unwrap();
        assert_eq!(
            got.lines,
            vec!["Bob marked this spot: look here.".to_string()]
        );
    }

    #[test]
    fn an_item_says_what_it_is() {
        let v = view_of(&["#####", "#@.$#", "#####"]);
        let got = describe(&v, &lore(), Pos::new(3, 1)).unwrap();
        assert_eq!(got.title, "Crowbar");
        assert_eq!(got.lines[0], "A heavy steel bar.");
        // Without descriptions from the server there is still a name.
        let bare = describe(&v, &Descriptions::default(), Pos::new(3, 1)).unwrap();
        assert_eq!(bare.title, "Crowbar");
    }

    #[test]
    fn a_pile_says_each_kind_once_with_its_count() {
        let mut v = view_of(&["#####", "#@.$#", "#####"]);
        let crowbar = v
            .entities
            .iter()
            .find(|e| e.kind == EntityKind::Item)
            .cloned()
            .expect("an item");
        let mut pack = crowbar.clone();
        pack.name = "Health Pack".into();
        for id in [90, 91] {
            v.entities.push(EntityView { id, ..pack.clone() });
        }
        let got = describe(&v, &lore(), crowbar.pos).unwrap();
        assert_eq!(got.title, "Crowbar");
        assert!(
            got.lines.contains(&"With it: Health Pack x2".to_string()),
            "{got:?}"
        );
        assert!(
            got.lines
                .contains(&"Walk onto them to pick them up.".to_string())
        );
    }

    #[test]
    fn doors_and_stairs_say_what_they_are() {
        let v = view_of(&["#######", "#@+*'>#", "#######"]);
        let say = |x| describe(&v, &lore(), Pos::new(x, 1)).unwrap().title;
        assert!(say(2).contains("shut door"));
        assert!(say(3).contains("locked door"));
        assert!(say(4).contains("open door"));
        assert!(say(5).contains("Stairs down"));
        assert_eq!(say(0), "A wall");
        let me = describe(&v, &lore(), Pos::new(1, 1)).unwrap();
        assert_eq!(me.title, "You (Ann), level 1");
    }

    #[test]
    fn a_remembered_tile_says_so_and_unknown_says_nothing() {
        let mut v = view_of(&["#####", "#@.> ", "#####"]);
        v.visible = CellSet::default();
        let got = describe(&v, &lore(), Pos::new(3, 1)).unwrap();
        assert!(got.title.contains("Stairs down"));
        assert_eq!(got.lines, vec!["Remembered: you do not see it now."]);
        assert_eq!(describe(&v, &lore(), Pos::new(4, 1)), None);
        assert_eq!(describe(&v, &lore(), Pos::new(40, 1)), None);
    }
}
