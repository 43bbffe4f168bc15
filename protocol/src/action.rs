//! What a character does with a turn: the one action type of the game.
//!
//! A client sends an [`Action`] as an intent (`{"type":"move","dir":"ne"}`), the server's engine
//! queues and carries out the same value, monsters choose the same type, and the server's journal
//! stores it.
//!
//! **Adding an action** is one entry in the [`actions!`] list below: its wire tag, its fields and
//! an example of each field. Everything the protocol knows about actions is made from that one
//! entry: the [`Action`] variant, its wire shape ([`Wire`]), its tag in [`Action::TYPES`] and
//! [`ClientMsg::TYPES`](crate::ClientMsg::TYPES), its [`ActionKind`], and the example the tests
//! (and the fuzzer's script generator, which matches on [`ActionKind`] without a catch-all arm)
//! use. The compiler then points at every `match` of the engine and the view that must learn
//! it; a test of the docs (`tests/tests/docs_json.rs`) fails until docs/PROTOCOL.md shows it.
//!
//! The type has two encodings. Its derived serde form is positional (a variant index, then the
//! fields), which the journal's compact binary format needs and which keeps saved games readable
//! when a variant is added at the end: **add entries only at the end**. On the wire it is a JSON
//! object tagged by `"type"`, like every other message: [`Wire`] declares that shape, and serde's
//! remote derive checks it against [`Action`] field by field, so the two cannot drift.

use serde::{Deserialize, Serialize};

use crate::geom::{Dir, Pos};

