//! Finished games for the tests of the record (`tests/record.rs`, the replay in the browser):
//! a server that keeps its games, and a scripted player who gathers what lies about, wields a
//! weapon and then stands until the mice kill it, with every view it was sent kept by turn.

use std::path::Path;
use std::sync::Arc;

use delve_client::record::GameOver;
use delve_protocol::{Action, ClientMsg, EntityKind, ServerMsg, View, view_digest};
use delve_server::game::Content;
use delve_server::net::ServerConfig;

use crate::walk::{frontier, step_towards};
use crate::{Bot, test_config};

/// A server keeping its games in `data`: floor 1 strewn with Crowbars, Health Packs and Vials
/// of Antivenom, a crowd of mice, and characters who last a while but not for ever.
pub fn deadly_config(data: &Path) -> ServerConfig {
    let mut c = Content::builtin();
    for it in &mut c.items {
        it.loose = matches!(&*it.key, "crowbar" | "health_pack" | "antivenom");
    }
    c.placement.loose = [40, 40];
    c.player.hp = 40;
    c.spawn.count = 12;
    c.spawn.safe_distance = 10;
    ServerConfig {
        data_dir: Some(data.to_path_buf()),
        content: Arc::new(c),
        msgs_per_sec: 100_000,
        msg_burst: 100_000,
        ..test_config()
    }
}

/// A game played to its end.
pub struct Finished {
    pub name: String,
    /// The first view the player was sent at each of its turns (index: turns lived), as the
    /// client model built it from the server's messages.
    pub views: Vec<View>,
    /// The view just before the update that killed it.
    pub before_death: View,
    /// Where the server keeps the game, and its dump.
    pub over: GameOver,
    /// The bot, dead, still connected.
    pub bot: Bot,
}

impl Finished {
    /// The digest of the view the player had at turn `t`.
    pub fn digest(&self, t: usize) -> String {
        view_digest(&self.views[t])
    }
}

/// Plays `bot` to its death: it picks up `gather` items (walking to those in sight, exploring
/// otherwise), wields the first weapon it holds, then waits for the mice.
pub async fn play_to_death(mut bot: Bot, gather: u32) -> Finished {
    let mut views = vec![bot.view().clone()];
    let mut before_death = bot.view().clone();
    for _ in 0..3000 {
        let v = bot.view().clone();
        if !v.me.alive {
            break;
        }
        let held: u32 = v.inventory.iter().map(|i| i.count).sum();
        let weapon = v
            .inventory
            .iter()
            .find(|i| i.slot == Some(delve_protocol::Slot::Weapon) && !i.equipped);
        let intent = if let Some(w) = weapon {
            Action::Equip { item: w.id }
        } else if held < gather {
            let items: Vec<_> = (v.entities.iter())
                .filter(|e| e.kind == EntityKind::Item)
                .map(|e| e.pos)
                .collect();
            match step_towards(&v, false, |p| items.contains(&p))
                .or_else(|| step_towards(&v, false, |p| frontier(&v, p)))
            {
                Some(dir) => Action::Move { dir },
                None => Action::Wait,
            }
        } else {
            Action::Wait
        };
        before_death = v;
        take_turn(&mut bot, intent).await;
        let t = bot.view().me.turns as usize;
        if t == views.len() {
            views.push(bot.view().clone());
        }
    }
    assert!(!bot.view().me.alive, "{}: the mice never came", bot.name);
    // The dump comes a moment after the death: the game is replayed to write it.
    let over = loop {
        if let Some(over) = bot.model.game_over.clone() {
            break over;
        }
        let msg = bot.recv().await.expect("the server's messages");
        bot.model.handle(msg).expect("applies");
    };
    Finished {
        name: bot.name.clone(),
        views,
        before_death,
        over,
        bot,
    }
}

/// Sends `intent` and reads until the turn it was for has resolved; an intent the rules refuse
/// now (the pack while stunned, say) is replaced by a wait.
async fn take_turn(bot: &mut Bot, intent: Action) {
    let turn = bot.view().turn;
    bot.send(ClientMsg::Act(intent)).await;
    while bot.view().turn == turn {
        let msg = bot.recv().await.expect("the server's messages");
        if let ServerMsg::Error { .. } = msg {
            bot.send(ClientMsg::Act(Action::Wait)).await;
            continue;
        }
        bot.model.handle(msg).expect("applies");
    }
}
