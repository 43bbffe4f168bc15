//! The panel's lists: the party (everyone in the dungeon, wherever they are), what is worn,
//! and what is in sight.

use delve_protocol::{EntityKind, Slot, View};
use macroquad::prelude::*;

use crate::pack;
use crate::ui::sprites::Sprites;
use crate::ui::text::{draw_text, measure_text};
use crate::ui::theme::{DIM, MONSTER, player_color};

/// The height of the "Worn" lines.
pub const WORN_H: f32 = 20.0 + 3.0 * 19.0 + 14.0;

/// Whether the party list is shown at all: with company, or someone watching.
pub fn party_shown(view: &View) -> bool {
    view.party.len() > 1 || !view.watchers.is_empty()
}

/// The party list's height with `n` members listed.
pub fn party_height(view: &View, n: usize) -> f32 {
    if party_shown(view) {
        28.0 + 20.0 * n as f32 + 18.0 * view.watchers.len().min(3) as f32
    } else {
        0.0
    }
}

/// A small item picture, 16 pixels square.
fn icon(sprites: &Sprites, key: Option<&str>, x: f32, y: f32) {
    draw_texture_ex(
        sprites.item(key),
        x,
        y,
        WHITE,
        DrawTextureParams {
            dest_size: Some(vec2(16.0, 16.0)),
            ..Default::default()
        },
    );
}

/// The party, `members` lines of it (the last saying how many more when cut), then who
/// watches. Returns the y below.
pub fn draw_party(view: &View, members: usize, x: f32, mut y: f32, w: f32) -> f32 {
    if !party_shown(view) {
        return y;
    }
    // A cut list ends with a line saying how many more there are.
    let listed = if members < view.party.len() {
        members - 1
    } else {
        members
    };
    draw_text("Party", x, y, 20.0, DIM);
    y += 20.0;
    for p in view.party.iter().take(listed) {
        // A click on a friend on your floor walks to them.
        if p.id != view.me.id && crate::friends::pos_of(view, p).is_some() {
            let row = Rect::new(x, y - 15.0, w, 20.0);
            crate::ui::widgets::add(row, crate::ui::widgets::Tap::Friend(p.id));
        }
        let c = player_color(p.id);
        let dot = if p.connected {
            c
        } else {
            Color::new(c.r * 0.4, c.g * 0.4, c.b * 0.4, 1.0)
        };
        draw_circle(x + 6.0, y - 5.0, 5.0, dot);
        let name_color = if p.alive { WHITE } else { DIM };
        draw_text(&p.name, x + 18.0, y, 18.0, name_color);
        let state = party_state(p);
        draw_text(&state, x + 120.0, y, 16.0, DIM);
        if p.alive {
            let frac = (p.hp as f32 / p.max_hp.max(1) as f32).clamp(0.0, 1.0);
            draw_rectangle(
                x + 200.0,
                y - 10.0,
                w - 200.0,
                8.0,
                Color::new(0.0, 0.0, 0.0, 0.6),
            );
            draw_rectangle(
                x + 200.0,
                y - 10.0,
                (w - 200.0) * frac,
                8.0,
                Color::from_rgba(60, 170, 80, 255),
            );
        }
        y += 20.0;
    }
    if listed < view.party.len() {
        let more = format!("and {} more", view.party.len() - listed);
        draw_text(&more, x + 18.0, y, 16.0, DIM);
        y += 20.0;
    }
    for watcher in view.watchers.iter().take(3) {
        draw_text(
            format!("{} watches {}", watcher.name, watcher.watching),
            x + 18.0,
            y,
            16.0,
            DIM,
        );
        y += 18.0;
    }
    y + 8.0
}

/// The three equipment slots and what is worn in them. Returns the y below.
pub fn draw_worn(view: &View, sprites: &Sprites, x: f32, mut y: f32, w: f32) -> f32 {
    draw_text("Worn", x, y, 20.0, DIM);
    y += 20.0;
    for slot in Slot::ALL {
        let label = match slot {
            Slot::Weapon => "Weapon",
            Slot::Armour => "Armour",
            Slot::Microchip => "Chip",
        };
        draw_text(label, x, y, 18.0, DIM);
        match pack::worn_in(&view.inventory, slot) {
            Some(item) => {
                icon(sprites, Some(&item.key), x + 70.0, y - 14.0);
                let mut name = item.name.to_string();
                while name.len() > 4 && measure_text(&name, None, 18, 1.0).width > w - 96.0 {
                    name.pop();
                }
                draw_text(&name, x + 92.0, y, 18.0, WHITE);
            }
            None => {
                draw_text("-", x + 92.0, y, 18.0, Color::new(0.4, 0.38, 0.46, 1.0));
            }
        }
        y += 19.0;
    }
    y
}