/// Declares every action once: `"tag" => Variant { field: Type = example, ... };`, with the
/// variant's doc comment and, for a field whose wire form is not its serde form, a
/// `#[wire(...)]` serde attribute used on the wire only.
macro_rules! actions {
    (
        $(
            $(#[doc = $doc:literal])*
            $tag:literal => $variant:ident $({
                $( $(#[wire($($wattr:tt)*)])? $field:ident : $fty:ty = $example:expr ),* $(,)?
            })? ;
        )*
    ) => {
        /// One character's choice for a turn. Add variants only at the end (see the module
        /// docs): saved journals name them by position.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum Action {
            $( $(#[doc = $doc])* $variant $({ $($field: $fty),* })?, )*
        }

        /// Which action an [`Action`] is, without its fields: for code that must say what it
        /// does with every kind of action (a `match` on it has no catch-all arm to forget a
        /// new one in).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ActionKind {
            $( $variant, )*
        }

        impl ActionKind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [ActionKind] = &[$(ActionKind::$variant,)*];

            /// The wire `type` tag of this kind.
            pub const fn type_name(self) -> &'static str {
                match self {
                    $( ActionKind::$variant => $tag, )*
                }
            }
        }

        impl Action {
            /// Every wire `type` tag of an action, in declaration order.
            pub const TYPES: &'static [&'static str] = &[$($tag,)*];

            /// Which action this is.
            pub const fn kind(&self) -> ActionKind {
                match self {
                    $( Action::$variant { .. } => ActionKind::$variant, )*
                }
            }

            /// The wire `type` tag of this action.
            pub const fn type_name(&self) -> &'static str {
                self.kind().type_name()
            }

            /// One action of each kind, in declaration order, with example fields: for tests.
            pub fn examples() -> Vec<Action> {
                vec![$( Action::$variant $({ $($field: $example),* })?, )*]
            }
        }

        /// The JSON shape of [`Action`] on the wire: tagged by `"type"`, fields by name.
        /// Serde's remote derive generates the conversion and fails to compile if this shape and
        /// [`Action`] differ.
        #[derive(Serialize, Deserialize)]
        #[serde(remote = "Action", tag = "type")]
        pub(crate) enum Wire {
            $(
                #[serde(rename = $tag)]
                $variant $({ $( $(#[serde($($wattr)*)])? $field: $fty ),* })?,
            )*
        }
    };
}

actions! {
    /// Step (or bump) one tile in `dir`; into an enemy, attack it.
    "move" => Move { dir: Dir = Dir::Sw };
    /// Spend the turn doing nothing.
    "wait" => Wait;
    /// Take the down-stair you stand on (`>`).
    "descend" => Descend;
    /// Take the up-stair you stand on (`<`).
    "ascend" => Ascend;
    /// Pick up the items where you stand (walking onto an item picks it up by itself; this is
    /// for what you dropped or left behind with a full pack).
    "pick_up" => PickUp;
    /// Use item `item` from your pack (a Health Pack, a Vial of Antivenom).
    "use" => Use { item: u32 = 3 };
    /// Equip item `item` from your pack, swapping out what is in its slot.
    "equip" => Equip { item: u32 = 4 };
    /// Take off item `item` (it stays in the pack).
    "unequip" => Unequip { item: u32 = 5 };
    /// Drop item `item` where you stand (taking it off first if worn).
    "drop" => Drop { item: u32 = 6 };
    /// Rest, turn after turn, until HP and status effects are back or something happens (a
    /// monster or a friend comes into view, you are attacked). A resting character never holds
    /// up its floor: the server chooses its next turn of rest by itself. Any other action ends
    /// the rest.
    "rest" => Rest;
    /// Throw item `item` of your pack (a Dart, a Pipe Bomb, ...) at the cell `at`, `[x, y]`, in
    /// sight and within its range: it flies in a line and stops at the first creature, wall or
    /// shut door on the way.
    "throw" => Throw { item: u32 = 7, #[wire(with = "pos_pair")] at: Pos = Pos::new(3, 4) };
    /// Shoot the ranged weapon you wield (a Slingshot) at the cell `at`, `[x, y]`, as a throw
    /// flies. Monsters that shoot choose this too.
    "fire" => Fire { #[wire(with = "pos_pair")] at: Pos = Pos::new(5, 6) };
    /// Give item `item` of your pack (one of a stack; a worn thing is taken off first) to the
    /// friend whose character id is `to`, standing next to you.
    "give" => Give { item: u32 = 8, to: u32 = 2 };
    /// Use item `item` of your pack on the friend whose character id is `on`, next to you: a
    /// Health Pack heals them, a Vial of Antivenom cures their poison, Smelling Salts clear
    /// their head; a Health Pack on the remains of a fallen friend (next to you, or under you)
    /// brings them back while that can still be done.
    "use_on" => UseOn { item: u32 = 9, on: u32 = 2 };
}

/// `[x, y]`: how a cell is written in the fields of actions that aim (`throw`, `fire`).
pub(crate) mod pos_pair {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::geom::Pos;

    pub fn serialize<S: Serializer>(p: &Pos, s: S) -> Result<S::Ok, S::Error> {
        [p.x, p.y].serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Pos, D::Error> {
        let [x, y] = <[i32; 2]>::deserialize(d)?;
        Ok(Pos::new(x, y))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{DecodeError, decode_client, encode};
    use crate::msg::ClientMsg;

    #[test]
    fn each_action_is_its_own_message_on_the_wire() {
        let all = Action::examples();
        assert_eq!(all.len(), Action::TYPES.len());
        assert_eq!(all.len(), ActionKind::ALL.len());
        for (action, kind) in all.into_iter().zip(ActionKind::ALL) {
            assert_eq!(action.kind(), *kind, "examples follow the declaration");
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
        // A cell to aim at is written [x, y], as the issue asks.
        let throw = Action::Throw {
            item: 9,
            at: Pos::new(12, -1),
        };
        assert_eq!(
            encode(&ClientMsg::Act(throw)),
            r#"{"type":"throw","item":9,"at":[12,-1]}"#
        );
        assert!(decode_client(r#"{"type":"fire","at":{"x":1,"y":2}}"#).is_err());
        assert!(decode_client(r#"{"type":"fire","at":[1]}"#).is_err());
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
