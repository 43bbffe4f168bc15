//! Every JSON example in the docs is real: it decodes with the protocol's own types, and encoding
//! what it decoded gives the same JSON back (so the docs show no field the types do not have, and
//! miss none they send).
//!
//! What is checked, in README.md and every docs/*.md:
//!
//! - a ```` ```json ```` block holds one message, which must decode as a `ClientMsg` (with
//!   `decode_client`, as the server reads it) or a `ServerMsg` (with `decode_server`);
//! - a ```` ```json fragment ```` block holds one field of a view, `"party":[...]`, and is checked
//!   against that field's type; ```` ```json EntityView ```` (or `ItemView`, `SelfView`,
//!   `PartyMember`, `Watcher`, `View`, `ViewDiff`, `Event`) holds one value of that type;
//!   ```` ```json api ```` holds a game as README's `/api/games` gives it (its keys are held to
//!   the real server's in `record.rs`);
//! - a ```` ```json bad ```` block holds a message that must *not* decode;
//! - an untagged block that starts with `{` holds whole messages as JSON, one after another,
//!   possibly shortened in the ways [`unshorten`] fills back in; each must decode;
//! - in the other fenced blocks (transcripts), each line `→ {...}` or `← {...}` whose JSON is not
//!   shortened (no `...` or `…`) must decode as a client or server message. A `→` line answered on
//!   the next line by an error `malformed`, `unknown_type`, `bad_fields` or `too_large` must fail
//!   to decode with that very code and that very sentence (and the real server answers it so:
//!   `the_servers_answers_to_bad_frames_are_the_docs`); every message type that has fields has
//!   such an example of a bad one;
//! - every `hello` says version 3 and every `welcome` protocol version 3, except a `→` hello
//!   answered by `bad_version`;
//! - an error frame's `message` must fit a string literal of `server/src` or `protocol/src`
//!   (except the library-made texts of `bad_fields`, `malformed` and `too_large`, which are held
//!   to the decoder's own sentences as above);
//! - every relative link leads to a file, and every `#anchor` to one of its headings.
//!
//! A failure names the file and line of each example that does not hold.

use std::path::{Path, PathBuf};

use delve_protocol::{
    ClientMsg, EntityView, Event, ItemView, MarkedSpot, PartyMember, SelfView, ServerMsg, View,
    ViewDiff, Watcher, decode_client, decode_server, encode,
};
use delve_tests::docs::{fits, literals, unshorten};
use serde_json::Value;

/// An error frame's `message` must be a sentence the server can say (the string literals of
/// `server/src` and `protocol/src`). The texts of `bad_fields`, `malformed` and `too_large` come
/// from the JSON and WebSocket libraries, and are left out.
fn error_text_is_real(json: &str, code: &[String]) -> Result<(), String> {
    let Ok(ServerMsg::Error {
        code: c, message, ..
    }) = decode_server(json)
    else {
        return Ok(());
    };
    let name = serde_json::to_value(c).unwrap_or_default();
    let name = name.as_str().unwrap_or_default();
    if ["bad_fields", "malformed", "too_large"].contains(&name) {
        return Ok(());
    }
    if code.iter().any(|pattern| fits(pattern, &message)) {
        Ok(())
    } else {
        Err(format!(
            "no string in server/src or protocol/src can say the `{name}` message {message:?}"
        ))
    }
}

fn code_literals() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut all = literals(&root.join("server/src")).expect("server/src is readable");
    all.extend(literals(&root.join("protocol/src")).expect("protocol/src is readable"));
    all
}

/// One fenced block: where it starts (1-based line of its first content line), its info string
/// and its lines.
struct Block {
    line: usize,
    info: String,
    lines: Vec<String>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(Block, usize)> = None;
    for (i, raw) in text.lines().enumerate() {
        let trimmed = raw.trim_start();
        let indent = raw.len() - trimmed.len();
        match open.take() {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    let block = Block {
                        line: i + 2,
                        info: info.trim().to_owned(),
                        lines: Vec::new(),
                    };
                    open = Some((block, indent));
                }
            }
            Some((mut block, indent)) => {
                if trimmed == "```" {
                    out.push(block);
                } else {
                    let cut = raw.len().min(indent);
                    let line = if raw[..cut].trim().is_empty() {
                        &raw[cut..]
                    } else {
                        raw
                    };
                    block.lines.push(line.to_owned());
                    open = Some((block, indent));
                }
            }
        }
    }
    out
}

