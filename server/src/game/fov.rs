//! Symmetric shadowcasting field of view on a flat bitmap.
//!
//! The algorithm scans the four quadrants row by row, narrowing a pair of slopes as walls cast
//! shadows. A floor cell is lit only if its centre lies inside the unshadowed span
//! ("symmetric": if A sees B then B sees A); walls are lit whenever any part of them is in the
//! span, so room outlines look whole. Slopes are kept as exact fractions, so there is no
//! floating-point drift and results are identical on every machine.

/// Whether `(dx, dy)` lies within a sight radius of `r`. Uses `dx² + dy² ≤ r(r + 1)` rather than
/// `≤ r²`: the latter leaves single-cell nubs at the four compass points.
pub fn within_radius(dx: i32, dy: i32, r: i32) -> bool {
    dx * dx + dy * dy <= r * (r + 1)
}

/// A slope `num / den` with `den > 0`, measured in half-cells so every slope the algorithm
/// needs is exact.
#[derive(Clone, Copy, Debug)]
struct Slope {
    num: i64,
    den: i64,
}

impl Slope {
    /// The slope through the near corner of cell `col` in row `depth`: (2·col − 1) / (2·depth).
    fn corner(depth: i64, col: i64) -> Slope {
        Slope {
            num: 2 * col - 1,
            den: 2 * depth,
        }
    }
}

/// Quadrant-local coordinates (depth from the origin, column across) to map coordinates: how
/// far a step in depth and a step across move along x and y. Kept as these four numbers
/// rather than a `match` on the quadrant: a row's cells are found from them once a row (see
/// [`Row`]), and in the engine fuzzer's build a `match` became a jump (with a coverage counter)
/// wherever it stood. A step across moves one cell along x or along y, never back.
#[derive(Clone, Copy)]
struct Quadrant {
    x_per_depth: i32,
    x_per_col: i32,
    y_per_depth: i32,
    y_per_col: i32,
}

impl Quadrant {
    const NORTH: Quadrant = Quadrant::new(0, 1, -1, 0);
    const EAST: Quadrant = Quadrant::new(1, 0, 0, 1);
    const SOUTH: Quadrant = Quadrant::new(0, 1, 1, 0);
    const WEST: Quadrant = Quadrant::new(-1, 0, 0, 1);

    const fn new(x_per_depth: i32, x_per_col: i32, y_per_depth: i32, y_per_col: i32) -> Self {
        Quadrant {
            x_per_depth,
            x_per_col,
            y_per_depth,
            y_per_col,
        }
    }
}

/// The cells of one row of a quadrant that lie on the map: columns `first..=last`, column `col`
/// at row-major index `at_zero + col * per_col`. Found once a row, so that a cell costs an
/// addition rather than a transform and a bounds check of both coordinates.
struct Row {
    first: i64,
    last: i64,
    at_zero: i64,
    per_col: i64,
}

impl Row {
    /// Row `depth` of quadrant `q` seen from `(ox, oy)` on a `width` × `height` map.
    fn of(q: Quadrant, ox: i32, oy: i32, depth: i64, width: usize, height: usize) -> Row {
        let (w, h) = (width as i64, height as i64);
        // Column 0's cell (on the line through the origin), which may be off the map.
        let x0 = i64::from(ox) + depth * i64::from(q.x_per_depth);
        let y0 = i64::from(oy) + depth * i64::from(q.y_per_depth);
        let (dx, dy) = (i64::from(q.x_per_col), i64::from(q.y_per_col));
        debug_assert!(matches!((dx, dy), (1, 0) | (0, 1)));
        // The coordinate that moves with the column bounds the columns on the map; the one that
        // does not keeps all of them on the map, or none.
        let (mut first, mut last) = (i64::MIN, i64::MAX);
        for (at_zero, per_col, size) in [(x0, dx, w), (y0, dy, h)] {
            if per_col == 0 {
                if !(0..size).contains(&at_zero) {
                    (first, last) = (1, 0);
                }
            } else {
                first = first.max(-at_zero);
                last = last.min(size - 1 - at_zero);
            }
        }
        Row {
            first,
            last,
            at_zero: y0 * w + x0,
            per_col: dy * w + dx,
        }
    }

