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
