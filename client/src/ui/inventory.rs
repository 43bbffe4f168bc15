//! The inventory screen (`i`): the 26 pack slots lettered a-z on the left, the selected item on
//! the right (its picture, what it is, what it does, what it lends while worn), and before
//! equipping, the stats now beside the stats with it worn. It covers the map only, so the log
//! below keeps showing what happens, refusals included.

use delve_protocol::{INVENTORY_SLOTS, ItemView, View};
use macroquad::prelude::*;

use super::sprites::Sprites;
use super::text::{capitalise, draw_text, fit, measure_text, wrap};
use super::theme::{BOX_EDGE as EDGE, DIM, GOLD, WARN, outline};
use super::widgets::{self, Look, Tap};
use crate::friends::Deed;
use crate::keymap::Command;
use crate::pack::{self, Comparison, Verdict};

const FAINT: Color = Color::new(0.36, 0.34, 0.42, 1.0);
pub const BETTER: Color = Color::new(0.35, 0.88, 0.42, 1.0);
pub const WORSE: Color = Color::new(1.0, 0.36, 0.32, 1.0);
/// The height of the buttons under an item (use, equip, drop) and under the comparison; on a
/// touch screen, a finger's.
const ACTION_H: f32 = 30.0;
const TOUCH_ACTION_H: f32 = 44.0;
/// The Close button at the foot, and the foot's height under the list and the detail; larger
/// on a touch screen.
const CLOSE: (f32, f32) = (110.0, 28.0);
const TOUCH_CLOSE: (f32, f32) = (130.0, 44.0);
const FOOT_H: f32 = 40.0;
const TOUCH_FOOT_H: f32 = 62.0;
/// The tallest a line of the list gets (when only the filled slots are listed), and on a
/// touch screen.
const ROW_MAX: f32 = 30.0;
const TOUCH_ROW_MAX: f32 = 40.0;

/// The buttons' height: a finger's on a touch screen.
fn action_h() -> f32 {
    if super::layout::touch() {
        TOUCH_ACTION_H
    } else {
        ACTION_H
    }
}

/// What the inventory screen shows besides the pack itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InventoryState {
    /// Index into the pack of the selected item.
    pub selected: usize,
    /// The item whose equip comparison is open, waiting for a yes or no.
    pub compare: Option<u32>,
    /// A line about the last key, when it did nothing ("A Key is used by walking into ...").
    pub note: Option<String>,
    /// Several friends are next to you: whom to give to or use the item on (`1`-`9`).
    pub pick: Option<crate::friends::Deed>,
}

/// Where things are on the screen.
pub struct InvLayout {
    pub frame: Rect,
    /// The first slot row's top-left corner, and the size of one row.
    pub list: Rect,
    pub row_h: f32,
    pub detail: Rect,
    /// The detail under the list rather than beside it.
    pub stacked: bool,
}

