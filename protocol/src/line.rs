//! The line a missile flies: from one cell to another, a cell at a time (Bresenham's line, with
//! its steps along the longer axis, so it has no gaps and takes diagonal steps). Throws, shots
//! and the monsters that decide whether to shoot all use this one line, so a monster shoots
//! only along a line that its shot can fly; the client draws the aim along it too.

use crate::Pos;

/// The cells from `from` to `to`, both included, in order.
pub fn line(from: Pos, to: Pos) -> Vec<Pos> {
    let (dx, dy) = ((to.x - from.x).abs(), -(to.y - from.y).abs());
    let (sx, sy) = ((to.x - from.x).signum(), (to.y - from.y).signum());
    let mut err = dx + dy;
    let mut at = from;
    let mut out = Vec::with_capacity((dx.max(-dy) + 1) as usize);
    loop {
        out.push(at);
        if at == to {
            return out;
        }
        let e2 = 2 * err;
        if e2 >= dy {
            err += dy;
            at.x += sx;
        }
        if e2 <= dx {
            err += dx;
            at.y += sy;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_steps_one_cell_at_a_time_from_end_to_end() {
        for (a, b) in [
            (Pos::new(0, 0), Pos::new(5, 2)),
            (Pos::new(3, 3), Pos::new(-2, 7)),
            (Pos::new(1, 1), Pos::new(1, 1)),
            (Pos::new(4, 0), Pos::new(0, 0)),
            (Pos::new(0, 0), Pos::new(3, -3)),
        ] {
            let l = line(a, b);
            assert_eq!((l.first(), l.last()), (Some(&a), Some(&b)));
            assert!(l.windows(2).all(|w| w[0].chebyshev(w[1]) == 1), "{l:?}");
            assert_eq!(l.len() as i32, a.chebyshev(b) + 1, "no cell twice: {l:?}");
        }
        assert_eq!(
            line(Pos::new(0, 0), Pos::new(4, 2)),
            [(0, 0), (1, 1), (2, 1), (3, 2), (4, 2)].map(|(x, y)| Pos::new(x, y))
        );
    }
}