/// `doc` and `again` say the same, reading a missing field as `null` (optional fields are left
/// out when empty). Returns the path of the first difference.
fn differs(doc: &Value, again: &Value, path: &str) -> Option<String> {
    match (doc, again) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| {
                let (x, y) = (
                    a.get(k).unwrap_or(&Value::Null),
                    b.get(k).unwrap_or(&Value::Null),
                );
                differs(x, y, &format!("{path}.{k}"))
            })
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| differs(x, y, &format!("{path}[{i}]"))),
        _ if doc == again => None,
        _ => Some(format!("{path}: the doc has {doc}, the types give {again}")),
    }
}

/// Decodes `text` as a `$t`, and checks that encoding it gives the same JSON and decodes to an
/// equal value. (A macro rather than a generic function, so this crate needs no serde of its own.)
macro_rules! round_trip {
    ($t:ty, $text:expr) => {{
        let text: &str = $text;
        'check: {
            let doc: Value = match serde_json::from_str(text) {
                Ok(v) => v,
                Err(e) => break 'check Err(format!("not JSON: {e}")),
            };
            let value: $t = match serde_json::from_value(doc.clone()) {
                Ok(v) => v,
                Err(e) => break 'check Err(e.to_string()),
            };
            let again = match serde_json::to_value(&value) {
                Ok(v) => v,
                Err(e) => break 'check Err(e.to_string()),
            };
            if let Some(d) = differs(&doc, &again, "") {
                break 'check Err(format!("re-encoding changes it at {d}"));
            }
            match serde_json::from_value::<$t>(again) {
                Ok(back) if back == value => Ok(()),
                Ok(back) => Err(format!(
                    "decode, encode, decode gives {back:?}, not {value:?}"
                )),
                Err(e) => Err(e.to_string()),
            }
        }
    }};
}

/// A message, as the server (client messages) or a client (server messages) would read it.
fn message(text: &str) -> Result<(), String> {
    let client = decode_client(text);
    let server = decode_server(text);
    match (client, server) {
        (Ok(msg), _) => {
            let back = decode_client(&encode(&msg)).map_err(|e| e.to_string())?;
            if back != msg {
                return Err(format!("encode then decode gives {back:?}, not {msg:?}"));
            }
            round_trip!(ClientMsg, text)
        }
        (_, Ok(msg)) => {
            let back = decode_server(&encode(&msg)).map_err(|e| e.to_string())?;
            if back != msg {
                return Err(format!("encode then decode gives {back:?}, not {msg:?}"));
            }
            round_trip!(ServerMsg, text)
        }
        (Err(c), Err(s)) => Err(format!(
            "decodes neither as a client message ({c}) nor as a server message ({s})"
        )),
    }
}

/// `"field":value` of a view, checked against the field's type.
fn fragment(text: &str) -> Result<(), String> {
    let wrapped: Value =
        serde_json::from_str(&format!("{{{text}}}")).map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(fields) = wrapped else {
        return Err("not a \"field\":value fragment".into());
    };
    if fields.is_empty() {
        return Err("an empty fragment".into());
    }
    for (name, value) in fields {
        let text = value.to_string();
        match name.as_str() {
            "party" => round_trip!(Vec<PartyMember>, &text),
            "watchers" => round_trip!(Vec<Watcher>, &text),
            "inventory" => round_trip!(Vec<ItemView>, &text),
            "marks" => round_trip!(Vec<MarkedSpot>, &text),
            "entities" => round_trip!(Vec<EntityView>, &text),
            "me" => round_trip!(SelfView, &text),
            "diff" => round_trip!(ViewDiff, &text),
            "events" => round_trip!(Vec<Event>, &text),
            other => Err(format!("the test knows no view field {other:?}")),
        }
        .map_err(|e| format!("field {name:?}: {e}"))?;
    }
    Ok(())
}

fn typed(kind: &str, text: &str) -> Result<(), String> {
    match kind {
        "EntityView" => round_trip!(EntityView, text),
        "ItemView" => round_trip!(ItemView, text),
        "SelfView" => round_trip!(SelfView, text),
        "PartyMember" => round_trip!(PartyMember, text),
        "Watcher" => round_trip!(Watcher, text),
        "View" => round_trip!(View, text),
        "ViewDiff" => round_trip!(ViewDiff, text),
        "Event" => round_trip!(Event, text),
        // A game as `/api/games` lists it (README): plain JSON here; its keys are held to a
        // real server's answer in `record.rs`.
        "api" => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(_)) => Ok(()),
            Ok(_) => Err("an /api/games game is a JSON object".into()),
            Err(e) => Err(format!("not JSON: {e}")),
        },
        other => Err(format!(
            "unknown info string `json {other}`: use json, json fragment, json bad or json TYPE"
        )),
    }
}