impl InvLayout {
    /// The pack's layout in `area` for `len` items, with a `banner` line or not, for a
    /// `touch` screen or not. In a narrow area (a phone held upright) the detail pane goes
    /// under the list, which then shows the filled slots only.
    pub fn new(area: Rect, banner: bool, len: usize, touch: bool) -> InvLayout {
        let m = if area.w < 640.0 { 6.0 } else { 16.0 };
        let frame = Rect::new(area.x + m, area.y + m, area.w - 2.0 * m, area.h - 2.0 * m);
        let top = frame.y + 62.0 + if banner { 30.0 } else { 0.0 };
        let bottom = frame.y + frame.h - if touch { TOUCH_FOOT_H } else { FOOT_H };
        let row_max = if touch { TOUCH_ROW_MAX } else { ROW_MAX };
        if frame.w < STACKED_BELOW {
            // Lines as tall as there is room for (a finger needs room), the few there are.
            let shown = len.clamp(1, INVENTORY_SLOTS) as f32;
            let row_h = ((bottom - top - DETAIL_MIN_H) / shown.max(10.0))
                .clamp(14.0, row_max)
                .floor();
            let list = Rect::new(frame.x + 12.0, top, frame.w - 24.0, row_h * shown);
            let dy = list.y + list.h + 18.0;
            let detail = Rect::new(frame.x + 12.0, dy, frame.w - 24.0, (bottom - dy).max(0.0));
            return InvLayout {
                frame,
                list,
                row_h,
                detail,
                stacked: true,
            };
        }
        // Every slot, lettered, where 26 lines fit at a readable height; in a short window (a
        // phone on its side) the filled slots only, in lines a finger can pick.
        let all = (bottom - top) / INVENTORY_SLOTS as f32 >= 15.0;
        let shown = if all {
            INVENTORY_SLOTS
        } else {
            len.clamp(1, INVENTORY_SLOTS)
        };
        let row_h = ((bottom - top) / shown.max(if all { 1 } else { 8 }) as f32)
            .clamp(12.0, if all { 22.0 } else { row_max })
            .floor();
        let list_w = (frame.w * 0.46).clamp(280.0, 440.0);
        let list = Rect::new(frame.x + 18.0, top, list_w, row_h * shown as f32);
        let detail = Rect::new(
            list.x + list.w + 24.0,
            top,
            frame.x + frame.w - (list.x + list.w + 24.0) - 20.0,
            bottom - top,
        );
        InvLayout {
            frame,
            list,
            row_h,
            detail,
            stacked: false,
        }
    }

    /// How many slot lines the list shows.
    fn lines(&self) -> usize {
        ((self.list.h / self.row_h).round() as usize).min(INVENTORY_SLOTS)
    }
}

/// Below this width the detail pane goes under the list.
const STACKED_BELOW: f32 = 640.0;
/// What the detail pane needs under a list: the picture, a few lines, the buttons.
const DETAIL_MIN_H: f32 = 300.0;

/// Why nothing in the pack can be done now, for the banner: read-only when not driving a living
/// character, locked while stunned or confused.
pub fn pack_blocked(view: &View, spectating: bool) -> Option<String> {
    if spectating {
        let me = &view.me;
        return Some(if me.victory {
            "Your game is won: the pack is yours to look at, not to use.".into()
        } else if !me.alive {
            "The dead carry nothing they can use.".into()
        } else {
            format!("{}'s pack: you can look, not touch.", me.name)
        });
    }
    pack::pack_locked(&view.me.effects).map(str::to_string)
}

fn icon(sprites: &Sprites, key: &str, x: f32, y: f32, size: f32) {
    draw_texture_ex(
        sprites.item(Some(key)),
        x.round(),
        y.round(),
        WHITE,
        DrawTextureParams {
            dest_size: Some(vec2(size, size)),
            ..Default::default()
        },
    );
}

/// A text's width at a size.
fn width(text: &str, size: u16) -> f32 {
    measure_text(text, None, size, 1.0).width
}

