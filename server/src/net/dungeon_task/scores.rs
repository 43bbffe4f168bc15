//! The high-score table's side of a dungeon: an entry for every game a turn ended.

use tracing::{error, info};

use super::DungeonTask;
use crate::game::score::score;
use crate::game::{EntityId, Event};
use crate::store::ScoreRow;

impl DungeonTask {
    /// Adds a high-score entry for every game that `events` ended: a death, or the victory.
    pub(super) async fn record_scores(&self, events: &[Event]) {
        let Some(j) = self.dungeon.journal() else {
            return;
        };
        let ended: Vec<EntityId> = events
            .iter()
            .flat_map(|e| match e {
                Event::Died { victim, .. } if victim.player => vec![victim.id],
                Event::Victory { winners, .. } => winners.clone(),
                _ => Vec::new(),
            })
            .collect();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        for id in ended {
            let Some(p) = self.dungeon.player(id) else {
                continue;
            };
            let outcome = match (&p.death(), p.victory()) {
                (_, true) => "won".to_string(),
                (Some(d), _) => crate::view::cause_of_death(self.dungeon.content(), d),
                (None, false) => continue,
            };
            info!(dungeon = %self.name, player = id, name = %p.name(), %outcome, "game over");
            // Waited for like the journal: the player is about to see the death or victory,
            // and a replay of the journal would not bring a lost entry back.
            let ack = j.store.add_score(ScoreRow {
                name: p.name().to_owned(),
                score: u64::from(score(p, self.dungeon.content())),
                level: p.level(),
                deepest: u32::from(p.deepest()),
                kills: p.kills(),
                turns: p.turns(),
                outcome,
                dungeon: self.name.clone(),
                ended_at: now,
            });
            if let Err(e) = ack.await {
                error!(dungeon = %self.name, player = id, error = %e, "cannot record a score");
            }
        }
    }
}
