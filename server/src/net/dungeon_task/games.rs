//! The record's side of a dungeon: every game a turn ends (a death, or the victory) is
//! recorded with its slice of the journal (`store::games`), then replayed off the task to write
//! its character dump (`record`), and its player is told where it is (`game_over`).
//!
//! The record is written like the journal: waited for before the turn's updates go out, so a
//! `scores` asked after the death always finds it. The dump comes a moment later (a replay of
//! the whole game takes a few milliseconds to a second, on a blocking thread): the dungeon goes
//! on meanwhile. A server stopped in between writes the missing dumps when it starts again
//! (`net::archive`).

use std::sync::Arc;

use delve_protocol::{ServerMsg, encode};
use tokio::task::JoinSet;
use tracing::{error, info, warn};

use super::DungeonTask;
use crate::game::score::score;
use crate::game::{EntityId, Event};
use crate::net::validate::new_token;
use crate::record::{self, GameDump, GameFacts};
use crate::store::{GameId, NewGame, ScoreRow};
use crate::view::view_of;

/// A dump written off the task, for its game's player.
pub(super) struct Written {
    player: EntityId,
    game: GameId,
    key: Option<String>,
    dump: GameDump,
}

/// Dumps being written.
pub(super) type Writing = JoinSet<Option<Written>>;

impl DungeonTask {
    /// Records every game that `events` ended: a death nobody can undo, a fall nobody came for
    /// in time (`BeyondHelp`), or the victory. A fall a friend can still undo (`Revivable`)
    /// ends nothing yet.
    pub(super) async fn record_games(&mut self, events: &[Event]) {
        let revivable = |id: EntityId| {
            (events.iter()).any(|e| matches!(e, Event::Revivable { id: r, .. } if *r == id))
        };
        let ended: Vec<EntityId> = events
            .iter()
            .flat_map(|e| match e {
                Event::Died { victim, .. } if victim.player && !revivable(victim.id) => {
                    vec![victim.id]
                }
                Event::BeyondHelp { id } => vec![*id],
                Event::Victory { winners, .. } => winners.clone(),
                _ => Vec::new(),
            })
            .collect();
        for id in ended {
            if let Some(game) = self.ended_game(id) {
                self.record_game(id, game).await;
            }
        }
    }

    /// The record of `id`'s game as it stands now, if it has ended (a death, or the victory):
    /// taken before the character is forgotten when its player starts anew.
    pub(super) fn ended_game(&self, id: EntityId) -> Option<NewGame> {
        let j = self.dungeon.journal()?;
        let p = self.dungeon.player(id)?;
        let outcome = match (&p.death(), p.victory()) {
            (_, true) => "won".to_string(),
            (Some(d), _) => crate::view::cause_of_death(self.dungeon.content(), d),
            (None, false) => return None,
        };
        Some(NewGame {
            score: ScoreRow {
                name: p.name().to_owned(),
                score: u64::from(score(p, self.dungeon.content())),
                level: p.level(),
                deepest: u32::from(p.deepest()),
                kills: p.kills(),
                turns: p.turns(),
                outcome,
                dungeon: self.name.clone(),
                ended_at: crate::store::now(),
            },
            dungeon_id: j.dungeon,
            player_id: id,
            victory: p.victory(),
            started_at: None,
            start_seq: None,
            end_seq: j.seq,
            // The key that opens a private dungeon's game without its password.
            view_key: self.stats.private.then(new_token),
            engine: record::engine(&self.config.content),
            end_hash: self.dungeon.state_hash(),
            keep_replay: self.config.replays,
        })
    }

    /// Stores `game`, `id`'s ended game, then writes its dump off the task.
    pub(super) async fn record_game(&mut self, id: EntityId, game: NewGame) {
        let Some(j) = self.dungeon.journal() else {
            return;
        };
        info!(dungeon = %self.name, player = id, name = %game.score.name, outcome = %game.score.outcome, "game over");
        let store = j.store.clone();
        let content = Arc::clone(&self.config.content);
        let (now, key, end_hash) = (
            game.score.ended_at,
            game.view_key.clone(),
            game.end_hash.clone(),
        );
        // Waited for like the journal: the player is about to see the death or victory,
        // and a replay of the journal would not bring a lost record back.
        let added = match store.add_game(game).await {
            Ok(added) => added,
            Err(e) => {
                error!(dungeon = %self.name, player = id, error = %e, "cannot record a game");
                return;
            }
        };
        let facts = GameFacts {
            player: id,
            start_seq: added.start_seq.unwrap_or(0),
            end_hash,
            engine: record::engine(&content),
            content_hash: content.source_hash.clone(),
        };
        let (game, started) = (added.id, added.started_at);
        match added.slice {
            Some(slice) => {
                let (content, name) = (Arc::clone(&content), self.name.clone());
                self.dumps.spawn_blocking(move || {
                    let written = record::dump_of(&slice, content, &facts, &name);
                    match written {
                        Ok((mut dump, _)) => {
                            dump.started = started;
                            dump.ended = now;
                            Some(Written {
                                player: id,
                                game,
                                key,
                                dump,
                            })
                        }
                        Err(e) => {
                            warn!(dungeon = %name, game, error = %e, "cannot replay a game for its dump");
                            None
                        }
                    }
                });
            }
            None => {
                // Made before the server kept whole games: told from its end alone.
                let dump = view_of(&self.dungeon, id)
                    .and_then(|v| record::replay::end_dump(&self.dungeon, id, &self.name, &v));
                if let Some(mut dump) = dump {
                    dump.started = started;
                    dump.ended = now;
                    self.dump_written(Written {
                        player: id,
                        game,
                        key,
                        dump,
                    });
                }
            }
        }
    }

    /// Stores a written dump and tells its player (if connected) where the game is kept.
    pub(super) fn dump_written(&mut self, w: Written) {
        let Some(j) = self.dungeon.journal() else {
            return;
        };
        let json = serde_json::to_string(&w.dump).unwrap_or_default();
        // Nobody waits for it: the page says "being written" until it lands.
        drop(j.store.set_dump(w.game, json));
        let query = w.key.map(|k| format!("?key={k}")).unwrap_or_default();
        let msg = ServerMsg::GameOver {
            game: u64::try_from(w.game).unwrap_or(0),
            page: format!("/games/{}{query}", w.game),
            replay: (self.config.replays && w.dump.complete)
                .then(|| format!("/replay/{}{query}", w.game)),
            file: w.dump.file_name(),
            dump: w.dump.text(),
        };
        let frame = encode(&msg);
        for s in self.sessions.values() {
            if s.player == Some(w.player) {
                s.send_encoded(frame.clone());
            }
        }
    }

    /// Waits for the dumps still being written (when the task ends).
    pub(super) async fn finish_dumps(&mut self) {
        while let Some(done) = self.dumps.join_next().await {
            if let Ok(Some(w)) = done {
                self.dump_written(w);
            }
        }
    }
}
