//! What one player knows of the world: the map it remembers, what it sees now, the entities in
//! sight and its own character. The server sends a [`View`] whole in a snapshot and afterwards only
//! [`crate::ViewDiff`]s against the last view that connection received.
//!
//! Names, content keys and descriptions are `Arc<str>`: on the wire they are plain strings, but
//! in memory a view shares them with the server's content and characters, so building a view
//! for every player after every turn copies no text, and comparing two views compares those
//! fields by pointer first.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::geom::Pos;

/// What a map cell is, as far as the player knows. `Unknown` means never seen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Tile {
    #[default]
    Unknown,
    Wall,
    Floor,
    StairsDown,
    StairsUp,
    /// A closed door: it blocks movement and sight. Walking into it opens it (that is the move).
    DoorClosed,
    /// An open door: walkable and see-through. Doors never close again.
    DoorOpen,
    /// A locked door: walking into it with a Key in the pack unlocks and opens it, using the Key.
    DoorLocked,
}

impl Tile {
    /// The one-character wire form of a tile, used in map rows and tile spans.
    pub const fn to_char(self) -> char {
        match self {
            Tile::Unknown => ' ',
            Tile::Wall => '#',
            Tile::Floor => '.',
            Tile::StairsDown => '>',
            Tile::StairsUp => '<',
            Tile::DoorClosed => '+',
            Tile::DoorOpen => '\'',
            Tile::DoorLocked => '*',
        }
    }

    pub const fn from_char(c: char) -> Option<Tile> {
        Some(match c {
            ' ' => Tile::Unknown,
            '#' => Tile::Wall,
            '.' => Tile::Floor,
            '>' => Tile::StairsDown,
            '<' => Tile::StairsUp,
            '+' => Tile::DoorClosed,
            '\'' => Tile::DoorOpen,
            '*' => Tile::DoorLocked,
            _ => return None,
        })
    }

    /// Whether a character can stand on this tile: floor, stairs and open doors.
    ///
    /// A bit per tile, tested with a shift: routes and fields of view ask this of cell after
    /// cell, and in the engine fuzzer's build a `match` became a jump through a table (with a
    /// coverage counter per arm) at every cell.
    #[inline]
    pub const fn is_walkable(self) -> bool {
        const WALKABLE: u8 = 1 << Tile::Floor as u8
            | 1 << Tile::StairsDown as u8
            | 1 << Tile::StairsUp as u8
            | 1 << Tile::DoorOpen as u8;
        (WALKABLE >> self as u8) & 1 == 1
    }

    /// Whether the tile is a door that is not open (closed or locked).
    pub const fn is_shut_door(self) -> bool {
        matches!(self, Tile::DoorClosed | Tile::DoorLocked)
    }

    /// Whether the tile blocks sight: walls and doors that are not open (unknown cells too,
    /// as far as a client can tell).
    pub const fn blocks_sight(self) -> bool {
        !self.is_walkable()
    }
}

/// Every tile, in the order of their discriminants (`TILES[t as usize] == t`), for the tables
/// below.
const TILES: [Tile; 8] = [
    Tile::Unknown,
    Tile::Wall,
    Tile::Floor,
    Tile::StairsDown,
    Tile::StairsUp,
    Tile::DoorClosed,
    Tile::DoorOpen,
    Tile::DoorLocked,
];

/// The byte of each tile's character ([`Tile::to_char`]), by discriminant. Every tile's
/// character is ASCII (checked here, at compile time), so a map row is written as bytes looked
/// up here rather than a `char` encoded at a time: maps are written by the thousand when the
/// engine fuzzer saves worlds.
const TILE_BYTE: [u8; TILES.len()] = {
    let mut out = [0; TILES.len()];
    let mut k = 0;
    while k < TILES.len() {
        let c = TILES[k].to_char();
        assert!(c.is_ascii(), "a tile's character must be one byte in a row");
        out[TILES[k] as usize] = c as u8;
        k += 1;
    }
    out
};

/// The tile whose character each byte is ([`Tile::from_char`]), `None` for any other byte, the
/// bytes of every non-ASCII character among them (no tile's character is one). Map rows are read
/// a byte at a time through this rather than decoded a `char` at a time, for the same reason.
const BYTE_TILE: [Option<Tile>; 256] = {
    let mut out = [None; 256];
    let mut b = 0;
    while b < 128 {
        out[b] = Tile::from_char(b as u8 as char);
        b += 1;
    }
    out
};

/// Why a wire value could not become a view value.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ViewError {
    #[error("map row {row} has {len} tiles, expected {width}")]
    RowLength {
        row: usize,
        len: usize,
        width: usize,
    },
    #[error("map has {rows} rows, expected {height}")]
    RowCount { rows: usize, height: usize },
    #[error("unknown tile character {0:?}")]
    TileChar(char),
    #[error("visible runs are not sorted and disjoint")]
    Runs,
    #[error("tile span at ({x}, {y}) of {len} tiles leaves the {width}x{height} map")]
    SpanOutside {
        x: i32,
        y: i32,
        len: usize,
        width: usize,
        height: usize,
    },
    #[error("the diff is for turn {diff} of floor {diff_depth}, the view is floor {depth}")]
    WrongFloor {
        diff: u64,
        diff_depth: u8,
        depth: u8,
    },
    #[error("the diff changes entity {0}, which is not in sight")]
    UnknownEntity(u32),
    #[error("the diff changes party member {0}, who is not in the party")]
    UnknownMember(u32),
}

