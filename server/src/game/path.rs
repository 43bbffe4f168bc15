//! Paths across a floor: A* for a monster's own patrol route, and one breadth-first "flow field"
//! per floor per turn for every chasing monster at once (DESIGN.md measured ~1.3 ms a turn for
//! 40 A* chases against ~35 µs for one field).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use delve_protocol::{Dir, Pos, TileGrid};

/// The eight neighbours of cell `i` of a `w`×`h` grid, in [`Dir::ALL`]'s order (which decides
/// ties, so routes come out the same however they are searched). Away from the edge (where
/// nearly every walkable cell is) they are fixed offsets; only edge cells check the bounds.
/// Always inlined into the two searches: the engine fuzzer's build did not inline it, and the
/// call with its eight cells returned through memory was a good part of every step searched.
#[inline(always)]
fn neighbours(i: usize, w: usize, h: usize) -> Neighbours {
    let (x, y) = (i % w, i / w);
    let mut out = Neighbours {
        cells: [0; 8],
        len: 0,
    };
    if x > 0 && y > 0 && x + 1 < w && y + 1 < h {
        out.cells = [
            i - w,
            i - w + 1,
            i + 1,
            i + w + 1,
            i + w,
            i + w - 1,
            i - 1,
            i - w - 1,
        ];
        out.len = 8;
        return out;
    }
    for d in Dir::ALL {
        let (dx, dy) = d.delta();
        let (nx, ny) = (x as i32 + dx, y as i32 + dy);
        if nx >= 0 && ny >= 0 && (nx as usize) < w && (ny as usize) < h {
            out.cells[out.len] = ny as usize * w + nx as usize;
            out.len += 1;
        }
    }
    out
}

/// Up to eight cells, without allocating.
struct Neighbours {
    cells: [usize; 8],
    len: usize,
}

impl IntoIterator for Neighbours {
    type Item = usize;
    type IntoIter = std::iter::Take<std::array::IntoIter<usize, 8>>;

    fn into_iter(self) -> Self::IntoIter {
        self.cells.into_iter().take(self.len)
    }
}

/// Steps from every cell to the nearest source, over walkable cells (8 directions, each step
/// costing 1). `u32::MAX` where no source can be reached.
pub fn flow_field(map: &TileGrid, sources: impl IntoIterator<Item = Pos>) -> Vec<u32> {
    let mut flow = Flow::default();
    flow.restart(map, sources);
    flow.finish(map).to_vec()
}

/// A [`flow_field`] worked out only as far as it is asked about. A breadth-first walk finds
/// the cells in order of their distance, so it can stop once the cells asked about are found
/// and go on from there when asked about farther ones. The monsters chasing the players are
/// nearly always close to them, and the rest of the floor is then never walked. Its lists are
/// kept from one field to the next, so a field allocates nothing, and only the cells the last
/// one reached are cleared for the next.
#[derive(Debug, Default)]
pub struct Flow {
    /// Steps to the nearest source, or `u32::MAX` where the walk has not been (yet).
    dist: Vec<u32>,
    /// The cells reached, in the order reached: the walk's queue, every cell at most once.
    reached: Vec<u32>,
    /// The cells of `reached` before this one have had their neighbours reached.
    head: usize,
}

impl Flow {
    /// Starts a new field towards `sources` on `map`, forgetting the last one.
    pub fn restart(&mut self, map: &TileGrid, sources: impl IntoIterator<Item = Pos>) {
        let len = map.width() * map.height();
        if self.dist.len() == len {
            for &i in &self.reached {
                self.dist[i as usize] = u32::MAX;
            }
        } else {
            self.dist.clear();
            self.dist.resize(len, u32::MAX);
        }
        self.reached.clear();
        self.reached.reserve(len);
        self.head = 0;
        for s in sources {
            if let Some(i) = map.index(s)
                && self.dist[i] == u32::MAX
            {
                self.dist[i] = 0;
                self.reached.push(i as u32);
            }
        }
    }