    /// The row-major index of column `col`, if that cell is on the map.
    #[inline]
    fn index(&self, col: i64) -> Option<usize> {
        (self.first <= col && col <= self.last)
            .then(|| (self.at_zero + col * self.per_col) as usize)
    }
}

/// Computes what is visible from `(ox, oy)` within `radius`.
///
/// `opaque` tells whether row-major cell `i` blocks sight; cells outside the map block sight.
/// `visible` is cleared to the map's size and then set for every visible cell. A negative radius
/// means unlimited.
pub fn compute<O: Blocks>(
    opaque: &O,
    width: usize,
    height: usize,
    ox: i32,
    oy: i32,
    radius: i32,
    visible: &mut impl Lit,
) {
    debug_assert_eq!(opaque.cells(), width * height);
    visible.clear(width * height);
    if ox < 0 || oy < 0 || ox as usize >= width || oy as usize >= height {
        return;
    }
    visible.light(oy as usize * width + ox as usize);
    let ctx = Ctx {
        opaque,
        width,
        height,
        ox,
        oy,
        radius,
    };
    for q in [
        Quadrant::NORTH,
        Quadrant::EAST,
        Quadrant::SOUTH,
        Quadrant::WEST,
    ] {
        ctx.scan(
            q,
            1,
            Slope { num: -1, den: 1 },
            Slope { num: 1, den: 1 },
            visible,
        );
    }
}

/// Where a field of view is written: a flag per cell (tests and benches), or
/// [`super::sight::Sight`] bits (characters' sight, monsters' awareness), written directly
/// rather than through flags.
pub trait Lit {
    /// Leaves `len` cells, none of them lit.
    fn clear(&mut self, len: usize);
    /// Marks cell `i` (less than the `len` given to `clear`) as lit.
    fn light(&mut self, i: usize);
}

impl Lit for Vec<bool> {
    fn clear(&mut self, len: usize) {
        self.clear();
        self.resize(len, false);
    }

    fn light(&mut self, i: usize) {
        self[i] = true;
    }
}

/// What blocks sight, a cell at a time: a flag per cell (tests and benches), or a floor's
/// [`Walls`].
pub trait Blocks {
    /// How many cells there are.
    fn cells(&self) -> usize;
    /// Whether cell `i` (less than `cells()`) blocks sight.
    fn blocks(&self, i: usize) -> bool;
}

impl Blocks for Vec<bool> {
    fn cells(&self) -> usize {
        self.len()
    }

    fn blocks(&self, i: usize) -> bool {
        self[i]
    }
}

/// Which cells of a floor block sight, one bit a cell.
///
/// A floor keeps this beside its map for the field of view, which every character's move and
/// every monster's look reads. As bits, a floor of 85×48 cells is 510 bytes (eight cache lines)
/// rather than 4,080: on a server with hundreds of dungeons a floor has left the cache by its
/// next turn, and a field of view would otherwise wait on a line for every row it scans.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Walls {
    len: usize,
    words: Vec<u64>,
}

impl Walls {
    /// Walls where `flags` says so (for tests, which compare with plain flags).
    #[cfg(test)]
    pub fn from_flags(flags: impl ExactSizeIterator<Item = bool>) -> Walls {
        let len = flags.len();
        let mut words = vec![0u64; len.div_ceil(64)];
        for (i, f) in flags.enumerate() {
            words[i / 64] |= u64::from(f) << (i % 64);
        }
        Walls { len, words }
    }

    /// No cells, with room for `len`.
    pub fn with_capacity(len: usize) -> Walls {
        Walls {
            len: 0,
            words: Vec::with_capacity(len.div_ceil(64)),
        }
    }

    /// Adds `n` cells (at most 64) after the last: cell `len + k` blocks sight when bit `k` of
    /// `bits` is set (bits above `n` are ignored).
    pub fn push_bits(&mut self, bits: u64, n: usize) {
        debug_assert!(n <= 64);
        if n == 0 {
            return;
        }
        let bits = if n == 64 { bits } else { bits & ((1 << n) - 1) };
        let used = self.len % 64;
        if used == 0 {
            self.words.push(bits);
        } else {
            *self.words.last_mut().expect("a word is in use") |= bits << used;
            if used + n > 64 {
                self.words.push(bits >> (64 - used));
            }
        }
        self.len += n;
    }

