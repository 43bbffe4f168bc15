//! Taking a character back: the log's last lines are kept as the game goes (see
//! [`crate::recent`]) and shown again, with where the character stands, when a later game
//! resumes it, so a restart or a page reload does not open on an empty log.

use super::*;
use delve_protocol::MessageKind;

/// How often, at most, the log's last lines are written (in seconds).
const KEEP_EVERY: f64 = 1.0;

impl App {
    /// After the first welcome of a resumed character: the lines kept from last time, then
    /// where the character is.
    pub(super) fn welcome_back(&mut self) {
        if let Some(key) = &self.recent_key {
            let kept = crate::recent::load(key);
            // Older than anything this game has said yet.
            for line in kept.into_iter().rev() {
                self.model.log.push_front(line);
            }
            while self.model.log.len() > crate::model::LOG_LINES {
                self.model.log.pop_front();
            }
        }
        let Some(view) = &self.model.view else { return };
        let turn = view.turn;
        let me = &view.me;
        let place = match self.model.dungeon.as_deref() {
            Some(d) if d.starts_with("solo-") => "your solo game".to_string(),
            Some(d) => format!("dungeon {d}"),
            None => "the dungeon".to_string(),
        };
        let text = if !me.alive {
            format!(
                "Welcome back to {place}: {} lies dead on floor {}.",
                me.name, me.depth
            )
        } else if me.victory {
            format!("Welcome back to {place}: your game is won.")
        } else {
            format!(
                "Welcome back, {}: floor {} of {place}, turn {turn}.",
                me.name, me.depth
            )
        };
        self.model.push_log(MessageKind::Good, text, turn);
        self.log_scroll = 0;
    }

    /// Keeps the log's last lines when they have changed, at most every [`KEEP_EVERY`].
    pub(super) fn keep_recent(&mut self, now: f64) {
        if now - self.recent_kept.2 >= KEEP_EVERY {
            self.keep_recent_now(now);
        }
    }

    /// Keeps the log's last lines now if they have changed (before the game quits).
    pub(super) fn keep_recent_now(&mut self, now: f64) {
        let Some(key) = &self.recent_key else { return };
        let log = &self.model.log;
        let newest = log.back().map(|l| (l.text.clone(), l.count));
        let (len, kept_newest, _) = &self.recent_kept;
        if *len == log.len() && *kept_newest == newest {
            return;
        }
        if let Err(e) = crate::recent::save(key, log) {
            eprintln!("delve: cannot keep the log's last lines: {e}");
        }
        self.recent_kept = (log.len(), newest, now);
    }
}
