//! What the page is told each frame (`window.delveStatus`, in a browser): what is shown, where
//! the character and the nearest monster and stairs are, where each control is, what the pack
//! holds. The page and the browser tests read it; nothing in the game does. And whether the
//! floor waits for the player (the native window's title says so: `ui::title`).

use super::*;

impl App {
    /// Whether the floor waits for the player's own choice: a living character of ours (not a
    /// friend watched), online, named by the floor's `turn_status`. (A browser's page reads
    /// the messages itself: client/web/delve.js.)
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn your_move(&self) -> bool {
        let playing = matches!(self.connection, Connection::Joined) && !self.spectating();
        let (Some(view), Some(status)) = (&self.model.view, &self.model.turn_status) else {
            return false;
        };
        playing && status.waiting_for.iter().any(|n| **n == *view.me.name)
    }

    /// Publishes this frame's status, with the frame times in `stats`.
    #[cfg(target_arch = "wasm32")]
    pub(super) fn publish(&self, stats: &super::super::frames::FrameStats) {
        let view = self.model.view.as_ref();
        // "Your move" is announced for one's own living character only (not a friend watched).
        let playing = matches!(self.connection, Connection::Joined) && !self.spectating();
        let name = view.filter(|_| playing).map_or("", |v| &*v.me.name);
        super::super::web::turn_watch(name, self.audio.settings().gain());
        let (frame_ms, work_ms) = stats.means();
        super::super::web::publish(&super::super::web::Status {
            screen: match self.screen {
                Screen::Chat(_) => "chat",
                Screen::Inventory(_) => "pack",
                Screen::Scores(_) => "scores",
                Screen::Menu { .. } => "menu",
                Screen::Help => "help",
                Screen::LevelUp { .. } => "level-up",
                Screen::Character => "character",
                Screen::Messages { .. } => "messages",
                Screen::Game => "game",
            },
            map: view.is_some(),
            online: matches!(self.connection, Connection::Joined),
            me: view.map(|v| (v.me.pos.x, v.me.pos.y)),
            depth: view.map_or(0, |v| v.me.depth),
            hp: view.map(|v| (v.me.hp, v.me.max_hp)),
            frame_ms,
            work_ms,
            camera: self.camera.map(|c| (c.origin.x, c.origin.y, c.tile)),
            map_area: self
                .camera
                .map(|c| (c.area.x, c.area.y, c.area.w, c.area.h)),
            monster: view
                .and_then(|v| crate::script::Target::Monster.cell(v))
                .map(|p| (p.x, p.y)),
            stairs: view
                .and_then(|v| crate::script::Target::Stairs { down: true }.cell(v))
                .map(|p| (p.x, p.y)),
            hover: self.cell_under_mouse().map(|p| (p.x, p.y)),
            menu: match self.screen {
                Screen::Menu { selected } => Some(selected),
                _ => None,
            },
            pack_selected: match &self.screen {
                Screen::Inventory(st) => Some(st.selected),
                _ => None,
            },
            sounds: self.audio.played().len(),
            touch: self.fingers.touch,
            buttons: crate::ui::widgets::drawn_names(),
            pack: view.map_or_else(Vec::new, |v| {
                v.inventory.iter().map(|i| i.key.to_string()).collect()
            }),
            counts: view.map_or_else(Vec::new, |v| v.inventory.iter().map(|i| i.count).collect()),
            log: {
                let log = &self.model.log;
                let skip = log.len().saturating_sub(super::super::web::LOG_LINES);
                log.iter().skip(skip).map(|l| l.text.clone()).collect()
            },
            resting: view.is_some_and(|v| v.me.resting),
            chat: self
                .model
                .log
                .iter()
                .rev()
                .find_map(|l| l.from.as_ref().map(|f| format!("{f}: {}", l.text))),
            frames: stats.frames,
            replay: self
                .replay
                .as_ref()
                .map(|c| (view.map_or(0, |v| v.me.turns), c.turns, c.playing)),
            // Only on a replay: a digest a frame is work a game has no use for.
            view: self
                .replay
                .as_ref()
                .and(view)
                .map(delve_protocol::view_digest),
            busy: self.trip.is_some() || self.awaiting.is_some() || !self.anims.quiet(get_time()),
        });
    }
}