    /// The field, right at `at` and at each of its neighbours (each holds its distance, or
    /// `u32::MAX` if no source can be reached from it); farther cells may not be worked out
    /// yet, and read `u32::MAX`. `map` must be the one the field was started on, unchanged.
    pub fn around(&mut self, map: &TileGrid, at: Pos) -> &[u32] {
        if let Some(target) = map.index(at) {
            self.walk(map, Some(target));
        }
        &self.dist
    }

    /// The whole field.
    pub fn finish(&mut self, map: &TileGrid) -> &[u32] {
        self.walk(map, None);
        &self.dist
    }

    /// Walks on from where the walk stopped, to its end or, with `target`, until every cell as
    /// near as `target` has been walked from: the walk goes out a step at a time, so every
    /// cell one step farther than `target` has been reached then, `target`'s neighbours too.
    fn walk(&mut self, map: &TileGrid, target: Option<usize>) {
        let (w, h) = (map.width(), map.height());
        let cells = map.cells();
        while let Some(&i) = self.reached.get(self.head) {
            let i = i as usize;
            let d = self.dist[i];
            if target.is_some_and(|t| self.dist[t] < d) {
                return;
            }
            self.head += 1;
            for j in neighbours(i, w, h) {
                if self.dist[j] == u32::MAX && cells[j].is_walkable() {
                    self.dist[j] = d + 1;
                    self.reached.push(j as u32);
                }
            }
        }
    }
}

/// Working memory for [`Scratch::astar`], kept from one search to the next: a monster phase
/// plans many routes on one floor, and clearing (or allocating) two arrays the size of the floor
/// for each used to cost more than many of the searches themselves. Cells are stamped with the
/// search that last wrote them, so a new search starts without clearing anything.
#[derive(Debug, Default)]
pub struct Scratch {
    stamp: Vec<u32>,
    cost: Vec<u32>,
    came: Vec<u32>,
    search: u32,
    open: BinaryHeap<Reverse<u64>>,
}

/// Bits of a heap key given to the cell index and to the heuristic; the estimate takes the rest.
const CELL_BITS: u32 = 20;
const H_BITS: u32 = 20;

impl Scratch {
    pub fn new() -> Scratch {
        Scratch::default()
    }

    /// Starts a search on a floor of `n` cells.
    fn begin(&mut self, n: usize) {
        if self.stamp.len() != n {
            self.stamp = vec![0; n];
            self.cost = vec![0; n];
            self.came = vec![0; n];
            self.search = 0;
        }
        self.search = self.search.wrapping_add(1);
        if self.search == 0 {
            self.stamp.fill(0);
            self.search = 1;
        }
        self.open.clear();
    }

    fn cost(&self, i: usize) -> u32 {
        if self.stamp[i] == self.search {
            self.cost[i]
        } else {
            u32::MAX
        }
    }

