//! The map in glyphs, the classic way (`@` for players, letters for monsters, `#` walls, `.`
//! floor, `+` doors, `>` and `<` stairs, `!`, `)`, `[`, `=` for things), for players who read
//! a roguelike better that way, as Brogue and Crawl let them. Every monster kind has a colour
//! of its own so that two letters alike never look alike. Only the drawing differs from the
//! tiles: the same cells, the same light (the torch near, memory dim and blue), the same
//! animations, so the hover box, the minimap and the screens work the same in both.

use delve_protocol::{EntityKind, Pos, Tile, View};
use macroquad::prelude::*;

use super::anim::Anims;
use super::render::Camera;
use super::text::{draw_text, measure_text};
use super::theme::player_color;

/// The glyph and colour of a remembered or seen map cell.
pub fn tile_glyph(t: Tile) -> Option<(char, Color)> {
    Some(match t {
        Tile::Unknown => return None,
        Tile::Wall => ('#', Color::new(0.62, 0.58, 0.5, 1.0)),
        Tile::Floor => ('.', Color::new(0.55, 0.52, 0.46, 1.0)),
        Tile::StairsDown => ('>', Color::new(1.0, 0.92, 0.55, 1.0)),
        Tile::StairsUp => ('<', Color::new(1.0, 0.92, 0.55, 1.0)),
        Tile::DoorClosed => ('+', Color::new(0.78, 0.55, 0.3, 1.0)),
        Tile::DoorOpen => ('\'', Color::new(0.78, 0.55, 0.3, 1.0)),
        Tile::DoorLocked => ('+', Color::new(0.95, 0.78, 0.25, 1.0)),
    })
}

/// A monster kind's letter and colour, by its content key (the first letter of a kind the
/// client does not know, in white).
pub fn monster_glyph(key: Option<&str>) -> (char, Color) {
    match key {
        Some("micro_mouse") => ('m', Color::new(0.78, 0.7, 0.6, 1.0)),
        Some("neo_mouse") => ('n', Color::new(0.35, 0.85, 0.95, 1.0)),
        Some("tough_mouse") => ('t', Color::new(0.95, 0.55, 0.2, 1.0)),
        Some("rabid_mouse") => ('r', Color::new(0.45, 0.95, 0.35, 1.0)),
        Some("meta_mouse") => ('M', Color::new(0.9, 0.4, 0.95, 1.0)),
        Some("mouse_king") => ('K', Color::new(1.0, 0.82, 0.2, 1.0)),
        Some(k) => (k.chars().next().unwrap_or('?'), WHITE),
        None => ('?', WHITE),
    }
}

/// A thing's sign and colour, by its content key: `!` to drink, `)` to wield, `[` to wear,
/// `=` an implant, `-` a key; `*` a thing the client does not know.
pub fn item_glyph(key: Option<&str>) -> (char, Color) {
    match key {
        Some("health_pack") => ('!', Color::new(0.95, 0.3, 0.3, 1.0)),
        Some("antivenom") => ('!', Color::new(0.45, 0.9, 0.4, 1.0)),
        Some("crowbar") => (')', Color::new(0.9, 0.35, 0.3, 1.0)),
        Some("stun_baton") => (')', Color::new(0.5, 0.75, 1.0, 1.0)),
        Some("biker_jacket") => ('[', Color::new(0.75, 0.5, 0.3, 1.0)),
        Some("bulletproof_vest") => ('[', Color::new(0.55, 0.65, 0.4, 1.0)),
        Some("microchip") => ('=', Color::new(0.4, 0.9, 0.6, 1.0)),
        Some("key") => ('-', Color::new(1.0, 0.85, 0.3, 1.0)),
        _ => ('*', WHITE),
    }
}

/// A glyph centred in the cell whose top-left corner is `at`.
fn glyph(c: char, at: Vec2, tile: f32, color: Color) {
    // The font's letters fill about half their size: this fills most of the cell.
    let size = (tile * 1.25).round();
    let s = c.to_string();
    let d = measure_text(&s, None, size as u16, 1.0);
    let x = (at.x + (tile - d.width) / 2.0).round();
    let y = (at.y + (tile + d.height) / 2.0).round();
    draw_text(&s, x, y, size, color);
}

/// `c` lit by `light` (the torch's colour, or memory's).
fn lit(c: Color, light: Color) -> Color {
    Color::new(c.r * light.r, c.g * light.g, c.b * light.b, 1.0)
}