/// The JSON value a transcript line starts with, if it is a whole one.
fn leading_json(rest: &str) -> Option<Result<String, String>> {
    if !rest.starts_with('{') || rest.contains("...") || rest.contains('…') {
        return None;
    }
    let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
    Some(match values.next() {
        Some(Ok(_)) => Ok(rest[..values.byte_offset()].to_owned()),
        Some(Err(e)) => Err(format!("not JSON: {e}")),
        None => Err("no JSON".into()),
    })
}

/// The error code of a `← {"type":"error",...}` line, if it is one.
fn error_code(line: &str) -> Option<String> {
    error_of(line).map(|(code, _)| code)
}

/// The code and message of a `← {"type":"error",...}` line, if it is one.
fn error_of(line: &str) -> Option<(String, String)> {
    let rest = line.trim_start().strip_prefix('←')?.trim_start();
    let json = leading_json(rest)?.ok()?;
    let v: Value = serde_json::from_str(&json).ok()?;
    if v["type"] != "error" {
        return None;
    }
    Some((
        v["code"].as_str()?.to_owned(),
        v["message"].as_str()?.to_owned(),
    ))
}

/// The codes the decoder itself answers with, whose sentences are the decoder's.
const DECODER_CODES: [&str; 4] = ["malformed", "unknown_type", "bad_fields", "too_large"];

fn transcript(
    block: &Block,
    file: &str,
    code: &[String],
    failures: &mut Vec<String>,
    bad_fields: &mut std::collections::BTreeSet<String>,
) -> usize {
    let mut checked = 0;
    for (k, line) in block.lines.iter().enumerate() {
        let at = block.line + k;
        let trimmed = line.trim_start();
        let (client, rest) = if let Some(r) = trimmed.strip_prefix('→') {
            (true, r.trim_start())
        } else if let Some(r) = trimmed.strip_prefix('←') {
            (false, r.trim_start())
        } else {
            continue;
        };
        let json = match leading_json(rest) {
            None => continue,
            Some(Err(e)) => {
                failures.push(format!("{file}:{at}: {e}"));
                continue;
            }
            Some(Ok(json)) => json,
        };
        checked += 1;
        if client {
            let answer = block.lines.get(k + 1).and_then(|l| error_of(l));
            let wrong_version = answer.as_ref().is_some_and(|(c, _)| c == "bad_version");
            if let (false, Err(e)) = (wrong_version, says_version_3(&json)) {
                failures.push(format!("{file}:{at}: {e}"));
            }
            let refused = answer.filter(|(c, _)| DECODER_CODES.contains(&c.as_str()));
            match (refused, decode_client(&json)) {
                (Some((code, _)), Ok(msg)) => failures.push(format!(
                    "{file}:{at}: the doc says the server answers `{code}`, but it decodes as {msg:?}"
                )),
                (Some((code, said)), Err(e)) => {
                    let got = serde_json::to_value(e.code()).unwrap_or_default();
                    if got != Value::String(code.clone()) {
                        failures.push(format!(
                            "{file}:{at}: the doc says `{code}`, the decoder says {got} ({e})"
                        ));
                    } else if said != e.sentence() {
                        failures.push(format!(
                            "{file}:{}: the doc says {said:?}, the server says {:?}",
                            at + 1,
                            e.sentence()
                        ));
                    }
                    if let delve_protocol::DecodeError::BadFields { ty, .. } = e {
                        bad_fields.insert(ty);
                    }
                }
                (None, Ok(_)) => {
                    if let Err(e) = round_trip!(ClientMsg, &json) {
                        failures.push(format!("{file}:{at}: {e}"));
                    }
                }
                (None, Err(e)) => failures.push(format!(
                    "{file}:{at}: does not decode as a client message: {e}"
                )),
            }
        } else {
            let checked = decode_server(&json)
                .map_err(|e| format!("does not decode as a server message: {e}"))
                .and_then(|_| round_trip!(ServerMsg, &json))
                .and_then(|()| error_text_is_real(&json, code))
                .and_then(|()| says_version_3(&json));
            if let Err(e) = checked {
                failures.push(format!("{file}:{at}: {e}"));
            }
        }
    }
    checked
}

