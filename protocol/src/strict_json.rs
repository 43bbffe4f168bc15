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
}
