//! What a finished game of ours leaves: the server's own character dump (`game_over`), kept in
//! place of the one the client wrote from its view at the moment of the death, and the link to
//! the game's page on the server, which the end screen shows.

use super::*;

impl App {
    /// Once the server's dump of our finished game arrives: keep it where the client's own
    /// went, and name the game's page.
    pub(super) fn take_server_dump(&mut self) {
        let Some(over) = self.model.game_over.clone() else {
            return;
        };
        if self.dump_game == Some(over.game) || !self.keep_ends {
            return;
        }
        self.dump_game = Some(over.game);
        let kept = match &self.dump_at {
            Some(at) => crate::keep::rewrite_dump(at, &over.dump).map(|()| self.dump.clone()),
            None => crate::keep::save_dump(&over.file, &over.dump).map(|(shown, at)| {
                self.dump_at = Some(at);
                Some(shown)
            }),
        };
        let kept = match kept {
            Ok(kept) => kept,
            Err(e) => {
                self.note(&format!("The character dump could not be saved: {e}"));
                None
            }
        };
        // A solo server's pages end with the game: only a shared server's link lasts.
        let page = (!self.solo).then(|| crate::record::web_address(&self.url, &over.page));
        self.dump = match (kept, page) {
            (Some(file), Some(page)) => Some(format!("{file}, and at {page}")),
            (None, Some(page)) => Some(page),
            (kept, None) => kept,
        };
    }

    /// Keeps the game that just ended: its character dump, and in a solo game its score.
    pub(super) fn keep_end(&mut self) {
        let secs = crate::keep::now_secs();
        let date = delve_protocol::utc_date(secs);
        let Some(text) = crate::morgue::dump(&self.model, &date) else {
            return;
        };
        let Some(me) = self.model.view.as_ref().map(|v| v.me.clone()) else {
            return;
        };
        let dungeon = self.model.dungeon.clone().unwrap_or_default();
        let file = crate::morgue::file_name(&me.name, &dungeon, me.turns);
        match crate::keep::save_dump(&file, &text) {
            Ok((shown, at)) => {
                self.dump = Some(shown);
                self.dump_at = Some(at);
            }
            Err(e) => self.note(&format!("The character dump could not be saved: {e}")),
        }
        if self.solo {
            let entry = delve_protocol::ScoreEntry {
                name: me.name.to_string(),
                score: me.score,
                level: me.level,
                deepest: me.deepest,
                kills: me.kills,
                turns: me.turns,
                victory: me.victory,
                outcome: if me.victory {
                    "won".into()
                } else {
                    me.cause.clone().unwrap_or_else(|| "died".into())
                },
                dungeon,
                ended: secs,
                game: None,
            };
            if let Err(e) = crate::keep::add_solo_score(entry) {
                self.note(&format!("The solo high scores could not be saved: {e}"));
            }
        }
    }
}
