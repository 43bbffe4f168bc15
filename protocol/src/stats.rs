//! A character's fighting numbers and the floors every one of them keeps. The server computes
//! them; the client computes what they would become with other equipment (the pack's
//! comparison) — both with this one type, so the clamps cannot drift apart.

use crate::view::{Bonus, SelfView};

/// Max HP, attack range, defence, saving throw and sight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub max_hp: i32,
    pub attack_min: i32,
    pub attack_max: i32,
    pub defence: i32,
    pub save: i32,
    pub sight: i32,
}

impl Stats {
    /// The numbers a view reports for its own character (equipment included, clamped).
    pub fn of(me: &SelfView) -> Stats {
        Stats {
            max_hp: me.max_hp,
            attack_min: me.attack_min,
            attack_max: me.attack_max,
            defence: me.defence,
            save: me.save,
            sight: me.sight,
        }
    }

    /// `self` plus `add` minus `sub`, before clamping.
    pub fn swap(self, sub: Bonus, add: Bonus) -> Stats {
        let b = add.minus(sub);
        Stats {
            max_hp: self.max_hp + b.max_hp,
            attack_min: self.attack_min + b.attack_min,
            attack_max: self.attack_max + b.attack_max,
            defence: self.defence + b.defence,
            save: self.save + b.save,
            sight: self.sight + b.sight,
        }
    }

    /// The floors every stat keeps (given): max HP at least 1, attacks at least 1 with the
    /// maximum never under the minimum, defence and saving throw at least 0. Sight never drops
    /// below 1 either.
    #[inline] // every monster's stats are taken after every input the engine fuzzer makes
    pub fn clamped(mut self) -> Stats {
        self.max_hp = self.max_hp.max(1);
        self.attack_min = self.attack_min.max(1);
        self.attack_max = self.attack_max.max(self.attack_min);
        self.defence = self.defence.max(0);
        self.save = self.save.max(0);
        self.sight = self.sight.max(1);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_floor_holds() {
        let low = Stats {
            max_hp: -5,
            attack_min: -2,
            attack_max: -7,
            defence: -1,
            save: -3,
            sight: 0,
        }
        .clamped();
        assert_eq!(
            low,
            Stats {
                max_hp: 1,
                attack_min: 1,
                attack_max: 1,
                defence: 0,
                save: 0,
                sight: 1
            }
        );
        let fine = Stats {
            max_hp: 30,
            attack_min: 2,
            attack_max: 5,
            defence: 4,
            save: 10,
            sight: 8,
        };
        assert_eq!(fine.clamped(), fine);
    }
}