    /// Makes cell `i` block sight or not.
    pub fn set(&mut self, i: usize, blocks: bool) {
        if i < self.len {
            let bit = 1 << (i % 64);
            if blocks {
                self.words[i / 64] |= bit;
            } else {
                self.words[i / 64] &= !bit;
            }
        }
    }
}

impl Blocks for Walls {
    fn cells(&self) -> usize {
        self.len
    }

    fn blocks(&self, i: usize) -> bool {
        self.words[i / 64] >> (i % 64) & 1 == 1
    }
}

struct Ctx<'a, O> {
    opaque: &'a O,
    width: usize,
    height: usize,
    ox: i32,
    oy: i32,
    radius: i32,
}

impl<O: Blocks> Ctx<'_, O> {
    /// Scans one row of a quadrant between two slopes, recursing into the rows behind it.
    fn scan<V: Lit>(&self, q: Quadrant, depth: i64, mut start: Slope, end: Slope, visible: &mut V) {
        if self.radius >= 0 && depth > i64::from(self.radius) {
            return;
        }
        // Beyond the map in this direction there is nothing left to see.
        let max_depth = self.width.max(self.height) as i64;
        if depth > max_depth {
            return;
        }
        // Columns whose centre-ish lies within [start, end]: round half up / round half down.
        let min_col = floor_div(2 * depth * start.num + start.den, 2 * start.den);
        let max_col = ceil_div(2 * depth * end.num - end.den, 2 * end.den);
        let row = Row::of(q, self.ox, self.oy, depth, self.width, self.height);
        // Symmetric: the cell's centre is inside the span, start ≤ col / depth ≤ end, that is
        // from the column `sym_from` to `sym_to` (`start` moves on past each wall).
        let mut sym_from = ceil_div(depth * start.num, start.den);
        let sym_to = floor_div(depth * end.num, end.den);
        // Within the radius: depth² + col² ≤ r(r + 1) (see `within_radius`), as the quadrant's
        // depth and column are the map's x and y, turned; `depth` is within it (checked above).
        let reach = match self.radius {
            r if r < 0 => i64::MAX,
            r => {
                let r = i64::from(r);
                (r * (r + 1) - depth * depth).isqrt()
            }
        };

        let mut prev_wall: Option<bool> = None;
        for col in min_col..=max_col {
            let cell = row.index(col);
            let wall = cell.is_none_or(|i| self.opaque.blocks(i));
            let symmetric = sym_from <= col && col <= sym_to;
            if let Some(i) = cell
                && (wall || symmetric)
                && col.abs() <= reach
            {
                visible.light(i);
            }
            match prev_wall {
                Some(true) if !wall => {
                    start = Slope::corner(depth, col);
                    sym_from = ceil_div(depth * start.num, start.den);
                }
                Some(false) if wall => {
                    self.scan(q, depth + 1, start, Slope::corner(depth, col), visible);
                }
                _ => {}
            }
            prev_wall = Some(wall);
        }
        if prev_wall == Some(false) {
            self.scan(q, depth + 1, start, end, visible);
        }
    }
}

fn floor_div(a: i64, b: i64) -> i64 {
    a.div_euclid(b)
}

