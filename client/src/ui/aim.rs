//! The aiming overlay of a throw or a shot (`f`, or `t` in the pack): the line the missile would
//! fly, the cell aimed at (gold when the server would take it, red with the reason when not), and
//! a line of keys. The choices are the pure [`crate::aim`]'s; this only draws them.

use delve_protocol::View;
use macroquad::prelude::*;

use super::render::Camera;
use crate::aim::{Aim, line};

const GOOD: Color = Color::new(0.93, 0.77, 0.33, 1.0);
const BAD: Color = Color::new(1.0, 0.3, 0.3, 1.0);

/// Draws `aim` over the map seen through `cam`.
pub fn draw(aim: &Aim, view: &View, cam: &Camera) {
    let problem = aim.problem(view);
    let color = if problem.is_some() { BAD } else { GOOD };
    let t = cam.tile;
    let cells = line(view.me.pos, aim.at);
    for p in cells.iter().skip(1) {
        let s = cam.to_screen(vec2(p.x as f32, p.y as f32));
        let c = Color::new(color.r, color.g, color.b, 0.35);
        draw_rectangle(s.x + t * 0.375, s.y + t * 0.375, t * 0.25, t * 0.25, c);
    }
    let s = cam.to_screen(vec2(aim.at.x as f32, aim.at.y as f32));
    draw_rectangle_lines(s.x, s.y, t, t, 3.0, color);
    let text = match problem {
        Some(why) => format!("{}: {why}", aim.describe(view)),
        None => format!("{}.", aim.describe(view)),
    };
    let keys =
        "f or Enter: confirm   Tab: next target   arrows: move   click: aim there   Esc: cancel";
    let area = cam.area;
    let y = area.y + area.h - 44.0;
    draw_rectangle(
        area.x,
        y - 22.0,
        area.w,
        50.0,
        Color::new(0.0, 0.0, 0.0, 0.7),
    );
    draw_text(&text, area.x + 12.0, y, 22.0, color);
    draw_text(
        keys,
        area.x + 12.0,
        y + 20.0,
        16.0,
        Color::new(0.7, 0.7, 0.75, 1.0),
    );
}