pub fn draw(area: Rect, view: &View, sprites: &Sprites, st: &InventoryState, spectating: bool) {
    let blocked = pack_blocked(view, spectating);
    let touch = super::layout::touch();
    let lay = InvLayout::new(area, blocked.is_some(), view.inventory.len(), touch);
    let f = lay.frame;
    draw_rectangle(
        area.x,
        area.y,
        area.w,
        area.h,
        Color::new(0.0, 0.0, 0.0, 0.5),
    );
    // Clicks on the pack's area stay in it.
    widgets::add(area, Tap::Block);
    draw_rectangle(f.x, f.y, f.w, f.h, Color::new(0.07, 0.065, 0.095, 0.97));
    outline(f.x, f.y, f.w, f.h, 2.0, EDGE);

    let inv = &view.inventory;
    let title = if spectating && view.me.alive && !view.me.victory {
        format!("{}'s pack", view.me.name)
    } else {
        "Pack".to_string()
    };
    draw_text(&title, f.x + 20.0, f.y + 40.0, 34.0, GOLD);
    let count = format!("{} / {INVENTORY_SLOTS} slots", inv.len());
    draw_text(
        &count,
        f.x + f.w - 20.0 - width(&count, 20),
        f.y + 38.0,
        20.0,
        DIM,
    );
    if let Some(why) = &blocked {
        let y = f.y + 56.0;
        let color = if spectating { DIM } else { WARN };
        draw_rectangle(
            f.x + 14.0,
            y,
            f.w - 28.0,
            24.0,
            Color::new(color.r * 0.25, color.g * 0.25, color.b * 0.25, 0.9),
        );
        outline(f.x + 14.0, y, f.w - 28.0, 24.0, 1.0, color);
        draw_text(why, f.x + 24.0, y + 17.0, 18.0, color);
    }

    draw_list(&lay, inv, sprites, st.selected);
    match inv.get(st.selected) {
        Some(item) => {
            let cmp = st
                .compare
                .filter(|&id| id == item.id)
                .and_then(|_| pack::compare(&view.me, inv, item));
            let friends = Friends {
                near: !crate::friends::near(view, Deed::UseOn).is_empty(),
                pick: st.pick.map(|d| (d, crate::friends::near(view, d))),
            };
            draw_detail(
                &lay,
                item,
                sprites,
                cmp.as_ref(),
                blocked.is_some(),
                &friends,
            );
        }
        None => {
            let d = lay.detail;
            let chars = chars_in(d.w, 20);
            let mut y = d.y + 24.0;
            for para in [
                "Your pack is empty.",
                "Walk over an item to pick it up; g or , picks up what lies where you stand.",
            ] {
                for line in wrap(para, chars) {
                    draw_text(&line, d.x, y, 20.0, DIM);
                    y += 24.0;
                }
                y += 24.0;
            }
        }
    }

    // The note about the last key, then the keys.
    let fy = f.y + f.h - 14.0;
    if let Some(note) = &st.note {
        let w = f.x + f.w - 20.0 - lay.detail.x;
        let y = if touch { fy - 48.0 } else { fy - 26.0 };
        draw_text(fit(note, w, 18), lay.detail.x, y, 18.0, WARN);
    }
    let keys = if st.compare.is_some() {
        "Enter or y: equip        Esc or n: cancel"
    } else {
        "Up/Down, A-Z or a click: select   u: use   e/w: equip or take off   d: drop"
    };
    let (cw, ch) = if touch { TOUCH_CLOSE } else { CLOSE };
    let close = Rect::new(f.x + f.w - 20.0 - cw, f.y + f.h - 6.0 - ch, cw, ch);
    widgets::button(
        close,
        "i",
        "Close",
        Tap::Command(Command::Inventory),
        Look::Plain,
    );
    // Keys mean nothing under a finger.
    if !touch {
        draw_text(
            fit(keys, close.x - f.x - 36.0, 18),
            f.x + 20.0,
            fy,
            18.0,
            DIM,
        );
    }
}

/// How many characters of text at `size` fit in `w`.
fn chars_in(w: f32, size: u16) -> usize {
    ((w / measure_text("M", None, size, 1.0).width.max(1.0)) as usize).max(12)
}

