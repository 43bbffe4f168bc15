//! Where each sprite sits in the sprite sheet `client/assets/sprites.png`: a grid of 16×16
//! cells, 8 to a row, drawn in any pixel editor. The sheet is embedded in the binary, so the
//! game still ships as one file. Change a picture by painting over its cell; add one by giving
//! it a free cell here.
//!
//! One cell is not a picture: `minimap` holds the minimap's colours, one pixel each along its top
//! row, in the order of [`Minimap`], so the map's small look is made in the sheet too.

/// The sheet itself.
pub const SHEET_PNG: &[u8] = include_bytes!("../../assets/sprites.png");

/// Cell size in pixels.
pub const CELL: u16 = 16;
/// Cells in a row of the sheet.
pub const COLUMNS: u16 = 8;

/// Every cell by name, in sheet order (row by row, left to right).
pub const CELLS: &[&str] = &[
    // Row 0: terrain.
    "floor0",
    "floor1",
    "floor2",
    "floor3",
    "wall_top",
    "wall_face0",
    "wall_face1",
    "stairs_down",
    // Row 1: doors, the hero (body, and the cloak tinted by player colour), the shadow, the
    // minimap's colours.
    "stairs_up",
    "door_closed",
    "door_open",
    "door_locked",
    "hero_body",
    "hero_cloak",
    "shadow",
    "minimap",
    // Row 2: monsters by content key, then the fallen king and his crown (the victory screen).
    "micro_mouse",
    "neo_mouse",
    "tough_mouse",
    "rabid_mouse",
    "meta_mouse",
    "mouse_king",
    "fallen_king",
    "crown",
    // Row 3: items by content key.
    "health_pack",
    "key",
    "antivenom",
    "crowbar",
    "stun_baton",
    "biker_jacket",
    "bulletproof_vest",
    "microchip",
    // Row 4: what an unknown item looks like, then the later items by content key.
    "sack",
    "dart",
    "pipe_bomb",
    "flashbang",
    "slingshot",
    "teleporter",
    "floor_plan",
    "smelling_salts",
    // Row 5: the later monsters by content key.
    "sling_mouse",
    "scout_mouse",
];

/// How large each monster is drawn, as a fraction of a cell (a Micro Mouse is small, the King
/// large). Kinds not listed are drawn one cell large, as a Micro Mouse.
pub const MONSTER_SCALE: &[(&str, f32)] = &[
    ("micro_mouse", 0.7),
    ("neo_mouse", 0.85),
    ("tough_mouse", 1.0),
    ("rabid_mouse", 0.9),
    ("meta_mouse", 0.95),
    ("mouse_king", 1.15),
    ("sling_mouse", 0.8),
    ("scout_mouse", 0.75),
];

/// The minimap's colours, by their pixel in the `minimap` cell's top row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Minimap {
    Wall = 0,
    Floor,
    FloorLit,
    Door,
    DoorOpen,
    DoorLocked,
    Stairs,
    Monster,
    Item,
}

/// The top-left pixel of a cell.
pub fn origin(name: &str) -> Option<(u16, u16)> {
    let k = CELLS.iter().position(|c| *c == name)? as u16;
    Some(((k % COLUMNS) * CELL, (k / COLUMNS) * CELL))
}

/// The sheet's size in pixels.
pub fn size() -> (u16, u16) {
    let rows = (CELLS.len() as u16).div_ceil(COLUMNS);
    (COLUMNS * CELL, rows * CELL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_cells_follow_each_other() {
        let mut names = CELLS.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CELLS.len());
        assert_eq!(origin("floor0"), Some((0, 0)));
        assert_eq!(origin("stairs_up"), Some((0, 16)));
        assert_eq!(origin("minimap"), Some((112, 16)));
        assert_eq!(origin("nothing"), None);
    }

    /// The committed sheet is a PNG of the size the table needs, and every cell holds a
    /// picture (some pixel not fully transparent).
    #[test]
    fn the_sheet_fits_the_table_and_no_cell_is_empty() {
        let decoder = png::Decoder::new(std::io::Cursor::new(SHEET_PNG));
        let mut reader = decoder.read_info().expect("a PNG");
        let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
        let info = reader.next_frame(&mut buf).expect("a frame");
        assert_eq!((info.width, info.height), {
            let (w, h) = size();
            (u32::from(w), u32::from(h))
        });
        assert_eq!(info.color_type, png::ColorType::Rgba);
        let w = info.width as usize;
        for name in CELLS {
            let (ox, oy) = origin(name).unwrap();
            let any = (0..CELL as usize).any(|y| {
                (0..CELL as usize).any(|x| {
                    let i = ((oy as usize + y) * w + ox as usize + x) * 4;
                    buf[i + 3] != 0
                })
            });
            assert!(any, "cell {name} is empty");
        }
    }
}