/// What is in sight, monsters first (the nearest first), then players, then items, in the
/// lines between `y` and `bottom`.
pub fn draw_in_sight(view: &View, sprites: &Sprites, x: f32, mut y: f32, bottom: f32) {
    let me = &view.me;
    // Not even the title and a line fit: nothing, rather than over what is below.
    if bottom - y < 22.0 + 20.0 {
        return;
    }
    draw_text("In sight", x, y, 20.0, DIM);
    y += 22.0;
    let mut seen: Vec<_> = view.entities.iter().filter(|e| e.id != me.id).collect();
    seen.sort_by_key(|e| {
        let rank = match e.kind {
            EntityKind::Monster => 0,
            EntityKind::Player | EntityKind::Remains => 1,
            EntityKind::Item => 2,
        };
        (rank, e.pos.dist2(me.pos))
    });
    let rows = (((bottom - y) / 20.0).floor().max(1.0)) as usize;
    let shown = if seen.len() > rows {
        rows - 1
    } else {
        seen.len()
    };
    for e in seen.iter().take(shown) {
        match e.kind {
            EntityKind::Item => {
                icon(sprites, e.item.as_deref(), x - 2.0, y - 14.0);
                draw_text(&e.name, x + 18.0, y, 18.0, WHITE);
            }
            EntityKind::Remains => {
                draw_circle_lines(x + 6.0, y - 5.0, 5.0, 1.5, player_color(e.id));
                draw_text(
                    format!("{} has fallen: heal them", e.name),
                    x + 18.0,
                    y,
                    18.0,
                    WHITE,
                );
            }
            EntityKind::Monster | EntityKind::Player => {
                let dot = if e.kind == EntityKind::Monster {
                    MONSTER
                } else {
                    player_color(e.id)
                };
                draw_circle(x + 6.0, y - 5.0, 5.0, dot);
                draw_text(
                    format!("{}  {}/{} HP", e.name, e.hp, e.max_hp),
                    x + 18.0,
                    y,
                    18.0,
                    WHITE,
                );
            }
        }
        y += 20.0;
    }
    if seen.len() > shown {
        draw_text(
            format!("and {} more", seen.len() - shown),
            x + 18.0,
            y,
            18.0,
            DIM,
        );
    }
    if seen.is_empty() {
        draw_text("nothing", x + 18.0, y, 18.0, DIM);
    }
}

/// A party member's line after its name: level and floor, and whether it is away, gone or
/// fallen (with the turns left to bring it back).
pub fn party_state(p: &delve_protocol::PartyMember) -> String {
    match (p.alive, p.revive_turns) {
        (false, Some(n)) => return format!("fallen F{} {n}t", p.depth),
        (false, None) => return "dead".to_string(),
        _ => {}
    }
    let place = format!("L{} F{}", p.level, p.depth);
    if !p.connected {
        format!("{place} left")
    } else if p.away {
        format!("{place} away")
    } else {
        place
    }
}

#[cfg(test)]
mod tests {
    use super::party_state;
    use delve_protocol::PartyMember;

    #[test]
    fn the_party_line_says_away_left_and_fallen_apart() {
        let ann = PartyMember {
            id: 2,
            name: "Ann".into(),
            level: 3,
            hp: 10,
            max_hp: 25,
            depth: 2,
            alive: true,
            connected: true,
            away: false,
            pos: None,
            revive_turns: None,
        };
        assert_eq!(party_state(&ann), "L3 F2");
        let away = PartyMember {
            away: true,
            ..ann.clone()
        };
        assert_eq!(party_state(&away), "L3 F2 away");
        let left = PartyMember {
            connected: false,
            ..ann.clone()
        };
        assert_eq!(party_state(&left), "L3 F2 left");
        let fallen = PartyMember {
            alive: false,
            revive_turns: Some(9),
            ..ann.clone()
        };
        assert_eq!(party_state(&fallen), "fallen F2 9t");
        let dead = PartyMember {
            alive: false,
            ..ann
        };
        assert_eq!(party_state(&dead), "dead");
    }
}
