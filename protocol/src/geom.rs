//! Positions and the eight directions of movement.

use serde::{Deserialize, Serialize};

/// A map position in tiles. `x` grows east, `y` grows south; (0, 0) is the north-west corner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Pos {
    pub x: i32,
    pub y: i32,
}

impl Pos {
    pub const fn new(x: i32, y: i32) -> Self {
        Pos { x, y }
    }

    /// The neighbouring position one step in `dir`.
    pub fn step(self, dir: Dir) -> Pos {
        let (dx, dy) = dir.delta();
        Pos::new(self.x + dx, self.y + dy)
    }

    /// Chebyshev distance: the number of 8-directional steps between two positions.
    pub fn chebyshev(self, other: Pos) -> i32 {
        (self.x - other.x).abs().max((self.y - other.y).abs())
    }

    /// Squared Euclidean distance, used for the round sight radius.
    pub fn dist2(self, other: Pos) -> i32 {
        let (dx, dy) = (self.x - other.x, self.y - other.y);
        dx * dx + dy * dy
    }
}

/// One of the eight compass directions a character can step in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    N,
    Ne,
    E,
    Se,
    S,
    Sw,
    W,
    Nw,
}

impl Dir {
    pub const ALL: [Dir; 8] = [
        Dir::N,
        Dir::Ne,
        Dir::E,
        Dir::Se,
        Dir::S,
        Dir::Sw,
        Dir::W,
        Dir::Nw,
    ];

    /// The (dx, dy) of one step; north is negative y.
    pub const fn delta(self) -> (i32, i32) {
        match self {
            Dir::N => (0, -1),
            Dir::Ne => (1, -1),
            Dir::E => (1, 0),
            Dir::Se => (1, 1),
            Dir::S => (0, 1),
            Dir::Sw => (-1, 1),
            Dir::W => (-1, 0),
            Dir::Nw => (-1, -1),
        }
    }

    /// The direction with this (dx, dy), if it is one step.
    pub fn from_delta(dx: i32, dy: i32) -> Option<Dir> {
        Dir::ALL.into_iter().find(|d| d.delta() == (dx, dy))
    }

    /// The lowercase wire name ("n", "ne", ...).
    pub const fn name(self) -> &'static str {
        match self {
            Dir::N => "n",
            Dir::Ne => "ne",
            Dir::E => "e",
            Dir::Se => "se",
            Dir::S => "s",
            Dir::Sw => "sw",
            Dir::W => "w",
            Dir::Nw => "nw",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_are_the_eight_distinct_unit_steps() {
        let mut seen = std::collections::HashSet::new();
        for d in Dir::ALL {
            let (dx, dy) = d.delta();
            assert_eq!(Pos::new(0, 0).chebyshev(Pos::new(dx, dy)), 1, "{d:?}");
            assert!(seen.insert((dx, dy)));
            assert_eq!(Dir::from_delta(dx, dy), Some(d));
        }
        assert_eq!(Dir::from_delta(0, 0), None);
    }

    #[test]
    fn wire_names_match_serde() {
        for d in Dir::ALL {
            let json = serde_json::to_string(&d).unwrap();
            assert_eq!(json, format!("\"{}\"", d.name()));
        }
    }
}
