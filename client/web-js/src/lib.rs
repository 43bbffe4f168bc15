//! Safe wrappers over the functions the page's plugin (`client/web/delve.js`) adds to macroquad's
//! JS loader: the browser's WebSocket, `localStorage`, the page's address, a status object the
//! page (and the browser test) can read, whether the screen is a touch screen, a real text
//! field laid over the canvas (so that a phone's keyboard comes up), and whom the page announces
//! "Your move" for (tab title and tone, even while the tab is in the background).
//!
//! Why a crate of its own: the workspace sets `unsafe_code = "forbid"`, which no `#[allow]` can
//! lift, and every call into a wasm import is `unsafe`. Keeping the imports here lets the client
//! stay free of unsafe code. The plugin and this file must change together (see `VERSION`).
//!
//! Strings cross the boundary as UTF-8 bytes in wasm memory: Rust passes (pointer, length);
//! JS hands strings back by first saying how long the next one is, then copying it into a
//! buffer Rust allocated. On any other target, this crate is empty.

#![cfg(target_arch = "wasm32")]

/// The plugin version this crate expects; `delve.js` registers the same number, and macroquad's
/// loader logs a mismatch in the browser console.
pub const VERSION: u32 = 3;

mod ffi {
    unsafe extern "C" {
        pub fn delve_ws_open(url: *const u8, len: usize) -> u32;
        pub fn delve_ws_send(id: u32, text: *const u8, len: usize);
        pub fn delve_ws_next(id: u32) -> i32;
        pub fn delve_ws_close(id: u32);
        pub fn delve_take(buf: *mut u8, len: usize);
        pub fn delve_page(which: u32) -> u32;
        pub fn delve_storage_get(key: *const u8, len: usize) -> i32;
        pub fn delve_storage_set(key: *const u8, key_len: usize, value: *const u8, len: usize);
        pub fn delve_set_status(json: *const u8, len: usize);
        pub fn delve_clock() -> f64;
        pub fn delve_touch_screen() -> u32;
        pub fn delve_field_open(
            x: f32,
            y: f32,
            w: f32,
            h: f32,
            secret: u32,
            max: u32,
            placeholder: *const u8,
            len: usize,
        );
        pub fn delve_field_next() -> i32;
        pub fn delve_field_close();
        pub fn delve_turn_watch(name: *const u8, len: usize, gain: f32);
    }
}

/// Tells macroquad's loader which plugin version this build speaks.
// SAFETY: no_mangle on a function whose name no other symbol in the wasm uses; the loader
// looks this export up by the plugin's name.
#[unsafe(no_mangle)]
pub extern "C" fn delve_web_crate_version() -> u32 {
    VERSION
}

/// Copies the string JS has ready (`len` bytes, as announced by the call before) out of JS.
fn take(len: usize) -> String {
    let mut buf = vec![0u8; len];
    // SAFETY: `buf` is a live, writable allocation of exactly `len` bytes; JS writes at most
    // `len` bytes into it and keeps no reference to it.
    unsafe { ffi::delve_take(buf.as_mut_ptr(), len) };
    String::from_utf8_lossy(&buf).into_owned()
}

/// One event of a browser WebSocket, in the order the browser raised them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WsEvent {
    /// The socket opened.
    Open,
    /// A text frame arrived.
    Text(String),
    /// The socket closed (or failed to open); no event follows.
    Close {
        /// The close code (1006 when the socket never opened or dropped).
        code: u16,
        /// The reason the server gave, if any.
        reason: String,
    },
}

/// A browser WebSocket. Dropping it closes the socket.
#[derive(Debug)]
pub struct WebSocket {
    id: u32,
}

impl WebSocket {
    /// Starts opening a socket to `url`; [`WsEvent::Open`] or [`WsEvent::Close`] follows.
    pub fn open(url: &str) -> WebSocket {
        // SAFETY: the pointer and length describe `url`'s bytes, which JS only reads during the
        // call.
        let id = unsafe { ffi::delve_ws_open(url.as_ptr(), url.len()) };
        WebSocket { id }
    }

    /// Sends a text frame (dropped by the browser if the socket is not open).
    pub fn send(&self, text: &str) {
        // SAFETY: as in `open`: JS reads the bytes during the call only.
        unsafe { ffi::delve_ws_send(self.id, text.as_ptr(), text.len()) };
    }

    /// The next event if one is waiting; never blocks.
    pub fn next(&self) -> Option<WsEvent> {
        // SAFETY: a plain call with a number; JS answers -1 for nothing, else the event kind
        // (0 open, 1 text, 2 close) in the top bits and, for text and close, readies a string.
        let head = unsafe { ffi::delve_ws_next(self.id) };
        if head < 0 {
            return None;
        }
        let kind = head >> 29;
        let len = (head & 0x1fff_ffff) as usize;
        Some(match kind {
            0 => WsEvent::Open,
            1 => WsEvent::Text(take(len)),
            _ => {
                // A close carries "CODE reason".
                let text = take(len);
                let (code, reason) = text.split_once(' ').unwrap_or((text.as_str(), ""));
                WsEvent::Close {
                    code: code.parse().unwrap_or(1006),
                    reason: reason.to_owned(),
                }
            }
        })
    }
}

