//! Turning messages into JSON text frames and back, with the size limits both sides enforce.

use serde::de::DeserializeOwned;

use crate::action::Action;
use crate::msg::{ClientMsg, ErrorCode, ServerMsg};

/// Largest text frame a client may send, in bytes. Client messages are small intents; anything
/// bigger is a bug or an attack, and the server closes the connection (code 1009).
pub const MAX_CLIENT_FRAME: usize = 2048;

/// Largest frame the server sends. A snapshot of an 85×48 floor is about 6 KB; this leaves room.
pub const MAX_SERVER_FRAME: usize = 256 * 1024;

/// Why a frame could not be decoded. Each maps to a stable [`ErrorCode`].
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DecodeError {
    #[error("frame of {len} bytes is larger than the limit of {max} bytes")]
    TooLarge { len: usize, max: usize },
    /// Not JSON, or JSON with a key named twice in one object.
    #[error("frame is not valid JSON: {0}")]
    NotJson(String),
    #[error("message must be a JSON object with a string \"type\" field")]
    NoType,
    #[error("unknown message type {0:?}")]
    UnknownType(String),
    #[error("bad fields for message type {ty:?}: {detail}")]
    BadFields { ty: String, detail: String },
}

impl DecodeError {
    /// The sentence the server answers this with, in its `error` frame (the doc's transcripts
    /// are held to it).
    pub fn sentence(&self) -> String {
        match self {
            DecodeError::UnknownType(t) => format!(
                "Unknown message type {t:?}. Known types: {}.",
                ClientMsg::TYPES.join(", ")
            ),
            other => other.to_string(),
        }
    }

    pub fn code(&self) -> ErrorCode {
        match self {
            DecodeError::TooLarge { .. } => ErrorCode::TooLarge,
            DecodeError::NotJson(_) | DecodeError::NoType => ErrorCode::Malformed,
            DecodeError::UnknownType(_) => ErrorCode::UnknownType,
            DecodeError::BadFields { .. } => ErrorCode::BadFields,
        }
    }
}

/// Decodes one client frame, telling apart "not JSON", "unknown type" and "bad fields".
pub fn decode_client(text: &str) -> Result<ClientMsg, DecodeError> {
    match action_from_text(text) {
        Some(action) => Ok(ClientMsg::Act(action)),
        None => decode_client_the_general_way(text),
    }
}

/// [`decode_client`] without its fast path for plain actions: what it must always agree with
/// (checked by a test and by the `decode_client` fuzz target). Not for other uses.
#[doc(hidden)]
pub fn decode_client_the_general_way(text: &str) -> Result<ClientMsg, DecodeError> {
    let value = parse(text, MAX_CLIENT_FRAME, ClientMsg::TYPES)?;
    // An action is decoded by its own wire shape, so a bad field is reported as exactly as for
    // any other message (the untagged variant alone would only say "no variant matched").
    if Action::TYPES.contains(&value.ty.as_str()) {
        let Parsed { ty, json } = value;
        return crate::action::Wire::deserialize(json)
            .map(ClientMsg::Act)
            .map_err(|e| DecodeError::BadFields {
                ty,
                detail: e.to_string(),
            });
    }
    // The other messages by their own shapes too, for the same precise errors.
    value.decode::<crate::msg::Control>().map(ClientMsg::from)
}

