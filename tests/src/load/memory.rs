//! What a dungeon costs as its players make it: `delve-load --dungeon-memory`. Bots join
//! dungeons that do not exist yet (so each is created by its first player), all of a dungeon's
//! players play a number of turns together (so floors are made, explored and remembered, views
//! and outboxes filled), and they stay connected while the server's resident memory is read.
//! The echo baseline gets the same number of connections, each exchanging one message.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::Semaphore;
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::Message;

use super::bot::{self, ECHO_MSG, GamePlayer, Heard, Player, Ws};

/// How long one turn's answer may take before the measurement gives up.
const TURN_TIMEOUT: Duration = Duration::from_secs(30);

/// Handshakes at once, as `delve-load` connects its bots.
const AT_ONCE: usize = 64;

/// `dungeons` dungeons of `players` players each, named `{prefix}-N`, each created by its first
/// player; every dungeon plays `turns` turns. The connections, still open.
pub async fn play_dungeons(
    url: &str,
    prefix: &str,
    dungeons: usize,
    players: usize,
    turns: usize,
    seed: u64,
) -> anyhow::Result<Vec<Ws>> {
    let gate = Arc::new(Semaphore::new(AT_ONCE));
    let mut tasks = Vec::with_capacity(dungeons);
    for d in 0..dungeons {
        let (url, gate) = (url.to_owned(), Arc::clone(&gate));
        let dungeon = format!("{prefix}-{d}");
        tasks.push(tokio::spawn(async move {
            let mut party = Vec::with_capacity(players);
            for p in 0..players {
                let _permit = gate.acquire().await?;
                let seed = seed + (d * players + p) as u64;
                let mut ws = bot::connect(&url).await?;
                let player = GamePlayer::join(&mut ws, &format!("m{seed}"), &dungeon, seed).await?;
                party.push((ws, player));
            }
            for _ in 0..turns {
                play_turn(&mut party).await?;
            }
            anyhow::Ok(party.into_iter().map(|(ws, _)| ws).collect::<Vec<_>>())
        }));
    }
    let mut all = Vec::with_capacity(dungeons * players);
    for t in tasks {
        all.extend(t.await??);
    }
    Ok(all)
}

/// Every player of a dungeon chooses, then each reads until its turn's answer (the turn
/// resolves once all have chosen).
async fn play_turn(party: &mut [(Ws, GamePlayer)]) -> anyhow::Result<()> {
    for (ws, player) in party.iter_mut() {
        ws.send(Message::text(player.next_msg())).await?;
    }
    for (ws, player) in party.iter_mut() {
        loop {
            let frame = timeout(TURN_TIMEOUT, ws.next())
                .await
                .context("no answer to a turn within 30 s")?;
            let text = match frame {
                Some(Ok(Message::Text(t))) => t,
                Some(Ok(_)) => continue,
                Some(Err(e)) => bail!("{e}"),
                None => bail!("the connection dropped"),
            };
            match player.heard(text.as_str()) {
                Heard::Answer { .. } => break,
                Heard::Rejected => {
                    // A stale view: choose again, so the turn is not left waiting.
                    ws.send(Message::text(player.next_msg())).await?;
                }
                Heard::Other { .. } => {}
                Heard::Failed(why) => bail!(why),
            }
            if let Some(extra) = player.extra() {
                ws.send(Message::text(extra)).await?;
            }
        }
    }
    Ok(())
}

/// `n` connections to the echo server, each having exchanged one message. Still open.
pub async fn echo_connections(url: &str, n: usize) -> anyhow::Result<Vec<Ws>> {
    let gate = Arc::new(Semaphore::new(AT_ONCE));
    let mut tasks = Vec::with_capacity(n);
    for _ in 0..n {
        let (url, gate) = (url.to_owned(), Arc::clone(&gate));
        tasks.push(tokio::spawn(async move {
            let _permit = gate.acquire().await?;
            let mut ws = bot::connect(&url).await?;
            ws.send(Message::text(ECHO_MSG)).await?;
            ws.next().await.context("no echo")??;
            anyhow::Ok(ws)
        }));
    }
    let mut all = Vec::with_capacity(n);
    for t in tasks {
        all.push(t.await??);
    }
    Ok(all)
}