impl Drop for WebSocket {
    fn drop(&mut self) {
        // SAFETY: a plain call with a number; JS closes and forgets the socket.
        unsafe { ffi::delve_ws_close(self.id) };
    }
}

/// What [`page`] can tell about the page the game runs in.
#[derive(Clone, Copy, Debug)]
pub enum Page {
    /// `location.search`, e.g. `?dungeon=crypt&name=Ann`.
    Query = 0,
    /// The WebSocket address of the server that served the page: `ws://` (or `wss://` on an
    /// https page) + `location.host`.
    ServerUrl = 1,
    /// `location.pathname`, e.g. `/replay/7`.
    Path = 2,
}

/// A fact about the page.
pub fn page(which: Page) -> String {
    // SAFETY: a plain call with a number; JS readies the string and returns its length.
    let len = unsafe { ffi::delve_page(which as u32) };
    take(len as usize)
}

/// The value kept under `key` in the browser's `localStorage`, if any.
pub fn storage_get(key: &str) -> Option<String> {
    // SAFETY: JS reads `key`'s bytes during the call only; -1 means no value, else it readies
    // the value and returns its length.
    let len = unsafe { ffi::delve_storage_get(key.as_ptr(), key.len()) };
    (len >= 0).then(|| take(len as usize))
}

/// Keeps `value` under `key` in `localStorage` (silently nothing if the browser refuses).
pub fn storage_set(key: &str, value: &str) {
    // SAFETY: JS reads both byte ranges during the call only.
    unsafe { ffi::delve_storage_set(key.as_ptr(), key.len(), value.as_ptr(), value.len()) };
}

/// Publishes a JSON object as `window.delveStatus`, for the page and for tests driving the
/// browser (what screen is showing, frame times).
pub fn set_status(json: &str) {
    // SAFETY: JS reads the bytes during the call only.
    unsafe { ffi::delve_set_status(json.as_ptr(), json.len()) };
}

/// Whether the page is on a phone or a tablet (a coarse pointer and no fine one).
pub fn touch_screen() -> bool {
    // SAFETY: a plain call without arguments.
    unsafe { ffi::delve_touch_screen() != 0 }
}

/// What became of the text field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldEvent {
    /// The player sent this text (Enter, or the keyboard's send key).
    Sent(String),
    /// The player gave up (Escape, or left the field).
    Cancelled,
}

/// Lays a text field over the page at (`x`, `y`), `w` by `h` CSS pixels, and focuses it (a
/// phone's keyboard comes up). `secret` hides what is typed; at most `max` characters.
pub fn field_open(x: f32, y: f32, w: f32, h: f32, secret: bool, max: usize, placeholder: &str) {
    // SAFETY: JS reads `placeholder`'s bytes during the call only.
    unsafe {
        ffi::delve_field_open(
            x,
            y,
            w,
            h,
            u32::from(secret),
            max as u32,
            placeholder.as_ptr(),
            placeholder.len(),
        )
    };
}

/// The field's outcome, once there is one.
pub fn field_next() -> Option<FieldEvent> {
    // SAFETY: a plain call; JS answers -1 for nothing, else the kind (0 sent, 1 cancelled) in
    // the top bits and readies the text.
    let head = unsafe { ffi::delve_field_next() };
    if head < 0 {
        return None;
    }
    let text = take((head & 0x1fff_ffff) as usize);
    Some(if head >> 29 == 0 {
        FieldEvent::Sent(text)
    } else {
        FieldEvent::Cancelled
    })
}

/// Takes the field away (and gives the keys back to the game).
pub fn field_close() {
    // SAFETY: a plain call without arguments.
    unsafe { ffi::delve_field_close() };
}

/// Tells the page whose move to announce: while a `turn_status` the socket brings names
/// `name`, the tab's title starts "Your move", and a tone at `gain` (0 to 1; 0 silent) sounds
/// if the page is not in front. An empty name announces nothing (watching, dead).
pub fn turn_watch(name: &str, gain: f32) {
    // SAFETY: JS reads `name`'s bytes during the call only.
    unsafe { ffi::delve_turn_watch(name.as_ptr(), name.len(), gain) };
}

/// Milliseconds since the page started loading (`performance.now()`): finer than the clock
/// macroquad reads (`Date.now()`, whole milliseconds), for timing one frame's work.
pub fn clock_ms() -> f64 {
    // SAFETY: a plain call without arguments.
    unsafe { ffi::delve_clock() }
}
