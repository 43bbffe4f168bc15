//! What the client keeps of finished games on this machine: the character dumps (morgue) and
//! the solo game's own high-score table (the solo server keeps none). Natively they are files
//! beside the solo game's data (`<data>/morgue/NAME-TIME.txt`, `<data>/solo-scores.json`, where
//! `<data>` is `$DELVE_DATA_DIR`, else `$XDG_DATA_HOME/delve/solo`, else
//! `~/.local/share/delve/solo`); in a browser, the page's `localStorage`.

use delve_protocol::{MAX_SCORES, ScoreEntry};

/// Adds a game to a table, best first, keeping at most `MAX_SCORES` (the order the server uses:
/// score, then the earlier game first).
pub fn add_score(table: &mut Vec<ScoreEntry>, entry: ScoreEntry) {
    if table
        .iter()
        .any(|e| e.name == entry.name && e.dungeon == entry.dungeon && e.turns == entry.turns)
    {
        return; // the same game, seen ending again (a reconnect)
    }
    table.push(entry);
    table.sort_by(|a, b| b.score.cmp(&a.score).then(a.ended.cmp(&b.ended)));
    table.truncate(MAX_SCORES as usize);
}

/// Seconds since 1970 now (0 if the clock is before it).
#[cfg(not(target_arch = "wasm32"))]
pub fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(target_arch = "wasm32")]
pub fn now_secs() -> u64 {
    (delve_web_js::clock_ms() / 1000.0) as u64
}

/// Saves a dump; returns where it went, as the death screen names it, and where to
/// [`rewrite_dump`] it.
#[cfg(not(target_arch = "wasm32"))]
pub fn save_dump(file: &str, text: &str) -> Result<(String, String), String> {
    let dir = crate::tokens::solo_data_dir()
        .ok_or("no data folder (HOME is not set)")?
        .join("morgue");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // Never over another game's dump: a second one gets a number.
    let stem = file.trim_end_matches(".txt");
    let path = (1..)
        .map(|n| match n {
            1 => dir.join(file),
            n => dir.join(format!("{stem}-{n}.txt")),
        })
        .find(|p| !p.exists())
        .unwrap_or_else(|| dir.join(file));
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    let shown = path.display().to_string();
    Ok((shown.clone(), shown))
}

#[cfg(target_arch = "wasm32")]
pub fn save_dump(file: &str, text: &str) -> Result<(String, String), String> {
    let key = format!("delve.morgue {file}");
    delve_web_js::storage_set(&key, text);
    Ok((format!("this browser's storage ({key})"), key))
}

/// Puts `text` in place of the dump saved at `at` (the second half of [`save_dump`]'s answer):
/// the server's own dump, once it comes, over the one written from the client's view.
pub fn rewrite_dump(at: &str, text: &str) -> Result<(), String> {
    #[cfg(not(target_arch = "wasm32"))]
    return std::fs::write(at, text).map_err(|e| format!("{at}: {e}"));
    #[cfg(target_arch = "wasm32")]
    {
        delve_web_js::storage_set(at, text);
        Ok(())
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn scores_path() -> Option<std::path::PathBuf> {
    crate::tokens::solo_data_dir().map(|d| d.join("solo-scores.json"))
}

/// The solo table (empty if there is none yet, or it cannot be read).
pub fn solo_scores() -> Vec<ScoreEntry> {
    #[cfg(not(target_arch = "wasm32"))]
    let text = scores_path().and_then(|p| std::fs::read_to_string(p).ok());
    #[cfg(target_arch = "wasm32")]
    let text = delve_web_js::storage_get("delve.solo-scores");
    text.and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// Adds a finished solo game to the solo table.
pub fn add_solo_score(entry: ScoreEntry) -> Result<(), String> {
    let mut table = solo_scores();
    add_score(&mut table, entry);
    let text = serde_json::to_string_pretty(&table).map_err(|e| e.to_string())?;
    #[cfg(not(target_arch = "wasm32"))]
    {
        let path = scores_path().ok_or("no data folder (HOME is not set)")?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    }
    #[cfg(target_arch = "wasm32")]
    {
        delve_web_js::storage_set("delve.solo-scores", &text);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(name: &str, score: u32, ended: u64) -> ScoreEntry {
        ScoreEntry {
            name: name.into(),
            score,
            level: 1,
            deepest: 1,
            kills: 0,
            turns: u64::from(score),
            victory: false,
            outcome: "killed".into(),
            dungeon: "solo".into(),
            ended,
            game: None,
        }
    }

    #[test]
    fn the_table_keeps_the_best_first_once_each() {
        let mut t = Vec::new();
        add_score(&mut t, game("Ann", 10, 1));
        add_score(&mut t, game("Bob", 30, 2));
        add_score(&mut t, game("Cy", 20, 3));
        add_score(&mut t, game("Bob", 30, 9)); // the same game again
        let names: Vec<&str> = t.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["Bob", "Cy", "Ann"]);
        for k in 0..MAX_SCORES + 5 {
            add_score(&mut t, game("Dee", 100 + k, 10));
        }
        assert_eq!(t.len(), MAX_SCORES as usize);
        assert_eq!(t[0].score, 100 + MAX_SCORES + 4);
    }
}
