//! Drawing the dungeon: remembered tiles dim and cold, tiles in sight lit warm by the
//! character's torch (brighter near it), unknown tiles black; then the characters in sight.

use delve_protocol::{Effect, EntityKind, EntityView, Pos, Tile, View};
use macroquad::prelude::*;

use super::anim::Anims;
use super::sprites::{Sprites, hash};
use super::text::{draw_text, measure_text};
use super::theme::{effect_look, player_color};

/// Colour of remembered-but-unseen tiles: dim and bluish, like a memory.
const MEMORY: Color = Color::new(0.36, 0.38, 0.52, 1.0);
/// The dark floor needs more of it to stay apart from the unknown.
const MEMORY_FLOOR: Color = Color::new(0.6, 0.62, 0.85, 1.0);

/// The smallest and largest a cell is drawn, in window pixels, however far the map is zoomed.
pub const MIN_TILE: f32 = 16.0;
pub const MAX_TILE: f32 = 128.0;

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
    /// Centres `focus` (in cells) in `area`, without showing more off-map space than needed,
    /// with cells `zoom` times their size for the area (the player's pinch or zoom buttons).
    pub fn new(area: Rect, focus: Vec2, map_w: usize, map_h: usize, zoom: f32) -> Camera {
        // Whole multiples of half the sprite size keep pixels square and even.
        let fit = ((area.h / 20.0) / 8.0).floor().clamp(2.0, 6.0) * 8.0;
        let tile = ((fit * zoom) / 8.0)
            .round()
            .clamp(MIN_TILE / 8.0, MAX_TILE / 8.0)
            * 8.0;
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
pub fn torch(d2: i32, sight: i32) -> Color {
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
                if t == Tile::Wall {
                    MEMORY
                } else {
                    MEMORY_FLOOR
                }
            };
            let floor = &sprites.floor[(hash(x as u32, y as u32, 1) % 4) as usize];
            let (tex, over) = match t {
                Tile::Floor => (floor, None),
                Tile::StairsDown => (&sprites.stairs_down, None),
                Tile::StairsUp => (&sprites.stairs_up, None),
                // Doors stand on the floor; the open one lets it show through.
                Tile::DoorClosed => (floor, Some(&sprites.door_closed)),
                Tile::DoorOpen => (floor, Some(&sprites.door_open)),
                Tile::DoorLocked => (floor, Some(&sprites.door_locked)),
                Tile::Wall => {
                    // A wall with open floor (or a door) below shows its brick face; otherwise
                    // its top. A door counts as open floor whether or not it is open, so the
                    // wall does not change when the door does.
                    let below = map.get(Pos::new(x, y + 1));
                    if below.is_walkable() || below.is_shut_door() {
                        (
                            &sprites.wall_face[(hash(x as u32, y as u32, 2) % 2) as usize],
                            None,
                        )
                    } else {
                        (&sprites.wall_top, None)
                    }
                }
                Tile::Unknown => continue,
            };
            let at = cam.to_screen(vec2(x as f32, y as f32));
            for tex in std::iter::once(tex).chain(over) {
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
            // Walls cast a short shadow on the floor below and beside them, so the floor
            // reads as lower than the walls (the shape cue of Brogue's and Crawl's tiles).
            if t.is_walkable() {
                let shade = Color::new(0.0, 0.0, 0.0, 0.35);
                let band = (cam.tile / 5.0).round();
                if map.get(Pos::new(x, y - 1)) == Tile::Wall {
                    draw_rectangle(at.x, at.y, cam.tile, band, shade);
                }
                if map.get(Pos::new(x - 1, y)) == Tile::Wall {
                    draw_rectangle(at.x, at.y, band * 0.6, cam.tile, shade);
                }
            }
        }
    }
}

