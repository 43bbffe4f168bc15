//! Helpers for the tests that hold the docs to the code: the string literals of the sources, and
//! whether a sentence of the docs is one of them.

use std::path::Path;

/// Every string literal in the Rust files under `dir` (recursively), with each `{...}` of a
/// format string turned into a NUL, which [`fits`] reads as a wildcard. Literals with fewer than
/// four letters are left out: a pattern that is nearly all wildcard would fit anything.
pub fn literals(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    scan(dir, &mut out)?;
    out.retain(|l| l.chars().filter(|c| c.is_alphabetic()).count() >= 4);
    Ok(out)
}

fn scan(dir: &Path, out: &mut Vec<String>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            scan(&path, out)?;
            continue;
        }
        if path.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path)?;
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c != '"' {
                continue;
            }
            let mut lit = String::new();
            let mut depth = 0;
            while let Some(c) = chars.next() {
                match c {
                    '"' => break,
                    '\\' => {
                        chars.next();
                    }
                    '{' if depth == 0 => {
                        depth = 1;
                        lit.push('\0');
                    }
                    '}' if depth == 1 => depth = 0,
                    _ if depth == 1 => {}
                    _ => lit.push(c),
                }
            }
            out.push(lit);
        }
    }
    Ok(())
}

/// Whether `text` fits `pattern`, each NUL of which stands for at least one character.
pub fn fits(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('\0').collect();
    let Some((first, rest)) = parts.split_first() else {
        return false;
    };
    let Some(mut left) = text.strip_prefix(first) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        return left.is_empty();
    };
    for part in middle {
        // The wildcard before `part` takes at least one character; the earliest fit is best.
        let Some(c) = left.chars().next() else {
            return false;
        };
        let from = c.len_utf8();
        match left[from..].find(part) {
            Some(k) => left = &left[from + k + part.len()..],
            None => return false,
        }
    }
    left.len() > last.len() && left.ends_with(last)
}

/// An example of the docs written as JSON in a block of its own (not a transcript), with its
/// shortenings filled back in, so that it can be decoded like any frame. The shortenings it
/// knows are the ones PROTOCOL.md uses:
///
/// - a line `… rows 11 to 47 follow: 37 more strings of 85 spaces (48 rows in all) …` (or
///   `… rows 0 to 2: 3 strings of 85 spaces …`) stands for that many rows of spaces;
/// - `[ … the first room only, as in the first welcome … ]` stands for the rows of the first
///   welcome of the document (`first_room`);
/// - `, … one per kind of monster …` inside an object stands for more entries of the same kind,
///   and is left out.
///
/// Any other `…` is an error: the example cannot be checked, so it must not be there.
pub fn unshorten(lines: &[String], first_room: Option<&[String]>) -> Result<String, String> {
    let mut out: Vec<String> = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if let Some(marker) = trimmed.strip_prefix('…').and_then(|m| m.strip_suffix('…')) {
            let (count, width) = rows_marker(marker)
                .ok_or_else(|| format!("a shortening the check cannot fill in: {trimmed}"))?;
            let last = lines[k + 1..]
                .iter()
                .find(|l| !l.trim().is_empty())
                .is_none_or(|l| l.trim_start().starts_with(']'));
            for n in 0..count {
                let comma = if n + 1 == count && last { "" } else { "," };
                out.push(format!("\"{}\"{comma}", " ".repeat(width)));
            }
            continue;
        }
        let mut text = line.clone();
        const ROOM: &str = "[ … the first room only, as in the first welcome … ]";
        if text.contains(ROOM) {
            let rows = first_room.ok_or("\"as in the first welcome\" before any welcome")?;
            let rows: Vec<String> = rows.iter().map(|r| format!("{r:?}")).collect();
            text = text.replace(ROOM, &format!("[{}]", rows.join(",")));
        }
        while let Some(at) = text.find(", …") {
            let end = text[at + ", …".len()..]
                .find('…')
                .map(|e| at + ", …".len() + e + '…'.len_utf8())
                .ok_or_else(|| format!("an unclosed shortening: {trimmed}"))?;
            text.replace_range(at..end, "");
        }
        if text.contains('…') {
            return Err(format!("a shortening the check cannot fill in: {trimmed}"));
        }
        out.push(text);
    }
    Ok(out.join("\n"))
}

/// `(count, width)` of `rows 11 to 47 follow: 37 more strings of 85 spaces (48 rows in all)`.
fn rows_marker(marker: &str) -> Option<(usize, usize)> {
    let rest = marker.trim().strip_prefix("rows ")?;
    let (_, after) = rest.split_once(':')?;
    let words: Vec<&str> = after.split_whitespace().collect();
    let count = words.first()?.parse().ok()?;
    let of = words.iter().position(|w| *w == "of")?;
    let width = words.get(of + 1)?.parse().ok()?;
    (words.get(of + 2) == Some(&"spaces")).then_some((count, width))
}
