//! JSON text to a [`serde_json::Value`], refusing an object that names a key twice.
//!
//! serde_json keeps the last of two equal keys, so `{"type":"resync","type":"wait"}` would run
//! as a `wait` while a proxy, a log reader or another JSON library may see a `resync`. A message
//! that can be read two ways is refused instead, at any depth.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Parses `text` as JSON, with serde_json's own limits (nesting depth 128), refusing duplicate
/// keys. The error says where, like serde_json's.
pub fn parse(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let Strict(value) = Strict::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// A JSON value read without duplicate keys.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Strict, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // JSON text has no NaN or infinity, so this is always a number.
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                let shown: String = key.chars().take(32).collect();
                return Err(de::Error::custom(format_args!("duplicate key {shown:?}")));
            }
            let Strict(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// Checks that `text` is JSON that [`parse`] would read (no key named twice, serde_json's
/// limits), building nothing: keys are compared where they lie in the text, values skipped.
/// For the hot path, where the message is then read straight from the text. ([`parse`] keeps
/// its own one pass rather than calling this and then serde_json: it reads every server frame a
/// client or bot gets.)
pub fn check(text: &str) -> Result<(), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_any(Checker)?;
    de.end()
}

/// Visits a JSON value, refusing an object that names a key twice, keeping nothing.
struct Checker;

impl<'de> Deserialize<'de> for Checker {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Checker, D::Error> {
        deserializer.deserialize_any(Checker)
    }
}

impl<'de> Visitor<'de> for Checker {
    type Value = Checker;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Checker, E> {
        Ok(Checker)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Checker, E> {
        Ok(Checker)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Checker, E> {
        Ok(Checker)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Checker, E> {
        Ok(Checker)
    }

    fn visit_str<E>(self, _: &str) -> Result<Checker, E> {
        Ok(Checker)
    }

    fn visit_unit<E>(self) -> Result<Checker, E> {
        Ok(Checker)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checker, A::Error> {
        while seq.next_element::<Checker>()?.is_some() {}
        Ok(Checker)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checker, A::Error> {
        let mut keys: Vec<Key<'de>> = Vec::new();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            if keys.contains(&key) {
                let shown: String = key.as_str().chars().take(32).collect();
                return Err(de::Error::custom(format_args!("duplicate key {shown:?}")));
            }
            map.next_value::<Checker>()?;
            keys.push(key);
        }
        Ok(Checker)
    }
}

/// An object's key: borrowed from the text unless it holds escapes.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Key<'_> {
    fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(s) => s,
            Key::Owned(s) => s,
        }
    }
}

/// Keys are equal by their text, however they were read (`"type"` and `"\u0074ype"`).
impl PartialEq for Key<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Key<'de>, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string key")
            }

            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key::Borrowed(v))
            }

            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key::Owned(v.to_owned()))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_serde_json_reads() {
        for text in [
            r#"{"type":"move","dir":"ne"}"#,
            r#"[1,-2,3.5,true,null,"x",{"a":{"b":[]}}]"#,
            "  42 ",
            r#""\u00e9""#,
            r#"{"a":18446744073709551615,"b":-9223372036854775808}"#,
        ] {
            let want: Value = serde_json::from_str(text).unwrap();
            assert_eq!(parse(text).unwrap(), want, "{text}");
        }
    }

    #[test]
    fn refuses_a_key_named_twice_at_any_depth() {
        for text in [
            r#"{"type":"resync","type":"wait"}"#,
            r#"{"type":"hello","x":{"a":1,"a":1}}"#,
            r#"[{"ok":1},{"k":[{"z":0,"z":0}]}]"#,
            // The same key after JSON escapes is the same key.
            r#"{"type":"wait","\u0074ype":"resync"}"#,
        ] {
            let err = parse(text).unwrap_err().to_string();
            assert!(err.contains("duplicate key"), "{text}: {err}");
        }
        // Equal keys in different objects are fine.
        assert!(parse(r#"{"a":{"a":1},"b":{"a":2}}"#).is_ok());
    }

    #[test]
    fn refuses_what_serde_json_refuses() {
        for text in ["", "{", r#"{"a":1}x"#, "[1,]", "nan"] {
            assert!(parse(text).is_err(), "{text}");
        }
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(parse(&deep).is_err(), "nesting beyond serde_json's limit");
    }

    #[test]
    fn check_accepts_and_refuses_what_parse_does() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        for text in [
            r#"{"type":"move","dir":"ne"}"#,
            r#"[1,-2,3.5,true,null,"x",{"a":{"b":[]}}]"#,
            "  42 ",
            r#"{"a":{"a":1},"b":{"a":2}}"#,
            r#"{"type":"resync","type":"wait"}"#,
            r#"{"type":"hello","x":{"a":1,"a":1}}"#,
            r#"[{"ok":1},{"k":[{"z":0,"z":0}]}]"#,
            r#"{"type":"wait","\u0074ype":"resync"}"#,
            r#"{"\u0074ype":"wait","type":"resync"}"#,
            r#"{"\u0061":1,"\u0061":2}"#,
            "",
            "{",
            r#"{"a":1}x"#,
            "[1,]",
            "nan",
            deep.as_str(),
        ] {
            assert_eq!(check(text).is_ok(), parse(text).is_ok(), "{text}");
            if let Err(e) = parse(text) {
                let same = check(text).unwrap_err().to_string();
                assert_eq!(same, e.to_string(), "{text}");
            }
        }
    }
}
