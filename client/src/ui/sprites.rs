//! The game's pixel art, made in code at start-up so the client ships no asset files. Terrain is
//! generated from small deterministic noise; characters are drawn by hand as text, one character
//! per pixel. Sprites are 16×16 and drawn at a whole-number scale with nearest filtering.

use macroquad::prelude::*;

pub const SPRITE: u16 = 16;

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
    /// Monsters by content key; unknown kinds fall back to `mouse_fallback`.
    pub monsters: Vec<(&'static str, Texture2D)>,
    pub mouse_fallback: Texture2D,
    /// The Mouse King on his back, crownless, for the victory screen; and his crown.
    pub fallen_king: Texture2D,
    pub crown: Texture2D,
    /// Items by content key; unknown kinds fall back to `item_fallback`.
    pub items: Vec<(&'static str, Texture2D)>,
    pub item_fallback: Texture2D,
}

impl Sprites {
    pub fn new() -> Sprites {
        Sprites {
            floor: [0, 1, 2, 3].map(|v| texture(&floor(v))),
            wall_top: texture(&wall_top()),
            wall_face: [0, 1].map(|v| texture(&wall_face(v))),
            stairs_down: texture(&stairs(true)),
            stairs_up: texture(&stairs(false)),
            door_closed: texture(&door(DoorLook::Closed)),
            door_open: texture(&door(DoorLook::Open)),
            door_locked: texture(&door(DoorLook::Locked)),
            hero_body: texture(&from_art(HERO, &hero_palette(false))),
            hero_cloak: texture(&from_art(HERO, &hero_palette(true))),
            shadow: texture(&shadow()),
            monsters: MOUSE_KINDS
                .iter()
                .map(|k| (k.key, texture(&mouse(k))))
                .collect(),
            mouse_fallback: texture(&mouse(&MOUSE_KINDS[0])),
            fallen_king: texture(&fallen_king()),
            crown: texture(&item(CROWN, CROWN_PALETTE)),
            items: ITEM_LOOKS
                .iter()
                .map(|look| (look.key, texture(&item(look.art, look.palette))))
                .collect(),
            item_fallback: texture(&item(SACK, SACK_PALETTE)),
        }
    }

    /// The sprite for an item kind (by content key).
    pub fn item(&self, key: Option<&str>) -> &Texture2D {
        self.items
            .iter()
            .find(|(k, _)| Some(*k) == key)
            .map_or(&self.item_fallback, |(_, t)| t)
    }

    /// The sprite for a monster kind, and how large it is drawn (1.0 = one cell).
    pub fn monster(&self, key: Option<&str>) -> (&Texture2D, f32) {
        let scale = MOUSE_KINDS
            .iter()
            .find(|k| Some(k.key) == key)
            .map_or(1.0, |k| k.scale);
        let tex = self
            .monsters
            .iter()
            .find(|(k, _)| Some(*k) == key)
            .map_or(&self.mouse_fallback, |(_, t)| t);
        (tex, scale)
    }
}

impl Default for Sprites {
    fn default() -> Self {
        Sprites::new()
    }
}

fn texture(img: &Image) -> Texture2D {
    let t = Texture2D::from_image(img);
    t.set_filter(FilterMode::Nearest);
    t
}

/// A small integer hash, for noise that is the same every run.
pub fn hash(x: u32, y: u32, salt: u32) -> u32 {
    let mut h =
        x.wrapping_mul(0x9E37_79B1) ^ y.wrapping_mul(0x85EB_CA77) ^ salt.wrapping_mul(0xC2B2_AE3D);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    h
}

fn rgb(r: u8, g: u8, b: u8) -> [u8; 4] {
    [r, g, b, 255]
}

fn shade(c: [u8; 4], d: i32) -> [u8; 4] {
    let f = |v: u8| (i32::from(v) + d).clamp(0, 255) as u8;
    [f(c[0]), f(c[1]), f(c[2]), c[3]]
}

fn image(f: impl Fn(u32, u32) -> [u8; 4]) -> Image {
    let n = u32::from(SPRITE);
    let mut bytes = Vec::with_capacity((n * n * 4) as usize);
    for y in 0..n {
        for x in 0..n {
            bytes.extend_from_slice(&f(x, y));
        }
    }
    Image {
        bytes,
        width: SPRITE,
        height: SPRITE,
    }
}

/// Flagstones: two courses of stones with dark joints, offset per variant, with grit.
fn floor(variant: u32) -> Image {
    let base = rgb(74, 70, 80);
    let joint = rgb(42, 40, 48);
    let offset = [0, 5, 9, 3][variant as usize % 4];
    image(|x, y| {
        let course = y / 8;
        let xo = (x + offset + course * 7) % 16;
        if y % 8 == 0 || xo == 0 || (xo == 8 && course == 1 && variant.is_multiple_of(2)) {
            return joint;
        }
        let n = hash(x, y, 17 + variant);
        let mut c = shade(base, (n % 9) as i32 - 4);
        // A lit top-left edge on each stone gives them a little depth.
        if y % 8 == 1 || xo == 1 {
            c = shade(c, 10);
        }
        if n.is_multiple_of(23) {
            c = shade(c, -18); // a crack or pebble
        }
        c
    })
}

/// The top of a wall, seen from above: big rough blocks with dark joints and a lit rim, so room
/// outlines read clearly against the unknown dark.
fn wall_top() -> Image {
    let base = rgb(72, 66, 88);
    let joint = rgb(40, 36, 50);
    image(|x, y| {
        let xo = if y < 8 { x } else { (x + 8) % 16 };
        if y % 8 == 7 || xo % 16 == 15 {
            return joint;
        }
        let n = hash(x, y, 5);
        let mut c = shade(base, (n % 9) as i32 - 4);
        if y % 8 == 0 || xo % 16 == 0 {
            c = shade(c, 16);
        }
        if n.is_multiple_of(29) {
            c = shade(c, -16);
        }
        c
    })
}

/// The front of a wall facing the viewer: courses of bricks with a lit top edge.
fn wall_face(variant: u32) -> Image {
    let brick = rgb(104, 84, 76);
    let mortar = rgb(50, 42, 44);
    image(|x, y| {
        if y < 3 {
            // The wall's top edge, catching the light.
            return shade(
                rgb(64, 58, 70),
                if y == 2 {
                    -14
                } else {
                    (hash(x, y, 9) % 5) as i32
                },
            );
        }
        let row = (y - 3) / 4;
        let xo = (x + if row % 2 == 0 { 0 } else { 4 } + variant * 2) % 8;
        if (y - 3) % 4 == 3 || xo == 7 {
            return mortar;
        }
        let n = hash(x / 8 + row * 31, row, 3 + variant);
        let mut c = shade(brick, (n % 21) as i32 - 10);
        if (y - 3) % 4 == 0 {
            c = shade(c, 14);
        }
        // Darker towards the floor, as if the light came from above.
        shade(c, -((y as i32) - 3) * 2)
    })
}

/// Stairs: steps stepping into darkness (down) or up towards light (up), in a stone frame.
fn stairs(down: bool) -> Image {
    let frame = rgb(58, 54, 66);
    image(|x, y| {
        if !(2..=13).contains(&x) || !(1..=14).contains(&y) {
            return if x == 0 || x == 15 || y == 0 || y == 15 {
                rgb(42, 40, 48)
            } else {
                frame
            };
        }
        let step = (y - 1) / 3; // 0..=4
        let edge = (y - 1) % 3 == 0;
        let level = if down { 4 - step } else { step } as i32;
        let mut c = if down {
            rgb(120, 112, 104)
        } else {
            rgb(150, 142, 128)
        };
        c = shade(c, -level * if down { 22 } else { 12 });
        if edge {
            c = shade(c, 26);
        }
        // The side of the narrowing stairwell.
        let inset = if down { step / 2 } else { (4 - step) / 2 };
        if x < 2 + inset || x > 13 - inset {
            c = shade(frame, -10);
        }
        c
    })
}

/// A soft oval shadow under characters.
fn shadow() -> Image {
    image(|x, y| {
        let dx = (x as f32 - 7.5) / 6.5;
        let dy = (y as f32 - 13.5) / 2.2;
        let d = dx * dx + dy * dy;
        if d < 1.0 {
            [0, 0, 0, ((1.0 - d) * 110.0) as u8]
        } else {
            [0, 0, 0, 0]
        }
    })
}

/// A hooded adventurer. `o` outline, `C`/`c` cloak light/dark, `s` skin, `e` eyes, `b` belt,
/// `B` boots, `h` hands, `t` torch flame.
const HERO: [&str; 16] = [
    "................",
    "......oooo......",
    ".....oCCCCo.....",
    "....oCCCCCCo....",
    "....oCcsssCo....",
    "....oCsesesCo...",
    "....oCcsssCo.t..",
    ".....occcco..t..",
    "....oCCCCCCo.o..",
    "...oCCCCCCCCoho.",
    "..ohCCbbbbCCo.o.",
    "...oCCCCCCCCo...",
    "....ocCCCCco....",
    "....oBBooBBo....",
    "....oBBo.oBBo...",
    ".....oo...oo....",
];

fn hero_palette(cloak: bool) -> Vec<(char, [u8; 4])> {
    if cloak {
        vec![('C', rgb(235, 235, 235)), ('c', rgb(165, 165, 165))]
    } else {
        vec![
            ('o', rgb(18, 14, 20)),
            ('s', rgb(226, 178, 140)),
            ('e', rgb(30, 24, 30)),
            ('b', rgb(120, 84, 40)),
            ('B', rgb(70, 52, 40)),
            ('h', rgb(210, 160, 124)),
            ('t', rgb(255, 190, 60)),
        ]
    }
}

/// Builds an image from text art; characters missing from the palette are transparent.
fn from_art(art: [&str; 16], palette: &[(char, [u8; 4])]) -> Image {
    image(|x, y| {
        let c = art[y as usize]
            .as_bytes()
            .get(x as usize)
            .copied()
            .unwrap_or(b'.') as char;
        palette
            .iter()
            .find(|(k, _)| *k == c)
            .map_or([0, 0, 0, 0], |(_, v)| *v)
    })
}

/// A mouse in profile, facing east: `B` body, `b` belly, `E` ear, `r` inner ear, `e` eye,
/// `n` nose, `t` tail, `f` feet, `w` whiskers; `C` crown and `R` cape for the King only. An
/// outline is added round the shape afterwards.
const MOUSE: [&str; 16] = [
    "................",
    "........CCCC....",
    ".........EE.C...",
    "........ErrE....",
    "........ErrE....",
    ".....BBBBEEBB...",
    "...BBBBBBBBBBB..",
    "..BBBBBBBBBBeBB.",
    ".RBBBBBBBBBBBBBn",
    ".RBBBBBBBBBBBBw.",
    "tRBbbbbbbbbBBB..",
    ".tRBbbbbbbbBB...",
    "..tt.ff...ff....",
    "....tt..........",
    "................",
    "................",
];

/// How each monster kind looks.
struct MouseLook {
    key: &'static str,
    body: [u8; 3],
    belly: [u8; 3],
    eye: [u8; 3],
    /// Drawn at this fraction of a cell.
    scale: f32,
    king: bool,
}

const MOUSE_KINDS: [MouseLook; 6] = [
    MouseLook {
        key: "micro_mouse",
        body: [168, 156, 148],
        belly: [214, 204, 196],
        eye: [20, 16, 20],
        scale: 0.7,
        king: false,
    },
    MouseLook {
        key: "neo_mouse",
        body: [70, 170, 160],
        belly: [150, 220, 210],
        eye: [230, 255, 250],
        scale: 0.85,
        king: false,
    },
    MouseLook {
        key: "tough_mouse",
        body: [112, 78, 54],
        belly: [150, 118, 90],
        eye: [20, 16, 20],
        scale: 1.0,
        king: false,
    },
    MouseLook {
        key: "rabid_mouse",
        body: [150, 160, 60],
        belly: [196, 200, 120],
        eye: [255, 40, 40],
        scale: 0.9,
        king: false,
    },
    MouseLook {
        key: "meta_mouse",
        body: [120, 70, 170],
        belly: [180, 140, 220],
        eye: [120, 255, 255],
        scale: 0.95,
        king: false,
    },
    MouseLook {
        key: "mouse_king",
        body: [140, 120, 110],
        belly: [200, 180, 170],
        eye: [20, 16, 20],
        scale: 1.15,
        king: true,
    },
];

fn mouse(look: &MouseLook) -> Image {
    let [br, bg, bb] = look.body;
    let body = rgb(br, bg, bb);
    let mut palette = vec![
        ('B', body),
        ('b', {
            let [r, g, b] = look.belly;
            rgb(r, g, b)
        }),
        ('E', shade(body, -22)),
        ('r', rgb(232, 150, 160)),
        ('e', {
            let [r, g, b] = look.eye;
            rgb(r, g, b)
        }),
        ('n', rgb(236, 120, 140)),
        ('t', rgb(214, 150, 150)),
        ('f', rgb(214, 150, 150)),
        ('w', rgb(230, 230, 230)),
    ];
    if look.king {
        palette.push(('C', rgb(250, 206, 60)));
        palette.push(('R', rgb(180, 30, 40)));
    }
    let mut img = from_art(MOUSE, &palette);
    outline(&mut img, [16, 10, 14, 255]);
    img
}

/// The Mouse King belly up: his sprite without the crown, the eye shut, upside down.
fn fallen_king() -> Image {
    let look = &MOUSE_KINDS[MOUSE_KINDS.len() - 1];
    let [br, bg, bb] = look.body;
    let body = rgb(br, bg, bb);
    let [r, g, b] = look.belly;
    let palette = vec![
        ('B', body),
        ('b', rgb(r, g, b)),
        ('E', shade(body, -22)),
        ('r', rgb(232, 150, 160)),
        ('e', shade(body, -50)),
        ('n', rgb(236, 120, 140)),
        ('t', rgb(214, 150, 150)),
        ('f', rgb(214, 150, 150)),
        ('w', rgb(230, 230, 230)),
        ('R', rgb(180, 30, 40)),
    ];
    let mut img = from_art(MOUSE, &palette);
    outline(&mut img, [16, 10, 14, 255]);
    let row = usize::from(img.width) * 4;
    let flipped: Vec<u8> = img.bytes.chunks(row).rev().flatten().copied().collect();
    img.bytes = flipped;
    img
}

const CROWN: [&str; 16] = [
    "................",
    "................",
    "................",
    "................",
    "................",
    "..Y....Y....Y...",
    "..YY..YYY..YY...",
    "..YYY.YrY.YYY...",
    "..YYYYYYYYYYY...",
    "..YYgYYrYYgYY...",
    "..yyyyyyyyyyy...",
    "................",
    "................",
    "................",
    "................",
    "................",
];

const CROWN_PALETTE: &[(char, [u8; 3])] = &[
    ('Y', [250, 206, 60]),
    ('y', [190, 140, 36]),
    ('r', [220, 40, 60]),
    ('g', [60, 200, 120]),
];

/// Paints every transparent pixel that touches an opaque one (4 ways) with `color`.
fn outline(img: &mut Image, color: [u8; 4]) {
    let (w, h) = (usize::from(img.width), usize::from(img.height));
    let opaque = |bytes: &[u8], x: usize, y: usize| bytes[(y * w + x) * 4 + 3] > 0;
    let before = img.bytes.clone();
    for y in 0..h {
        for x in 0..w {
            if opaque(&before, x, y) {
                continue;
            }
            let near = (x > 0 && opaque(&before, x - 1, y))
                || (x + 1 < w && opaque(&before, x + 1, y))
                || (y > 0 && opaque(&before, x, y - 1))
                || (y + 1 < h && opaque(&before, x, y + 1));
            if near {
                img.bytes[(y * w + x) * 4..(y * w + x) * 4 + 4].copy_from_slice(&color);
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum DoorLook {
    Closed,
    Open,
    Locked,
}

/// A wooden door in a stone frame. Closed: planks with iron bands and a ring handle. Locked:
/// darker, reinforced with an iron cross and a brass padlock, so it reads at a glance. Open: the
/// frame only, the leaf swung back against the jamb and the floor showing through.
fn door(look: DoorLook) -> Image {
    let stone = rgb(92, 86, 104);
    let wood = match look {
        DoorLook::Locked => rgb(104, 58, 42),
        _ => rgb(132, 88, 50),
    };
    let iron = rgb(54, 54, 62);
    image(|x, y| {
        let n = hash(x, y, 41);
        // The frame: two posts and a lintel, lit on top.
        if x <= 1 || x >= 14 || y <= 1 {
            let mut c = shade(stone, (n % 9) as i32 - 4);
            if y == 0 || (y > 1 && (x == 0 || x == 14)) {
                c = shade(c, 18);
            }
            if (x == 1 || x == 15) && y > 1 || y == 1 && (1..=14).contains(&x) {
                c = shade(c, -26);
            }
            return c;
        }
        if look == DoorLook::Open {
            // The leaf swung back against the left jamb, seen in perspective: tall at the hinge,
            // shorter at its far edge. The doorway itself is open.
            let (top, bottom) = (x.saturating_sub(2) + 2, 15 - x.saturating_sub(2) / 2);
            if (2..=5).contains(&x) && (top..=bottom).contains(&y) {
                let mut c = shade(wood, 8 - 12 * (x as i32 - 2) + (n % 7) as i32 - 3);
                if x == 5 || y == top {
                    c = shade(c, -30);
                }
                if y == 5 || y == 12 {
                    c = iron;
                }
                return c;
            }
            // The lintel's shadow falls a little way into the doorway.
            return match y {
                2 => [0, 0, 0, 130],
                3 => [0, 0, 0, 70],
                4 => [0, 0, 0, 30],
                _ => [0, 0, 0, 0],
            };
        }
        // Vertical planks with dark seams and a grain.
        let seam = x == 5 || x == 9;
        let mut c = if seam {
            shade(wood, -44)
        } else {
            let grain = if hash(x, y / 3, 43).is_multiple_of(5) {
                -14
            } else {
                0
            };
            shade(wood, (n % 11) as i32 - 5 + grain)
        };
        if x == 2 || y == 2 {
            c = shade(c, -22); // set back in the frame
        }
        match look {
            DoorLook::Locked => {
                // Iron bands top and bottom, an iron cross between, and a padlock on it.
                let band = y == 4 || y == 13;
                let cross = x + 1 == y || x + y == 17;
                if band || (cross && (5..=12).contains(&y)) {
                    c = if band && x % 3 == 0 {
                        rgb(150, 150, 160)
                    } else {
                        iron
                    };
                }
                let lock = [
                    "..ss..", ".s..s.", ".s..s.", "LLLLLL", "LLkkLL", "LLkkLL", "LLLkLL", "llllll",
                ];
                let (lx, ly) = (x as i32 - 5, y as i32 - 5);
                if (0..6).contains(&lx) && (0..8).contains(&ly) {
                    match lock[ly as usize].as_bytes()[lx as usize] {
                        b's' => c = rgb(196, 196, 206),
                        b'L' => c = rgb(226, 182, 62),
                        b'l' => c = rgb(150, 110, 30),
                        b'k' => c = rgb(30, 20, 16),
                        _ => {}
                    }
                }
            }
            _ => {
                if y == 4 || y == 12 {
                    c = if x % 4 == 3 { rgb(120, 120, 132) } else { iron };
                }
                // A ring handle.
                if (x == 11 && (8..=9).contains(&y)) || (y == 10 && (10..=12).contains(&x)) {
                    c = rgb(214, 176, 84);
                }
            }
        }
        c
    })
}

/// How an item lying about looks: text art (one character a pixel, `.` clear) and its palette.
struct ItemLook {
    key: &'static str,
    art: [&'static str; 16],
    palette: &'static [(char, [u8; 3])],
}

const ITEM_LOOKS: [ItemLook; 8] = [
    ItemLook {
        key: "health_pack",
        art: [
            "................",
            "................",
            "................",
            "......hhhh......",
            ".....h....h.....",
            "..WWWWWWWWWWWW..",
            "..WWWWWrrWWWWW..",
            "..WWWWWrrWWWWW..",
            "..WWWrrrrrrWWW..",
            "..WWWrrrrrrWWW..",
            "..WWWWWrrWWWWW..",
            "..WWWWWrrWWWWW..",
            "..wwwwwwwwwwww..",
            "................",
            "................",
            "................",
        ],
        palette: &[
            ('W', [236, 232, 226]),
            ('w', [170, 164, 160]),
            ('r', [220, 40, 44]),
            ('h', [120, 118, 126]),
        ],
    },
    ItemLook {
        key: "key",
        art: [
            "................",
            "................",
            "................",
            "................",
            "..YYYY..........",
            ".YYyyYY.........",
            ".Yy..yY.........",
            ".Yy..yYYYYYYYYY.",
            ".YYyyYYyyyyyyyy.",
            "..YYYY.....y.y.y",
            "...........y.y..",
            "................",
            "................",
            "................",
            "................",
            "................",
        ],
        palette: &[('Y', [246, 206, 76]), ('y', [184, 136, 38])],
    },
    ItemLook {
        key: "antivenom",
        art: [
            "................",
            "................",
            ".......cc.......",
            ".......cc.......",
            "......GGGG......",
            ".......GG.......",
            ".......GG.......",
            "......GggG......",
            ".....GggggG.....",
            "....GvvvvvvG....",
            "....GvVvvvvG....",
            "....GvvvvVvG....",
            "....GvvvvvvG....",
            ".....GvvvvG.....",
            "......GGGG......",
            "................",
        ],
        palette: &[
            ('c', [150, 100, 60]),
            ('G', [200, 228, 240]),
            ('g', [110, 140, 160]),
            ('v', [70, 210, 100]),
            ('V', [200, 255, 210]),
        ],
    },
    ItemLook {
        key: "crowbar",
        art: [
            "................",
            "...........RRr..",
            "..........RRrrR.",
            "..........Rr..R.",
            ".........Rr.....",
            "........Rr......",
            ".......Rr.......",
            "......Rr........",
            ".....Rr.........",
            "....Rr..........",
            "...Rr...........",
            "..Rr............",
            ".RRr............",
            ".Rr.............",
            "..r.............",
            "................",
        ],
        palette: &[('R', [214, 52, 46]), ('r', [130, 26, 30])],
    },
    ItemLook {
        key: "stun_baton",
        art: [
            "............b...",
            "..........b...b.",
            "...........BB...",
            "..........BBBb..",
            ".........KkB....",
            "........Kk......",
            ".......Kk.......",
            "......Kk........",
            ".....Kk.........",
            "....Kk..........",
            "...HH...........",
            "..HhH...........",
            ".HhH............",
            ".HH.............",
            "................",
            "................",
        ],
        palette: &[
            ('b', [230, 245, 255]),
            ('B', [110, 190, 255]),
            ('K', [44, 44, 54]),
            ('k', [120, 120, 140]),
            ('H', [150, 70, 44]),
            ('h', [200, 110, 70]),
        ],
    },
    ItemLook {
        key: "biker_jacket",
        art: [
            "................",
            "................",
            ".....CC..CC.....",
            "...LLCCzzCCLL...",
            "..LLLLLzzLLLLL..",
            ".LLLLLLzzLLLLLL.",
            ".LL.LLLzzLLL.LL.",
            ".LL.LLLzzLLL.LL.",
            ".LL.LLLzzLLL.LL.",
            ".LL.LLLzzLLL.LL.",
            ".ss.LLLzzLLL.ss.",
            "....LLLzzLLL....",
            "....bbbbbbbb....",
            "................",
            "................",
            "................",
        ],
        palette: &[
            ('L', [112, 72, 46]),
            ('C', [74, 46, 30]),
            ('s', [74, 46, 30]),
            ('b', [74, 46, 30]),
            ('z', [206, 206, 216]),
        ],
    },
    ItemLook {
        key: "bulletproof_vest",
        art: [
            "................",
            "................",
            "...VV......VV...",
            "...VVV....VVV...",
            "...VVVV..VVVV...",
            "..VVVVVVVVVVVV..",
            "..VPPPPPPPPPPV..",
            "..VPPPPPPPPPPV..",
            "..VPPPPPPPPPPV..",
            "..VVVVVVVVVVVV..",
            "..VssssksssssV..",
            "..VPPPPPPPPPPV..",
            "..VVVVVVVVVVVV..",
            "................",
            "................",
            "................",
        ],
        palette: &[
            ('V', [74, 84, 62]),
            ('P', [112, 124, 94]),
            ('s', [36, 36, 38]),
            ('k', [200, 190, 120]),
        ],
    },
    ItemLook {
        key: "microchip",
        art: [
            "................",
            "................",
            "....p.p.p.p.....",
            "...GGGGGGGGGG...",
            "..pGKKKKKKKKGp..",
            "...GKkkkkkkKG...",
            "..pGKkKKKKkKGp..",
            "...GKkKddKkKG...",
            "..pGKkKddKkKGp..",
            "...GKkKKKKkKG...",
            "..pGKkkkkkkKGp..",
            "...GKKKKKKKKG...",
            "...GGgGGGGgGG...",
            "....p.p.p.p.....",
            "................",
            "................",
        ],
        palette: &[
            ('p', [222, 200, 120]),
            ('G', [40, 130, 70]),
            ('g', [130, 210, 120]),
            ('K', [30, 30, 38]),
            ('k', [74, 74, 90]),
            ('d', [236, 194, 70]),
        ],
    },
];

/// Anything else: a tied sack with a question mark.
const SACK: [&str; 16] = [
    "................",
    "................",
    "................",
    ".......tt.......",
    "......tSSt......",
    ".......SS.......",
    "......SSSS......",
    ".....SSSSSS.....",
    "....SSSqqSSS....",
    "....SSSSSqSS....",
    "....SSSSqSSS....",
    "....SSSSSSSS....",
    "....SSSSqSSS....",
    ".....SSSSSS.....",
    "................",
    "................",
];

const SACK_PALETTE: &[(char, [u8; 3])] = &[
    ('S', [176, 146, 104]),
    ('t', [112, 80, 50]),
    ('q', [60, 40, 30]),
];

/// An item sprite: its art, lit along its top-left edges, with a dark outline so it reads on
/// any floor.
fn item(art: [&str; 16], palette: &[(char, [u8; 3])]) -> Image {
    let palette: Vec<(char, [u8; 4])> = palette
        .iter()
        .map(|&(c, [r, g, b])| (c, rgb(r, g, b)))
        .collect();
    let mut img = from_art(art, &palette);
    let w = usize::from(img.width);
    let before = img.bytes.clone();
    let clear = |x: usize, y: usize| x == 0 || y == 0 || before[((y - 1) * w + x - 1) * 4 + 3] == 0;
    for y in 0..usize::from(img.height) {
        for x in 0..w {
            let i = (y * w + x) * 4;
            if before[i + 3] > 0 && clear(x, y) {
                let lit = shade([before[i], before[i + 1], before[i + 2], 255], 34);
                img.bytes[i..i + 4].copy_from_slice(&lit);
            }
        }
    }
    outline(&mut img, [16, 10, 14, 255]);
    img
}
