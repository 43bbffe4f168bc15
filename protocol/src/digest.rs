//! A fingerprint of a view: two views with the same digest show the same thing. The browser
//! client publishes the digest of the view it shows (`window.delveStatus.view`), so a test can
//! tell that a replay shows at turn N exactly what the player was sent at turn N.
//!
//! The watcher list is left out: who watched whom was never part of the game, and a replay
//! does not show it.

use crate::view::View;

/// 64-bit FNV-1a of the view's JSON without its watchers, as 16 hex digits. Not a defence
/// against forgery (nothing here needs one), only a cheap, stable comparison.
pub fn view_digest(view: &View) -> String {
    let mut v = view.clone();
    v.watchers.clear();
    let json = serde_json::to_vec(&v).unwrap_or_default();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in json {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}
