//! Resume tokens are stored only as their SHA-256, and compared in constant time.
//!
//! A token is random and long, so a plain (unsalted, fast) hash is enough: it keeps a copied
//! database file from handing out working tokens, without the cost of a password hash.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The SHA-256 of a resume token: what `characters.token_hash` holds.
pub fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Whether two token hashes are equal, in time that does not depend on where they differ.
pub fn hashes_equal(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.ct_eq(b).into()
}

/// Whether `token` is the one whose hash is `stored` (constant-time comparison of the hashes).
pub fn token_matches(token: &str, stored: &[u8; 32]) -> bool {
    hashes_equal(&token_hash(token), stored)
}
