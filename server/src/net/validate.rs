//! Checks on names and tokens a client sends, and the tokens the server makes.

use delve_protocol::{MAX_DUNGEON_CHARS, MAX_NAME_CHARS};
use rand::RngExt;
use subtle::ConstantTimeEq;
use unicode_security::MixedScript;

/// Characters that show nothing or turn the text around them: zero-width spaces and joiners,
/// bidirectional marks, embeddings, overrides and isolates, the byte order mark, and the other
/// default-ignorable code points of Unicode (some of which, like the Hangul fillers, count as
/// letters). In a name they would make two names look alike; in chat they could reverse the
/// lines of others.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFF8}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// A chat line without its invisible and bidirectional control characters (see
/// [`is_invisible`]), except where they are part of an emoji: a zero-width joiner between two
/// emoji ("👩‍🚀" is 👩, joiner, 🚀), a variation selector right after an emoji or a keycap's
/// digit ("❤️", "1️⃣"), and the tag characters of a subdivision flag (🏴 + tags + cancel tag).
/// None of these can hide text or turn it around. The dungeon then removes control characters
/// and trims the line.
pub fn strip_invisible(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    // Inside a flag's tag sequence, which began with a black flag.
    let mut in_flag_tags = false;
    for (k, &c) in chars.iter().enumerate() {
        let before = out.chars().next_back();
        let keep = match c {
            _ if !is_invisible(c) => true,
            '\u{200D}' => {
                before.is_some_and(|b| is_emoji(b) || b == '\u{FE0F}')
                    && chars.get(k + 1).is_some_and(|&n| is_emoji(n))
            }
            '\u{FE0E}' | '\u{FE0F}' => {
                before.is_some_and(|b| is_emoji(b) || b.is_ascii_digit() || matches!(b, '#' | '*'))
            }
            '\u{E0020}'..='\u{E007F}' => {
                in_flag_tags |= before == Some('\u{1F3F4}');
                in_flag_tags
            }
            _ => false,
        };
        if c == '\u{E007F}' || !matches!(c, '\u{E0020}'..='\u{E007F}') {
            in_flag_tags = false;
        }
        if keep {
            out.push(c);
        }
    }
    out
}

/// Whether two different names look the same: their Unicode TR 39 skeletons (what each
/// character would be mistaken for: a Cyrillic "а" for a Latin "a", "rn" for "m") are equal,
/// case aside. A name of one script can still imitate one of another ("Рор" in Cyrillic is
/// "Pop"); names that are equal ignoring case are not look-alikes but the same name.
pub fn looks_alike(a: &str, b: &str) -> bool {
    use unicode_security::confusable_detection::skeleton;
    // Skeletons before and after lowering the case: a Greek capital Ν passes for an N, and a
    // Cyrillic small р for a p.
    let folded = |s: &str| skeleton(s).collect::<String>().to_lowercase();
    let lowered = |s: &str| skeleton(&s.to_lowercase()).collect::<String>();
    a.to_lowercase() != b.to_lowercase() && (folded(a) == folded(b) || lowered(a) == lowered(b))
}

/// Emoji and the pictographs and symbols emoji are made of (with skin tones and regional
/// indicators): the blocks Unicode gives them, which is all a joiner needs to be told apart.
fn is_emoji(c: char) -> bool {
    matches!(
        c,
        '\u{00A9}'
            | '\u{00AE}'
            | '\u{203C}'
            | '\u{2049}'
            | '\u{2122}'
            | '\u{2139}'
            | '\u{2194}'..='\u{21AA}'
            | '\u{231A}'..='\u{23FF}'
            | '\u{24C2}'
            | '\u{25AA}'..='\u{27BF}'
            | '\u{2934}'..='\u{2935}'
            | '\u{2B05}'..='\u{2B55}'
            | '\u{3030}'
            | '\u{303D}'
            | '\u{3297}'
            | '\u{3299}'
            | '\u{1F000}'..='\u{1FAFF}'
    )
}

