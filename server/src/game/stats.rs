//! Character numbers: stats by level, stat points, experience thresholds, to-hit chance and the
//! worth of a kill. All the constants come from the content file.

pub use delve_protocol::Stat;

use super::content::{CombatRules, Content, XpRules};

/// A character's fighting numbers, with the clamps the client mirrors: one type in `protocol`.
pub use delve_protocol::Stats;

/// Stat points spent so far, per stat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Points {
    pub max_hp: i32,
    pub attack: i32,
    pub defence: i32,
    pub sight: i32,
    pub save: i32,
}

impl Points {
    pub fn add(&mut self, stat: Stat) {
        match stat {
            Stat::MaxHp => self.max_hp += 1,
            Stat::Attack => self.attack += 1,
            Stat::Defence => self.defence += 1,
            Stat::Sight => self.sight += 1,
            Stat::Save => self.save += 1,
        }
    }

    /// `base` with these points added at the content's rates.
    pub fn apply(&self, base: Stats, c: &Content) -> Stats {
        let u = &c.level_up;
        Stats {
            max_hp: base.max_hp + self.max_hp * u.max_hp,
            attack_min: base.attack_min + self.attack * u.attack,
            attack_max: base.attack_max + self.attack * u.attack,
            defence: base.defence + self.defence * u.defence,
            save: base.save + self.save * u.save,
            sight: base.sight + self.sight * u.sight,
        }
    }
}

/// A player's base stats at `level` (given formulas; fractions rounded down).
pub fn player_base(c: &Content, level: u32) -> Stats {
    let p = &c.player;
    let lvl = level.saturating_sub(1) as i32;
    Stats {
        max_hp: p.hp + p.hp_per_level * lvl,
        defence: p.defence + p.defence_per_level * lvl,
        attack_min: p.attack_min + p.attack_min_per_level * lvl,
        attack_max: (f64::from(p.attack_max) + p.attack_max_per_level * f64::from(lvl)).floor()
            as i32,
        save: (f64::from(p.save) + p.save_per_level * f64::from(lvl)).floor() as i32,
        sight: p.sight,
    }
}

/// Total XP needed to reach `level` (given): level 1 needs 0; going from L to L+1 takes
/// `L*step + (L-1)*growth` more.
pub fn xp_for_level(c: &Content, level: u32) -> u32 {
    let (step, growth) = (c.levels.step, c.levels.growth);
    (1..level.max(1))
        .map(|l| l * step + (l - 1) * growth)
        .fold(0u32, u32::saturating_add)
}

/// The level a total of `xp` experience reaches, capped at the content's maximum.
pub fn level_for_xp(c: &Content, xp: u32) -> u32 {
    let mut level = 1;
    while level < c.levels.max_level && xp >= xp_for_level(c, level + 1) {
        level += 1;
    }
    level
}

/// Chance in percent that an attack hits a defender with `defence` (the rule in the content
/// file: defence lowers the chance to be hit).
pub fn hit_chance(c: &CombatRules, defence: i32) -> i32 {
    (c.hit_base - c.hit_per_defence * defence).clamp(c.hit_min, c.hit_max)
}

/// What killing something worth `value` XP at `victim_level` gives a killer at `killer_level`:
/// less for something far below you, never below 1.
pub fn kill_xp(x: &XpRules, value: u32, victim_level: u32, killer_level: u32) -> u32 {
    let diff = f64::from(victim_level) - f64::from(killer_level);
    let factor = (1.0 + x.level_step * diff).clamp(x.factor_min, x.factor_max);
    ((f64::from(value) * factor).round() as u32).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c() -> Content {
        Content::builtin()
    }

    #[test]
    fn level_thresholds_are_the_given_ones() {
        let c = c();
        let want = [(1, 0), (2, 100), (3, 350), (4, 750), (5, 1300), (6, 2000)];
        for (level, xp) in want {
            assert_eq!(xp_for_level(&c, level), xp, "level {level}");
        }
        assert_eq!(level_for_xp(&c, 0), 1);
        assert_eq!(level_for_xp(&c, 99), 1);
        assert_eq!(level_for_xp(&c, 100), 2);
        assert_eq!(level_for_xp(&c, 349), 2);
        assert_eq!(level_for_xp(&c, 350), 3);
        assert_eq!(level_for_xp(&c, 1299), 4);
        assert_eq!(level_for_xp(&c, u32::MAX), c.levels.max_level);
    }

    #[test]
    fn base_stats_at_levels_1_to_5_are_the_given_ones() {
        let c = c();
        // (max HP, defence, min attack, max attack, saving throw) with lvl = level - 1:
        // 25 + 10 lvl, 4 + lvl, 1 + lvl, floor(4 + 1.5 lvl), floor(10 + 1.5 lvl).
        let want = [
            (1, 25, 4, 1, 4, 10),
            (2, 35, 5, 2, 5, 11),
            (3, 45, 6, 3, 7, 13),
            (4, 55, 7, 4, 8, 14),
            (5, 65, 8, 5, 10, 16),
        ];
        for (level, hp, def, amin, amax, save) in want {
            let s = player_base(&c, level);
            assert_eq!(
                (
                    s.max_hp,
                    s.defence,
                    s.attack_min,
                    s.attack_max,
                    s.save,
                    s.sight
                ),
                (hp, def, amin, amax, save, 8),
                "level {level}"
            );
        }
    }

    #[test]
    fn stat_points_add_the_given_amounts_and_clamps_hold() {
        let c = c();
        let base = player_base(&c, 1);
        let mut p = Points::default();
        for s in Stat::ALL {
            p.add(s);
        }
        let s = p.apply(base, &c);
        assert_eq!(s.max_hp, base.max_hp + 10);
        assert_eq!(
            (s.attack_min, s.attack_max),
            (base.attack_min + 1, base.attack_max + 1)
        );
        assert_eq!(s.defence, base.defence + 1);
        assert_eq!(s.sight, base.sight + 1);
        assert_eq!(s.save, base.save + 5);
        let low = Stats {
            max_hp: -5,
            attack_min: -1,
            attack_max: -3,
            defence: -2,
            save: -9,
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
    }

    #[test]
    fn defence_lowers_the_chance_to_hit_within_bounds() {
        let c = c();
        assert_eq!(hit_chance(&c.combat, 4), 78);
        assert_eq!(hit_chance(&c.combat, 12), 54);
        assert_eq!(hit_chance(&c.combat, 0), 90);
        assert_eq!(hit_chance(&c.combat, 100), c.combat.hit_min);
        assert_eq!(hit_chance(&c.combat, -100), c.combat.hit_max);
    }

    #[test]
    fn kill_xp_scales_with_the_level_difference_and_never_drops_below_one() {
        let x = c().xp;
        let scaled = |v: u32, diff: f64| {
            ((f64::from(v) * (1.0 + x.level_step * diff).clamp(x.factor_min, x.factor_max)).round()
                as u32)
                .max(1)
        };
        assert_eq!(kill_xp(&x, 50, 3, 3), 50, "same level: the table value");
        assert!(kill_xp(&x, 50, 5, 3) > 50, "above you: more");
        assert_eq!(kill_xp(&x, 50, 5, 3), scaled(50, 2.0));
        assert!(kill_xp(&x, 50, 1, 3) < 50, "below you: less");
        assert_eq!(kill_xp(&x, 50, 1, 3), scaled(50, -2.0));
        assert_eq!(kill_xp(&x, 10, 1, 20), 1, "far below: never below 1");
        assert_eq!(
            kill_xp(&x, 10, 30, 1),
            (10.0 * x.factor_max).round() as u32,
            "capped at factor_max"
        );
    }
}
