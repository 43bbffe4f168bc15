//! Things to click or tap. Every control drawn in a frame says where it is and what a click on
//! it does (a [`Tap`]); the next frame's input looks the click up in that list, so a click acts
//! on what the player saw, whatever space it was drawn in. Buttons look alike everywhere.
//!
//! The list is kept per thread, beside macroquad's own drawing state: drawing code anywhere can
//! add a control in one line, and the input code finds it without the two sharing a layout.

use std::cell::{Cell, RefCell};

use macroquad::prelude::*;

use super::layout;
use super::text::{draw_text, fit, measure_text};
use super::theme::{BOX_EDGE, DIM, GOLD, outline};
use crate::keymap::Command;
use crate::pack::PackKey;

/// What a click on a control does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tap {
    /// As if a key of this command were pressed (the key table's commands, so a new command
    /// needs no new click code).
    Command(Command),
    /// Line `k` of the list that is open: a menu line, a level-up choice, a pack slot, a
    /// dungeon in the lobby. Pointing at it selects it; a click chooses it.
    Row(usize),
    /// A pack action on the selected item.
    Pack(PackKey),
    /// As if this character were typed, for a screen that reads typed characters itself (the
    /// lobby's `n`, `w`, `h`).
    Char(char),
    /// The setting on line `k` one step up (`true`) or down: the menu's volume and size.
    Step(usize, bool),
    /// The open list scrolled to this share of its length (a scroll bar).
    ScrollTo(f32),
    /// The map drawn larger (`true`) or smaller.
    Zoom(bool),
    /// The party list's line of a friend on your floor (by character id): walk to them.
    Friend(u32),
    /// Nothing: a box that keeps clicks from falling through to what lies under it.
    Block,
}

impl Tap {
    /// The word a script (or a test) names this control by, if it has one: see
    /// [`Tap::is_named`].
    pub fn name(&self) -> Option<String> {
        Some(match self {
            Tap::Command(c) => crate::keymap::TABLE
                .iter()
                .find(|e| e.command == *c)?
                .name
                .to_string(),
            Tap::Row(k) => format!("row {k}"),
            Tap::Pack(PackKey::Use) => "use".into(),
            Tap::Pack(PackKey::Wear) => "wear".into(),
            Tap::Pack(PackKey::Drop) => "drop".into(),
            Tap::Pack(PackKey::Give) => "give".into(),
            Tap::Pack(PackKey::UseOn) => "use on".into(),
            Tap::Pack(PackKey::Friend(k)) => format!("friend {}", k + 1),
            Tap::Pack(_) => return None,
            Tap::Char(c) => c.to_string(),
            Tap::Step(k, up) => format!("{} {k}", if *up { "more" } else { "less" }),
            Tap::Zoom(larger) => (if *larger { "zoom in" } else { "zoom out" }).into(),
            Tap::Friend(id) => format!("party {id}"),
            Tap::ScrollTo(_) | Tap::Block => return None,
        })
    }

    /// Whether a script's word names this control (`--script`'s `tap WORD`): a command by its
    /// name in the key file (`explore`, `inventory`), `row N`, a pack action (`use`, `wear`,
    /// `drop`), `more N` / `less N` for a setting.
    pub fn is_named(&self, word: &str) -> bool {
        match self {
            Tap::Command(c) => crate::keymap::TABLE
                .iter()
                .any(|e| e.command == *c && e.name == word),
            Tap::Row(k) => word == format!("row {k}"),
            Tap::Pack(key) => {
                matches!(
                    (key, word),
                    (PackKey::Use, "use")
                        | (PackKey::Wear, "wear")
                        | (PackKey::Drop, "drop")
                        | (PackKey::Give, "give")
                        | (PackKey::UseOn, "use on")
                ) || matches!(key, PackKey::Friend(k) if word == format!("friend {}", k + 1))
            }
            Tap::Step(k, up) => word == format!("{} {k}", if *up { "more" } else { "less" }),
            Tap::Char(c) => word.len() == 1 && word.starts_with(*c),
            Tap::Zoom(larger) => word == if *larger { "zoom in" } else { "zoom out" },
            Tap::Friend(id) => word == format!("party {id}"),
            Tap::ScrollTo(_) | Tap::Block => false,
        }
    }
}