/// A rectangular grid of tiles, row-major. On the wire: `{"width", "height", "rows": [..]}` with
/// one string per row, one character per tile (see [`Tile::to_char`]).
///
/// Serialized by hand rather than through `#[serde(into)]`, with the same output: `into` cloned
/// the grid and built every row a character at a time, and worlds are saved with ten floors of
/// these (the engine fuzzer saves and loads thousands a second).
///
/// The cells are shared between clones until one of them changes a tile (copy on write): the
/// server keeps, for every connection, the last view it sent, and that view's map is then the
/// character's own memory rather than a copy of it, which saves a map's worth of memory per
/// connection and lets a diff skip the map at once when nothing was seen anew.
#[derive(Clone, Debug)]
pub struct TileGrid {
    width: usize,
    height: usize,
    cells: Arc<[Tile]>,
}

/// Clones that share their cells are equal without a look at them; other grids are compared a
/// block of tiles at a time (see `same_tiles`). The engine fuzzer compares every map of a world
/// with its saved and loaded copy, thousands of times a second.
impl PartialEq for TileGrid {
    fn eq(&self, other: &TileGrid) -> bool {
        self.width == other.width
            && self.height == other.height
            && (self.shares_cells(other) || same_tiles(&self.cells, &other.cells))
    }
}

impl Eq for TileGrid {}

/// Whether `a` and `b` hold the same tiles. A block's tiles are all compared before looking at
/// the answer, with no early exit inside it, so the compiler compares a block with a few vector
/// instructions; the slice's own `==` goes a tile at a time with a branch each (only integer
/// slices get `memcmp`).
pub(crate) fn same_tiles(a: &[Tile], b: &[Tile]) -> bool {
    const COMPARED: usize = 64;
    a.len() == b.len()
        && (a.chunks(COMPARED).zip(b.chunks(COMPARED)))
            .all(|(x, y)| x.iter().zip(y).fold(true, |same, (s, t)| same & (s == t)))
}

/// The wire shape read back: rows borrowed from the input where the format allows it.
#[derive(Deserialize)]
struct TileGridWire<'a> {
    width: usize,
    height: usize,
    #[serde(borrow)]
    rows: Vec<Row<'a>>,
}

/// One row as read: borrowed from the input unless the format had to unescape it. Its own type
/// because `#[serde(borrow)]` borrows a `Cow` only when it is the field itself: a
/// `Vec<Cow<str>>` read every row into a new `String`.
#[derive(Deserialize)]
struct Row<'a>(#[serde(borrow)] std::borrow::Cow<'a, str>);

impl Serialize for TileGrid {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        // One ASCII byte per tile, so a row of `width` tiles is `width` bytes of `text`.
        let mut bytes = Vec::with_capacity(self.cells.len());
        write_tiles(&self.cells, &mut bytes);
        let text = String::from_utf8(bytes).map_err(serde::ser::Error::custom)?;
        let mut st = s.serialize_struct("TileGridWire", 3)?;
        st.serialize_field("width", &self.width)?;
        st.serialize_field("height", &self.height)?;
        st.serialize_field(
            "rows",
            &Rows {
                text: &text,
                width: self.width,
            },
        )?;
        st.end()
    }
}

/// A grid's rows on the wire, `width` bytes of `text` each (the last one shorter if `text`
/// does not fill it), serialized as the list of strings they are without collecting them.
struct Rows<'a> {
    text: &'a str,
    width: usize,
}

impl Serialize for Rows<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (text, width) = (self.text, self.width.max(1));
        s.collect_seq((0..text.len().div_ceil(width)).map(|r| {
            text.get(r * width..((r + 1) * width).min(text.len()))
                .unwrap_or("")
        }))
    }
}

/// Tiles are converted to and from bytes in blocks of this many, with no branch inside a block.
/// The engine fuzzer's build counts coverage on every pass through a loop's body (an increment
/// in memory, each one waiting on the last), so a loop that took a tile or two per pass spent
/// most of its time counting; a block per pass counts a sixteenth as often.
const BLOCK: usize = 16;

/// Appends the wire byte of each of `tiles` to `out`.
fn write_tiles(tiles: &[Tile], out: &mut Vec<u8>) {
    let (blocks, rest) = tiles.as_chunks::<BLOCK>();
    for block in blocks {
        // Written straight into `out` (a block built aside and copied in stalled on reading
        // back the bytes just written one by one).
        out.extend(block.iter().map(|&t| TILE_BYTE[t as usize]));
    }
    out.extend(rest.iter().map(|&t| TILE_BYTE[t as usize]));
}