fn draw_list(lay: &InvLayout, inv: &[ItemView], sprites: &Sprites, selected: usize) {
    let l = lay.list;
    let size = (lay.row_h - 2.0).min(20.0);
    let font = if lay.row_h >= 20.0 { 20.0 } else { 16.0 };
    for k in 0..lay.lines() {
        let y = l.y + lay.row_h * k as f32;
        let base = y + lay.row_h * 0.5 + font * 0.3;
        let item = inv.get(k);
        if k == selected && item.is_some() {
            draw_rectangle(
                l.x - 8.0,
                y,
                l.w + 8.0,
                lay.row_h,
                Color::new(0.3, 0.24, 0.1, 0.8),
            );
            draw_rectangle(l.x - 8.0, y, 3.0, lay.row_h, GOLD);
        }
        let letter = pack::letter(k).unwrap_or('?').to_string();
        let Some(item) = item else {
            draw_text(&letter, l.x, base, font, FAINT);
            draw_text("-", l.x + 48.0, base, font, FAINT);
            continue;
        };
        widgets::add(Rect::new(l.x - 8.0, y, l.w + 8.0, lay.row_h), Tap::Row(k));
        if k != selected && widgets::hovered(Rect::new(l.x - 8.0, y, l.w + 8.0, lay.row_h)) {
            draw_rectangle(
                l.x - 8.0,
                y,
                l.w + 8.0,
                lay.row_h,
                Color::new(1.0, 1.0, 1.0, 0.06),
            );
        }
        draw_text(&letter, l.x, base, font, GOLD);
        icon(
            sprites,
            &item.key,
            l.x + 20.0,
            y + (lay.row_h - size) / 2.0,
            size,
        );
        let name_color = if item.equipped { GOLD } else { WHITE };
        let tag_w = if item.slot.is_some() || item.usable {
            width("worn: weapon", 16) + 18.0
        } else {
            0.0
        };
        let name = name_fit(item, l.w - 48.0 - tag_w, font as u16);
        draw_text(&name, l.x + 48.0, base, font, name_color);
        // Where it goes, and whether it is on: "weapon" / "worn: weapon".
        if let Some(slot) = item.slot {
            let (tag, color) = if item.equipped {
                (format!("worn: {}", pack::slot_name(slot)), GOLD)
            } else {
                (pack::slot_name(slot).to_string(), DIM)
            };
            let w = width(&tag, 16);
            let tx = l.x + l.w - w - 6.0;
            if item.equipped {
                // A small gold diamond, the mark of worn things.
                let (cx, cy) = (tx - 10.0, y + lay.row_h / 2.0);
                draw_triangle(
                    vec2(cx, cy - 5.0),
                    vec2(cx + 4.0, cy),
                    vec2(cx - 4.0, cy),
                    GOLD,
                );
                draw_triangle(
                    vec2(cx - 4.0, cy),
                    vec2(cx + 4.0, cy),
                    vec2(cx, cy + 5.0),
                    GOLD,
                );
            }
            draw_text(&tag, tx, base - 1.0, 16.0, color);
        } else if item.usable {
            let w = width("usable", 16);
            draw_text("usable", l.x + l.w - w - 6.0, base - 1.0, 16.0, DIM);
        }
    }
}

/// An item's name cut to `w` at `size`, its count kept whole ("Vial of Anti... x2").
fn name_fit(item: &ItemView, w: f32, size: u16) -> String {
    if item.count <= 1 {
        return fit(&item.name, w, size);
    }
    let count = format!(" x{}", item.count);
    let name = fit(&item.name, w - width(&count, size), size);
    format!("{name}{count}")
}

/// What kind of thing it is, in a few words; for a stack, how many it holds.
fn kind_line(item: &ItemView) -> String {
    let kind = match (item.slot, item.equipped) {
        (Some(slot), true) => format!("{}, worn", capitalise(pack::slot_name(slot))),
        (Some(slot), false) => capitalise(pack::slot_name(slot)),
        (None, _) if item.usable => "Usable".into(),
        (None, _) if item.use_ == delve_protocol::ItemUse::Unlock => "Opens a locked door".into(),
        (None, _) => "Item".into(),
    };
    if item.count > 1 {
        format!("{kind}; {} in one slot", item.count)
    } else {
        kind
    }
}

/// The friends next to you, for the detail's Give and Use on buttons, and whom to choose
/// from after one of them when several are near.
struct Friends {
    near: bool,
    pick: Option<(Deed, Vec<crate::friends::Near>)>,
}