/// The map's cells in glyphs; `light` says how a cell is lit (or remembered).
pub fn draw_map(view: &View, cam: &Camera, light: impl Fn(Pos, bool, Tile) -> Color) {
    let map = &view.map;
    let (w, h) = (map.width() as i32, map.height() as i32);
    let first = ((cam.area.point() - cam.origin) / cam.tile).floor();
    let last = ((cam.area.point() + cam.area.size() - cam.origin) / cam.tile).ceil();
    for y in (first.y as i32).max(0)..(last.y as i32).min(h) {
        for x in (first.x as i32).max(0)..(last.x as i32).min(w) {
            let p = Pos::new(x, y);
            let t = map.get(p);
            let Some((c, color)) = tile_glyph(t) else {
                continue;
            };
            let at = cam.to_screen(vec2(x as f32, y as f32));
            // Walls on a dark block, so that rooms read as shapes.
            if t == Tile::Wall {
                let l = light(p, view.is_visible(p), t);
                draw_rectangle(
                    at.x,
                    at.y,
                    cam.tile,
                    cam.tile,
                    Color::new(0.12 * l.r, 0.11 * l.g, 0.1 * l.b, 1.0),
                );
            }
            glyph(c, at, cam.tile, lit(color, light(p, view.is_visible(p), t)));
        }
    }
}

/// What is in sight, in glyphs: things under creatures, yourself last; each on a dark square
/// so the floor's dot never shows through.
pub fn draw_entities(
    view: &View,
    cam: &Camera,
    anims: &Anims,
    now: f64,
    light: impl Fn(Pos) -> Color,
) {
    let mut order: Vec<_> = view.entities.iter().collect();
    order.sort_by_key(|e| (e.kind != EntityKind::Item, e.id == view.me.id));
    for e in order {
        let (at, _) = anims.position(e.id, e.pos, now);
        let base = cam.to_screen(at);
        let flash = anims.flash(e.id, now);
        let (c, color) = match e.kind {
            EntityKind::Player => ('@', player_color(e.id)),
            // A fallen friend who can still be brought back: the roguelike's remains.
            EntityKind::Remains => ('%', player_color(e.id)),
            EntityKind::Monster => monster_glyph(e.monster.as_deref()),
            EntityKind::Item => item_glyph(e.item.as_deref()),
        };
        let l = light(e.pos);
        // Creatures keep their own colour near the torch's edge: dimmed less than the floor.
        let color = Color::new(
            (color.r * (0.4 + 0.6 * l.r)) * (1.0 - flash) + flash,
            (color.g * (0.4 + 0.6 * l.g)) * (1.0 - flash) + 0.25 * flash,
            (color.b * (0.4 + 0.6 * l.b)) * (1.0 - flash) + 0.25 * flash,
            1.0,
        );
        draw_rectangle(
            base.x + 1.0,
            base.y + 1.0,
            cam.tile - 2.0,
            cam.tile - 2.0,
            Color::new(0.02, 0.02, 0.03, 1.0),
        );
        glyph(c, base, cam.tile, color);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_monster_kind_has_a_look_of_its_own() {
        let kinds = [
            "micro_mouse",
            "neo_mouse",
            "tough_mouse",
            "rabid_mouse",
            "meta_mouse",
            "mouse_king",
        ];
        let looks: Vec<(char, [u8; 4])> = kinds
            .iter()
            .map(|k| {
                let (c, color) = monster_glyph(Some(k));
                (c, color.into())
            })
            .collect();
        for (i, a) in looks.iter().enumerate() {
            for b in &looks[i + 1..] {
                assert_ne!(a, b);
                // Not even the same colour under another letter.
                assert_ne!(a.1, b.1);
            }
        }
        // Every kind in the built-in content is known here.
        let content = include_str!("../../../server/content/delve.toml");
        for k in kinds {
            assert!(content.contains(&format!("key = \"{k}\"")), "{k}");
        }
    }

    #[test]
    fn every_map_cell_but_the_unknown_has_a_glyph() {
        assert_eq!(tile_glyph(Tile::Unknown), None);
        for (t, c) in [
            (Tile::Wall, '#'),
            (Tile::Floor, '.'),
            (Tile::StairsDown, '>'),
            (Tile::StairsUp, '<'),
            (Tile::DoorClosed, '+'),
        ] {
            assert_eq!(tile_glyph(t).map(|g| g.0), Some(c));
        }
    }
}
