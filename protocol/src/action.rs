//! What a character does with a turn: the one action type of the game.
//!
//! A client sends an [`Action`] as an intent (`{"type":"move","dir":"ne"}`), the server's engine
//! queues and carries out the same value, monsters choose the same type, and the server's journal
//! stores it. Adding an action means adding a variant here and its arm in the engine.
//!
//! The type has two encodings. Its derived serde form is positional (a variant index, then the
//! fields), which the journal's compact binary format needs and which keeps saved games readable
//! when a variant is added at the end. On the wire it is a JSON object tagged by `"type"`, like
//! every other message: [`Wire`] declares that shape, and the compiler checks it against
//! [`Action`] field by field, so the two cannot drift.

use serde::{Deserialize, Serialize};

use crate::geom::Dir;

/// One character's choice for a turn. Add variants only at the end: saved journals name them by
/// position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Action {
    /// Step (or bump) one tile in `dir`; into an enemy, attack it.
    Move { dir: Dir },
    /// Spend the turn doing nothing.
    Wait,
    /// Take the down-stair you stand on (`>`).
    Descend,
    /// Take the up-stair you stand on (`<`).
    Ascend,
    /// Pick up the items where you stand (walking onto an item picks it up by itself; this is
    /// for what you dropped or left behind with a full pack).
    PickUp,
    /// Use item `item` from your pack (a Health Pack, a Vial of Antivenom).
    Use { item: u32 },
    /// Equip item `item` from your pack, swapping out what is in its slot.
    Equip { item: u32 },
    /// Take off item `item` (it stays in the pack).
    Unequip { item: u32 },
    /// Drop item `item` where you stand (taking it off first if worn).
    Drop { item: u32 },
}

impl Action {
    /// Every wire `type` tag of an action.
    pub const TYPES: &'static [&'static str] = &[
        "move", "wait", "descend", "ascend", "pick_up", "use", "equip", "unequip", "drop",
    ];

    /// The wire `type` tag of this action.
    pub fn type_name(&self) -> &'static str {
        match self {
            Action::Move { .. } => "move",
            Action::Wait => "wait",
            Action::Descend => "descend",
            Action::Ascend => "ascend",
            Action::PickUp => "pick_up",
            Action::Use { .. } => "use",
            Action::Equip { .. } => "equip",
            Action::Unequip { .. } => "unequip",
            Action::Drop { .. } => "drop",
        }
    }
}

/// The JSON shape of [`Action`] on the wire: tagged by `"type"`, fields by name. Serde's remote
/// derive generates the conversion and fails to compile if this shape and [`Action`] differ.
#[derive(Serialize, Deserialize)]
#[serde(remote = "Action", tag = "type", rename_all = "snake_case")]
pub(crate) enum Wire {
    Move { dir: Dir },
    Wait,
    Descend,
    Ascend,
    PickUp,
    Use { item: u32 },
    Equip { item: u32 },
    Unequip { item: u32 },
    Drop { item: u32 },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{DecodeError, decode_client, encode};
    use crate::msg::ClientMsg;

    fn one_of_each() -> [Action; 9] {
        [
            Action::Move { dir: Dir::Sw },
            Action::Wait,
            Action::Descend,
            Action::Ascend,
            Action::PickUp,
            Action::Use { item: 3 },
            Action::Equip { item: 4 },
            Action::Unequip { item: 5 },
            Action::Drop { item: 6 },
        ]
    }

    #[test]
    fn each_action_is_its_own_message_on_the_wire() {
        let all = one_of_each();
        assert_eq!(all.len(), Action::TYPES.len());
        for action in all {
            let json = encode(&ClientMsg::Act(action));
            let ty = action.type_name();
            assert!(Action::TYPES.contains(&ty));
            assert!(
                ClientMsg::TYPES.contains(&ty),
                "{ty} missing from ClientMsg::TYPES"
            );
            assert!(json.starts_with(&format!("{{\"type\":\"{ty}\"")), "{json}");
            assert_eq!(decode_client(&json), Ok(ClientMsg::Act(action)));
        }
        assert_eq!(
            encode(&ClientMsg::Act(Action::Use { item: 3 })),
            r#"{"type":"use","item":3}"#
        );
    }

    #[test]
    fn a_bad_action_field_is_named_like_any_other() {
        let err = decode_client(r#"{"type":"move","dir":"up"}"#).unwrap_err();
        match err {
            DecodeError::BadFields { ty, detail } => {
                assert_eq!(ty, "move");
                assert!(detail.contains("up"), "{detail}");
            }
            other => panic!("want bad_fields, got {other:?}"),
        }
        let err = decode_client(r#"{"type":"drop"}"#).unwrap_err();
        assert!(
            matches!(&err, DecodeError::BadFields { detail, .. } if detail.contains("item")),
            "{err:?}"
        );
    }
}