pub fn draw_entities(view: &View, cam: &Camera, sprites: &Sprites, anims: &Anims, now: f64) {
    // Items lie under everything else; then rows from the top, yourself last in your row.
    let mut order: Vec<_> = view.entities.iter().collect();
    order.sort_by_key(|e| (e.kind != EntityKind::Item, e.pos.y, e.id == view.me.id));
    let size = Some(vec2(cam.tile, cam.tile));
    let plain = |dest| DrawTextureParams {
        dest_size: dest,
        ..Default::default()
    };
    for e in order {
        let (at, hop) = anims.position(e.id, e.pos, now);
        let base = cam.to_screen(at);
        let lift = hop * cam.tile * 0.12;
        let light = torch(e.pos.dist2(view.me.pos), view.me.sight);
        // Hit: flash towards red.
        let flash = anims.flash(e.id, now);
        let tint = |c: Color| {
            Color::new(
                (c.r * light.r) * (1.0 - flash) + flash,
                (c.g * light.g) * (1.0 - flash) + 0.25 * flash,
                (c.b * light.b) * (1.0 - flash) + 0.25 * flash,
                1.0,
            )
        };
        if e.kind == EntityKind::Item {
            draw_item(e, base, cam.tile, sprites, tint(WHITE), now);
            continue;
        }
        draw_texture_ex(&sprites.shadow, base.x, base.y, WHITE, plain(size));
        match e.kind {
            EntityKind::Player => {
                let c = player_color(e.id);
                draw_texture_ex(
                    &sprites.hero_cloak,
                    base.x,
                    base.y - lift,
                    tint(c),
                    plain(size),
                );
                draw_texture_ex(
                    &sprites.hero_body,
                    base.x,
                    base.y - lift,
                    tint(WHITE),
                    plain(size),
                );
            }
            EntityKind::Item => {}
            // A fallen friend, lying: greyed, on its side, until someone brings it back.
            EntityKind::Remains => {
                let grey = |c: Color| tint(Color::new(c.r * 0.45, c.g * 0.45, c.b * 0.45, 1.0));
                let lying = DrawTextureParams {
                    rotation: std::f32::consts::FRAC_PI_2,
                    ..plain(size)
                };
                let c = player_color(e.id);
                draw_texture_ex(&sprites.hero_cloak, base.x, base.y, grey(c), lying.clone());
                draw_texture_ex(&sprites.hero_body, base.x, base.y, grey(WHITE), lying);
            }
            EntityKind::Monster => {
                let (tex, scale) = sprites.monster(e.monster.as_deref());
                let s = cam.tile * scale;
                // Feet on the cell's floor, centred across it; the mouse looks at you.
                let x = base.x + (cam.tile - s) / 2.0;
                let y = base.y + cam.tile - s - lift;
                draw_texture_ex(
                    tex,
                    x,
                    y,
                    tint(WHITE),
                    DrawTextureParams {
                        dest_size: Some(vec2(s, s)),
                        flip_x: view.me.pos.x < e.pos.x,
                        ..Default::default()
                    },
                );
            }
        }
        if e.kind == EntityKind::Remains {
            label(
                &format!("{} (fallen)", e.name),
                base.x + cam.tile / 2.0,
                base.y - 4.0,
                player_color(e.id),
            );
            continue;
        }
        if e.kind == EntityKind::Player && e.id != view.me.id {
            label(
                &e.name,
                base.x + cam.tile / 2.0,
                base.y - lift - 4.0,
                player_color(e.id),
            );
        }
        if e.hp < e.max_hp || e.kind == EntityKind::Monster && e.id != view.me.id {
            let frac = (e.hp as f32 / e.max_hp.max(1) as f32).clamp(0.0, 1.0);
            let y = base.y + cam.tile - 3.0;
            let color = if e.kind == EntityKind::Monster {
                Color::from_rgba(230, 70, 60, 255)
            } else {
                Color::from_rgba(80, 200, 90, 255)
            };
            draw_rectangle(
                base.x + 3.0,
                y,
                cam.tile - 6.0,
                3.0,
                Color::from_rgba(20, 0, 0, 220),
            );
            draw_rectangle(base.x + 3.0, y, (cam.tile - 6.0) * frac, 3.0, color);
        }
    }
    draw_ailments(view, cam, anims, now);
    draw_effects(cam, anims, now);
}

/// Your status effects, over your head: stars circling for a stun, green bubbles rising for
/// poison, a bobbing question mark for confusion.
pub fn draw_ailments(view: &View, cam: &Camera, anims: &Anims, now: f64) {
    let me = &view.me;
    if me.effects.is_empty() || !me.alive {
        return;
    }
    let (at, _) = anims.position(me.id, me.pos, now);
    let base = cam.to_screen(at);
    let (cx, top) = (base.x + cam.tile / 2.0, base.y);
    let t = now as f32;
    for &e in &me.effects {
        let (_, color) = effect_look(e);
        match e {
            Effect::Stun => {
                // Little four-pointed stars circling the head.
                for k in 0..3 {
                    let a = t * 3.0 + k as f32 * std::f32::consts::TAU / 3.0;
                    let x = cx + a.cos() * cam.tile * 0.36;
                    let y = top - cam.tile * 0.02 + a.sin() * cam.tile * 0.12;
                    let r = cam.tile * 0.13;
                    let dark = Color::new(0.0, 0.0, 0.0, 0.6);
                    draw_line(x - r, y + 1.0, x + r, y + 1.0, 2.5, dark);
                    draw_line(x - r, y, x + r, y, 1.5, color);
                    draw_line(x, y - r, x, y + r, 1.5, color);
                    draw_circle(x, y, r * 0.3, WHITE);
                }
            }
            Effect::Poison => {
                for k in 0..3 {
                    let p = (t * 0.8 + k as f32 / 3.0).fract();
                    let x = cx + (k as f32 - 1.0) * cam.tile * 0.25;
                    let y = base.y + cam.tile * (0.7 - 0.7 * p);
                    let c = Color::new(color.r, color.g, color.b, 0.85 * (1.0 - p));
                    draw_circle(x, y, cam.tile * 0.05 + 1.0, c);
                }
            }
            Effect::Confusion => {
                let bob = (t * 4.0).sin() * cam.tile * 0.06;
                let size = (cam.tile * 0.6).round();
                let (x, y) = (cx + cam.tile * 0.3, top + cam.tile * 0.12 + bob);
                draw_text("?", x + 1.0, y + 1.0, size, Color::new(0.0, 0.0, 0.0, 0.8));
                draw_text("?", x, y, size, color);
            }
        }
    }
}

