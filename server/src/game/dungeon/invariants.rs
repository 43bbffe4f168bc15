//! What must hold in every world after every input, whatever was sent: the property tests and
//! the fuzzer check it after each step (see [`crate::game::script`]).

use delve_protocol::{INVENTORY_SLOTS, Pos, Tile};

use super::{Dungeon, Floor};
use crate::game::EntityId;

/// Whether a character or monster may stand on `tile`.
fn standable(tile: Tile) -> bool {
    matches!(
        tile,
        Tile::Floor | Tile::StairsDown | Tile::StairsUp | Tile::DoorOpen
    )
}

impl Dungeon {
    /// Checks the world's invariants: nobody stands in a wall (or a closed door, or off the map)
    /// or on another's cell, the living have HP in `1..=max`, no pack holds more than its slots.
    /// Returns the first one broken, in words.
    pub fn check_invariants(&self) -> Result<(), String> {
        let c = self.content();
        for p in self.players() {
            if p.slots_used(c) > INVENTORY_SLOTS {
                return Err(format!(
                    "{} fills {} pack slots of {INVENTORY_SLOTS}",
                    p.name,
                    p.slots_used(c)
                ));
            }
            if !(p.alive && p.present) {
                continue;
            }
            let max = p.stats(c).max_hp;
            if p.hp < 1 || p.hp > max {
                return Err(format!("{} is alive with {} of {max} HP", p.name, p.hp));
            }
            let Some(floor) = self.floor(p.depth) else {
                return Err(format!("{} is on floor {}, never made", p.name, p.depth));
            };
            self.check_cell(floor, p.pos, &|| p.name.to_string())?;
            if let Some(m) = floor.monster_at(p.pos) {
                return Err(format!(
                    "{} shares {:?} with monster {}",
                    p.name, p.pos, m.id
                ));
            }
            if let Some(q) = self
                .living_on(p.depth)
                .find(|q| q.id != p.id && q.present && q.pos == p.pos)
            {
                return Err(format!("{} shares {:?} with {}", p.name, p.pos, q.name));
            }
        }
        self.check_party()?;
        self.check_memories()?;
        for floor in (1..=self.depth_count()).filter_map(|d| self.floor(d)) {
            // Cells already stood on, a flag per cell of the map (cheaper than a set of
            // positions, built and dropped for every floor after every input the fuzzer makes).
            let mut seen = vec![false; floor.map().cells().len()];
            for m in floor.monsters.values() {
                // Named only when something is wrong: this runs for every monster after every
                // input the fuzzer makes.
                let who = || format!("monster {} on floor {}", m.id, floor.depth);
                let max = m.stats(c).max_hp;
                if m.hp < 1 || m.hp > max {
                    return Err(format!("{} has {} of {max} HP", who(), m.hp));
                }
                self.check_cell(floor, m.pos, &who)?;
                // On the map (checked just above), so the position has a cell.
                let first = (floor.map().index(m.pos))
                    .is_some_and(|i| !std::mem::replace(&mut seen[i], true));
                if !first {
                    let who = who();
                    return Err(format!("{who} shares {:?} with another monster", m.pos));
                }
            }
        }
        Ok(())
    }

    /// What the party keeps is about characters there are: only the connected living are away,
    /// only the fallen can be brought back, and every mark is on a floor there is.
    fn check_party(&self) -> Result<(), String> {
        let party = &self.party;
        let known = |id: &EntityId| self.players.contains_key(id);
        let ids = (party.away.iter())
            .chain(party.missed.keys())
            .chain(party.fallen.keys())
            .chain(party.marks.keys());
        if let Some(id) = ids.clone().find(|id| !known(id)) {
            return Err(format!("the party keeps {id}, who is not in the dungeon"));
        }
        for id in &party.away {
            let p = &self.players[id];
            if !(p.alive && p.connected && !p.victory) {
                return Err(format!("{} is away but not a connected player", p.name));
            }
        }
        for id in party.fallen.keys() {
            if self.players[id].alive {
                return Err(format!(
                    "{} can be brought back but lives",
                    self.players[id].name
                ));
            }
        }
        for m in party.marks.values() {
            if self.floor(m.depth).is_none_or(|f| !f.map.in_bounds(m.pos)) {
                return Err(format!(
                    "a mark at {:?} on floor {} lies nowhere",
                    m.pos, m.depth
                ));
            }
        }
        Ok(())
    }

    /// Every character on its floor remembers each cell it sees as that cell is now: what a
    /// player sees is never shown as it was.
    fn check_memories(&self) -> Result<(), String> {
        for p in self.players().filter(|p| p.present) {
            let (Some(floor), Some(memory)) = (self.floor(p.depth), p.memory.get(p.depth)) else {
                continue;
            };
            let (now, known) = (floor.map().cells(), memory.cells());
            if let Some(i) = p.fov.cells().find(|&i| now.get(i) != known.get(i)) {
                return Err(format!(
                    "{} sees {:?} at {:?} but remembers {:?}",
                    p.name,
                    now.get(i),
                    floor.map().pos_of(i),
                    known.get(i)
                ));
            }
        }
        Ok(())
    }

    #[inline]
    fn check_cell(&self, floor: &Floor, pos: Pos, who: &dyn Fn() -> String) -> Result<(), String> {
        if !floor.map().in_bounds(pos) {
            return Err(format!("{} is off the map at {pos:?}", who()));
        }
        let tile = floor.tile(pos);
        if !standable(tile) {
            return Err(format!("{} stands in {tile:?} at {pos:?}", who()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use delve_protocol::{Pos, Tile};

    use crate::game::{Content, Dungeon};

    fn world() -> (Dungeon, crate::game::EntityId) {
        let mut d = Dungeon::new(7, Arc::new(Content::builtin()));
        let (ann, _) = d.join("Ann").unwrap();
        assert_eq!(d.check_invariants(), Ok(()));
        (d, ann)
    }

    #[test]
    fn a_character_in_a_wall_is_caught() {
        let (mut d, ann) = world();
        let wall = Pos::new(0, 0);
        assert_eq!(d.floor(1).unwrap().tile(wall), Tile::Wall);
        d.players.get_mut(&ann).unwrap().pos = wall;
        assert!(d.check_invariants().unwrap_err().contains("Wall"));
    }

    #[test]
    fn hp_out_of_bounds_is_caught() {
        let (mut d, ann) = world();
        d.players.get_mut(&ann).unwrap().hp = 1000;
        assert!(d.check_invariants().unwrap_err().contains("HP"));
        d.players.get_mut(&ann).unwrap().hp = 0;
        assert!(d.check_invariants().unwrap_err().contains("HP"));
    }

    #[test]
    fn an_overfull_pack_is_caught() {
        let (mut d, ann) = world();
        // Health Packs stack: any number take one slot.
        let made = |d: &mut Dungeon, key: &str, k: u32| {
            let mut it = d.make_item_for_test(1, key);
            it.id += k;
            it
        };
        let packs: Vec<_> = (0..40).map(|k| made(&mut d, "health_pack", k)).collect();
        d.players.get_mut(&ann).unwrap().inventory = packs;
        assert!(d.check_invariants().is_ok());
        // Equipment takes a slot each.
        let bars: Vec<_> = (0..=delve_protocol::INVENTORY_SLOTS as u32)
            .map(|k| made(&mut d, "crowbar", k))
            .collect();
        d.players.get_mut(&ann).unwrap().inventory = bars;
        assert!(d.check_invariants().unwrap_err().contains("slots"));
    }
}
