//! The pages themselves: plain HTML, one small stylesheet in the head, no JavaScript. Every
//! piece of text that came from a player (names, dungeon names, messages) goes through
//! [`esc`].

use std::fmt::Write as _;

use crate::record::GameDump;
use crate::record::dump::{ending_sentence, when};
use crate::store::GameRow;

use super::Links;

/// `s` with the five characters HTML gives meaning to replaced by their entities: safe in text
/// and in quoted attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `s` for a URL's query string (everything but letters, digits and `-_.~` escaped).
pub fn url(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

const STYLE: &str = "body{background:#0e0c12;color:#ddd;font:15px/1.45 system-ui,sans-serif;\
margin:0 auto;max-width:68em;padding:1em}a{color:#e8c463}h1,h2{color:#e8c463;font-weight:600}\
h1{font-size:1.6em;margin:.3em 0}h2{font-size:1.15em;margin:1.2em 0 .3em}\
table{border-collapse:collapse;width:100%}th,td{padding:.25em .5em;text-align:left;\
border-bottom:1px solid #2a2633}th{color:#aaa;font-weight:500}td.n{text-align:right}\
tr.won td{color:#f2d680}.dim{color:#999}form{margin:.6em 0}input{background:#1b1822;\
color:#ddd;border:1px solid #3a3544;padding:.2em .4em}pre{white-space:pre-wrap}\
nav a{margin-right:1em}ul{margin:.2em 0}.wide{overflow-x:auto}\
@media(max-width:40em){body{padding:.6em}.x{display:none}th,td{padding:.25em .3em}}";

/// A whole page around `body`.
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n<nav><a href=\"/scores\">High \
         scores</a><a href=\"/games\">Newest games</a><a href=\"/\">Play</a></nav>\n{body}\n\
         </body></html>\n",
        esc(title)
    )
}

/// A page that only says `sentence`.
pub fn notice(title: &str, sentence: &str) -> String {
    page(
        title,
        &format!("<h1>{}</h1><p>{}</p>", esc(title), esc(sentence)),
    )
}

/// The filter form of `/scores` and `/games`: a dungeon's name, and its password for a
/// private one.
pub fn filter_form(action: &str, dungeon: Option<&str>, name: Option<&str>) -> String {
    let name_field = match name {
        Some(n) => format!(
            " <label>Character <input name=\"name\" size=\"12\" value=\"{}\"></label>",
            esc(n)
        ),
        None if action == "/games" => {
            " <label>Character <input name=\"name\" size=\"12\"></label>".to_string()
        }
        None => String::new(),
    };
    format!(
        "<form action=\"{action}\" method=\"get\"><label>Dungeon <input name=\"dungeon\" \
         size=\"16\" value=\"{}\"></label>{name_field} <label>Password (private dungeons) <input \
         name=\"password\" type=\"password\" size=\"12\"></label> <button>Show</button></form>",
        esc(dungeon.unwrap_or(""))
    )
}

/// The table of games, with a rank column when `ranked`.
pub fn games_table(games: &[GameRow], ranked: bool, links: &Links) -> String {
    if games.is_empty() {
        return "<p class=\"dim\">No finished games yet.</p>".to_string();
    }
    // On a phone the columns marked `x` (level, floor, kills, date) give way to the rest.
    let mut s = String::from("<div class=\"wide\"><table><tr>");
    if ranked {
        s.push_str("<th>#</th>");
    }
    s.push_str(
        "<th>Name</th><th>Score</th><th class=\"x\">Level</th><th class=\"x\">Floor</th>\
         <th class=\"x\">Kills</th><th>Turns</th><th>How it ended</th><th>Dungeon</th>\
         <th class=\"x\">Ended</th><th></th></tr>\n",
    );
    for (k, g) in games.iter().enumerate() {
        let r = &g.score;
        let date = delve_protocol::utc_date(u64::try_from(r.ended_at).unwrap_or(0));
        let page = links.game(g);
        let replay = match g.replay_bytes {
            Some(_) if links.replays => format!("<a href=\"{}\">replay</a>", esc(&links.replay(g))),
            _ => String::new(),
        };
        let _ = write!(s, "<tr{}>", if g.victory { " class=\"won\"" } else { "" });
        if ranked {
            let _ = write!(s, "<td class=\"n\">{}</td>", k + 1);
        }
        let _ = writeln!(
            s,
            "<td><a href=\"{}\">{}</a></td><td class=\"n\">{}</td><td class=\"n x\">{}</td>\
             <td class=\"n x\">{}</td><td class=\"n x\">{}</td><td class=\"n\">{}</td><td>{}</td>\
             <td><a href=\"{}\">{}</a></td><td class=\"x\">{date}</td><td>{replay}</td></tr>",
            esc(&page),
            esc(&r.name),
            r.score,
            r.level,
            r.deepest,
            r.kills,
            r.turns,
            esc(&r.outcome),
            esc(&format!("/scores?dungeon={}", url(&r.dungeon))),
            esc(&r.dungeon),
        );
    }
    s.push_str("</table></div>");
    s
}

