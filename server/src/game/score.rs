//! The high-score formula (documented in the content file's `[score]`): experience, plus a
//! bonus per floor below the first reached and per kill, plus a large one for a victory.

use super::content::Content;
use super::player::Player;

pub fn score(p: &Player, c: &Content) -> u32 {
    let s = &c.score;
    let floors = u32::from(p.deepest.saturating_sub(1));
    p.xp.saturating_add(s.per_floor.saturating_mul(floors))
        .saturating_add(s.per_kill.saturating_mul(p.kills))
        .saturating_add(if p.victory { s.victory } else { 0 })
}
