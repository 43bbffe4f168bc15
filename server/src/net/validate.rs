//! Checks on names and tokens a client sends, and the tokens the server makes.

use delve_protocol::{MAX_DUNGEON_CHARS, MAX_NAME_CHARS};
use rand::RngExt;
use subtle::ConstantTimeEq;

/// A player name: 1–20 characters of letters, digits, spaces and `-_.'`, not starting or ending
/// with a space. Returns the reason it is refused.
pub fn check_name(name: &str) -> Result<(), String> {
    let n = name.chars().count();
    if n == 0 || n > MAX_NAME_CHARS {
        return Err(format!(
            "A name must be 1 to {MAX_NAME_CHARS} characters long."
        ));
    }
    if name.starts_with(' ') || name.ends_with(' ') {
        return Err("A name cannot start or end with a space.".into());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.' | '\'')))
    {
        return Err(format!(
            "A name may hold letters, digits, spaces and - _ . ' only, not {c:?}."
        ));
    }
    Ok(())
}

/// A dungeon name: 1–32 characters of ASCII letters, digits, `-` and `_`.
pub fn check_dungeon(name: &str) -> Result<(), String> {
    let n = name.chars().count();
    if n == 0 || n > MAX_DUNGEON_CHARS {
        return Err(format!(
            "A dungeon name must be 1 to {MAX_DUNGEON_CHARS} characters long."
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_')))
    {
        return Err(format!(
            "A dungeon name may hold ASCII letters, digits, - and _ only, not {c:?}."
        ));
    }
    Ok(())
}

/// A new resume token: 128 random bits from the OS-seeded generator, as 32 hex digits.
pub fn new_token() -> String {
    let bytes: [u8; 16] = rand::rng().random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares two tokens in time that does not depend on where they differ.
pub fn token_eq(a: &str, b: &str) -> bool {
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(check_name("Ann").is_ok());
        assert!(check_name("Zoë O'Neil-2").is_ok());
        assert!(check_name("").is_err());
        assert!(check_name(" Ann").is_err());
        assert!(check_name("a\u{7}b").is_err());
        assert!(check_name("<script>").is_err());
        assert!(check_name(&"x".repeat(21)).is_err());
        assert!(check_name(&"é".repeat(20)).is_ok());
    }

    #[test]
    fn dungeons() {
        assert!(check_dungeon("crypt-2_b").is_ok());
        assert!(check_dungeon("").is_err());
        assert!(check_dungeon("has space").is_err());
        assert!(check_dungeon("../etc").is_err());
        assert!(check_dungeon(&"d".repeat(33)).is_err());
    }

    #[test]
    fn tokens_are_random_hex_and_compare_exactly() {
        let a = new_token();
        let b = new_token();
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert!(token_eq(&a, &a.clone()));
        assert!(!token_eq(&a, &b));
        assert!(!token_eq(&a, &a[..31]));
    }
}
