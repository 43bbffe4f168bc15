//! Drawing the dungeon: remembered tiles dim and cold, tiles in sight lit warm by the
//! character's torch (brighter near it), unknown tiles black; then the characters in sight.

use delve_protocol::{EntityKind, Pos, Tile, View};
use macroquad::prelude::*;

use super::anim::Anims;
use super::sprites::{Sprites, hash};

/// Colour of remembered-but-unseen tiles: dim and bluish, like a memory.
const MEMORY: Color = Color::new(0.24, 0.26, 0.38, 1.0);

/// The colour a player is drawn in: yours is gold, friends get a palette colour by id.
pub fn player_color(id: u32, me: u32) -> Color {
    if id == me {
        return Color::from_rgba(236, 196, 84, 255);
    }
    const FRIENDS: [(u8, u8, u8); 7] = [
        (80, 200, 210),
        (220, 90, 90),
        (160, 110, 230),
        (110, 210, 110),
        (240, 140, 60),
        (90, 140, 240),
        (230, 120, 190),
    ];
    let (r, g, b) = FRIENDS[id as usize % FRIENDS.len()];
    Color::from_rgba(r, g, b, 255)
}

/// Where the map is drawn this frame.
#[derive(Clone, Copy, Debug)]
pub struct Camera {
    pub area: Rect,
    /// Size of one cell on screen, in pixels.
    pub tile: f32,
    /// Screen position of cell (0, 0)'s top-left corner.
    pub origin: Vec2,
}

impl Camera {
    /// Centres `focus` (in cells) in `area`, without showing more off-map space than needed.
    pub fn new(area: Rect, focus: Vec2, map_w: usize, map_h: usize) -> Camera {
        // Whole multiples of half the sprite size keep pixels square and even.
        let tile = ((area.h / 20.0) / 8.0).floor().clamp(2.0, 6.0) * 8.0;
        let axis = |start: f32, len: f32, cells: usize, f: f32| {
            let full = cells as f32 * tile;
            if full <= len {
                start + (len - full) / 2.0
            } else {
                (start + len / 2.0 - (f + 0.5) * tile).clamp(start + len - full, start)
            }
        };
        Camera {
            area,
            tile,
            origin: vec2(
                axis(area.x, area.w, map_w, focus.x).round(),
                axis(area.y, area.h, map_h, focus.y).round(),
            ),
        }
    }

    pub fn to_screen(&self, cell: Vec2) -> Vec2 {
        self.origin + cell * self.tile
    }
}

/// Light level of a visible cell at squared distance `d2` from a character with `sight`.
fn torch(d2: i32, sight: i32) -> Color {
    let r = (d2 as f32).sqrt() / (sight as f32 + 1.0);
    let b = 1.0 - 0.55 * r.powf(1.6);
    Color::new(b, b * 0.94, b * 0.84, 1.0)
}

pub fn draw_map(view: &View, cam: &Camera, sprites: &Sprites) {
    let map = &view.map;
    let (w, h) = (map.width() as i32, map.height() as i32);
    let first = ((cam.area.point() - cam.origin) / cam.tile).floor();
    let last = ((cam.area.point() + cam.area.size() - cam.origin) / cam.tile).ceil();
    let me = view.me.pos;
    let size = Some(vec2(cam.tile, cam.tile));
    for y in (first.y as i32).max(0)..(last.y as i32).min(h) {
        for x in (first.x as i32).max(0)..(last.x as i32).min(w) {
            let p = Pos::new(x, y);
            let t = map.get(p);
            if t == Tile::Unknown {
                continue;
            }
            let lit = view.is_visible(p);
            let tint = if lit {
                torch(p.dist2(me), view.me.sight)
            } else {
                MEMORY
            };
            let tex = match t {
                Tile::Floor => &sprites.floor[(hash(x as u32, y as u32, 1) % 4) as usize],
                Tile::StairsDown => &sprites.stairs_down,
                Tile::StairsUp => &sprites.stairs_up,
                Tile::Wall => {
                    // A wall with open floor below shows its brick face; otherwise its top.
                    if map.get(Pos::new(x, y + 1)).is_walkable() {
                        &sprites.wall_face[(hash(x as u32, y as u32, 2) % 2) as usize]
                    } else {
                        &sprites.wall_top
                    }
                }
                Tile::Unknown => continue,
            };
            let at = cam.to_screen(vec2(x as f32, y as f32));
            draw_texture_ex(
                tex,
                at.x,
                at.y,
                tint,
                DrawTextureParams {
                    dest_size: size,
                    ..Default::default()
                },
            );
        }
    }
}

