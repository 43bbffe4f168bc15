//! The turn clock's line: whose move it is, whom the floor waits for, and the time left.

use macroquad::prelude::*;

use crate::model::Model;
use crate::ui::theme::{DIM, GOLD};

/// What the turn clock says right now.
pub struct TurnLine {
    pub text: String,
    pub color: Color,
}

/// The line for this moment: `status_age` seconds since the turn status came, `awaiting` while
/// our own intent has not resolved.
pub fn turn_line(model: &Model, status_age: f64, awaiting: bool) -> TurnLine {
    let Some(view) = &model.view else {
        return TurnLine {
            text: String::new(),
            color: DIM,
        };
    };
    match &model.turn_status {
        _ if view.me.resting => TurnLine {
            text: if crate::ui::layout::touch() {
                "Resting - a tap stops".into()
            } else {
                "Resting - any key stops".into()
            },
            color: Color::from_rgba(140, 220, 140, 255),
        },
        Some(s) if s.turn == view.turn + 1 => {
            let me_waiting = s.waiting_for.iter().any(|n| **n == *view.me.name);
            let others: Vec<&str> = s
                .waiting_for
                .iter()
                .filter(|n| **n != *view.me.name)
                .map(String::as_str)
                .collect();
            let left = s
                .timeout_ms
                .map(|ms| (ms as f64 / 1000.0 - status_age).max(0.0));
            let clock = left.map_or(String::new(), |l| format!(" - {l:.1}s"));
            if me_waiting {
                TurnLine {
                    text: format!("Your move{clock}"),
                    color: GOLD,
                }
            } else if others.is_empty() {
                TurnLine {
                    text: "Resolving...".into(),
                    color: DIM,
                }
            } else {
                TurnLine {
                    text: format!("Waiting for {}{clock}", others.join(", ")),
                    color: Color::from_rgba(140, 200, 255, 255),
                }
            }
        }
        _ if awaiting => TurnLine {
            text: "Resolving...".into(),
            color: DIM,
        },
        _ => TurnLine {
            text: "Your move".into(),
            color: GOLD,
        },
    }
}
