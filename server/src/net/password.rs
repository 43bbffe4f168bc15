//! Dungeon passwords: salted Argon2id hashes, compared in constant time. Hashing is slow on
//! purpose, so it runs on a blocking thread with a small cap on how many run at once; it never
//! runs in a dungeon's task.

use std::sync::Arc;

use argon2::{Algorithm, Argon2, Params, Version};
use rand::RngExt;
use subtle::ConstantTimeEq;
use tokio::sync::Semaphore;

/// Memory (KiB), passes and lanes: about 8 MiB and a few milliseconds a hash here, enough to
/// make guessing a stolen hash costly without letting a crowd of joiners exhaust the server.
const M_COST: u32 = 8 * 1024;
const T_COST: u32 = 2;
const P_COST: u32 = 1;

/// A salted password hash, as kept with a private dungeon.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PasswordHash {
    salt: [u8; 16],
    hash: [u8; 32],
}

fn argon() -> Option<Argon2<'static>> {
    let params = Params::new(M_COST, T_COST, P_COST, Some(32)).ok()?;
    Some(Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

fn derive(password: &str, salt: &[u8; 16]) -> Option<[u8; 32]> {
    let mut out = [0u8; 32];
    argon()?
        .hash_password_into(password.as_bytes(), salt, &mut out)
        .ok()?;
    Some(out)
}

impl PasswordHash {
    /// Hashes `password` with a fresh random salt.
    pub fn new(password: &str) -> Option<PasswordHash> {
        let salt: [u8; 16] = rand::rng().random();
        Some(PasswordHash {
            salt,
            hash: derive(password, &salt)?,
        })
    }

    /// Whether `password` is the one hashed, in time that does not depend on where it differs.
    pub fn verify(&self, password: &str) -> bool {
        derive(password, &self.salt).is_some_and(|h| bool::from(h.ct_eq(&self.hash)))
    }

    /// Reads the stored form back; `None` if it is not one this server writes.
    pub fn from_stored(s: &str) -> Option<PasswordHash> {
        let mut parts = s.split('$');
        let (kind, params, salt, hash) =
            (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        if kind != "argon2id"
            || parts.next().is_some()
            || params != format!("{M_COST},{T_COST},{P_COST}")
        {
            return None;
        }
        let unhex = |h: &str| -> Option<Vec<u8>> {
            (0..h.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(h.get(i..i + 2)?, 16).ok())
                .collect()
        };
        Some(PasswordHash {
            salt: unhex(salt)?.try_into().ok()?,
            hash: unhex(hash)?.try_into().ok()?,
        })
    }

    /// The stored form: `argon2id$m,t,p$salt$hash` with hex fields.
    pub fn to_stored(&self) -> String {
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        format!(
            "argon2id${M_COST},{T_COST},{P_COST}${}${}",
            hex(&self.salt),
            hex(&self.hash)
        )
    }
}

/// Runs password hashing off the async threads, at most a few at a time.
#[derive(Debug, Clone)]
pub struct Hasher {
    slots: Arc<Semaphore>,
}

impl Default for Hasher {
    fn default() -> Self {
        Hasher {
            slots: Arc::new(Semaphore::new(4)),
        }
    }
}

impl Hasher {
    pub async fn hash(&self, password: String) -> Option<PasswordHash> {
        let _slot = self.slots.acquire().await.ok()?;
        tokio::task::spawn_blocking(move || PasswordHash::new(&password))
            .await
            .ok()
            .flatten()
    }

    pub async fn verify(&self, stored: PasswordHash, password: String) -> bool {
        let Ok(_slot) = self.slots.acquire().await else {
            return false;
        };
        tokio::task::spawn_blocking(move || stored.verify(&password))
            .await
            .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_only_and_is_salted() {
        let a = PasswordHash::new("swordfish").unwrap();
        assert!(a.verify("swordfish"));
        assert!(!a.verify("swordfisH"));
        assert!(!a.verify(""));
        let b = PasswordHash::new("swordfish").unwrap();
        assert_ne!(a, b, "a fresh salt each time");
        let stored = a.to_stored();
        assert!(stored.starts_with("argon2id$") && !stored.contains("swordfish"));
        let back = PasswordHash::from_stored(&stored).unwrap();
        assert_eq!(back, a);
        assert!(back.verify("swordfish"));
        assert!(PasswordHash::from_stored("argon2id$1,1,1$00$00").is_none());
        assert!(PasswordHash::from_stored(&stored.replace("argon2id", "md5")).is_none());
        assert!(PasswordHash::from_stored(&stored[..stored.len() - 2]).is_none());
    }
}