/// Appends the tile of each of `bytes` to `out`, and says whether every byte was a tile's (if
/// not, what was appended for the others means nothing).
fn read_tiles(bytes: &[u8], out: &mut Vec<Tile>) -> bool {
    let mut all = true;
    let (blocks, rest) = bytes.as_chunks::<BLOCK>();
    for block in blocks {
        out.extend(block.iter().map(|&b| {
            let t = BYTE_TILE[usize::from(b)];
            all &= t.is_some();
            t.unwrap_or_default()
        }));
    }
    for &b in rest {
        let t = BYTE_TILE[usize::from(b)];
        all &= t.is_some();
        out.push(t.unwrap_or_default());
    }
    all
}

impl<'de> Deserialize<'de> for TileGrid {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        TileGrid::try_from(TileGridWire::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

impl TryFrom<TileGridWire<'_>> for TileGrid {
    type Error = ViewError;
    fn try_from(w: TileGridWire<'_>) -> Result<Self, ViewError> {
        if w.rows.len() != w.height {
            return Err(ViewError::RowCount {
                rows: w.rows.len(),
                height: w.height,
            });
        }
        let mut cells = Vec::with_capacity(w.width * w.height);
        for (row, Row(s)) in w.rows.iter().enumerate() {
            // A row is read as bytes (see `BYTE_TILE`), with the errors reading its `char`s
            // gives: the first character that is no tile, else a wrong length.
            let bytes = s.as_bytes();
            if !read_tiles(bytes, &mut cells) {
                let k = (bytes.iter())
                    .position(|&b| BYTE_TILE[usize::from(b)].is_none())
                    .unwrap_or_default();
                // The bytes before `k` are tiles, so ASCII: `k` starts the first character
                // that is not a tile (a non-ASCII one included).
                let c = s[k..].chars().next().unwrap_or_default();
                return Err(ViewError::TileChar(c));
            }
            // Every byte is a tile's one-byte character, so the row has as many tiles as bytes.
            if bytes.len() != w.width {
                return Err(ViewError::RowLength {
                    row,
                    len: bytes.len(),
                    width: w.width,
                });
            }
        }
        Ok(TileGrid {
            width: w.width,
            height: w.height,
            cells: cells.into(),
        })
    }
}

impl TileGrid {
    /// A grid of `Unknown` tiles.
    pub fn new(width: usize, height: usize) -> Self {
        TileGrid {
            width,
            height,
            cells: vec![Tile::Unknown; width * height].into(),
        }
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    pub fn cells(&self) -> &[Tile] {
        &self.cells
    }

    // This and the two below are asked cell after cell by the engine, from another crate.
    #[inline]
    pub fn in_bounds(&self, p: Pos) -> bool {
        p.x >= 0 && p.y >= 0 && (p.x as usize) < self.width && (p.y as usize) < self.height
    }

    /// Row-major index of an in-bounds position.
    #[inline]
    pub fn index(&self, p: Pos) -> Option<usize> {
        self.in_bounds(p)
            .then(|| p.y as usize * self.width + p.x as usize)
    }

    /// The tile at `p`; outside the grid everything is `Unknown`.
    #[inline]
    pub fn get(&self, p: Pos) -> Tile {
        self.index(p).map_or(Tile::Unknown, |i| self.cells[i])
    }

    pub fn set(&mut self, p: Pos, t: Tile) {
        if let Some(i) = self.index(p) {
            self.set_index(i, t);
        }
    }

    /// Sets cell `i`. Setting a tile to what it already is leaves the cells shared with any
    /// clone: only a real change copies them.
    pub fn set_index(&mut self, i: usize, t: Tile) {
        if self.cells[i] != t {
            Arc::make_mut(&mut self.cells)[i] = t;
        }
    }

    /// Sets the cells in `range` to those of `from` (a grid's cells of the same size). Like
    /// [`TileGrid::set_index`], the cells stay shared with any clone unless one really changes;
    /// the range is compared a block at a time first.
    pub fn copy_cells(&mut self, range: std::ops::Range<usize>, from: &[Tile]) {
        let (Some(now), Some(new)) = (self.cells.get(range.clone()), from.get(range.clone()))
        else {
            return;
        };
        if !same_tiles(now, new) {
            Arc::make_mut(&mut self.cells)[range].copy_from_slice(new);
        }
    }

    /// Whether `self` and `other` are clones neither of which has changed a tile since: then
    /// they are equal without looking at a cell.
    pub fn shares_cells(&self, other: &TileGrid) -> bool {
        Arc::ptr_eq(&self.cells, &other.cells)
    }

    /// The position of a row-major index.
    pub fn pos_of(&self, i: usize) -> Pos {
        Pos::new((i % self.width) as i32, (i / self.width) as i32)
    }
}

/// A set of map cells as sorted, disjoint, non-touching runs of row-major indices. On the wire:
/// `[[start, length], ...]`. A field of view is a few compact blobs, so this is far smaller than a
/// list of cells and cheaper to compare than a bitmap of the whole floor.
///
/// Written by hand rather than with `#[serde(into = ...)]`, which clones the set to serialize
/// it: every update carries one.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(try_from = "Vec<[u32; 2]>")]
pub struct CellSet {
    runs: Vec<[u32; 2]>,
}

impl Serialize for CellSet {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.runs.serialize(serializer)
    }
}

impl From<CellSet> for Vec<[u32; 2]> {
    fn from(s: CellSet) -> Self {
        s.runs
    }
}

impl TryFrom<Vec<[u32; 2]>> for CellSet {
    type Error = ViewError;
    fn try_from(runs: Vec<[u32; 2]>) -> Result<Self, ViewError> {
        let mut end: Option<u64> = None;
        for &[start, len] in &runs {
            if len == 0 || end.is_some_and(|e| u64::from(start) <= e) {
                return Err(ViewError::Runs);
            }
            end = Some(u64::from(start) + u64::from(len));
        }
        Ok(CellSet { runs })
    }
}

impl CellSet {
    /// Builds the set from a membership flag per cell, in row-major order.
    pub fn from_flags(flags: impl IntoIterator<Item = bool>) -> Self {
        let mut runs: Vec<[u32; 2]> = Vec::new();
        for (i, on) in flags.into_iter().enumerate() {
            if !on {
                continue;
            }
            let i = i as u32;
            match runs.last_mut() {
                Some([start, len]) if *start + *len == i => *len += 1,
                _ => runs.push([i, 1]),
            }
        }
        CellSet { runs }
    }

