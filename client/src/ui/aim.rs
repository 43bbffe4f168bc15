//! The aiming overlay of a throw or a shot (`f`, the Throw button, or `t` in the pack): on the
//! map, the line the missile would fly and the cell aimed at (gold when the server would take
//! it, red when not); over the map's foot, a bar saying what is aimed at what (or why not) with
//! its buttons: send it, the next target, cancel. A mouse's click on the map throws there; a
//! finger's tap only aims (a finger cannot point before it acts), and the bar's button sends.
//! The choices are the pure [`crate::aim`]'s; this only draws them.

use delve_protocol::{View, line};
use macroquad::prelude::*;

use super::layout::TOUCH_BUTTON_H;
use super::render::Camera;
use super::text::{draw_text, fit, measure_text};
use super::theme::{DIM, GOLD};
use super::widgets::{self, Look, Tap};
use crate::aim::{Aim, Missile};
use crate::keymap::Command;

/// An aim the server would refuse.
const BAD: Color = Color::new(1.0, 0.3, 0.3, 1.0);
/// The bar's buttons, side by side, at most this wide together (interface units).
const BUTTONS_W: f32 = 420.0;
/// A button's height with a mouse (a finger's is [`TOUCH_BUTTON_H`]).
const MOUSE_BUTTON_H: f32 = 30.0;
const PAD: f32 = 8.0;

/// Draws the line and the cell aimed at over the map seen through `cam` (window pixels).
pub fn draw_marks(aim: &Aim, view: &View, cam: &Camera) {
    let color = if aim.problem(view).is_some() {
        BAD
    } else {
        GOLD
    };
    let t = cam.tile;
    for p in line(view.me.pos, aim.at).iter().skip(1) {
        let s = cam.to_screen(vec2(p.x as f32, p.y as f32));
        let c = Color::new(color.r, color.g, color.b, 0.35);
        draw_rectangle(s.x + t * 0.375, s.y + t * 0.375, t * 0.25, t * 0.25, c);
    }
    let s = cam.to_screen(vec2(aim.at.x as f32, aim.at.y as f32));
    draw_rectangle_lines(s.x, s.y, t, t, 3.0, color);
}

/// Draws the bar at the foot of `map` (interface units), or at its head where the foot would
/// hide the cell aimed at (`target`) or the character (`me`): what is aimed, the keys (not
/// on a touch screen), and the buttons Throw (or Shoot), Next and Cancel.
pub fn draw_bar(aim: &Aim, view: &View, map: Rect, touch: bool, target: Rect, me: Rect) {
    let problem = aim.problem(view);
    let color = if problem.is_some() { BAD } else { GOLD };
    let room = map.w - 2.0 * PAD;
    let text = match problem {
        Some(why) => format!("{}: {why}", aim.describe(view)),
        None => format!("{}.", aim.describe(view)),
    };
    // A finger is told it can aim elsewhere, where there is room to say so.
    let hint = format!("{text} Tap another to aim there.");
    let text = if touch && problem.is_none() && measure_text(&hint, None, 20, 1.0).width <= room {
        hint
    } else {
        text
    };
    let bh = if touch {
        TOUCH_BUTTON_H
    } else {
        MOUSE_BUTTON_H
    };
    let keys =
        "Enter or f: send   Tab: next target   arrows: move   click: throw there   Esc: cancel";
    let keys_h = if touch { 0.0 } else { 18.0 };
    let h = PAD + 22.0 + keys_h + PAD + bh + PAD;
    let y = bar_y(map, h, target, me);
    widgets::add(Rect::new(map.x, y, map.w, h), Tap::Block);
    draw_rectangle(map.x, y, map.w, h, Color::new(0.0, 0.0, 0.0, 0.75));
    draw_text(
        fit(&text, room, 20),
        map.x + PAD,
        y + PAD + 16.0,
        20.0,
        color,
    );
    if !touch {
        let ky = y + PAD + 22.0 + 13.0;
        draw_text(fit(keys, room, 15), map.x + PAD, ky, 15.0, DIM);
    }
    let verb = match aim.missile {
        Missile::Throw { .. } => "Throw",
        Missile::Fire { .. } => "Shoot",
    };
    let buttons = [
        ("Enter", verb, Command::Confirm, Look::Primary),
        ("Tab", "Next", Command::Fight, Look::Plain),
        ("Esc", "Cancel", Command::Cancel, Look::Plain),
    ];
    let w = room.min(BUTTONS_W);
    let gap = 6.0;
    let bw = ((w - 2.0 * gap) / 3.0).floor();
    let by = y + h - PAD - bh;
    for (k, (key, label, command, look)) in buttons.into_iter().enumerate() {
        let x = (map.x + PAD + k as f32 * (bw + gap)).round();
        let r = Rect::new(x, by.round(), bw, bh);
        widgets::button(r, key, label, Tap::Command(command), look);
    }
}

/// Where a bar `h` high goes over `map`: at its foot, unless that hides the cell aimed at
/// (worst) or the character and the head hides less.
fn bar_y(map: Rect, h: f32, target: Rect, me: Rect) -> f32 {
    let hides = |y: f32| {
        let bar = Rect::new(map.x, y, map.w, h);
        2 * u8::from(bar.overlaps(&target)) + u8::from(bar.overlaps(&me))
    };
    let (foot, head) = (map.y + map.h - h, map.y);
    if hides(head) < hides(foot) {
        head
    } else {
        foot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_keeps_off_the_cell_aimed_at_and_the_character() {
        let map = Rect::new(0.0, 0.0, 600.0, 300.0);
        let cell = |y: f32| Rect::new(300.0, y, 30.0, 30.0);
        let me = cell(135.0);
        // Aimed above the middle: the foot.
        assert_eq!(bar_y(map, 80.0, cell(40.0), me), 220.0);
        // Aimed near the foot: the head.
        assert_eq!(bar_y(map, 80.0, cell(250.0), me), 0.0);
        // A map so short that the character is under both: the one that spares the target.
        let short = Rect::new(0.0, 0.0, 600.0, 150.0);
        assert_eq!(bar_y(short, 100.0, cell(120.0), cell(60.0)), 0.0);
    }
}
