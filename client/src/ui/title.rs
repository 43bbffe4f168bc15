//! The native window's title: "Your move – Delve" while the floor waits for the player's own
//! choice, "Delve" otherwise (a browser tab's title is the page's own work: client/web/delve.js).
//!
//! miniquad names its window only when it creates it and has no call to rename it later, so on
//! Linux the client renames its window itself, over an X connection of its own (x11rb: the X
//! protocol in pure Rust, no unsafe code and no system library), on a thread of its own so that
//! the frame loop never waits on the X server. The thread finds our window by asking the X
//! server (X Resource extension) which of its clients is this process, then sets `WM_NAME` and
//! `_NET_WM_NAME`. X11 desktops and XWayland (where most Linux desktops run the window) have
//! it. Where it cannot be done (no X server, a window drawn by Wayland itself, Windows, macOS:
//! none of them has a way in through miniquad) the title stays "Delve", said once on stderr.

/// The title while nothing waits on the player.
pub const PLAIN: &str = "Delve";
/// The title while the floor waits for the player's choice.
pub const YOUR_MOVE: &str = "Your move – Delve";

/// The window's title, renamed only when it changes.
#[derive(Default)]
pub struct WindowTitle {
    your_move: bool,
    #[cfg(target_os = "linux")]
    to_x: Option<std::sync::mpsc::Sender<&'static str>>,
}

impl WindowTitle {
    /// Shows whether the floor waits for the player (called every frame; work only on a change).
    pub fn show(&mut self, your_move: bool) {
        if your_move == self.your_move {
            return;
        }
        self.your_move = your_move;
        let title = if your_move { YOUR_MOVE } else { PLAIN };
        #[cfg(target_os = "linux")]
        {
            let to_x = self.to_x.get_or_insert_with(x11::start);
            // The thread ends only if it could never work: nothing is left to do then.
            let _ = to_x.send(title);
        }
        #[cfg(not(target_os = "linux"))]
        let _ = title;
    }
}

#[cfg(target_os = "linux")]
mod x11 {
    use std::sync::mpsc::{Receiver, Sender, channel};

    use x11rb::connection::Connection;
    use x11rb::protocol::res::{ClientIdMask, ClientIdSpec, ConnectionExt as _};
    use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, PropMode, Window};
    use x11rb::rust_connection::RustConnection;
    use x11rb::wrapper::ConnectionExt as _;

    /// How deep under the root our window may be: a top-level window, or one a window manager
    /// put in its frame (and a frame in a virtual root).
    const MAX_DEPTH: usize = 3;

    type Failed = Box<dyn std::error::Error>;

    /// Starts the thread that renames the window; it is told each new title.
    pub fn start() -> Sender<&'static str> {
        let (tx, rx) = channel();
        let spawned = std::thread::Builder::new()
            .name("window-title".into())
            .spawn(move || run(&rx));
        if let Err(e) = spawned {
            eprintln!("delve: the window's title stays \"Delve\": no thread for it ({e})");
        }
        tx
    }

    fn run(titles: &Receiver<&'static str>) {
        let mut x: Option<X> = None;
        let mut said = false;
        while let Ok(mut title) = titles.recv() {
            // Only the newest title matters.
            while let Ok(newer) = titles.try_recv() {
                title = newer;
            }
            let done = match &mut x {
                Some(x) => x.rename(title),
                None => X::connect().and_then(|mut c| {
                    let done = c.rename(title);
                    x = Some(c);
                    done
                }),
            };
            if let Err(why) = done {
                if !said {
                    said = true;
                    eprintln!("delve: the window's title stays \"Delve\": {why}");
                }
                // A window not found yet is looked for again with the next title.
                if let Some(x) = &mut x {
                    x.window = None;
                }
            }
        }
    }

    struct X {
        conn: RustConnection,
        root: Window,
        window: Option<Window>,
        net_wm_name: u32,
        utf8_string: u32,
    }

    impl X {
        fn connect() -> Result<X, Failed> {
            let (conn, screen) = x11rb::connect(None).map_err(|e| format!("no X server ({e})"))?;
            let root = conn.setup().roots[screen].root;
            let atom = |name: &[u8]| -> Result<u32, Failed> {
                Ok(conn.intern_atom(false, name)?.reply()?.atom)
            };
            let (net_wm_name, utf8_string) = (atom(b"_NET_WM_NAME")?, atom(b"UTF8_STRING")?);
            Ok(X {
                conn,
                root,
                window: None,
                net_wm_name,
                utf8_string,
            })
        }

        fn rename(&mut self, title: &str) -> Result<(), Failed> {
            let window = match self.window {
                Some(w) => w,
                None => *self.window.insert(self.find()?),
            };
            // WM_NAME as UTF8_STRING too (as SDL does): the dash is not Latin-1.
            for property in [AtomEnum::WM_NAME.into(), self.net_wm_name] {
                self.conn
                    .change_property8(
                        PropMode::REPLACE,
                        window,
                        property,
                        self.utf8_string,
                        title.as_bytes(),
                    )?
                    .check()?;
            }
            Ok(())
        }

        /// Our window: one with a name, made by a client of the X server that is this process.
        fn find(&self) -> Result<Window, Failed> {
            let pid = std::process::id();
            let all = ClientIdSpec {
                client: 0,
                mask: ClientIdMask::LOCAL_CLIENT_PID,
            };
            let ids = self
                .conn
                .res_query_client_ids(&[all])
                .map_err(|e| format!("the X server cannot tell whose windows are whose ({e})"))?
                .reply()?;
            let ours: Vec<u32> = ids
                .ids
                .iter()
                .filter(|id| id.value.first() == Some(&pid))
                .map(|id| id.spec.client)
                .collect();
            // A window's id is its client's base with the bits of this mask.
            let mask = self.conn.setup().resource_id_mask;
            let mut level = vec![self.root];
            for _ in 0..MAX_DEPTH {
                let mut next = Vec::new();
                for parent in level {
                    next.extend(self.conn.query_tree(parent)?.reply()?.children);
                }
                for &w in next.iter().filter(|&&w| ours.contains(&(w & !mask))) {
                    let name = self
                        .conn
                        .get_property(false, w, AtomEnum::WM_NAME, AtomEnum::ANY, 0, 64)?
                        .reply()?;
                    if name.type_ != u32::from(AtomEnum::NONE) {
                        return Ok(w);
                    }
                }
                level = next;
            }
            Err("no window of ours found on the X server (a Wayland window?)".into())
        }
    }
}