    pub fn runs(&self) -> &[[u32; 2]] {
        &self.runs
    }

    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Number of cells in the set.
    pub fn len(&self) -> usize {
        self.runs.iter().map(|r| r[1] as usize).sum()
    }

    pub fn contains(&self, index: usize) -> bool {
        let Ok(i) = u32::try_from(index) else {
            return false;
        };
        // The run starting at or before `i` is the only one that can hold it.
        let k = self.runs.partition_point(|r| r[0] <= i);
        k > 0 && i < self.runs[k - 1][0] + self.runs[k - 1][1]
    }

    /// Every index in the set, ascending.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.runs
            .iter()
            .flat_map(|&[s, l]| (s as usize)..(s as usize + l as usize))
    }

    /// One flag per cell for a grid of `len` cells (indices past `len` are ignored).
    pub fn to_flags(&self, len: usize) -> Vec<bool> {
        let mut flags = vec![false; len];
        for i in self.iter().take_while(|&i| i < len) {
            flags[i] = true;
        }
        flags
    }
}

/// What kind of thing an entity is. Doors are not entities: they are part of the map (see
/// [`Tile`]), so a door once seen stays remembered like the walls around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntityKind {
    Player,
    Monster,
    /// An item lying on the floor. Walking onto it picks it up.
    Item,
    /// The remains of a fallen character that a friend can still bring back (`use_on` with a
    /// Health Pack, standing on or next to them). Its `id` is the fallen character's.
    Remains,
}

fn is_zero(n: &i32) -> bool {
    *n == 0
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// An entity the player can see right now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityView {
    pub id: u32,
    pub kind: EntityKind,
    pub name: Arc<str>,
    pub pos: Pos,
    /// Hit points, for players and monsters; absent (0) for items.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub hp: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub max_hp: i32,
    /// Level, for players and monsters; absent (0) for items.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub level: u32,
    /// For monsters, the content key of its kind (`"tough_mouse"`), to pick a sprite by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub monster: Option<Arc<str>>,
    /// For items, the content key of its kind (`"crowbar"`), to pick a sprite by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<Arc<str>>,
}

/// The equipment slot an item goes in. One item per slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Slot {
    Weapon,
    Armour,
    Microchip,
}

impl Slot {
    pub const ALL: [Slot; 3] = [Slot::Weapon, Slot::Armour, Slot::Microchip];
}

/// What an item adds to its wearer's stats while equipped (negative numbers take away). Zero
/// fields are left out on the wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Bonus {
    #[serde(default, skip_serializing_if = "is_zero")]
    pub max_hp: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attack_min: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attack_max: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub defence: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub save: i32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub sight: i32,
}

impl Bonus {
    /// The bonus in words, for a character dump: "+1 min attack, +3 max attack" (empty when
    /// it adds nothing).
    pub fn words(&self) -> String {
        let parts: Vec<String> = [
            (self.max_hp, "max HP"),
            (self.attack_min, "min attack"),
            (self.attack_max, "max attack"),
            (self.defence, "defence"),
            (self.save, "saving throw"),
            (self.sight, "sight"),
        ]
        .iter()
        .filter(|(n, _)| *n != 0)
        .map(|(n, what)| format!("{n:+} {what}"))
        .collect();
        parts.join(", ")
    }

    pub fn is_zero(&self) -> bool {
        *self == Bonus::default()
    }

    /// The sum of two bonuses.
    pub fn plus(self, o: Bonus) -> Bonus {
        Bonus {
            max_hp: self.max_hp + o.max_hp,
            attack_min: self.attack_min + o.attack_min,
            attack_max: self.attack_max + o.attack_max,
            defence: self.defence + o.defence,
            save: self.save + o.save,
            sight: self.sight + o.sight,
        }
    }

    /// `self` without `o`.
    pub fn minus(self, o: Bonus) -> Bonus {
        Bonus {
            max_hp: self.max_hp - o.max_hp,
            attack_min: self.attack_min - o.attack_min,
            attack_max: self.attack_max - o.attack_max,
            defence: self.defence - o.defence,
            save: self.save - o.save,
            sight: self.sight - o.sight,
        }
    }
}

