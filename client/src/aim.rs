//! Aiming a throw or a shot: what to throw (from the pack, by its `use` and `range`, never by a
//! content key), the targets to cycle through (the monsters in sight and in range, nearest
//! first), a cell moved freely with the direction keys, and the line the missile would fly.
//! Pure: the UI (`ui::aim`) draws it and feeds it keys and clicks.
//!
//! The server stays the judge: a cell out of sight or out of range is refused there with its
//! reason. Here such a cell is only marked, so the player sees why before sending.

use delve_protocol::{Action, Dir, EntityKind, ItemUse, Pos, Slot, View};

/// What is aimed: an item of the pack thrown, or the weapon worn fired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Missile {
    Throw { item: u32, name: String },
    Fire { name: String },
}

/// An aim under way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Aim {
    pub missile: Missile,
    /// How far it goes (the item's or weapon's `range`).
    pub range: i32,
    /// The cell aimed at.
    pub at: Pos,
}

/// What `f` aims: the weapon worn if it shoots, else the first thing in the pack that is thrown.
pub fn default_missile(view: &View) -> Option<(Missile, i32)> {
    let worn =
        (view.inventory.iter()).find(|i| i.equipped && i.slot == Some(Slot::Weapon) && i.range > 0);
    if let Some(w) = worn {
        let name = w.name.to_string();
        return Some((Missile::Fire { name }, w.range as i32));
    }
    item_missile(view, None)
}

/// The thrown item `item` of the pack (or the first thrown one, for `None`), with its range.
pub fn item_missile(view: &View, item: Option<u32>) -> Option<(Missile, i32)> {
    let it = (view.inventory.iter())
        .filter(|i| i.use_ == ItemUse::Throw && i.range > 0)
        .find(|i| item.is_none_or(|id| i.id == id))?;
    let missile = Missile::Throw {
        item: it.id,
        name: it.name.to_string(),
    };
    Some((missile, it.range as i32))
}

/// Whether `(dx, dy)` is within `range`, measured as sight is (the server's rule).
pub fn within(dx: i32, dy: i32, range: i32) -> bool {
    dx * dx + dy * dy <= range * (range + 1)
}

/// The monsters in sight and within `range` of the character, nearest first (then by id).
pub fn targets(view: &View, range: i32) -> Vec<Pos> {
    let me = view.me.pos;
    let mut m: Vec<(i32, u32, Pos)> = (view.entities.iter())
        .filter(|e| e.kind == EntityKind::Monster && view.is_visible(e.pos))
        .filter(|e| within(e.pos.x - me.x, e.pos.y - me.y, range))
        .map(|e| (e.pos.dist2(me), e.id, e.pos))
        .collect();
    m.sort_unstable();
    m.into_iter().map(|(_, _, p)| p).collect()
}

impl Aim {
    /// Starts aiming `missile` at the nearest target in range, or (none) at the cell east of
    /// the character, to be moved with the direction keys.
    pub fn new(view: &View, missile: Missile, range: i32) -> Aim {
        let me = view.me.pos;
        let at = targets(view, range)
            .first()
            .copied()
            .unwrap_or(Pos::new(me.x + 1, me.y));
        Aim { missile, range, at }
    }

    /// Aims at the next target after the one aimed at (round the list), if there are any.
    pub fn next(&mut self, view: &View) {
        let all = targets(view, self.range);
        let k = all.iter().position(|p| *p == self.at);
        if let Some(p) = match k {
            Some(k) => all.get((k + 1) % all.len()),
            None => all.first(),
        } {
            self.at = *p;
        }
    }

    /// Moves the aim one cell.
    pub fn shift(&mut self, dir: Dir) {
        self.at = self.at.step(dir);
    }

    /// Why the cell aimed at would be refused, if it would (the server's reasons, in words).
    pub fn problem(&self, view: &View) -> Option<&'static str> {
        let me = view.me.pos;
        if self.at == me {
            Some("That is your own cell.")
        } else if !view.is_visible(self.at) {
            Some("You cannot see there.")
        } else if !within(self.at.x - me.x, self.at.y - me.y, self.range) {
            Some("That is out of range.")
        } else {
            None
        }
    }

    /// The action to send.
    pub fn action(&self) -> Action {
        match &self.missile {
            Missile::Throw { item, .. } => Action::Throw {
                item: *item,
                at: self.at,
            },
            Missile::Fire { .. } => Action::Fire { at: self.at },
        }
    }

    /// A line saying what is aimed, at what.
    pub fn describe(&self, view: &View) -> String {
        let verb = match &self.missile {
            Missile::Throw { name, .. } => format!("Throw the {name}"),
            Missile::Fire { name } => format!("Shoot the {name}"),
        };
        let at = (view.entities.iter())
            .find(|e| e.pos == self.at && e.kind == EntityKind::Monster)
            .map_or_else(|| "there".to_string(), |e| format!("at the {}", e.name));
        format!("{verb} {at}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::travel::tests::view_of;
    use delve_protocol::{Bonus, ItemView};

    fn item(id: u32, use_: ItemUse, slot: Option<Slot>, range: u32) -> ItemView {
        ItemView {
            id,
            key: format!("thing{id}").into(),
            name: format!("Thing {id}").into(),
            description: "".into(),
            slot,
            equipped: slot.is_some(),
            usable: false,
            bonus: Bonus::default(),
            use_,
            count: 1,
            range,
        }
    }

    #[test]
    fn f_aims_the_worn_shooter_else_the_first_thing_thrown_by_what_it_does() {
        let mut v = view_of(&["#####", "#@.m#", "#####"]);
        assert_eq!(default_missile(&v), None);
        v.inventory = vec![
            item(1, ItemUse::Heal, None, 0),
            item(2, ItemUse::Throw, None, 6),
        ];
        let thrown = Missile::Throw {
            item: 2,
            name: "Thing 2".into(),
        };
        assert_eq!(default_missile(&v), Some((thrown, 6)));
        v.inventory
            .push(item(3, ItemUse::None, Some(Slot::Weapon), 5));
        let fire = Missile::Fire {
            name: "Thing 3".into(),
        };
        assert_eq!(default_missile(&v), Some((fire, 5)));
    }

    #[test]
    fn targets_are_the_monsters_in_range_nearest_first_and_next_goes_round() {
        let v = view_of(&[
            "###########",
            "#@.m...m.m#", // monsters 2, 6 and 8 tiles east
            "###########",
        ]);
        let me = v.me.pos;
        let t = targets(&v, 6);
        assert_eq!(t, vec![Pos::new(me.x + 2, me.y), Pos::new(me.x + 6, me.y)]);
        let missile = Missile::Fire {
            name: "Slingshot".into(),
        };
        let mut aim = Aim::new(&v, missile, 6);
        assert_eq!(aim.at, t[0]);
        assert_eq!(aim.problem(&v), None);
        assert_eq!(aim.action(), Action::Fire { at: t[0] });
        aim.next(&v);
        assert_eq!(aim.at, t[1]);
        aim.next(&v);
        assert_eq!(aim.at, t[0], "round the list");
        // The far one is out of range; the cell itself, a wall, out of sight.
        aim.at = Pos::new(me.x + 8, me.y);
        assert_eq!(aim.problem(&v), Some("That is out of range."));
        aim.shift(Dir::N);
        aim.at = me;
        assert_eq!(aim.problem(&v), Some("That is your own cell."));
    }
}