    /// The shortest 8-directional route from `from` to `to` over walkable cells that `blocked`
    /// does not forbid (the goal itself is always allowed). Returns the cells after `from`, in
    /// order, ending with `to`; `None` if there is no way, or it is longer than `max_len`.
    ///
    /// The open set is ordered by (estimate, heuristic, cell), packed into one integer so the
    /// heap compares one word; the order, and so the route, is the one the tuple gives.
    pub fn astar(
        &mut self,
        map: &TileGrid,
        from: Pos,
        to: Pos,
        max_len: u32,
        blocked: impl Fn(Pos) -> bool,
    ) -> Option<Vec<Pos>> {
        let start = map.index(from)?;
        let goal = map.index(to)?;
        if !map.get(to).is_walkable() {
            return None;
        }
        let (w, h) = (map.width(), map.height());
        let n = w * h;
        if n >= 1 << CELL_BITS || w.max(h) >= 1 << H_BITS {
            // Far beyond any floor the content can make; the keys would not fit.
            return None;
        }
        let key = |f: u32, hh: u32, j: usize| -> u64 {
            (u64::from(f) << (CELL_BITS + H_BITS)) | (u64::from(hh) << CELL_BITS) | j as u64
        };
        let cells = map.cells();
        let (tx, ty) = (to.x, to.y);
        let heuristic = |j: usize| -> u32 {
            let (x, y) = ((j % w) as i32, (j / w) as i32);
            (x - tx).abs().max((y - ty).abs()) as u32
        };
        self.begin(n);
        self.stamp[start] = self.search;
        self.cost[start] = 0;
        let h0 = heuristic(start);
        self.open.push(Reverse(key(h0, h0, start)));
        while let Some(Reverse(k)) = self.open.pop() {
            let i = (k & ((1 << CELL_BITS) - 1)) as usize;
            if i == goal {
                let mut route = Vec::new();
                let mut c = goal;
                while c != start {
                    route.push(map.pos_of(c));
                    c = self.came[c] as usize;
                }
                route.reverse();
                return Some(route);
            }
            let c = self.cost[i];
            if c >= max_len {
                continue;
            }
            for j in neighbours(i, w, h) {
                if !cells[j].is_walkable() || (j != goal && blocked(map.pos_of(j))) {
                    continue;
                }
                if c + 1 < self.cost(j) {
                    self.stamp[j] = self.search;
                    self.cost[j] = c + 1;
                    self.came[j] = i as u32;
                    let hj = heuristic(j);
                    self.open.push(Reverse(key(c + 1 + hj, hj, j)));
                }
            }
        }
        None
    }
}

/// [`Scratch::astar`] with working memory of its own, for a single search.
pub fn astar(
    map: &TileGrid,
    from: Pos,
    to: Pos,
    max_len: u32,
    blocked: impl Fn(Pos) -> bool,
) -> Option<Vec<Pos>> {
    Scratch::new().astar(map, from, to, max_len, blocked)
}

/// Breadth-first over walkable cells of `map` (a real floor, or a player's memory of one) to the
/// nearest cell that satisfies `goal`. The route comes back with the next step last; `None` if
/// no such cell can be reached.
pub fn nearest_route(map: &TileGrid, from: Pos, goal: impl Fn(Pos) -> bool) -> Option<Vec<Pos>> {
    let n = map.width() * map.height();
    let mut came = vec![usize::MAX; n];
    let start = map.index(from)?;
    came[start] = start;
    let mut queue = VecDeque::from([from]);
    while let Some(p) = queue.pop_front() {
        if p != from && goal(p) {
            let mut route = Vec::new();
            let mut k = map.index(p)?;
            while k != start {
                route.push(map.pos_of(k));
                k = came[k];
            }
            return Some(route);
        }
        for d in Dir::ALL {
            let q = p.step(d);
            if let Some(i) = map.index(q)
                && came[i] == usize::MAX
                && map.get(q).is_walkable()
            {
                came[i] = map.index(p)?;
                queue.push_back(q);
            }
        }
    }
    None
}

/// The first, plainer versions, kept as the oracle the fast ones must agree with.
#[cfg(test)]
mod reference {
    use super::*;

    /// Steps from every cell to the nearest source, over walkable cells (8 directions, each step
    /// costing 1). `u32::MAX` where no source can be reached.
    pub(super) fn flow_field(map: &TileGrid, sources: impl IntoIterator<Item = Pos>) -> Vec<u32> {
        let mut dist = vec![u32::MAX; map.width() * map.height()];
        let mut queue = VecDeque::new();
        for s in sources {
            if let Some(i) = map.index(s) {
                dist[i] = 0;
                queue.push_back(s);
            }
        }
        while let Some(p) = queue.pop_front() {
            let d = map.index(p).map_or(u32::MAX, |i| dist[i]);
            for dir in Dir::ALL {
                let q = p.step(dir);
                if let Some(i) = map.index(q)
                    && dist[i] == u32::MAX
                    && map.get(q).is_walkable()
                {
                    dist[i] = d + 1;
                    queue.push_back(q);
                }
            }
        }
        dist
    }