/// An item on the floor: a little smaller than a cell, resting on it, with a glint now and
/// then (at its own moment, so a room of loot does not blink in step).
fn draw_item(e: &EntityView, base: Vec2, tile: f32, sprites: &Sprites, tint: Color, now: f64) {
    let s = (tile * 0.8).round();
    let x = (base.x + (tile - s) / 2.0).round();
    let y = (base.y + tile - s - tile * 0.04).round();
    draw_ellipse(
        base.x + tile / 2.0,
        base.y + tile * 0.86,
        tile * 0.3,
        tile * 0.08,
        0.0,
        Color::new(0.0, 0.0, 0.0, 0.35),
    );
    draw_texture_ex(
        sprites.item(e.item.as_deref()),
        x,
        y,
        tint,
        DrawTextureParams {
            dest_size: Some(vec2(s, s)),
            ..Default::default()
        },
    );
    let phase = (now * 0.5 + f64::from(hash(e.id, 7, 3) % 100) / 100.0).fract();
    if phase < 0.08 {
        let k = (1.0 - (phase / 0.08 - 0.5).abs() * 2.0) as f32;
        let (gx, gy) = (x + s * 0.72, y + s * 0.28);
        let r = tile * 0.12 * k;
        let c = Color::new(1.0, 1.0, 0.9, 0.9 * k);
        draw_line(gx - r, gy, gx + r, gy, 2.0, c);
        draw_line(gx, gy - r, gx, gy + r, 2.0, c);
    }
}

/// Death puffs and floating damage numbers, over everything else on the map.
pub fn draw_effects(cam: &Camera, anims: &Anims, now: f64) {
    for p in &anims.puffs {
        let t = ((now - p.start) / super::anim::FLOAT_TIME) as f32;
        let c = cam.to_screen(p.at) + vec2(cam.tile / 2.0, cam.tile / 2.0);
        for k in 0..6 {
            let a = k as f32 * std::f32::consts::TAU / 6.0 + 0.4;
            let r = cam.tile * (0.15 + 0.45 * t);
            draw_circle(
                c.x + a.cos() * r,
                c.y + a.sin() * r * 0.7,
                cam.tile * 0.12 * (1.0 - t),
                Color::new(0.8, 0.78, 0.72, 0.7 * (1.0 - t)),
            );
        }
    }
    for f in &anims.floaters {
        let t = ((now - f.start) / super::anim::FLOAT_TIME) as f32;
        if t < 0.0 {
            continue;
        }
        // The font follows the tile, and lanes are a number's width apart.
        let size = (cam.tile * 0.7).clamp(14.0, 22.0) as u16;
        let lane_w = f32::from(size) * 1.5;
        let c = cam.to_screen(f.at)
            + vec2(
                cam.tile / 2.0 + f.lane as f32 * lane_w,
                cam.tile * (0.2 - 0.6 * t),
            );
        let d = measure_text(&f.text, None, size, 1.0);
        let [r, g, b] = f.color;
        let alpha = (1.0 - t * t).clamp(0.0, 1.0);
        let x = (c.x - d.width / 2.0).round();
        draw_text(
            &f.text,
            x + 1.0,
            c.y.round() + 1.0,
            f32::from(size),
            Color::new(0.0, 0.0, 0.0, alpha * 0.8),
        );
        draw_text(
            &f.text,
            x,
            c.y.round(),
            f32::from(size),
            Color::from_rgba(r, g, b, (alpha * 255.0) as u8),
        );
    }
}

/// How fast a marked spot's ring breathes, in cycles a second.
const MARK_PULSE_HZ: f64 = 1.2;

/// The spots friends marked ("look here"): a breathing ring in the marker's colour on the cell
/// and a tag saying whose mark it is, over everything else on the map.
pub fn draw_marks(view: &View, cam: &Camera, now: f64) {
    let breath = (0.5 + 0.5 * (now * MARK_PULSE_HZ * std::f64::consts::TAU).sin()) as f32;
    for m in &view.marks {
        let c = player_color(m.by);
        let at = cam.to_screen(vec2(m.pos.x as f32, m.pos.y as f32));
        let centre = at + vec2(cam.tile, cam.tile) / 2.0;
        let r = cam.tile * (0.45 + 0.15 * breath);
        draw_circle_lines(centre.x, centre.y, r, 3.0, c);
        draw_circle_lines(centre.x, centre.y, r * 0.5, 2.0, Color { a: 0.7, ..c });
        label(&format!("{}: look here", m.name), centre.x, at.y - 4.0, c);
    }
}

/// A small name tag centred above a point, on a dark plate so it reads on any floor.
fn label(text: &str, cx: f32, bottom: f32, color: Color) {
    // As large as the interface's text, though drawn over the map in window pixels.
    let size = (16.0 * super::layout::scales().ui).round() as u16;
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
