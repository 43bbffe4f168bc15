//! The whole floor as remembered, small, on the side panel.

use delve_protocol::{EntityKind, Pos, Tile, View};
use macroquad::prelude::*;

use crate::ui::sheet::Minimap;
use crate::ui::sprites::Sprites;
use crate::ui::theme::player_color;

/// Draws the minimap from (`x`, `y`), at most `w` wide and (unless that leaves it less than a
/// pixel a cell) `max_h` high. Returns the y below it.
pub fn draw(view: &View, sprites: &Sprites, x: f32, y: f32, w: f32, max_h: f32) -> f32 {
    let map = &view.map;
    let px = (w / map.width() as f32)
        .min(max_h / map.height() as f32)
        .floor()
        .max(1.0);
    let h = px * map.height() as f32;
    draw_rectangle(
        x - 2.0,
        y - 2.0,
        px * map.width() as f32 + 4.0,
        h + 4.0,
        Color::new(0.0, 0.0, 0.0, 0.6),
    );
    for (i, t) in map.cells().iter().enumerate() {
        let c = sprites.minimap(match t {
            Tile::Unknown => continue,
            Tile::Wall => Minimap::Wall,
            Tile::Floor if view.visible.contains(i) => Minimap::FloorLit,
            Tile::Floor => Minimap::Floor,
            Tile::StairsDown | Tile::StairsUp => Minimap::Stairs,
            Tile::DoorClosed => Minimap::Door,
            Tile::DoorOpen => Minimap::DoorOpen,
            Tile::DoorLocked => Minimap::DoorLocked,
        });
        let p = map.pos_of(i);
        draw_rectangle(x + p.x as f32 * px, y + p.y as f32 * px, px, px, c);
    }
    // Items under creatures, as on the map.
    let mut order: Vec<_> = view.entities.iter().collect();
    order.sort_by_key(|e| e.kind != EntityKind::Item);
    for e in order {
        let Pos { x: ex, y: ey } = e.pos;
        let (grow, color) = match e.kind {
            EntityKind::Item => (0.0, sprites.minimap(Minimap::Item)),
            EntityKind::Monster => (1.0, sprites.minimap(Minimap::Monster)),
            EntityKind::Player | EntityKind::Remains => (1.0, player_color(e.id)),
        };
        draw_rectangle(
            x + ex as f32 * px - grow,
            y + ey as f32 * px - grow,
            px + 2.0 * grow,
            px + 2.0 * grow,
            color,
        );
    }
    // Friends on this floor, in sight or not (`friends::pos_of`), and marks.
    for (p, Pos { x: fx, y: fy }) in crate::friends::on_floor(view) {
        let c = player_color(p.id);
        let c = if p.alive { c } else { Color { a: 0.6, ..c } };
        let (cx, cy) = (x + (fx as f32 + 0.5) * px, y + (fy as f32 + 0.5) * px);
        draw_rectangle(
            cx - px - 1.0,
            cy - px - 1.0,
            2.0 * px + 2.0,
            2.0 * px + 2.0,
            BLACK,
        );
        draw_rectangle(cx - px, cy - px, 2.0 * px, 2.0 * px, c);
    }
    for m in &view.marks {
        let (cx, cy) = (
            x + (m.pos.x as f32 + 0.5) * px,
            y + (m.pos.y as f32 + 0.5) * px,
        );
        draw_circle_lines(cx, cy, 3.0 * px, 1.5, player_color(m.by));
    }
    y + h
}
