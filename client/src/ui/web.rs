//! What only the browser build has: the player's name kept in `localStorage` (asked once), and
//! the status it publishes as `window.delveStatus` for the page and the browser test.

use macroquad::prelude::*;

use super::layout;
use super::text::draw_text;
use super::text_input::TextInput;
use super::theme::{BG, DIM, GOLD};

const NAME_KEY: &str = "delve.name";

/// The name this browser played under last time.
pub fn remembered_name() -> Option<String> {
    delve_web_js::storage_get(NAME_KEY).filter(|n| !n.trim().is_empty())
}

pub fn remember_name(name: &str) {
    delve_web_js::storage_set(NAME_KEY, name);
}

/// Asks the player's name (once per browser: it is remembered), with the interface at
/// `percent` of its size.
pub async fn ask_name(percent: u16) -> String {
    let mut input = TextInput::new(delve_protocol::MAX_NAME_CHARS, false);
    // On a phone the page's own text field takes the name, so its keyboard comes up.
    let field = delve_web_js::touch_screen();
    let mut field_shown = false;
    loop {
        input.feed(&super::text_input::typed());
        let mut text = input.text.trim().to_owned();
        let mut entered = is_key_pressed(KeyCode::Enter) || is_key_pressed(KeyCode::KpEnter);
        match delve_web_js::field_next() {
            Some(delve_web_js::FieldEvent::Sent(t)) => {
                text = t.trim().to_owned();
                entered = true;
                field_shown = false;
            }
            // Left without a name: the field comes back (a name is needed to play).
            Some(delve_web_js::FieldEvent::Cancelled) => field_shown = false,
            None => {}
        }
        if entered && !text.is_empty() {
            delve_web_js::field_close();
            remember_name(&text);
            return text;
        }
        if layout::set_frame(percent, false) {
            super::text::warm(layout::scales());
        }
        clear_background(BG);
        layout::begin(layout::Space::Ui);
        let (w, h) = layout::screen_size();
        let x = (w / 2.0 - 360.0).max(20.0);
        draw_text("DELVE", x, 90.0, 64.0, GOLD);
        let field_w = (w - 2.0 * x).min(720.0);
        if field && !field_shown {
            let s = layout::scales().ui;
            delve_web_js::field_open(
                x * s,
                (h / 2.0 - 26.0) * s,
                field_w * s,
                36.0 * s,
                false,
                delve_protocol::MAX_NAME_CHARS,
                "Your name",
            );
            field_shown = true;
        }
        if !field {
            input.draw("Your name: ", x, h / 2.0, field_w);
        }
        draw_text(
            "Enter: continue (this browser remembers it)",
            x,
            h / 2.0 + 40.0,
            18.0,
            DIM,
        );
        layout::end();
        publish(&Status {
            screen: "name",
            ..Status::default()
        });
        next_frame().await;
    }
}

/// How many of the log's newest lines the status carries.
pub const LOG_LINES: usize = 8;

/// What the page shows, published as `window.delveStatus` (for the page and the browser
/// tests, which find there what to tap).
#[derive(Debug, Default, serde::Serialize)]
pub struct Status<'a> {
    /// `name`, `lobby` (or the lobby's question), `game` (or `chat`, `pack`, `scores`, `menu`,
    /// `help`, `level-up`, `character`, `messages` over it).
    pub screen: &'a str,
    /// A map is drawn.
    pub map: bool,
    /// Joined: the game connection is up and welcomed.
    pub online: bool,
    /// Where the player's character stands.
    pub me: Option<(i32, i32)>,
    /// The character's floor (0 before there is one), hit points and their most.
    pub depth: u8,
    pub hp: Option<(i32, i32)>,
    /// Mean frame interval and the client's own work per frame, in ms.
    #[serde(rename = "frame_ms")]
    pub frame_ms: f64,
    #[serde(rename = "work_ms")]
    pub work_ms: f64,
    /// Where the map's cell (0, 0) is drawn and how big a cell is, in canvas pixels: to point
    /// the mouse (or a finger) at a cell.
    pub camera: Option<(f32, f32, f32)>,
    /// The map's area on the page (x, y, width, height in canvas pixels).
    pub map_area: Option<(f32, f32, f32, f32)>,
    /// The nearest monster in sight.
    pub monster: Option<(i32, i32)>,
    /// The nearest known stairs down.
    pub stairs: Option<(i32, i32)>,
    /// The menu's selected line, while the menu is open.
    pub menu: Option<usize>,
    /// The pack's selected line, while the pack is open.
    pub pack_selected: Option<usize>,
    /// The map cell under the mouse.
    pub hover: Option<(i32, i32)>,
    /// Sound effects the game has asked for so far.
    pub sounds: usize,
    /// Played by touch (large buttons, no hover).
    pub touch: bool,
    /// The controls on screen, by what they do (as `--script`'s `tap` names them), with
    /// their centres in canvas pixels.
    pub buttons: Vec<(String, (f32, f32))>,
    /// What is in the pack, by content key, in slot order, and how many each slot holds.
    pub pack: Vec<String>,
    pub counts: Vec<u32>,
    /// The log's newest lines (up to [`LOG_LINES`]), oldest first.
    pub log: Vec<String>,
    /// The character is resting.
    pub resting: bool,
    /// The last chat line heard, as `name: text`.
    pub chat: Option<String>,
    /// Something under way: a walk, an intent waiting for its turn, an animation.
    pub busy: bool,
    /// Frames drawn so far: input given before one frame's status is read has been seen once
    /// two more frames are drawn.
    pub frames: u64,
    /// On a replay: the turn shown, the replay's last turn, and whether it plays.
    pub replay: Option<(u64, u64, bool)>,
    /// On a replay, the digest of the view shown ([`delve_protocol::view_digest`]), to compare
    /// with the view the server sent the player.
    pub view: Option<String>,
}

thread_local! {
    /// What the page was last told by [`turn_watch`].
    static WATCHED: std::cell::RefCell<Option<(String, f32)>> = const { std::cell::RefCell::new(None) };
}

/// Tells the page whom to announce "Your move" for (in the tab's title, and by a tone when the
/// page is not in front), and how loud; told again only when it changes.
pub fn turn_watch(name: &str, gain: f32) {
    WATCHED.with_borrow_mut(|last| {
        if last.as_ref().is_some_and(|(n, g)| n == name && *g == gain) {
            return;
        }
        *last = Some((name.to_string(), gain));
        delve_web_js::turn_watch(name, gain);
    });
}

pub fn publish(st: &Status) {
    match serde_json::to_string(st) {
        Ok(json) => delve_web_js::set_status(&json),
        Err(e) => eprintln!("delve: the status could not be written: {e}"),
    }
}