/// A `hello` must say version 3, and a `welcome` protocol version 3.
fn says_version_3(json: &str) -> Result<(), String> {
    let v: Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let (field, said) = match v["type"].as_str() {
        Some("hello") => ("version", &v["version"]),
        Some("welcome") => ("protocol_version", &v["protocol_version"]),
        _ => return Ok(()),
    };
    if said.as_u64() == Some(u64::from(delve_protocol::PROTOCOL_VERSION)) {
        Ok(())
    } else {
        Err(format!(
            "{field} is {said}: this document is about version {}",
            delve_protocol::PROTOCOL_VERSION
        ))
    }
}

/// An untagged block of JSON messages (see the module's docs). `first_room` is kept from the
/// first welcome, for the shortening that refers to it.
fn untagged(
    block: &Block,
    file: &str,
    code: &[String],
    first_room: &mut Option<Vec<String>>,
) -> Result<usize, String> {
    let text = unshorten(&block.lines, first_room.as_deref())?;
    let mut checked = 0;
    let values = serde_json::Deserializer::from_str(&text).into_iter::<Value>();
    for value in values {
        let value = value.map_err(|e| format!("{file}: not JSON once filled in: {e}"))?;
        let json = value.to_string();
        message(&json)
            .and_then(|()| error_text_is_real(&json, code))
            .and_then(|()| says_version_3(&json))?;
        if value["type"] == "welcome" && first_room.is_none() {
            let rows = value["view"]["map"]["rows"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            *first_room = Some(
                rows.iter()
                    .filter_map(|r| r.as_str().map(str::to_owned))
                    .collect(),
            );
        }
        checked += 1;
    }
    Ok(checked)
}

fn doc_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ is readable")
        .map(|e| e.expect("a docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

#[test]
fn every_json_example_in_the_docs_decodes_with_the_real_types() {
    let mut failures = Vec::new();
    let (mut json_blocks, mut transcript_lines) = (0, 0);
    let mut protocol_blocks = 0;
    let mut untagged_messages = 0;
    let mut bad_fields = std::collections::BTreeSet::new();
    let code = code_literals();
    for path in doc_files() {
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let file = path
            .strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
            .unwrap_or(&path)
            .display()
            .to_string();
        let mut first_room = None;
        for block in blocks(&text) {
            let mut words = block.info.split_whitespace();
            let starts_with_json = (block.lines.iter().find(|l| !l.trim().is_empty()))
                .is_some_and(|l| l.starts_with('{'));
            if block.info.is_empty() && starts_with_json {
                match untagged(&block, &file, &code, &mut first_room) {
                    Ok(n) => untagged_messages += n,
                    Err(e) => failures.push(format!("{file}:{}: untagged block: {e}", block.line)),
                }
                continue;
            }
            if words.next() != Some("json") {
                transcript_lines +=
                    transcript(&block, &file, &code, &mut failures, &mut bad_fields);
                continue;
            }
            json_blocks += 1;
            if file.ends_with("PROTOCOL.md") {
                protocol_blocks += 1;
            }
            let body = block.lines.join("\n");
            let result = match words.next() {
                None => message(&body)
                    .and_then(|()| error_text_is_real(&body, &code))
                    .and_then(|()| says_version_3(&body)),
                Some("fragment") => fragment(&body),
                Some("bad") => match message(&body) {
                    Ok(()) => Err("marked `json bad`, but it decodes".into()),
                    Err(_) => Ok(()),
                },
                Some(kind) => typed(kind, &body),
            };
            if let Err(e) = result {
                failures.push(format!(
                    "{file}:{}: ```{} block: {e}",
                    block.line, block.info
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} example(s) in the docs do not hold:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        protocol_blocks >= 50,
        "only {protocol_blocks} json blocks in PROTOCOL.md: is the parser still finding them?"
    );
    assert!(
        transcript_lines >= 40,
        "only {transcript_lines} transcript lines checked: is the parser still finding them?"
    );
    assert!(
        untagged_messages >= 10,
        "only {untagged_messages} messages in untagged blocks: is the parser still finding them?"
    );
    // Every message type with fields has a bad one in the docs, answered as the server does.
    let with_fields: Vec<&str> = ClientMsg::TYPES
        .iter()
        .copied()
        .filter(|t| {
            ["scores", "watch"].contains(t)
                || decode_client(&format!(r#"{{"type":"{t}"}}"#)).is_err()
        })
        .collect();
    let missing: Vec<&&str> = with_fields
        .iter()
        .filter(|t| !bad_fields.contains(**t))
        .collect();
    assert!(
        missing.is_empty(),
        "no example of a bad field in PROTOCOL.md's transcripts for {missing:?}"
    );
    eprintln!(
        "{json_blocks} json blocks, {untagged_messages} untagged messages and {transcript_lines} transcript lines checked"
    );
}

/// Every message a client may send, each action included, has an example in PROTOCOL.md that
/// decodes as that message: a new action is not done until a bot's author can read how to send
/// it (`Action::TYPES` and `ClientMsg::TYPES` are made from the one list of actions).
#[test]
fn every_client_message_has_an_example_in_the_protocol_docs() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/PROTOCOL.md");
    let text = std::fs::read_to_string(&path).expect("docs/PROTOCOL.md is readable");
    let mut shown = std::collections::BTreeSet::new();
    for block in blocks(&text) {
        let body = block.lines.join("\n");
        if block.info.trim() == "json"
            && let Ok(msg) = decode_client(&body)
        {
            shown.insert(msg.type_name());
        }
        for line in &block.lines {
            if let Some(Ok(json)) = line
                .trim_start()
                .strip_prefix('→')
                .map(str::trim_start)
                .and_then(leading_json)
                && let Ok(msg) = decode_client(&json)
            {
                shown.insert(msg.type_name());
            }
        }
    }
    let missing: Vec<&str> = (ClientMsg::TYPES.iter())
        .copied()
        .filter(|t| !shown.contains(t))
        .collect();
    assert!(
        missing.is_empty(),
        "no example in docs/PROTOCOL.md of the client message(s) {missing:?}"
    );
}

#[test]
fn the_checker_catches_a_broken_example() {
    // The checks above would pass vacuously if they accepted anything: show that they do not.
    assert!(message(r#"{"type":"move","dir":"e"}"#).is_ok());
    assert!(message(r#"{"type":"move","dir":"up"}"#).is_err());
    assert!(
        message(r#"{"type":"turn_status","turn":1,"waiting_for":[],"timeout_ms":null,"extra":1}"#)
            .is_err(),
        "a field the types do not have is caught"
    );
    assert!(fragment(r#""party":[{"id":1}]"#).is_err());
    assert!(typed("Watcher", r#"{"name":"Wes","watching":"Ann"}"#).is_ok());
    let said = serde_json::to_string(
        &decode_client(r#"{"type":"dance"}"#)
            .expect_err("no such type")
            .sentence(),
    )
    .expect("a string");
    let doc = format!(
        "text\n```json\n{{\"type\":\"wait\"}}\n```\n  ```\n  → {{\"type\":\"dance\"}}\n  ← {{\"type\":\"error\",\"code\":\"unknown_type\",\"message\":{said}}}\n  ```\n"
    );
    let doc = doc.as_str();
    let found = blocks(doc);
    assert_eq!(found.len(), 2);
    assert_eq!((found[0].line, found[0].info.as_str()), (3, "json"));
    let mut failures = Vec::new();
    let code = vec!["Unknown message type \0. Known types: \0.".to_owned()];
    let mut bad = std::collections::BTreeSet::new();
    assert_eq!(
        transcript(&found[1], "x.md", &code, &mut failures, &mut bad),
        2
    );
    assert!(failures.is_empty(), "{failures:?}");
    let wrong = "```\n→ {\"type\":\"dance\"}\n← {\"type\":\"error\",\"code\":\"bad_fields\",\"message\":\"x\"}\n```\n";
    transcript(&blocks(wrong)[0], "x.md", &code, &mut failures, &mut bad);
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(failures[0].starts_with("x.md:2:"), "{failures:?}");
    let said = r#"{"type":"error","code":"rejected","message":"There is a wall in the way."}"#;
    assert!(
        error_text_is_real(said, &code).is_err(),
        "a sentence the code lacks is caught"
    );
    assert!(error_text_is_real(said, &["There is a \0 in the way.".to_owned()]).is_ok());
    // A sentence the decoder does not say, a version other than 3, and a shortening the check
    // cannot fill in are caught too.
    let mut failures = Vec::new();
    let other = "```\n→ {\"type\":\"chat\"}\n← {\"type\":\"error\",\"code\":\"bad_fields\",\"message\":\"text is missing\"}\n```\n";
    transcript(&blocks(other)[0], "x.md", &code, &mut failures, &mut bad);
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(says_version_3(r#"{"type":"hello","version":2,"name":"a","dungeon":"d"}"#).is_err());
    let shortened = |text: &str| {
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        unshorten(&lines, None)
    };
    let rows =
        shortened("[\n  … rows 0 to 1: 2 strings of 3 spaces …\n  \"#.#\"\n]").expect("filled in");
    assert_eq!(
        serde_json::from_str::<Vec<String>>(&rows).expect("JSON"),
        ["   ", "   ", "#.#"]
    );
    assert!(shortened("{\"view\": … Ann's view … }").is_err());
}

/// The anchors GitHub makes of a Markdown file's headings (outside fenced blocks).
fn anchors(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let Some(title) = line.strip_prefix('#') else {
            continue;
        };
        if fenced {
            continue;
        }
        let title = title.trim_start_matches('#').trim().to_lowercase();
        out.push(
            title
                .chars()
                .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
                .map(|c| if c == ' ' { '-' } else { c })
                .collect(),
        );
    }
    out
}

#[test]
fn every_link_in_the_docs_leads_somewhere() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in doc_files() {
        let text = std::fs::read_to_string(&path).expect("a doc is readable");
        let file = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        for (n, line) in text.lines().enumerate() {
            for piece in line.split("](").skip(1) {
                let Some(link) = piece.split(')').next() else {
                    continue;
                };
                if link.starts_with("http") || link.contains(' ') || link.is_empty() {
                    continue;
                }
                checked += 1;
                let (target, anchor) = link.split_once('#').unwrap_or((link, ""));
                let dir = path.parent().unwrap_or(&root);
                let target_path = if target.is_empty() {
                    path.clone()
                } else {
                    dir.join(target)
                };
                if !target_path.exists() {
                    failures.push(format!("{file}:{}: {link}: no such file", n + 1));
                    continue;
                }
                if anchor.is_empty() {
                    continue;
                }
                let target_text = std::fs::read_to_string(&target_path).unwrap_or_default();
                if !anchors(&target_text).iter().any(|a| a == anchor) {
                    failures.push(format!("{file}:{}: {link}: no such heading", n + 1));
                }
            }
        }
    }
    assert!(
        checked >= 100,
        "only {checked} links found: is the parser still finding them?"
    );
    assert!(
        failures.is_empty(),
        "{} link(s) in the docs lead nowhere:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        anchors(
            "# 7. Turns on the wire\n```\n# not a heading\n```\n### `pick_up`, `use`: the pack"
        ),
        ["7-turns-on-the-wire", "pick_up-use-the-pack"]
    );
}

/// Every bad frame of PROTOCOL.md's transcripts (a `→` line answered by one of the decoder's
/// codes), sent to a real server before `hello`, gets exactly the documented answer.
#[tokio::test]
async fn the_servers_answers_to_bad_frames_are_the_docs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("docs/PROTOCOL.md")).expect("readable");
    let mut pairs = Vec::new();
    for block in blocks(&text).iter().filter(|b| b.info.is_empty()) {
        for (k, line) in block.lines.iter().enumerate() {
            let Some(rest) = line.trim_start().strip_prefix('→') else {
                continue;
            };
            let Some(Ok(json)) = leading_json(rest.trim_start()) else {
                continue;
            };
            let Some(answer) = block.lines.get(k + 1) else {
                continue;
            };
            if error_code(answer).is_some_and(|c| DECODER_CODES.contains(&c.as_str())) {
                let said = answer.trim_start().trim_start_matches('←').trim_start();
                let said = leading_json(said)
                    .and_then(Result::ok)
                    .expect("a whole error frame");
                pairs.push((json, said));
            }
        }
    }
    assert!(pairs.len() >= 15, "only {} bad frames found", pairs.len());
    let server = delve_tests::TestServer::start(delve_server::net::ServerConfig {
        msgs_per_sec: 1000,
        msg_burst: 1000,
        ..delve_tests::test_config()
    })
    .await;
    let mut session = delve_client::net::Session::connect(&server.url)
        .await
        .expect("connects");
    for (sent, said) in &pairs {
        session
            .send_raw(tokio_tungstenite::tungstenite::Message::text(sent.clone()))
            .await
            .expect("sent");
        let got = delve_tests::within(session.recv())
            .await
            .expect("an answer");
        let said = decode_server(said).expect("the doc's answer decodes");
        assert_eq!(got, said, "the server's answer to {sent}");
    }
    drop(session);
    server.stop().await;
}