/// One item in the player's pack (26 at most), in the order it was picked up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemView {
    /// Names the item in `use`, `equip`, `unequip` and `drop`.
    pub id: u32,
    /// The content key of its kind (`"health_pack"`).
    pub key: Arc<str>,
    pub name: Arc<str>,
    /// One line saying what it does.
    pub description: Arc<str>,
    /// For equipment, the slot it goes in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot: Option<Slot>,
    /// Worn now: its bonus is in the character's stats.
    #[serde(default, skip_serializing_if = "is_false")]
    pub equipped: bool,
    /// `use` does something with it (a Health Pack, a Vial of Antivenom).
    #[serde(default, skip_serializing_if = "is_false")]
    pub usable: bool,
    /// What it adds to the stats while equipped. A microchip's own random tweaks are here.
    #[serde(default, skip_serializing_if = "Bonus::is_zero")]
    pub bonus: Bonus,
    /// What the item is for ([`ItemUse`]): how a client knows a Key or a Health Pack without
    /// knowing the content's keys. Absent for equipment and for anything without a use.
    #[serde(default, rename = "use", skip_serializing_if = "ItemUse::is_none")]
    pub use_: ItemUse,
    /// How many the stack holds: items without a slot of one kind share one pack slot. Absent
    /// means 1.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub count: u32,
    /// For what is thrown (`use` `throw`) or a weapon that shoots (`fire`): how far, in tiles
    /// (the same round measure as sight). Absent (0) for the rest.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub range: u32,
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

/// What an item is for, as the content file says (`use = "heal"`) and the wire repeats in each
/// [`ItemView`]. Equipment has none: it is worn, not used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemUse {
    /// Nothing to use (equipment, or a curiosity).
    #[default]
    None,
    /// `use` heals (a Health Pack).
    Heal,
    /// `use` cures poison (a Vial of Antivenom).
    CurePoison,
    /// Opens a locked door when you walk into it (a Key); never `use`d.
    Unlock,
    /// Thrown at a cell with `throw` (a Dart, a Pipe Bomb); `range` says how far.
    Throw,
    /// `use` carries you to another part of the floor (a Pocket Teleporter).
    Teleport,
    /// `use` shows you the whole floor's map (a Floor Plan).
    Reveal,
    /// `use` clears stun and confusion, and can be used while stunned or confused (Smelling
    /// Salts).
    Clear,
}

impl ItemUse {
    pub fn is_none(&self) -> bool {
        *self == ItemUse::None
    }
}

/// A status effect on a character. Each is shaken off by a saving throw at the end of a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// The turn's action is lost. No inventory use.
    Stun,
    /// −1 HP a turn, never below 1. A Vial of Antivenom cures it.
    Poison,
    /// A move goes in a random direction, or nowhere. No inventory use.
    Confusion,
}

impl Effect {
    pub const ALL: [Effect; 3] = [Effect::Stun, Effect::Poison, Effect::Confusion];
}

/// What a stat point can be spent on (one per level): +10 max HP, +1 attack (min and max),
/// +1 defence, +1 sight, +5 saving throw, by the content file's numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stat {
    MaxHp,
    Attack,
    Defence,
    Sight,
    Save,
}

impl Stat {
    pub const ALL: [Stat; 5] = [
        Stat::MaxHp,
        Stat::Attack,
        Stat::Defence,
        Stat::Sight,
        Stat::Save,
    ];
}

/// The player's own character.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelfView {
    pub id: u32,
    pub name: Arc<str>,
    pub pos: Pos,
    /// Floor number, 1 at the top.
    pub depth: u8,
    pub hp: i32,
    pub max_hp: i32,
    pub level: u32,
    /// Total experience.
    pub xp: u32,
    /// Total experience at which the current level began.
    pub xp_level: u32,
    /// Total experience at which the next level begins.
    pub xp_next: u32,
    /// Stat points to spend (one per level gained); send `level_up` to spend one.
    pub points: u32,
    pub attack_min: i32,
    pub attack_max: i32,
    pub defence: i32,
    /// Saving throw: the chance in percent to shake off an effect each turn.
    pub save: i32,
    /// Sight radius in tiles.
    pub sight: i32,
    pub kills: u32,
    /// Turns this character has lived through.
    pub turns: u64,
    /// The deepest floor it reached.
    pub deepest: u8,
    /// `false` once the character has died: it watches the floor from where it fell, and
    /// `new_character` starts another.
    pub alive: bool,
    /// How it died ("killed by a Rabid Mouse on floor 6"), once dead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// Status effects on the character now, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<Effect>,
    /// `true` once the Mouse King has fallen while this character lived: its game ended in
    /// victory, it acts no more, and `new_character` starts another.
    #[serde(default, skip_serializing_if = "is_false")]
    pub victory: bool,
    /// The score this game would enter in the high-score table now (see PROTOCOL.md).
    #[serde(default)]
    pub score: u32,
    /// `true` while the character rests (after a `rest`): the server chooses each next turn of
    /// rest by itself until the rest ends. Left out while false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub resting: bool,
    /// `true` while you are away: you let your floor's turn timer run out too many turns in a
    /// row, so the floor no longer waits for you and your character waits each turn. Anything
    /// you send brings you back. Left out while false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub away: bool,
    /// Once fallen: how many more of the dungeon's turns (every floor's counted) a friend can
    /// bring you back in (a Health Pack used on your remains). Absent when nobody can (no
    /// friend was alive when you fell, or it is too late).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revive_turns: Option<u32>,
}

