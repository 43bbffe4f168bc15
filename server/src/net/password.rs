//! Dungeon passwords: salted Argon2id hashes, compared in constant time. Hashing is slow on
//! purpose, so it runs on a small fixed pool of threads of its own ([`Hasher`]); it never runs
//! on the async threads or in a dungeon's task.

use std::sync::{Arc, Mutex};

use argon2::{Algorithm, Argon2, Block, Params, Version};
use rand::RngExt;
use subtle::ConstantTimeEq;
use tokio::sync::{mpsc, oneshot};

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
    derive_in(password, salt, &mut vec![Block::default(); M_COST as usize])
}

/// [`derive`] in a working memory the caller keeps (of `M_COST` blocks).
fn derive_in(password: &str, salt: &[u8; 16], memory: &mut [Block]) -> Option<[u8; 32]> {
    let mut out = [0u8; 32];
    argon()?
        .hash_password_into_with_memory(password.as_bytes(), salt, &mut out, memory)
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

/// Runs password hashing off the async threads, on a fixed pool of [`WORKERS`] threads that
/// each keep one Argon2 working memory for good. Memory stays bounded however many passwords
/// come: tokio's blocking pool grew a thread (and a malloc arena holding a freed 8 MiB block)
/// per concurrent hash, and 2,500 wrong passwords took the process from 8.5 MB to 830 MB.
/// Hashes wait their turn in a bounded queue.
#[derive(Debug, Clone)]
pub struct Hasher {
    jobs: mpsc::Sender<Job>,
}

/// Hashing threads. Two keep a guessing crowd from taking every core, and keep the memory at
/// two working blocks.
pub const WORKERS: usize = 2;

/// Hashes that may wait for a worker before the next asker waits to queue.
const QUEUE: usize = 64;

enum Job {
    Hash {
        password: String,
        reply: oneshot::Sender<Option<PasswordHash>>,
    },
    Verify {
        stored: PasswordHash,
        password: String,
        reply: oneshot::Sender<bool>,
    },
}

impl Default for Hasher {
    fn default() -> Self {
        let (jobs, rx) = mpsc::channel(QUEUE);
        let rx = Arc::new(Mutex::new(rx));
        for n in 0..WORKERS {
            let rx = Arc::clone(&rx);
            // A pool that cannot start just answers no: the hashes refuse, the server goes on.
            let _ = std::thread::Builder::new()
                .name(format!("delve-password-{n}"))
                .spawn(move || work(&rx));
        }
        Hasher { jobs }
    }
}

/// One hashing thread: takes jobs until every [`Hasher`] is gone.
fn work(jobs: &Mutex<mpsc::Receiver<Job>>) {
    let mut memory = vec![Block::default(); M_COST as usize];
    loop {
        let job = {
            let mut rx = jobs.lock().unwrap_or_else(|e| e.into_inner());
            rx.blocking_recv()
        };
        match job {
            None => return,
            Some(Job::Hash { password, reply }) => {
                let salt: [u8; 16] = rand::rng().random();
                let hash = derive_in(&password, &salt, &mut memory)
                    .map(|hash| PasswordHash { salt, hash });
                let _ = reply.send(hash);
            }
            Some(Job::Verify {
                stored,
                password,
                reply,
            }) => {
                let ok = derive_in(&password, &stored.salt, &mut memory)
                    .is_some_and(|h| bool::from(h.ct_eq(&stored.hash)));
                let _ = reply.send(ok);
            }
        }
    }
}

impl Hasher {
    pub async fn hash(&self, password: String) -> Option<PasswordHash> {
        let (reply, answer) = oneshot::channel();
        self.jobs.send(Job::Hash { password, reply }).await.ok()?;
        answer.await.ok().flatten()
    }

    pub async fn verify(&self, stored: PasswordHash, password: String) -> bool {
        let (reply, answer) = oneshot::channel();
        let job = Job::Verify {
            stored,
            password,
            reply,
        };
        if self.jobs.send(job).await.is_err() {
            return false;
        }
        answer.await.unwrap_or(false)
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

    #[tokio::test]
    async fn the_pool_hashes_and_checks_many_at_once() {
        let hasher = Hasher::default();
        let stored = hasher.hash("swordfish".into()).await.unwrap();
        assert!(
            stored.verify("swordfish"),
            "the pool's hash is an ordinary hash"
        );
        // More askers than workers and queue: each gets its own answer.
        let asks: Vec<_> = (0..QUEUE + 2 * WORKERS)
            .map(|n| {
                let (hasher, stored) = (hasher.clone(), stored.clone());
                let password = if n % 3 == 0 { "swordfish" } else { "sworDfish" };
                tokio::spawn(async move { (n, hasher.verify(stored, password.into()).await) })
            })
            .collect();
        for ask in asks {
            let (n, ok) = ask.await.unwrap();
            assert_eq!(ok, n % 3 == 0, "ask {n}");
        }
    }
}
