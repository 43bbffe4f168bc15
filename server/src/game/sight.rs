//! What a character sees now: one bit per cell of its floor.
//!
//! Kept as bits rather than one `bool` per cell because every character holds one for as long
//! as it is in the world, signed in or not: a floor of 85×48 cells is 510 bytes instead of
//! 4,080. Saved as the list of flags it always was, so saves and their hashes do not change.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sight {
    /// Cells covered (the floor's width × height).
    len: usize,
    words: Vec<u64>,
}

impl Sight {
    /// Sight of exactly the cells flagged in `flags`.
    pub fn from_flags(flags: &[bool]) -> Sight {
        let mut s = Sight::default();
        s.set_flags(flags);
        s
    }

    /// Replaces what is seen with `flags`, reusing the words already held.
    pub fn set_flags(&mut self, flags: &[bool]) {
        self.len = flags.len();
        self.words.clear();
        self.words.extend(flags.chunks(64).map(|chunk| {
            (chunk.iter().enumerate()).fold(0u64, |w, (b, &f)| w | (u64::from(f) << b))
        }));
    }

    /// The runs of consecutive cells seen, as `[start, length]`, in order (what a view's
    /// visible set is made of), found a word at a time.
    pub fn runs(&self) -> Vec<[u32; 2]> {
        // Counted first, so the list is made at its size at once: it is built for every player
        // after every turn, and kept in the view a connection was sent.
        let mut runs: Vec<[u32; 2]> = Vec::with_capacity(self.run_count());
        let mut open: Option<usize> = None; // start of a run still going at the last word's end
        for (k, &w) in self.words.iter().enumerate() {
            let base = k * 64;
            let mut bit = 0;
            while bit < 64 {
                let rest = w >> bit;
                match open {
                    None if rest == 0 => break,
                    None => {
                        bit += rest.trailing_zeros() as usize;
                        open = Some(base + bit);
                    }
                    Some(start) => {
                        let ones = (!rest).trailing_zeros() as usize;
                        if bit + ones >= 64 {
                            break; // the run goes on into the next word
                        }
                        bit += ones;
                        runs.push([start as u32, (base + bit - start) as u32]);
                        open = None;
                    }
                }
            }
        }
        if let Some(start) = open {
            runs.push([start as u32, (self.len - start) as u32]);
        }
        runs
    }

    /// How many runs [`Sight::runs`] finds: the cells seen whose west neighbour (in row-major
    /// order, across words) is not.
    fn run_count(&self) -> usize {
        let mut carry = 0u64; // the last cell of the word before, seen or not
        let mut count = 0;
        for &w in &self.words {
            count += (w & !((w << 1) | carry)).count_ones() as usize;
            carry = w >> 63;
        }
        count
    }

    /// Whether cell `i` is seen; cells past the end are not.
    pub fn contains(&self, i: usize) -> bool {
        i < self.len && self.words[i / 64] & (1 << (i % 64)) != 0
    }

    /// One flag per cell, in row-major order.
    pub fn iter(&self) -> impl Iterator<Item = bool> + '_ {
        (0..self.len).map(|i| self.words[i / 64] & (1 << (i % 64)) != 0)
    }

    /// Row-major indices of the cells seen.
    pub fn cells(&self) -> impl Iterator<Item = usize> + '_ {
        (self.words.iter().enumerate()).flat_map(|(k, &w)| {
            let mut rest = w;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let b = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    k * 64 + b
                })
            })
        })
    }
}

impl crate::game::fov::Lit for Sight {
    fn clear(&mut self, len: usize) {
        self.len = len;
        self.words.clear();
        self.words.resize(len.div_ceil(64), 0);
    }

    fn light(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
    }
}

impl Serialize for Sight {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Sight {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Sight::from_flags(&Vec::<bool>::deserialize(d)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Flags of every length around the word size, in a pattern that is not periodic in 64.
    fn patterns() -> Vec<Vec<bool>> {
        [0, 1, 63, 64, 65, 127, 128, 4080]
            .into_iter()
            .map(|n| (0..n).map(|i| (i * i + 3 * i) % 7 < 3).collect())
            .collect()
    }

    #[test]
    fn it_holds_exactly_the_flags_it_was_given() {
        let mut all = patterns();
        // Runs that end exactly at a word's end, cross one, or fill a whole word.
        all.push(
            (0..200)
                .map(|i| (60..64).contains(&i) || (120..200).contains(&i))
                .collect(),
        );
        all.push((0..130).map(|i| i >= 64).collect());
        all.push(vec![true; 128]);
        for flags in all {
            let s = Sight::from_flags(&flags);
            assert_eq!(s.iter().collect::<Vec<_>>(), flags);
            for (i, &f) in flags.iter().enumerate() {
                assert_eq!(s.contains(i), f, "cell {i} of {}", flags.len());
            }
            assert!(!s.contains(flags.len()));
            let seen: Vec<usize> = (0..flags.len()).filter(|&i| flags[i]).collect();
            assert_eq!(s.cells().collect::<Vec<_>>(), seen);
            // The runs cover exactly the cells seen, in order, none touching the next.
            let runs = s.runs();
            let covered: Vec<usize> = (runs.iter())
                .flat_map(|&[start, len]| start as usize..(start + len) as usize)
                .collect();
            assert_eq!(covered, seen);
            assert!(runs.iter().all(|r| r[1] > 0));
            assert!(runs.windows(2).all(|w| w[0][0] + w[0][1] < w[1][0]));
            // Counted ahead exactly, so the list was made at its size.
            assert_eq!(s.run_count(), runs.len());
            assert_eq!(runs.capacity(), runs.len());
        }
    }

    #[test]
    fn it_saves_as_the_list_of_flags_it_replaced() {
        for flags in patterns() {
            let s = Sight::from_flags(&flags);
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, serde_json::to_string(&flags).unwrap());
            assert_eq!(serde_json::from_str::<Sight>(&json).unwrap(), s);
        }
    }

    #[test]
    fn new_flags_replace_the_old_ones_whatever_their_length() {
        let mut s = Sight::from_flags(&[true; 200]);
        s.set_flags(&[false, true]);
        assert_eq!(s.iter().collect::<Vec<_>>(), [false, true]);
        assert_eq!(s.cells().collect::<Vec<_>>(), [1]);
    }
}