fn draw_detail(
    lay: &InvLayout,
    item: &ItemView,
    sprites: &Sprites,
    cmp: Option<&Comparison>,
    blocked: bool,
    friends: &Friends,
) {
    let d = lay.detail;
    // The picture, big, on a plate.
    draw_rectangle(d.x, d.y, 76.0, 76.0, Color::new(0.0, 0.0, 0.0, 0.45));
    outline(d.x, d.y, 76.0, 76.0, 1.0, EDGE);
    icon(sprites, &item.key, d.x + 6.0, d.y + 6.0, 64.0);
    let name_w = d.w - 92.0;
    draw_text(
        name_fit(item, name_w, 28),
        d.x + 92.0,
        d.y + 30.0,
        28.0,
        WHITE,
    );
    draw_text(
        fit(&kind_line(item), name_w, 20),
        d.x + 92.0,
        d.y + 56.0,
        20.0,
        DIM,
    );
    let mut y = d.y + 108.0;
    let chars = chars_in(d.w, 20);

    if let Some(cmp) = cmp {
        // Where the pane is short (under a phone's long list, or a phone on its side) the
        // comparison takes the picture's place, and its lines close up a little.
        let rows = cmp.rows.len() as f32;
        let fixed = comparison_frame_h(cmp);
        let top = if y - 26.0 + fixed + COMPARE_ROW * rows > d.y + d.h {
            d.y + 26.0
        } else {
            y
        };
        let row = ((d.y + d.h - (top - 26.0) - fixed) / rows.max(1.0))
            .clamp(COMPARE_ROW_TIGHT, COMPARE_ROW)
            .floor();
        // Still too tall: it rises over the list's foot rather than under the Close button.
        let top = top.min(d.y + d.h + 26.0 - fixed - row * rows);
        draw_comparison(d, top, row, item, cmp);
        return;
    }
    for line in wrap(&item.description, chars) {
        draw_text(&line, d.x, y, 20.0, WHITE);
        y += 24.0;
    }
    y += 12.0;
    if item.slot.is_some() {
        draw_text("While worn", d.x, y, 20.0, DIM);
        y += 26.0;
        let parts = pack::bonus_parts(&item.bonus);
        if parts.is_empty() {
            draw_text("nothing", d.x + 16.0, y, 20.0, DIM);
            y += 24.0;
        }
        for (v, name) in parts {
            let color = if v > 0 { BETTER } else { WORSE };
            draw_text(format!("{v:+}"), d.x + 16.0, y, 20.0, color);
            draw_text(name, d.x + 64.0, y, 20.0, WHITE);
            y += 24.0;
        }
        y += 12.0;
    }
    if !blocked {
        // What can be done with it, as buttons showing their keys; a click does what the key
        // does (the pack's own letters, `pack::pack_key`).
        y += 14.0;
        let mut x = d.x;
        // Several friends near after Give or Use on: a button (and a number key) for each.
        let actions: Vec<(String, String)> = match &friends.pick {
            Some((deed, near)) => {
                draw_text(format!("{} whom?", deed.verb()), d.x, y, 20.0, WHITE);
                y += 30.0;
                (near.iter().enumerate())
                    .map(|(k, (_, name))| (format!("{}", k + 1), name.to_string()))
                    .collect()
            }
            None => (pack::item_actions(item, friends.near).into_iter())
                .map(|(keys, what)| (keys.to_string(), what.to_string()))
                .collect(),
        };
        for (keys, what) in &actions {
            let (keys, what) = (keys.as_str(), what.as_str());
            let key = keys.chars().next().unwrap_or(' ');
            let Some(tap) = pack::pack_key(key) else {
                continue;
            };
            // Dropping takes one from a stack, not the stack.
            let label = match what {
                "drop" if item.count > 1 => "Drop one".to_string(),
                _ if friends.pick.is_some() => what.to_string(),
                _ => capitalise(what),
            };
            let w = (width(&label, 20) + width("M", 20) * 2.0 + 32.0).max(96.0);
            // Onto the next line when the pane is too narrow for another.
            if x > d.x && x + w > d.x + d.w {
                x = d.x;
                y += action_h() + 8.0;
            }
            let area = Rect::new(x, y - 22.0, w, action_h());
            let look = if keys.contains("Enter") {
                Look::Primary
            } else {
                Look::Plain
            };
            widgets::button(area, &key.to_string(), &label, Tap::Pack(tap), look);
            x += w + 10.0;
        }
    }
}