#[cfg(any(test, feature = "testing"))]
impl SelfView {
    /// A fresh level-1 character, Ann (id 1), standing at `pos` on floor 1: for tests, which
    /// change what they need with `SelfView { hp: 3, ..SelfView::sample(pos) }`.
    pub fn sample(pos: crate::Pos) -> SelfView {
        SelfView {
            id: 1,
            name: "Ann".into(),
            pos,
            depth: 1,
            hp: 25,
            max_hp: 25,
            level: 1,
            xp: 0,
            xp_level: 0,
            xp_next: 100,
            points: 0,
            attack_min: 1,
            attack_max: 4,
            defence: 4,
            save: 10,
            sight: 8,
            kills: 0,
            turns: 0,
            deepest: 1,
            alive: true,
            cause: None,
            effects: Vec::new(),
            victory: false,
            score: 0,
            resting: false,
            away: false,
            revive_turns: None,
        }
    }
}

/// One player of the dungeon, for the party panel. Players share these with each other wherever
/// they are: it is what friends would tell each other, not what a character sees.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartyMember {
    pub id: u32,
    pub name: Arc<str>,
    pub level: u32,
    pub hp: i32,
    pub max_hp: i32,
    pub depth: u8,
    pub alive: bool,
    /// A connection drives the character now.
    pub connected: bool,
    /// Its player is away: connected, but it let its floor's timer run out, so nobody waits
    /// for it. Left out while false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub away: bool,
    /// Where it stands (or, fallen, where its remains lie), for the members on your floor: what
    /// friends tell each other, not what you see. Absent for members on other floors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pos: Option<Pos>,
    /// Fallen: how many more of the dungeon's turns (every floor's counted) a friend can bring
    /// it back in. Absent when nobody can.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revive_turns: Option<u32>,
}

/// A spot a player marked for its floor's friends to look at (`mark`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarkedSpot {
    /// The player who marked it.
    pub by: u32,
    pub name: Arc<str>,
    pub pos: Pos,
    /// The floor's turn until which it shows (it is gone from the view after it).
    pub until: u64,
}

/// Someone following a player's view.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Watcher {
    pub name: String,
    /// The name of the player watched.
    pub watching: String,
}

/// Everything one player may know: never more than its character sees or remembers, plus the
/// party panel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// Turns resolved so far on this floor.
    pub turn: u64,
    /// Floor number, 1 at the top.
    pub depth: u8,
    /// Remembered tiles; `Unknown` where never seen.
    pub map: TileGrid,
    /// Cells in sight now (row-major indices into `map`).
    pub visible: CellSet,
    /// Entities in sight now, sorted by id. The player's own character is among them.
    pub entities: Vec<EntityView>,
    /// The player's own character.
    pub me: SelfView,
    /// Every player in the dungeon, by id.
    #[serde(default)]
    pub party: Vec<PartyMember>,
    /// Everyone watching a player of the dungeon.
    #[serde(default)]
    pub watchers: Vec<Watcher>,
    /// The character's pack, in pick-up order. A watcher sees the watched player's.
    #[serde(default)]
    pub inventory: Vec<ItemView>,
    /// Spots marked by players on this floor, by the marking player's id. Left out while
    /// there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<MarkedSpot>,
}

impl View {
    /// Lets go of the spare capacity its lists were built with: the server keeps one view per
    /// connection (the last one sent) for as long as the connection lasts.
    pub fn shrink_to_fit(&mut self) {
        self.visible.runs.shrink_to_fit();
        self.entities.shrink_to_fit();
        self.party.shrink_to_fit();
        self.watchers.shrink_to_fit();
        self.inventory.shrink_to_fit();
        self.marks.shrink_to_fit();
    }

    /// Where the view shows entity `id`: the player's own character, or an entity in sight.
    pub fn position_of(&self, id: u32) -> Option<Pos> {
        if id == self.me.id {
            return Some(self.me.pos);
        }
        (self.entities.binary_search_by_key(&id, |e| e.id).ok()).map(|k| self.entities[k].pos)
    }

    /// Where party member `id` stands (or, fallen, where its remains lie), if on this view's
    /// floor. See [`View::member_pos`].
    pub fn friend_pos(&self, id: u32) -> Option<Pos> {
        self.member_pos(self.party.iter().find(|m| m.id == id)?)
    }

    /// Where party member `m` stands (or, fallen, where its remains lie), if on this view's
    /// floor: the party tells it (`m.pos`) only for members out of sight; one in sight is an
    /// entity of the view (a player, or remains, with the character's id).
    pub fn member_pos(&self, m: &PartyMember) -> Option<Pos> {
        if m.id == self.me.id {
            return Some(self.me.pos);
        }
        m.pos.or_else(|| {
            (self.entity(m.id))
                .filter(|e| matches!(e.kind, EntityKind::Player | EntityKind::Remains))
                .map(|e| e.pos)
        })
    }