thread_local! {
    /// The controls drawn so far this frame, in window pixels, bottom first.
    static DRAWN: RefCell<Vec<(Rect, Tap)>> = const { RefCell::new(Vec::new()) };
    /// Last frame's controls: what the player sees while this frame's input is read.
    static SHOWN: RefCell<Vec<(Rect, Tap)>> = const { RefCell::new(Vec::new()) };
    /// Where the pointer is, in window pixels; `None` where nothing hovers (a touch screen).
    static POINTER: Cell<Option<Vec2>> = const { Cell::new(None) };
}

/// Starts a frame: last frame's controls become the ones clicks are looked up in.
pub fn new_frame(pointer: Option<Vec2>) {
    let drawn = DRAWN.take();
    SHOWN.set(drawn);
    POINTER.set(pointer);
}

/// A control over `area` (in the units of the space being drawn in).
pub fn add(area: Rect, tap: Tap) {
    let f = layout::factor();
    let r = Rect::new(area.x * f, area.y * f, area.w * f, area.h * f);
    DRAWN.with_borrow_mut(|d| d.push((r, tap)));
}

/// Whether the pointer is over `area` (in the units of the space being drawn in).
pub fn hovered(area: Rect) -> bool {
    POINTER
        .get()
        .is_some_and(|p| area.contains(p / layout::factor()))
}

/// The control shown at a window point, the topmost where several overlap. On a scroll bar,
/// the share of the track above the point.
pub fn at(p: Vec2) -> Option<Tap> {
    SHOWN.with_borrow(|s| {
        s.iter()
            .rev()
            .find(|(r, _)| r.contains(p))
            .map(|(r, t)| match t {
                Tap::ScrollTo(_) => Tap::ScrollTo(((p.y - r.y) / r.h.max(1.0)).clamp(0.0, 1.0)),
                t => *t,
            })
    })
}

/// The centre of the control that `word` names (for scripts), in window pixels, among those
/// drawn in the frame just drawn (the ones the next frame's clicks are looked up in).
pub fn find(word: &str) -> Option<Vec2> {
    DRAWN.with_borrow(|s| {
        s.iter()
            .rev()
            .find(|(_, t)| t.is_named(word))
            .map(|(r, _)| r.center())
    })
}

/// The named controls of the frame just drawn (the ones the next frame's clicks are looked up
/// in), topmost first, with their centres in window pixels.
pub fn drawn_names() -> Vec<(String, (f32, f32))> {
    DRAWN.with_borrow(|s| {
        s.iter()
            .rev()
            .filter_map(|(r, t)| t.name().map(|n| (n, (r.center().x, r.center().y))))
            .collect()
    })
}

/// How a button looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    /// An ordinary button.
    Plain,
    /// The one Enter would press, or a choice made.
    Primary,
    /// Nothing would come of it now: drawn dim, still clickable (the game says why).
    Dim,
}

/// A button over `area` saying `label`, with the `key` that does the same before it (dim when
/// there is none); a click on it is `tap`. Returns whether the pointer is over it.
pub fn button(area: Rect, key: &str, label: &str, tap: Tap, look: Look) -> bool {
    add(area, tap);
    // Keys mean nothing under a finger.
    let key = if layout::touch() { "" } else { key };
    let hot = hovered(area);
    let (fill, edge) = match (hot, look) {
        (true, _) => (Color::new(0.32, 0.26, 0.1, 1.0), GOLD),
        (false, Look::Primary) => (Color::new(0.22, 0.18, 0.08, 1.0), GOLD),
        (false, _) => (Color::new(0.11, 0.1, 0.15, 1.0), BOX_EDGE),
    };
    draw_rectangle(area.x, area.y, area.w, area.h, fill);
    outline(area.x, area.y, area.w, area.h, 2.0, edge);
    let text_color = if look == Look::Dim && !hot {
        DIM
    } else {
        WHITE
    };
    let room = area.w - 12.0;
    // The text as large as the button allows, smaller rather than cut where it is narrow,
    // down to a size still read at a glance.
    let mut size = (area.h * 0.55).clamp(12.0, 22.0).round();
    let key_w = |size: f32| {
        if key.is_empty() {
            0.0
        } else {
            measure_text(key, None, size as u16, 1.0).width + size * 0.5
        }
    };
    while size > SMALLEST_LABEL
        && measure_text(label, None, size as u16, 1.0).width + key_w(size) > room
    {
        size -= 1.0;
    }
    let key_w = key_w(size);
    let label = fit(label, (room - key_w).max(0.0), size as u16);
    let label_w = measure_text(&label, None, size as u16, 1.0).width;
    let x = (area.x + (area.w - key_w - label_w) / 2.0).max(area.x + 6.0);
    let y = (area.y + area.h / 2.0 + size * 0.35).round();
    if !key.is_empty() {
        draw_text(key, x.round(), y, size, GOLD);
    }
    draw_text(&label, (x + key_w).round(), y, size, text_color);
    hot
}

