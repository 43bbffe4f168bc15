//! The high-score table's side of a dungeon: an entry for every game that ended (a turn's
//! death or victory; a fall nobody came for in time; a fallen player starting anew).

use tracing::{error, info};

use super::DungeonTask;
use crate::game::score::score;
use crate::game::{EntityId, Event};
use crate::store::ScoreRow;

impl DungeonTask {
    /// Adds a high-score entry for every game that `events` ended: a death, or the victory.
    pub(super) async fn record_scores(&self, events: &[Event]) {
        // A fall a friend can still undo ends the game only when it is too late
        // (`BeyondHelp`); one nobody can undo ends it at once.
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
            if let Some(row) = self.score_row(id) {
                self.add_score(id, row).await;
            }
        }
    }

    /// The high-score entry of `id`'s game as it stands, if it has ended (a death, or the
    /// victory).
    pub(super) fn score_row(&self, id: EntityId) -> Option<ScoreRow> {
        let p = self.dungeon.player(id)?;
        let outcome = match (&p.death(), p.victory()) {
            (_, true) => "won".to_string(),
            (Some(d), _) => crate::view::cause_of_death(self.dungeon.content(), d),
            (None, false) => return None,
        };
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        info!(dungeon = %self.name, player = id, name = %p.name(), %outcome, "game over");
        Some(ScoreRow {
            name: p.name().to_owned(),
            score: u64::from(score(p, self.dungeon.content())),
            level: p.level(),
            deepest: u32::from(p.deepest()),
            kills: p.kills(),
            turns: p.turns(),
            outcome,
            dungeon: self.name.clone(),
            ended_at: now,
        })
    }

    /// Stores `row`, the entry of `id`'s ended game.
    pub(super) async fn add_score(&self, id: EntityId, row: ScoreRow) {
        let Some(j) = self.dungeon.journal() else {
            return;
        };
        // Waited for like the journal: the player is about to see the death or victory,
        // and a replay of the journal would not bring a lost entry back.
        let ack = j.store.add_score(row);
        if let Err(e) = ack.await {
            error!(dungeon = %self.name, player = id, error = %e, "cannot record a score");
        }
    }
}