pub fn draw_entities(view: &View, cam: &Camera, sprites: &Sprites, anims: &Anims, now: f64) {
    let mut order: Vec<_> = view.entities.iter().collect();
    order.sort_by_key(|e| (e.pos.y, e.id == view.me.id));
    let size = Some(vec2(cam.tile, cam.tile));
    for e in order {
        let (at, hop) = anims.position(e.id, e.pos, now);
        let base = cam.to_screen(at);
        let lift = hop * cam.tile * 0.12;
        let light = torch(e.pos.dist2(view.me.pos), view.me.sight);
        draw_texture_ex(
            &sprites.shadow,
            base.x,
            base.y,
            WHITE,
            DrawTextureParams {
                dest_size: size,
                ..Default::default()
            },
        );
        match e.kind {
            EntityKind::Player => {
                let c = player_color(e.id, view.me.id);
                let cloak = Color::new(c.r * light.r, c.g * light.g, c.b * light.b, 1.0);
                let p = DrawTextureParams {
                    dest_size: size,
                    ..Default::default()
                };
                draw_texture_ex(&sprites.hero_cloak, base.x, base.y - lift, cloak, p.clone());
                draw_texture_ex(&sprites.hero_body, base.x, base.y - lift, light, p);
            }
            EntityKind::Monster => {
                let r = cam.tile * 0.38;
                let (cx, cy) = (base.x + cam.tile / 2.0, base.y + cam.tile / 2.0 - lift);
                draw_circle(
                    cx,
                    cy,
                    r,
                    Color::new(0.55 * light.r, 0.2 * light.g, 0.2 * light.b, 1.0),
                );
                let g = e.name.chars().next().unwrap_or('?').to_string();
                let d = measure_text(&g, None, 20, 1.0);
                draw_text(&g, cx - d.width / 2.0, cy + d.height / 2.0, 20.0, WHITE);
            }
        }
        if e.kind == EntityKind::Player && e.id != view.me.id {
            label(
                &e.name,
                base.x + cam.tile / 2.0,
                base.y - lift - 4.0,
                player_color(e.id, view.me.id),
            );
        }
        if e.hp < e.max_hp {
            let frac = (e.hp as f32 / e.max_hp.max(1) as f32).clamp(0.0, 1.0);
            let y = base.y + cam.tile - 3.0;
            draw_rectangle(
                base.x + 3.0,
                y,
                cam.tile - 6.0,
                3.0,
                Color::from_rgba(40, 0, 0, 220),
            );
            draw_rectangle(
                base.x + 3.0,
                y,
                (cam.tile - 6.0) * frac,
                3.0,
                Color::from_rgba(220, 50, 50, 255),
            );
        }
    }
}

/// A small name tag centred above a point, on a dark plate so it reads on any floor.
fn label(text: &str, cx: f32, bottom: f32, color: Color) {
    let size = 16;
    let dim = measure_text(text, None, size, 1.0);
    let x = (cx - dim.width / 2.0).round();
    draw_rectangle(
        x - 3.0,
        bottom - dim.height - 4.0,
        dim.width + 6.0,
        dim.height + 6.0,
        Color::new(0.0, 0.0, 0.0, 0.55),
    );
    draw_text(text, x, bottom, f32::from(size), color);
}