/// The common case, an action that decodes, read straight from the text: what the server reads
/// for every move of every player. It accepts exactly what the general path accepts as an action
/// (the same duplicate-key check, the same wire shape); anything else, including every
/// mistake, is `None` and goes the general way, which says precisely what is wrong.
fn action_from_text(text: &str) -> Option<Action> {
    // An object only: serde also reads a tagged enum from an array (`["move","n"]`), which the
    // general path refuses for having no "type" field.
    let object = text
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .starts_with('{');
    if !object || text.len() > MAX_CLIENT_FRAME || crate::strict_json::check(text).is_err() {
        return None;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let action = crate::action::Wire::deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(action)
}

/// Decodes one server frame (used by clients and bots).
pub fn decode_server(text: &str) -> Result<ServerMsg, DecodeError> {
    parse(text, MAX_SERVER_FRAME, SERVER_TYPES)?.decode()
}

const SERVER_TYPES: &[&str] = &[
    "welcome",
    "snapshot",
    "update",
    "turn_status",
    "dungeons",
    "scores",
    "watching",
    "pause",
    "error",
    "game_over",
    "replaying",
];

/// A frame that is JSON with a known `type`, not yet decoded into its message.
struct Parsed {
    ty: String,
    json: serde_json::Value,
}

impl Parsed {
    fn decode<T: DeserializeOwned>(self) -> Result<T, DecodeError> {
        let Parsed { ty, json } = self;
        serde_json::from_value(json).map_err(|e| DecodeError::BadFields {
            ty,
            detail: e.to_string(),
        })
    }
}

fn parse(text: &str, max: usize, types: &[&str]) -> Result<Parsed, DecodeError> {
    if text.len() > max {
        return Err(DecodeError::TooLarge {
            len: text.len(),
            max,
        });
    }
    // Parse to a generic value first: the size is bounded, and it lets us say precisely what is
    // wrong instead of serde's one error for every case. A key named twice is refused here
    // (serde_json alone would keep the last one), so no message can be read two ways.
    let json = crate::strict_json::parse(text).map_err(|e| DecodeError::NotJson(e.to_string()))?;
    let ty = json
        .get("type")
        .and_then(|t| t.as_str())
        .ok_or(DecodeError::NoType)?
        .to_owned();
    if !types.contains(&ty.as_str()) {
        let mut shown: String = ty.chars().take(32).collect();
        if shown.len() < ty.len() {
            shown.push('…');
        }
        return Err(DecodeError::UnknownType(shown));
    }
    Ok(Parsed { ty, json })
}

/// Encodes a message as one JSON text frame.
///
/// The text is written into a buffer kept by the thread and then copied out at its exact size:
/// a server encodes a frame for every player after every turn, and writing straight into a new
/// string grew it from 128 bytes by doubling, two or three reallocations for each update.
pub fn encode<T: serde::Serialize>(msg: &T) -> String {
    /// A buffer that grew past this (a snapshot, a welcome) is let go after use.
    const KEEP: usize = 16 * 1024;
    thread_local! {
        static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUF.with_borrow_mut(|buf| {
        buf.clear();
        // Serializing these plain data types cannot fail: no maps with non-string keys, no
        // custom serializers that error. serde_json writes only UTF-8.
        let text = match serde_json::to_writer(&mut *buf, msg) {
            Ok(()) => std::str::from_utf8(buf)
                .map(str::to_owned)
                .unwrap_or_else(|e| encode_failed(&e)),
            Err(e) => encode_failed(&e),
        };
        if buf.capacity() > KEEP {
            *buf = Vec::new();
        }
        text
    })
}

fn encode_failed(e: &dyn std::fmt::Display) -> String {
    format!(r#"{{"type":"error","code":"internal","message":"encode failed: {e}"}}"#)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::Dir;

    #[test]
    fn every_client_variant_is_listed_in_types() {
        let all = [
            ClientMsg::Hello {
                version: 1,
                name: "a".into(),
                dungeon: "d".into(),
                token: None,
                password: Some("secret".into()),
                watch: None,
            },
            ClientMsg::ListDungeons,
            ClientMsg::Scores { limit: Some(5) },
            ClientMsg::Chat { text: "hi".into() },
            ClientMsg::Watch {
                name: Some("Bob".into()),
            },
            ClientMsg::LevelUp {
                stat: crate::Stat::Defence,
            },
            ClientMsg::NewCharacter,
            ClientMsg::Resync,
            ClientMsg::Replay {
                game: 12,
                key: Some("k".into()),
                password: None,
            },
            ClientMsg::Seek { turn: 40 },
            ClientMsg::Mark {
                at: crate::Pos::new(3, 4),
            },
        ];
        let all: Vec<ClientMsg> = (all.into_iter())
            .chain(Action::examples().into_iter().map(ClientMsg::Act))
            .collect();
        assert_eq!(all.len(), ClientMsg::TYPES.len());
        for m in all {
            let json = encode(&m);
            assert!(
                json.contains(&format!("\"type\":\"{}\"", m.type_name())),
                "{json}"
            );
            assert!(ClientMsg::TYPES.contains(&m.type_name()));
            assert_eq!(decode_client(&json).unwrap(), m);
        }
    }

    #[test]
    fn a_bad_field_of_any_message_is_named_not_the_untagged_enum() {
        for (text, detail) in [
            (
                r#"{"type":"level_up","stat":"luck"}"#,
                "unknown variant `luck`, expected one of `max_hp`, `attack`, `defence`, `sight`, `save`",
            ),
            (r#"{"type":"level_up"}"#, "missing field `stat`"),
            (r#"{"type":"chat"}"#, "missing field `text`"),
            (
                r#"{"type":"watch","name":5}"#,
                "invalid type: integer `5`, expected a string",
            ),
            (
                r#"{"type":"scores","limit":-1}"#,
                "invalid value: integer `-1`, expected u32",
            ),
            (
                r#"{"type":"hello","version":3,"dungeon":"d"}"#,
                "missing field `name`",
            ),
        ] {
            let e = decode_client(text).expect_err(text);
            let ty = text.split('"').nth(3).unwrap_or_default().to_owned();
            assert_eq!(
                e,
                DecodeError::BadFields {
                    ty,
                    detail: detail.into()
                },
                "{text}"
            );
        }
    }

    #[test]
    fn every_server_message_decodes_as_sent() {
        use crate::view::{CellSet, SelfView, TileGrid, View};
        let me = SelfView {
            effects: vec![crate::view::Effect::Poison],
            ..SelfView::sample(crate::Pos::new(1, 1))
        };
        let view = View {
            inventory: Vec::new(),
            turn: 0,
            depth: 1,
            map: TileGrid::new(2, 2),
            visible: CellSet::default(),
            entities: Vec::new(),
            me,
            party: Vec::new(),
            watchers: Vec::new(),
            marks: Vec::new(),
        };
        // One of each: a variant missing from SERVER_TYPES would be refused by every client.
        let all = [
            ServerMsg::Welcome {
                protocol_version: 1,
                player_id: 1,
                token: Some("t".into()),
                dungeon: "d".into(),
                turn_timeout_ms: 0,
                level_up: Vec::new(),
                watching: None,
                seq: 0,
                view: view.clone(),
                descriptions: Default::default(),
            },
            ServerMsg::Snapshot { seq: 1, view },
            ServerMsg::Update {
                seq: 2,
                turn: 1,
                diff: Default::default(),
                events: Vec::new(),
            },
            ServerMsg::TurnStatus {
                turn: 1,
                waiting_for: Vec::new(),
                timeout_ms: None,
            },
            ServerMsg::Dungeons {
                dungeons: Vec::new(),
            },
            ServerMsg::Scores {
                entries: vec![crate::msg::ScoreEntry {
                    name: "Ann".into(),
                    score: 5420,
                    level: 9,
                    deepest: 10,
                    kills: 80,
                    turns: 9000,
                    victory: true,
                    outcome: "won".into(),
                    dungeon: "crypt".into(),
                    ended: 1_795_000_000,
                    game: None,
                }],
            },
            ServerMsg::Watching { name: None },
            ServerMsg::Pause {
                paused: true,
                message: "The server cannot save; the game is paused.".into(),
            },
            ServerMsg::Error {
                code: ErrorCode::Rejected,
                message: "no".into(),
                reason: Some(crate::Reason::Wall),
            },
            ServerMsg::GameOver {
                game: 3,
                page: "/games/3".into(),
                replay: Some("/replay/3".into()),
                file: "ann-crypt-40.txt".into(),
                dump: "Delve character dump: Ann".into(),
            },
            ServerMsg::Replaying {
                game: 3,
                name: "Ann".into(),
                dungeon: "crypt".into(),
                turns: 40,
                outcome: "won".into(),
                victory: true,
                score: 6000,
                ended: 1_795_000_000,
            },
        ];
        assert_eq!(all.len(), SERVER_TYPES.len());
        for m in all {
            assert_eq!(decode_server(&encode(&m)).unwrap(), m);
        }
    }

    #[test]
    fn decode_errors_are_told_apart() {
        assert!(matches!(
            decode_client("hello?"),
            Err(DecodeError::NotJson(_))
        ));
        assert_eq!(decode_client("[1,2]"), Err(DecodeError::NoType));
        assert_eq!(decode_client(r#"{"type":7}"#), Err(DecodeError::NoType));
        assert_eq!(
            decode_client(r#"{"type":"dance"}"#),
            Err(DecodeError::UnknownType("dance".into()))
        );
        assert!(matches!(
            decode_client(r#"{"type":"move","dir":"up"}"#),
            Err(DecodeError::BadFields { .. })
        ));
        let big = format!(
            r#"{{"type":"wait","pad":"{}"}}"#,
            "x".repeat(MAX_CLIENT_FRAME)
        );
        assert!(matches!(
            decode_client(&big),
            Err(DecodeError::TooLarge { .. })
        ));
        assert_eq!(
            decode_client(r#"{"type":"move","dir":"sw"}"#),
            Ok(ClientMsg::Act(Action::Move { dir: Dir::Sw }))
        );
        // Unknown extra fields are ignored, so clients may add their own bookkeeping.
        assert_eq!(
            decode_client(r#"{"type":"wait","note":1}"#),
            Ok(ClientMsg::Act(Action::Wait))
        );
    }

    #[test]
    fn a_key_named_twice_is_refused_not_run() {
        // serde_json alone keeps the last value: this would run as a `wait`.
        let twice = decode_client(r#"{"type":"resync","type":"wait"}"#);
        match twice {
            Err(e @ DecodeError::NotJson(_)) => {
                assert!(e.to_string().contains("duplicate key"), "{e}");
                assert_eq!(e.code(), ErrorCode::Malformed);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            decode_client(r#"{"type":"move","dir":"n","dir":"s"}"#),
            Err(DecodeError::NotJson(_))
        ));
        assert!(matches!(
            decode_server(r#"{"type":"watching","name":"a","name":"b"}"#),
            Err(DecodeError::NotJson(_))
        ));
    }

    #[test]
    fn an_unknown_type_is_not_echoed_at_length() {
        let long = format!(r#"{{"type":"{}"}}"#, "z".repeat(500));
        match decode_client(&long) {
            Err(DecodeError::UnknownType(t)) => assert!(t.chars().count() <= 33),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_fast_path_for_actions_decodes_exactly_as_the_general_way() {
        let long = format!(
            r#"{{"type":"wait","pad":"{}"}}"#,
            "x".repeat(MAX_CLIENT_FRAME)
        );
        let texts = [
            r#"{"type":"move","dir":"ne"}"#,
            r#" {"dir":"s","type":"move"} "#,
            r#"{"type":"wait"}"#,
            r#"{"type":"use","item":7}"#,
            r#"{"type":"drop","item":4294967295}"#,
            r#"{"type":"m\u006fve","dir":"n"}"#,
            r#"{"type":"move","dir":"n","extra":[1,{"a":2}]}"#,
            // Each of these must be refused, and say why as before.
            r#"["move","n"]"#,
            r#"["wait"]"#,
            r#"{"type":"move","dir":"n","dir":"s"}"#,
            r#"{"type":"move","t\u0079pe":"wait","dir":"n"}"#,
            r#"{"type":"wait","x":{"a":1,"a":2}}"#,
            r#"{"type":"move"}"#,
            r#"{"type":"move","dir":"up"}"#,
            r#"{"type":"use","item":1.0}"#,
            r#"{"type":"use","item":-1}"#,
            r#"{"type":"use","item":"7"}"#,
            r#"{"type":"fly"}"#,
            r#"{"type":7}"#,
            r#"{"dir":"n"}"#,
            r#"{"type":"wait"} x"#,
            r#"{"type":"wait""#,
            "",
            "null",
            long.as_str(),
            r#"{"type":"chat","text":"hi"}"#,
            r#"{"type":"resync"}"#,
        ];
        for text in texts {
            assert_eq!(
                decode_client(text),
                decode_client_the_general_way(text),
                "{text}"
            );
        }
        // The fast path did take the plain actions, and only those.
        assert!(action_from_text(texts[0]).is_some());
        assert!(action_from_text(texts[5]).is_some());
        assert!(action_from_text(r#"["move","n"]"#).is_none());
        assert!(action_from_text(r#"{"type":"move","dir":"n","dir":"s"}"#).is_none());
    }
}
