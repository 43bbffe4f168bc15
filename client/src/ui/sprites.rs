//! The game's pixel art, cut from the sprite sheet (`client/assets/sprites.png`, laid out by
//! [`super::sheet`]) at start-up. Sprites are 16×16 and drawn at a whole-number scale with
//! nearest filtering.

use std::collections::HashMap;

use macroquad::prelude::*;

use super::sheet::{self, Minimap, SHEET_PNG};

pub const SPRITE: u16 = sheet::CELL;

/// Every texture the game draws.
pub struct Sprites {
    pub floor: [Texture2D; 4],
    pub wall_top: Texture2D,
    pub wall_face: [Texture2D; 2],
    pub stairs_down: Texture2D,
    pub stairs_up: Texture2D,
    /// Doors, drawn over the floor (the open one lets it show through).
    pub door_closed: Texture2D,
    pub door_open: Texture2D,
    pub door_locked: Texture2D,
    /// Outline, face, hands and boots: drawn untinted.
    pub hero_body: Texture2D,
    /// The cloak: drawn tinted with the player's colour.
    pub hero_cloak: Texture2D,
    pub shadow: Texture2D,
    /// The Mouse King on his back, crownless, for the victory screen; and his crown.
    pub fallen_king: Texture2D,
    pub crown: Texture2D,
    /// Monsters and items by content key (and every other cell by name).
    cells: HashMap<&'static str, Texture2D>,
    /// The minimap's colours, from the sheet's `minimap` cell.
    minimap: Vec<Color>,
}

/// Cuts one cell out of the sheet.
fn cut(sheet: &Image, name: &str) -> Image {
    let (x, y) = sheet::origin(name).unwrap_or((0, 0));
    let c = f32::from(sheet::CELL);
    sheet.sub_image(Rect::new(f32::from(x), f32::from(y), c, c))
}

fn texture(img: &Image) -> Texture2D {
    let t = Texture2D::from_image(img);
    t.set_filter(FilterMode::Nearest);
    t
}

impl Sprites {
    pub fn new() -> Sprites {
        // The sheet is checked by a unit test (size and every cell), so this cannot fail in a
        // tested build.
        let sheet = Image::from_file_with_format(SHEET_PNG, Some(ImageFormat::Png))
            .unwrap_or_else(|e| panic!("the embedded sprite sheet: {e}"));
        let cells: HashMap<&'static str, Texture2D> = sheet::CELLS
            .iter()
            .map(|name| (*name, texture(&cut(&sheet, name))))
            .collect();
        let get = |name: &str| cells.get(name).cloned().unwrap_or_else(Texture2D::empty);
        let swatches = cut(&sheet, "minimap");
        let minimap = (0..=Minimap::Item as u32)
            .map(|i| swatches.get_pixel(i, 0))
            .collect();
        Sprites {
            floor: ["floor0", "floor1", "floor2", "floor3"].map(get),
            wall_top: get("wall_top"),
            wall_face: ["wall_face0", "wall_face1"].map(get),
            stairs_down: get("stairs_down"),
            stairs_up: get("stairs_up"),
            door_closed: get("door_closed"),
            door_open: get("door_open"),
            door_locked: get("door_locked"),
            hero_body: get("hero_body"),
            hero_cloak: get("hero_cloak"),
            shadow: get("shadow"),
            fallen_king: get("fallen_king"),
            crown: get("crown"),
            minimap,
            cells,
        }
    }

    /// The sprite for an item kind (by content key); a sack for kinds the sheet lacks.
    pub fn item(&self, key: Option<&str>) -> &Texture2D {
        key.and_then(|k| self.cells.get(k))
            .or_else(|| self.cells.get("sack"))
            .unwrap_or(&self.shadow)
    }

    /// The sprite for a monster kind, and how large it is drawn (1.0 = one cell). Kinds the
    /// sheet lacks look like a Micro Mouse.
    pub fn monster(&self, key: Option<&str>) -> (&Texture2D, f32) {
        let scale = sheet::MONSTER_SCALE
            .iter()
            .find(|(k, _)| Some(*k) == key)
            .map_or(1.0, |(_, s)| *s);
        let tex = key
            .and_then(|k| self.cells.get(k))
            .filter(|_| sheet::MONSTER_SCALE.iter().any(|(k, _)| Some(*k) == key))
            .or_else(|| self.cells.get("micro_mouse"))
            .unwrap_or(&self.shadow);
        (tex, scale)
    }

    /// A colour of the minimap.
    pub fn minimap(&self, which: Minimap) -> Color {
        self.minimap.get(which as usize).copied().unwrap_or(WHITE)
    }
}

impl Default for Sprites {
    fn default() -> Self {
        Sprites::new()
    }
}

/// A small integer hash, for noise that is the same every run (which floor tile goes where).
pub fn hash(x: u32, y: u32, salt: u32) -> u32 {
    let mut h =
        x.wrapping_mul(0x9E37_79B1) ^ y.wrapping_mul(0x85EB_CA77) ^ salt.wrapping_mul(0xC2B2_AE3D);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    h
}