    /// The shortest 8-directional route from `from` to `to` over walkable cells that `blocked`
    /// does not forbid (the goal itself is always allowed). Returns the cells after `from`, in
    /// order, ending with `to`; `None` if there is no way, or it is longer than `max_len`.
    pub(super) fn astar(
        map: &TileGrid,
        from: Pos,
        to: Pos,
        max_len: u32,
        blocked: impl Fn(Pos) -> bool,
    ) -> Option<Vec<Pos>> {
        let start = map.index(from)?;
        let goal = map.index(to)?;
        if !map.get(to).is_walkable() {
            return None;
        }
        let n = map.width() * map.height();
        let mut cost = vec![u32::MAX; n];
        let mut came = vec![usize::MAX; n];
        let mut open = BinaryHeap::new();
        cost[start] = 0;
        // Ties prefer the cell closer to the goal, which keeps routes straight and the search small.
        open.push(Reverse((
            from.chebyshev(to) as u32,
            from.chebyshev(to) as u32,
            start,
        )));
        while let Some(Reverse((_, _, i))) = open.pop() {
            if i == goal {
                let mut route = Vec::new();
                let mut k = goal;
                while k != start {
                    route.push(map.pos_of(k));
                    k = came[k];
                }
                route.reverse();
                return Some(route);
            }
            let p = map.pos_of(i);
            let c = cost[i];
            if c >= max_len {
                continue;
            }
            for dir in Dir::ALL {
                let q = p.step(dir);
                let Some(j) = map.index(q) else { continue };
                if !map.get(q).is_walkable() || (j != goal && blocked(q)) {
                    continue;
                }
                if c + 1 < cost[j] {
                    cost[j] = c + 1;
                    came[j] = i;
                    let h = q.chebyshev(to) as u32;
                    open.push(Reverse((c + 1 + h, h, j)));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use delve_protocol::Tile;

    fn grid(rows: &[&str]) -> TileGrid {
        let mut g = TileGrid::new(rows[0].len(), rows.len());
        for (y, r) in rows.iter().enumerate() {
            for (x, c) in r.chars().enumerate() {
                g.set(
                    Pos::new(x as i32, y as i32),
                    Tile::from_char(c).unwrap_or(Tile::Wall),
                );
            }
        }
        g
    }

    const ROOMS: [&str; 7] = [
        "##########",
        "#....#...#",
        "#....#...#",
        "#........#",
        "#....#...#",
        "#....#...#",
        "##########",
    ];

    #[test]
    fn astar_finds_the_shortest_way_through_the_gap() {
        let g = grid(&ROOMS);
        let route = astar(&g, Pos::new(1, 1), Pos::new(8, 1), 100, |_| false).unwrap();
        // Through the gap at (5, 3): diagonal steps make it 7 moves.
        assert_eq!(route.len(), 7);
        assert_eq!(*route.last().unwrap(), Pos::new(8, 1));
        assert!(route.contains(&Pos::new(5, 3)));
        let mut at = Pos::new(1, 1);
        for p in &route {
            assert_eq!(at.chebyshev(*p), 1);
            assert!(g.get(*p).is_walkable());
            at = *p;
        }
    }

    #[test]
    fn astar_respects_blocked_cells_and_limits() {
        let g = grid(&ROOMS);
        assert!(
            astar(&g, Pos::new(1, 1), Pos::new(8, 1), 100, |p| p
                == Pos::new(5, 3))
            .is_none()
        );
        assert!(
            astar(&g, Pos::new(1, 1), Pos::new(8, 1), 5, |_| false).is_none(),
            "too long"
        );
        assert!(
            astar(&g, Pos::new(1, 1), Pos::new(0, 0), 100, |_| false).is_none(),
            "a wall"
        );
        // The goal itself may be occupied (a monster walks up to its target).
        assert!(
            astar(&g, Pos::new(1, 1), Pos::new(3, 1), 100, |p| p
                == Pos::new(3, 1))
            .is_some()
        );
    }

    #[test]
    fn the_flow_field_counts_steps_to_the_nearest_source() {
        let g = grid(&ROOMS);
        let f = flow_field(&g, [Pos::new(1, 1), Pos::new(8, 5)]);
        let at = |x, y| f[g.index(Pos::new(x, y)).unwrap()];
        assert_eq!(at(1, 1), 0);
        assert_eq!(at(8, 5), 0);
        assert_eq!(at(4, 4), 3);
        assert_eq!(
            at(6, 1),
            4,
            "nearer to (8, 5) than to (1, 1) round the wall"
        );
        assert_eq!(at(0, 0), u32::MAX, "walls are never reached");
    }

    /// Twelve generated floors of every depth (seeds 0 to 11), each with its walkable cells.
    fn real_floors() -> impl Iterator<Item = (u64, TileGrid, Vec<Pos>)> {
        use crate::game::mapgen::{GenParams, generate};
        (0..12u64).map(|seed| {
            let depth = (seed % 10) as u8 + 1;
            let map = generate(seed, depth, depth < 10, &GenParams::default()).map;
            let open = (0..map.cells().len())
                .filter(|&i| map.cells()[i].is_walkable())
                .map(|i| map.pos_of(i))
                .collect();
            (seed, map, open)
        })
    }

    #[test]
    fn the_fast_searches_agree_with_the_reference_on_real_floors() {
        use rand::{RngExt, SeedableRng};
        // One scratch for every search, across floors, as a monster phase uses it.
        let mut scratch = Scratch::new();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for (seed, map, open) in real_floors() {
            let any = |rng: &mut rand_chacha::ChaCha8Rng| open[rng.random_range(0..open.len())];
            for _ in 0..60 {
                let (a, b) = (any(&mut rng), any(&mut rng));
                let limit = rng.random_range(5..200);
                let wall = any(&mut rng);
                let blocked = |p: Pos| p == wall;
                assert_eq!(
                    scratch.astar(&map, a, b, limit, blocked),
                    reference::astar(&map, a, b, limit, blocked),
                    "seed {seed}: {a:?} to {b:?} within {limit}"
                );
            }
            let sources = [any(&mut rng), any(&mut rng), any(&mut rng)];
            assert_eq!(
                flow_field(&map, sources),
                reference::flow_field(&map, sources),
                "seed {seed}"
            );
        }
    }

    /// A field worked out only around the cells asked about holds, at each of them and at its
    /// neighbours, what the whole field holds, whatever was asked before, across floors and
    /// sources; and it walks less of the floor than the whole field when asked near a source.
    #[test]
    fn a_field_asked_about_a_few_cells_agrees_with_the_whole_one_there() {
        use rand::{RngExt, SeedableRng};
        // One flow for every field, as a thread's monster phases keep theirs.
        let mut flow = Flow::default();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for (seed, map, open) in real_floors() {
            let any = |rng: &mut rand_chacha::ChaCha8Rng| open[rng.random_range(0..open.len())];
            for players in 1..=4 {
                let sources: Vec<Pos> = (0..players).map(|_| any(&mut rng)).collect();
                let whole = reference::flow_field(&map, sources.iter().copied());
                flow.restart(&map, sources.iter().copied());
                // Near the first player first, as the monsters chasing it stand.
                let near = Pos::new(sources[0].x + 2, sources[0].y + 1);
                let mut asked = vec![near, Pos::new(-1, 3)];
                asked.extend((0..8).map(|_| any(&mut rng)));
                for (k, &at) in asked.iter().enumerate() {
                    let field = flow.around(&map, at).to_vec();
                    if k == 0 && map.get(near).is_walkable() {
                        let reached = field.iter().filter(|&&d| d != u32::MAX).count();
                        let all = whole.iter().filter(|&&d| d != u32::MAX).count();
                        assert!(
                            reached < all,
                            "seed {seed}: near a player, not the whole floor"
                        );
                    }
                    for p in std::iter::once(at).chain(Dir::ALL.map(|d| at.step(d))) {
                        if let Some(i) = map.index(p) {
                            assert_eq!(field[i], whole[i], "seed {seed}: at {p:?}, asked {at:?}");
                        }
                    }
                }
                assert_eq!(
                    flow.finish(&map),
                    &whole[..],
                    "seed {seed}: the whole field"
                );
            }
        }
    }
}