/// A player name: 1–20 characters of letters, digits, spaces and `-_.'`, not starting or ending
/// with a space, with no invisible character, all its letters of one script (Unicode TR 39's
/// single-script test: digits and punctuation go with any script, and Japanese may mix its
/// kana with Han), so "Аnn" with a Cyrillic А cannot pose as "Ann". Returns the reason it is
/// refused.
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
    // Checked after the allow-list but separately: some invisible characters are letters.
    if let Some(c) = name.chars().find(|&c| is_invisible(c)) {
        return Err(format!(
            "A name cannot hold invisible characters such as U+{:04X}.",
            u32::from(c)
        ));
    }
    if !name.is_single_script() {
        return Err(
            "A name must be written in one script: letters of two (such as Latin and \
             Cyrillic) can imitate another name."
                .into(),
        );
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
    fn names_of_one_script_pass() {
        for name in [
            "Ann",
            "Зоя",
            "Ἀθηνᾶ",
            "山田 花子",
            "やまだ",
            "ヤマダ太郎",
            "Łukasz-2",
            "O'Hara",
        ] {
            assert_eq!(check_name(name), Ok(()), "{name}");
        }
    }

    #[test]
    fn look_alike_letters_of_another_script_are_refused() {
        // A Cyrillic А (U+0410), a Greek Α (U+0391), a Cyrillic о (U+043E) beside Latin.
        for name in ["\u{0410}nn", "\u{0391}nn", "B\u{043E}b", "Ann \u{0410}"] {
            let why = check_name(name).unwrap_err();
            assert!(why.contains("one script"), "{name}: {why}");
        }
    }

    #[test]
    fn invisible_and_bidirectional_characters_are_refused_in_names() {
        for c in [
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{200E}',
            '\u{200F}',
            '\u{202A}',
            '\u{202E}',
            '\u{2066}',
            '\u{2069}',
            '\u{FEFF}',
            '\u{3164}',
            '\u{00AD}',
            '\u{E0041}',
        ] {
            assert!(
                check_name(&format!("An{c}n")).is_err(),
                "U+{:04X}",
                u32::from(c)
            );
        }
        // The Hangul filler is a letter, so only the invisible check catches it.
        assert!(check_name("Ann\u{3164}").unwrap_err().contains("invisible"));
    }

    #[test]
    fn chat_loses_its_invisible_characters_only() {
        assert_eq!(
            strip_invisible("hi \u{202E}olleh\u{202C} \u{200B}all\u{FEFF} é 山"),
            "hi olleh all é 山"
        );
        assert_eq!(strip_invisible("\u{2066}\u{2069}"), "");
    }

    #[test]
    fn names_of_another_script_that_look_the_same_are_look_alikes() {
        // Cyrillic Р, о, р; Greek Α, Ν, Ν.
        assert!(looks_alike("\u{0420}\u{043E}\u{0440}", "Pop"));
        assert!(looks_alike("\u{0391}\u{039D}\u{039D}", "ann"));
        assert!(looks_alike("Iris", "lris"));
        assert!(
            !looks_alike("Ann", "ANN"),
            "the same name, not a look-alike"
        );
        assert!(!looks_alike("Ann", "Bob"));
        assert!(!looks_alike("\u{0417}\u{043E}\u{044F}", "Zoe"));
    }

    #[test]
    fn chat_keeps_the_joiners_and_selectors_that_make_emoji() {
        let kept = [
            "\u{1F469}\u{200D}\u{1F680}",                  // woman astronaut
            "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}", // family
            "\u{2764}\u{FE0F}",                            // red heart
            "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}",          // rainbow flag
            "1\u{FE0F}\u{20E3}",                           // keycap one
            "\u{1F44D}\u{1F3FD}",                          // thumbs up, a skin tone
            // England's flag: a black flag, the tags "gbeng", the cancel tag.
            "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}",
        ];
        for emoji in kept {
            let line = format!("go {emoji} go");
            assert_eq!(strip_invisible(&line), line, "{emoji:?}");
        }
        // The same characters anywhere else still go.
        assert_eq!(strip_invisible("a\u{200D}b"), "ab");
        assert_eq!(strip_invisible("\u{1F469}\u{200D}b"), "\u{1F469}b");
        assert_eq!(strip_invisible("a\u{FE0F}"), "a");
        assert_eq!(strip_invisible("ok\u{E0067}\u{E007F}"), "ok");
        assert_eq!(
            strip_invisible("\u{1F3F4}\u{E0067}x\u{E0062}"),
            "\u{1F3F4}\u{E0067}x"
        );
        assert_eq!(
            strip_invisible("\u{1F469}\u{200D}\u{202E}\u{1F680}"),
            "\u{1F469}\u{1F680}"
        );
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