/// The smallest size a button's word shrinks to before it is cut short.
const SMALLEST_LABEL: f32 = 14.0;

/// A count in the top right corner of a button over `area` (what is left of what it uses),
/// on a small plate of its own so that it reads apart from the button's word.
pub fn badge(area: Rect, n: u32) {
    let text = n.to_string();
    let size = (area.h * 0.5).clamp(12.0, 18.0).round();
    let w = measure_text(&text, None, size as u16, 1.0).width;
    let (pw, ph) = ((w + size * 0.6).round(), (size * 0.95).round());
    let (x, y) = ((area.x + area.w - pw - 2.0).round(), area.y + 2.0);
    draw_rectangle(x, y, pw, ph, Color::new(0.36, 0.28, 0.08, 1.0));
    let tx = (x + (pw - w) / 2.0).round();
    draw_text(&text, tx, (y + ph * 0.8).round(), size, GOLD);
}

/// A row of buttons sharing `area`'s width, `gap` apart: (key, label, tap) each.
pub fn button_row(area: Rect, gap: f32, buttons: &[(&str, &str, Tap)]) {
    let n = buttons.len().max(1) as f32;
    let w = ((area.w - gap * (n - 1.0)) / n).floor();
    for (k, (key, label, tap)) in buttons.iter().enumerate() {
        let x = (area.x + k as f32 * (w + gap)).round();
        button(
            Rect::new(x, area.y, w, area.h),
            key,
            label,
            *tap,
            Look::Plain,
        );
    }
}

/// A vertical scroll bar over `area` for a list showing `shown` of `total` lines from
/// `first`: its track is one control, a click on it scrolls there.
pub fn scroll_bar(area: Rect, first: usize, shown: usize, total: usize) {
    if total <= shown || total == 0 {
        return;
    }
    add(area, Tap::ScrollTo(0.0));
    draw_rectangle(
        area.x,
        area.y,
        area.w,
        area.h,
        Color::new(0.0, 0.0, 0.0, 0.4),
    );
    let h = (area.h * shown as f32 / total as f32).max(area.w * 2.0);
    let y = area.y + (area.h - h) * first as f32 / (total - shown).max(1) as f32;
    let hot = hovered(area);
    let c = if hot { GOLD } else { BOX_EDGE };
    draw_rectangle(area.x + 2.0, y, area.w - 4.0, h, c);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_name_controls_by_the_key_files_names() {
        assert!(Tap::Command(Command::Explore).is_named("explore"));
        assert!(Tap::Command(Command::Inventory).is_named("inventory"));
        assert!(!Tap::Command(Command::Explore).is_named("inventory"));
        assert!(Tap::Row(2).is_named("row 2"));
        assert!(Tap::Pack(PackKey::Use).is_named("use"));
        assert!(Tap::Step(3, true).is_named("more 3"));
        assert!(!Tap::Block.is_named("row 0"));
        // Each name given is one that names it back.
        for tap in [
            Tap::Command(Command::Explore),
            Tap::Row(3),
            Tap::Pack(PackKey::Drop),
            Tap::Step(1, false),
            Tap::Zoom(true),
            Tap::Char('n'),
        ] {
            let name = tap.name().expect("a name");
            assert!(tap.is_named(&name), "{tap:?} {name}");
        }
    }
}