fn ceil_div(a: i64, b: i64) -> i64 {
    -(-a).div_euclid(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(rows: &[&str]) -> (Vec<bool>, usize, usize, (i32, i32)) {
        let (w, h) = (rows[0].len(), rows.len());
        let mut origin = (0, 0);
        let mut opaque = Vec::new();
        for (y, r) in rows.iter().enumerate() {
            for (x, c) in r.chars().enumerate() {
                opaque.push(c == '#');
                if c == '@' {
                    origin = (x as i32, y as i32);
                }
            }
        }
        (opaque, w, h, origin)
    }

    fn render(visible: &[bool], w: usize) -> Vec<String> {
        visible
            .chunks(w)
            .map(|r| r.iter().map(|&v| if v { 'o' } else { ' ' }).collect())
            .collect()
    }

    /// A floor's walls as bits say what its flags say, cell by cell, across word boundaries,
    /// and a cell set one way or the other changes that cell alone.
    #[test]
    fn walls_as_bits_block_what_the_flags_block() {
        let flags: Vec<bool> = (0..200).map(|i| i % 3 == 0 || i % 7 == 0).collect();
        let mut walls = Walls::from_flags(flags.iter().copied());
        assert_eq!(walls.cells(), flags.len());
        assert!((0..flags.len()).all(|i| walls.blocks(i) == flags[i]));
        for i in [0, 63, 64, 127, 128, 199] {
            walls.set(i, !flags[i]);
            let now: Vec<bool> = (0..flags.len()).map(|j| walls.blocks(j)).collect();
            let mut want = flags.clone();
            want[i] = !flags[i];
            assert_eq!(now, want, "cell {i}");
            walls.set(i, flags[i]);
        }
        walls.set(200, true); // past the end: nothing
        assert_eq!(walls, Walls::from_flags(flags.iter().copied()));
    }

    #[test]
    fn open_room_is_fully_seen_and_the_wall_behind_a_pillar_is_shadowed() {
        let rows = [
            "###########",
            "#.........#",
            "#.........#",
            "#....@.#..#",
            "#.........#",
            "###########",
        ];
        let (opaque, w, h, (ox, oy)) = parse(&rows);
        let mut vis = vec![false; w * h];
        compute(&opaque, w, h, ox, oy, -1, &mut vis);
        let got = render(&vis, w);
        assert_eq!(
            got,
            vec![
                "ooooooooooo",
                "ooooooooooo",
                "ooooooooooo",
                "oooooooo   ",
                "ooooooooooo",
                "ooooooooooo",
            ],
            "{got:#?}"
        );
    }

    #[test]
    fn radius_limits_sight_to_a_round_disc() {
        let w = 31;
        let opaque = vec![false; w * w];
        let mut vis = vec![false; w * w];
        compute(&opaque, w, w, 15, 15, 8, &mut vis);
        for y in 0..w as i32 {
            for x in 0..w as i32 {
                let expect = within_radius(x - 15, y - 15, 8);
                assert_eq!(vis[y as usize * w + x as usize], expect, "({x},{y})");
            }
        }
        // r(r+1) gives a round edge: no lone cell sticking out at the compass points.
        assert!(within_radius(8, 1, 8) && within_radius(8, 2, 8) && !within_radius(9, 0, 8));
    }

    /// `cells` cells, about one in `density` a wall, from a xorshift generator at `state`.
    fn random_walls(cells: usize, state: &mut u64, density: u64) -> Vec<bool> {
        (0..cells)
            .map(|_| {
                *state ^= *state << 13;
                *state ^= *state >> 7;
                *state ^= *state << 17;
                state.is_multiple_of(density)
            })
            .collect()
    }

    #[test]
    fn symmetric_on_random_maps() {
        // If A sees floor cell B, B sees A: the property the algorithm is named for.
        let (w, h) = (20usize, 14usize);
        let mut state = 0x9e3779b97f4a7c15u64;
        for _ in 0..40 {
            let opaque = random_walls(w * h, &mut state, 5);
            let mut from_a = vec![false; w * h];
            let mut from_b = vec![false; w * h];
            for a in (0..w * h).filter(|&i| !opaque[i]).step_by(7) {
                let (ax, ay) = ((a % w) as i32, (a / w) as i32);
                compute(&opaque, w, h, ax, ay, -1, &mut from_a);
                for b in (0..w * h).filter(|&i| !opaque[i] && from_a[i]) {
                    let (bx, by) = ((b % w) as i32, (b / w) as i32);
                    compute(&opaque, w, h, bx, by, -1, &mut from_b);
                    assert!(from_b[a], "({ax},{ay}) sees ({bx},{by}) but not back");
                }
            }
        }
    }

    #[test]
    fn within_a_radius_the_field_is_the_same_whatever_the_radius() {
        // What the monster phase relies on to look only as far as the monsters near a player
        // can see: a shorter radius cuts off the cells beyond it and changes none within it.
        let (w, h) = (30usize, 20usize);
        let mut state = 0x853c49e6748fea9bu64;
        for round in 0..30 {
            let density = 3 + round % 5;
            let opaque = random_walls(w * h, &mut state, density);
            let (mut wide, mut near) = (vec![false; w * h], vec![false; w * h]);
            for origin in (0..w * h).filter(|&i| !opaque[i]).step_by(13) {
                let (ox, oy) = ((origin % w) as i32, (origin / w) as i32);
                compute(&opaque, w, h, ox, oy, 25, &mut wide);
                for r in [0, 1, 4, 8, 12] {
                    compute(&opaque, w, h, ox, oy, r, &mut near);
                    for i in 0..w * h {
                        let (x, y) = ((i % w) as i32, (i / w) as i32);
                        let expected = wide[i] && within_radius(x - ox, y - oy, r);
                        assert_eq!(near[i], expected, "from ({ox},{oy}) radius {r}: ({x},{y})");
                    }
                }
            }
        }
    }

    #[test]
    fn agrees_with_the_reference_crate_on_random_maps() {
        // The `symmetric-shadowcasting` crate implements the same algorithm with rational
        // numbers and closures: slow, but an independent oracle.
        let (w, h) = (40usize, 25usize);
        let mut state = 0x2545f4914f6cdd1du64;
        for round in 0..60 {
            let density = 3 + round % 6;
            let opaque = random_walls(w * h, &mut state, density);
            let mut ours = vec![false; w * h];
            for origin in (0..w * h).filter(|&i| !opaque[i]).step_by(11) {
                let (ox, oy) = ((origin % w) as i32, (origin / w) as i32);
                compute(&opaque, w, h, ox, oy, -1, &mut ours);
                let theirs = oracle(&opaque, w, h, ox, oy, -1);
                assert_eq!(ours, theirs, "round {round}, origin ({ox},{oy})");
            }
        }
    }

    /// The reference crate's field from `(ox, oy)`, cut to `radius` (negative: whole).
    fn oracle(opaque: &[bool], w: usize, h: usize, ox: i32, oy: i32, radius: i32) -> Vec<bool> {
        let inside = |(x, y): (isize, isize)| {
            (x >= 0 && y >= 0 && (x as usize) < w && (y as usize) < h)
                .then(|| y as usize * w + x as usize)
        };
        let mut seen = vec![false; w * h];
        symmetric_shadowcasting::compute_fov(
            (ox as isize, oy as isize),
            &mut |p| inside(p).is_none_or(|i| opaque[i]),
            &mut |p| {
                if let Some(i) = inside(p)
                    && (radius < 0 || within_radius(p.0 as i32 - ox, p.1 as i32 - oy, radius))
                {
                    seen[i] = true;
                }
            },
        );
        seen
    }

    #[test]
    fn rows_that_leave_the_map_on_thin_and_tiny_maps_agree_with_the_reference_crate() {
        // Each row's cells on the map are found once a row: rows wholly off the map (on a map
        // one cell high or wide), cut on either side, or from an origin on the edge.
        let mut state = 0x6a09e667f3bcc909u64;
        for (w, h) in [(1, 1), (1, 7), (7, 1), (2, 3), (3, 2), (9, 4), (4, 9)] {
            for density in [3, 1000] {
                let opaque = random_walls(w * h, &mut state, density);
                let mut ours = vec![false; w * h];
                for origin in 0..w * h {
                    let (ox, oy) = ((origin % w) as i32, (origin / w) as i32);
                    for radius in [-1, 0, 1, 2, 3, 8] {
                        compute(&opaque, w, h, ox, oy, radius, &mut ours);
                        let want = oracle(&opaque, w, h, ox, oy, radius);
                        assert_eq!(ours, want, "{w}x{h}, from ({ox},{oy}), radius {radius}");
                    }
                }
            }
        }
    }

    #[test]
    fn origin_outside_the_map_sees_nothing() {
        let opaque = vec![false; 9];
        let mut vis = vec![true; 9];
        compute(&opaque, 3, 3, -1, 0, 5, &mut vis);
        assert!(vis.iter().all(|&v| !v));
    }
}