/// The stats now beside the stats with the item worn: better in green, worse in red.
/// The comparison's height without its stat lines: the question, the column heads, the note,
/// the buttons.
fn comparison_frame_h(cmp: &Comparison) -> f32 {
    let note_h = if cmp.uncertain() { 28.0 } else { 6.0 };
    104.0 + note_h + action_h() + 16.0
}

/// A stat line of the comparison, and the least it closes up to in a short pane.
const COMPARE_ROW: f32 = 30.0;
const COMPARE_ROW_TIGHT: f32 = 24.0;

/// The comparison box, its question at `top`, a stat line every `row`.
fn draw_comparison(d: Rect, top: f32, row: f32, item: &ItemView, cmp: &Comparison) {
    let mut y = top;
    let box_h = comparison_frame_h(cmp) + row * cmp.rows.len() as f32;
    draw_rectangle(
        d.x - 10.0,
        y - 26.0,
        d.w + 10.0,
        box_h,
        Color::new(0.11, 0.1, 0.15, 1.0),
    );
    outline(d.x - 10.0, y - 26.0, d.w + 10.0, box_h, 1.0, GOLD);
    let ask = format!("Equip the {}?", item.name);
    draw_text(fit(&ask, d.w - 10.0, 24), d.x, y, 24.0, GOLD);
    y += 24.0;
    let swap = match &cmp.replaces {
        Some(old) => format!("It replaces your {old}."),
        None => "Nothing is worn in that slot now.".into(),
    };
    draw_text(fit(&swap, d.w - 10.0, 18), d.x, y, 18.0, DIM);
    y += 34.0;
    // The columns share the pane: the stat's name, now, after, the difference.
    let col = |share: f32, least: f32| d.x + (d.w * share).max(least).round();
    let (c_now, c_then, c_diff) = (col(0.4, 150.0), col(0.6, 210.0), col(0.8, 270.0));
    draw_text("Now", c_now, y, 20.0, DIM);
    draw_text("After", c_then, y, 20.0, DIM);
    draw_line(d.x, y + 8.0, d.x + d.w - 20.0, y + 8.0, 1.0, EDGE);
    y += 32.0;
    for r in &cmp.rows {
        let color = match (r.uncertain, r.verdict()) {
            (true, _) | (false, Verdict::Same) => WHITE,
            (false, Verdict::Better) => BETTER,
            (false, Verdict::Worse) => WORSE,
        };
        draw_text(r.stat.label(), d.x, y, 20.0, DIM);
        draw_text(r.now.to_string(), c_now, y, 22.0, WHITE);
        let then = if r.uncertain {
            format!("{}?", r.then)
        } else {
            r.then.to_string()
        };
        draw_text(&then, c_then, y, 22.0, color);
        let diff = r.then - r.now;
        if diff != 0 && !r.uncertain {
            draw_text(format!("{diff:+}"), c_diff, y, 20.0, color);
        }
        y += row;
    }
    if cmp.uncertain() {
        draw_text(
            fit(
                "?: a worn item holds this at its lowest; it may end up lower.",
                d.w - 10.0,
                16,
            ),
            d.x,
            y + 4.0,
            16.0,
            DIM,
        );
    }
    // Yes or no, by click as by key.
    let y = top - 26.0 + box_h - action_h() - 10.0;
    let yes = Rect::new(d.x, y, 150.0, action_h());
    widgets::button(
        yes,
        "y",
        "Equip",
        Tap::Command(Command::Confirm),
        Look::Primary,
    );
    let no = Rect::new(d.x + 162.0, y, 150.0, action_h());
    widgets::button(
        no,
        "n",
        "Cancel",
        Tap::Command(Command::Cancel),
        Look::Plain,
    );
}