/// The page of one game: its dump, or its numbers while the dump is being written.
pub fn game_page(g: &GameRow, dump: Option<&GameDump>, links: &Links) -> String {
    let r = &g.score;
    let title = format!("{} in {}", r.name, r.dungeon);
    let mut s = format!(
        "<h1>{}</h1><p>{} <span class=\"dim\">Dungeon <a href=\"{}\">{}</a>; ended {}.</span></p>",
        esc(&r.name),
        esc(&ending_sentence(&r.outcome, g.victory)),
        esc(&format!("/scores?dungeon={}", url(&r.dungeon))),
        esc(&r.dungeon),
        esc(&when(Some(r.ended_at))),
    );
    let _ = write!(
        s,
        "<p>Score <b>{}</b> &middot; level {} &middot; deepest floor {} &middot; {} kills \
         &middot; {} turns</p><p>",
        r.score, r.level, r.deepest, r.kills, r.turns
    );
    if g.replay_bytes.is_some() && links.replays {
        let _ = write!(
            s,
            "<a href=\"{}\">Watch the replay</a> &middot; ",
            esc(&links.replay(g))
        );
    }
    let _ = write!(
        s,
        "<a href=\"{}\">Plain text</a> &middot; <a href=\"{}\">JSON</a></p>",
        esc(&links.text(g)),
        esc(&links.json(g))
    );
    let Some(d) = dump else {
        s.push_str(
            "<p class=\"dim\">The character dump is being written (the game is replayed to \
             write it); reload in a moment.</p>",
        );
        return page(&title, &s);
    };
    let st = &d.stats;
    let _ = write!(
        s,
        "<h2>Stats{}</h2><div class=\"wide\"><table><tr><th>HP</th><th>Attack</th>\
         <th>Defence</th><th>Save</th><th>Sight</th><th>XP</th></tr><tr><td>{}&nbsp;/&nbsp;{}</td>\
         <td>{}&ndash;{}</td><td>{}</td><td>{}%</td><td>{}</td><td>{}</td></tr></table></div>",
        if d.victory || !d.complete {
            ""
        } else {
            " <span class=\"dim\">(before the last blow)</span>"
        },
        st.hp.max(0),
        st.max_hp,
        st.attack_min,
        st.attack_max,
        st.defence,
        st.save,
        st.sight,
        d.xp
    );
    if !d.effects.is_empty() {
        let _ = write!(s, "<p>Suffering: {}</p>", esc(&d.effects.join(", ")));
    }
    s.push_str("<h2>Equipment</h2><ul>");
    if d.equipment.is_empty() {
        s.push_str("<li class=\"dim\">nothing</li>");
    }
    for i in &d.equipment {
        let _ = write!(
            s,
            "<li>{}: {}{}</li>",
            esc(i.slot.as_deref().unwrap_or("")),
            esc(&i.name),
            if i.bonus.is_empty() {
                String::new()
            } else {
                format!(" <span class=\"dim\">({})</span>", esc(&i.bonus))
            }
        );
    }
    s.push_str("</ul><h2>Pack</h2><ul>");
    if d.pack.is_empty() {
        s.push_str("<li class=\"dim\">empty</li>");
    }
    for i in &d.pack {
        let count = if i.count > 1 {
            format!(" &times;{}", i.count)
        } else {
            String::new()
        };
        let _ = write!(s, "<li>{}{count}</li>", esc(&i.name));
    }
    s.push_str("</ul>");
    if !d.complete {
        s.push_str(
            "<p class=\"dim\">This character was made before the server kept whole games: its \
             kills by kind, floors and last messages are not known, and the pack is what was \
             left.</p>",
        );
        return page(&title, &s);
    }
    s.push_str("<h2>Kills by kind</h2><ul>");
    if d.kills_by_kind.is_empty() {
        s.push_str("<li class=\"dim\">none</li>");
    }
    for k in &d.kills_by_kind {
        let _ = write!(s, "<li>{} &times; {}</li>", k.count, esc(&k.kind));
    }
    s.push_str("</ul><h2>Floors</h2><ul>");
    for f in &d.floors {
        let _ = write!(
            s,
            "<li>floor {} <span class=\"dim\">reached on turn {}</span></li>",
            f.depth, f.turn
        );
    }
    s.push_str("</ul><h2>Last messages</h2><ul>");
    for m in &d.messages {
        let _ = write!(s, "<li>{}</li>", esc(m));
    }
    s.push_str("</ul>");
    page(&title, &s)
}
