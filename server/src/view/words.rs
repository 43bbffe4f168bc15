//! The small words of the game's sentences, shared by every part of the view that tells
//! something: "a" or "an" before a name, "the Micro Mouse" or a player's name.

use crate::game::event::Actor;

/// A name with "a" or "an" before it: "a Tough Mouse", "an Owl".
pub(crate) fn with_article(name: &str) -> String {
    let vowel = name
        .chars()
        .next()
        .is_some_and(|c| "AEIOUaeiou".contains(c));
    format!("{} {name}", if vowel { "an" } else { "a" })
}

/// A fighter as a sentence names it: a player by its name, a monster as "the Micro Mouse" ("The"
/// to start a sentence).
pub(crate) fn called(a: &Actor, start: bool) -> String {
    match (a.player, start) {
        (true, _) => a.name.to_string(),
        (false, true) => format!("The {}", a.name),
        (false, false) => format!("the {}", a.name),
    }
}