    /// Whether the cell at `p` is in sight now.
    pub fn is_visible(&self, p: Pos) -> bool {
        self.map.index(p).is_some_and(|i| self.visible.contains(i))
    }

    pub fn entity(&self, id: u32) -> Option<&EntityView> {
        self.entities
            .binary_search_by_key(&id, |e| e.id)
            .ok()
            .map(|i| &self.entities[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hand-written (de)serialization keeps the wire shape: one string per row.
    #[test]
    fn a_tile_grid_is_rows_of_characters_on_the_wire() {
        let mut g = TileGrid::new(3, 2);
        g.set_index(0, Tile::Wall);
        g.set_index(1, Tile::DoorOpen);
        g.set_index(5, Tile::StairsDown);
        let json = serde_json::to_string(&g).unwrap();
        assert_eq!(json, r##"{"width":3,"height":2,"rows":["#' ","  >"]}"##);
        assert_eq!(serde_json::from_str::<TileGrid>(&json).unwrap(), g);
        let empty = TileGrid::new(0, 0);
        let json = serde_json::to_string(&empty).unwrap();
        assert_eq!(json, r##"{"width":0,"height":0,"rows":[]}"##);
        assert_eq!(serde_json::from_str::<TileGrid>(&json).unwrap(), empty);
        for bad in [
            r#"{"width":3,"height":2,"rows":["...."]}"#,
            r#"{"width":3,"height":2,"rows":["...",".."]}"#,
            r##"{"width":3,"height":1,"rows":["#x#"]}"##,
            r##"{"width":3,"height":1,"rows":["x"]}"##,
        ] {
            assert!(serde_json::from_str::<TileGrid>(bad).is_err(), "{bad}");
        }
        // An escaped character that is a tile is read (the row is not borrowed then).
        let escaped = r##"{"width":1,"height":1,"rows":["\u0023"]}"##;
        let g = serde_json::from_str::<TileGrid>(escaped).unwrap();
        assert_eq!(g.cells(), [Tile::Wall]);
    }

    /// The walkable tiles are floor, stairs and open doors, and only those.
    #[test]
    fn walkable_tiles_are_floor_stairs_and_open_doors() {
        for t in TILES {
            let want = matches!(
                t,
                Tile::Floor | Tile::StairsDown | Tile::StairsUp | Tile::DoorOpen
            );
            assert_eq!(t.is_walkable(), want, "{t:?}");
            assert_eq!(t.blocks_sight(), !want, "{t:?}");
        }
    }

    #[test]
    fn tile_chars_round_trip() {
        for t in [
            Tile::Unknown,
            Tile::Wall,
            Tile::Floor,
            Tile::StairsDown,
            Tile::StairsUp,
            Tile::DoorClosed,
            Tile::DoorOpen,
            Tile::DoorLocked,
        ] {
            assert_eq!(Tile::from_char(t.to_char()), Some(t));
        }
        assert_eq!(Tile::from_char('x'), None);
    }

    /// The byte tables that map rows are written and read with say exactly what `to_char` and
    /// `from_char` say, for every tile and every byte, and no character outside ASCII is a tile
    /// (so reading a row's bytes rejects every row reading its `char`s rejects).
    #[test]
    fn the_tile_byte_tables_agree_with_to_char_and_from_char() {
        for (k, &t) in TILES.iter().enumerate() {
            assert_eq!(t as usize, k, "{t:?} out of place in TILES");
            assert_eq!(char::from(TILE_BYTE[k]), t.to_char(), "{t:?}");
        }
        for b in 0..=u8::MAX {
            let want = if b.is_ascii() {
                Tile::from_char(char::from(b))
            } else {
                None
            };
            assert_eq!(BYTE_TILE[usize::from(b)], want, "byte {b:#04x}");
        }
        for c in (0..=u32::from(char::MAX)).filter_map(char::from_u32) {
            if let Some(t) = Tile::from_char(c) {
                assert!(c.is_ascii(), "{c:?} is {t:?}");
                // Every tile that has a character is in TILES (and so in TILE_BYTE).
                assert_eq!(TILES[t as usize], t);
            }
        }
    }

    /// Rows read a byte at a time fail as they did read a character at a time: the first
    /// character that is not a tile (a non-ASCII one whole), before a wrong length.
    #[test]
    fn a_bad_row_gives_the_error_a_char_at_a_time_gave() {
        let read = |rows: &[&str], width| {
            TileGrid::try_from(TileGridWire {
                width,
                height: rows.len(),
                rows: rows.iter().map(|r| Row((*r).into())).collect(),
            })
        };
        assert_eq!(read(&["#.é#"], 4), Err(ViewError::TileChar('é')));
        assert_eq!(read(&["#.é#x"], 3), Err(ViewError::TileChar('é')));
        assert_eq!(read(&["#.", "x"], 2), Err(ViewError::TileChar('x')));
        assert_eq!(read(&["🐀"], 1), Err(ViewError::TileChar('🐀')));
        // Past the first block of a long row, and in its last, shorter stretch.
        let long = format!("{}x{}", "#".repeat(20), ".".repeat(20));
        assert_eq!(read(&[&long], 41), Err(ViewError::TileChar('x')));
        let long = format!("{}é", "#".repeat(37));
        assert_eq!(read(&[&long], 38), Err(ViewError::TileChar('é')));
        let short = ViewError::RowLength {
            row: 1,
            len: 1,
            width: 2,
        };
        assert_eq!(read(&["#.", ">"], 2), Err(short));
        let g = read(&["#.", "<*"], 2).unwrap();
        use Tile::*;
        assert_eq!(g.cells(), [Wall, Floor, StairsUp, DoorLocked]);
    }

    /// Grids are equal when their size and every tile are, shared cells or not.
    #[test]
    fn grids_compare_by_size_and_every_tile() {
        let mut a = TileGrid::new(70, 3);
        for i in (0..a.cells().len()).step_by(7) {
            a.set_index(i, Tile::Wall);
        }
        let shared = a.clone();
        assert!(shared.shares_cells(&a) && shared == a);
        let json = serde_json::to_string(&a).unwrap();
        let copy: TileGrid = serde_json::from_str(&json).unwrap();
        assert!(!copy.shares_cells(&a) && copy == a);
        // A change in any block, the last and shorter one included.
        for i in [0, 63, 64, 150, 209] {
            let mut b = a.clone();
            let t = if b.cells()[i] == Tile::Floor {
                Tile::Wall
            } else {
                Tile::Floor
            };
            b.set_index(i, t);
            assert_ne!(b, a, "cell {i}");
        }
        // The same tiles in another shape are another grid.
        let wide = TileGrid::new(6, 2);
        let tall = TileGrid::new(2, 6);
        assert_ne!(wide, tall);
    }

    /// Copying a range of cells changes exactly that range, and copies the shared cells only
    /// when a tile in it really changes.
    #[test]
    fn copying_cells_changes_the_range_and_shares_what_did_not_change() {
        let mut terrain = TileGrid::new(10, 3);
        for i in 0..terrain.cells().len() {
            terrain.set_index(i, if i % 3 == 0 { Tile::Wall } else { Tile::Floor });
        }
        let mut memory = TileGrid::new(10, 3);
        let before = memory.clone();
        memory.copy_cells(4..17, terrain.cells());
        for (i, &t) in memory.cells().iter().enumerate() {
            let expected = if (4..17).contains(&i) {
                terrain.cells()[i]
            } else {
                Tile::Unknown
            };
            assert_eq!(t, expected, "cell {i}");
        }
        assert!(
            !memory.shares_cells(&before) && before.cells().iter().all(|&t| t == Tile::Unknown)
        );
        // The same cells again: nothing changes, so nothing is copied.
        let seen = memory.clone();
        memory.copy_cells(5..12, terrain.cells());
        assert!(memory.shares_cells(&seen));
        // A range past the end is ignored rather than a panic.
        memory.copy_cells(25..40, terrain.cells());
        assert!(memory.shares_cells(&seen));
    }

    #[test]
    fn grid_serializes_as_rows_and_rejects_bad_rows() {
        let mut g = TileGrid::new(3, 2);
        g.set(Pos::new(0, 0), Tile::Wall);
        g.set(Pos::new(2, 1), Tile::StairsDown);
        let json = serde_json::to_string(&g).unwrap();
        assert_eq!(json, r##"{"width":3,"height":2,"rows":["#  ","  >"]}"##);
        assert_eq!(serde_json::from_str::<TileGrid>(&json).unwrap(), g);
        let short = r##"{"width":3,"height":2,"rows":["#  "," >"]}"##;
        assert!(serde_json::from_str::<TileGrid>(short).is_err());
        let bad = r##"{"width":3,"height":2,"rows":["#x ","  >"]}"##;
        assert!(serde_json::from_str::<TileGrid>(bad).is_err());
        let few = r##"{"width":3,"height":2,"rows":["#  "]}"##;
        assert!(serde_json::from_str::<TileGrid>(few).is_err());
    }

    #[test]
    fn cell_set_runs_membership_and_flags() {
        let flags = [
            false, true, true, false, true, false, false, true, true, true,
        ];
        let s = CellSet::from_flags(flags);
        assert_eq!(s.runs(), &[[1, 2], [4, 1], [7, 3]]);
        assert_eq!(s.len(), 6);
        for (i, &f) in flags.iter().enumerate() {
            assert_eq!(s.contains(i), f, "index {i}");
        }
        assert!(!s.contains(10));
        assert_eq!(s.to_flags(flags.len()), flags.to_vec());
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![1, 2, 4, 7, 8, 9]);
    }

    #[test]
    fn cell_set_rejects_overlapping_touching_or_empty_runs() {
        assert!(serde_json::from_str::<CellSet>("[[1,2],[4,1]]").is_ok());
        assert!(serde_json::from_str::<CellSet>("[[1,2],[3,1]]").is_err());
        assert!(serde_json::from_str::<CellSet>("[[4,2],[1,1]]").is_err());
        assert!(serde_json::from_str::<CellSet>("[[1,0]]").is_err());
    }
}
