//! What a character sees now: one bit per cell of its floor.
//!
//! Kept as bits rather than one `bool` per cell because every character holds one for as long
//! as it is in the world, signed in or not: a floor of 85×48 cells is 510 bytes instead of
//! 4,080. Saved as the list of flags it always was, so saves and their hashes do not change
//! (see its `Serialize`).

use std::ops::Range;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Debug)]
pub struct Sight {
    /// Cells covered (the floor's width × height).
    len: usize,
    words: Vec<u64>,
    /// Every word before `lo` or from `hi` on is clear (none when `lo >= hi`): clearing the
    /// sight for the next field of view, and reading it, leave those words alone. A field of
    /// radius 8 on a floor 85 cells wide lights 23 or so of its 64 words; the rest of the
    /// bitmap, five of its eight cache lines, is not touched from one turn to the next.
    lo: usize,
    hi: usize,
}

impl Default for Sight {
    fn default() -> Sight {
        Sight {
            len: 0,
            words: Vec::new(),
            lo: usize::MAX,
            hi: 0,
        }
    }
}

/// Sights are equal when they cover the same cells and see the same ones, whatever words they
/// last lit.
impl PartialEq for Sight {
    fn eq(&self, other: &Sight) -> bool {
        self.len == other.len && self.words == other.words
    }
}

impl Eq for Sight {}

impl Clone for Sight {
    fn clone(&self) -> Sight {
        Sight {
            len: self.len,
            words: self.words.clone(),
            lo: self.lo,
            hi: self.hi,
        }
    }

    /// Copies `source` into the words already held: the words it may light, after clearing
    /// the ones this one lit (each monster phase copies each player's sight this way).
    fn clone_from(&mut self, source: &Sight) {
        if self.words.len() == source.words.len() {
            let (mine, theirs) = (self.span(), source.span());
            self.words[mine].fill(0);
            self.words[theirs.clone()].copy_from_slice(&source.words[theirs]);
        } else {
            self.words.clone_from(&source.words);
        }
        self.len = source.len;
        self.lo = source.lo;
        self.hi = source.hi;
    }
}

impl Sight {
    /// The words that may hold a cell seen.
    fn span(&self) -> Range<usize> {
        if self.lo < self.hi {
            self.lo..self.hi
        } else {
            0..0
        }
    }

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
        (self.lo, self.hi) = (0, self.words.len());
    }

    /// The runs of consecutive cells seen, as `[start, length]`, in order (what a view's
    /// visible set is made of), found a word at a time. Views use [`Self::runs_into`].
    #[cfg(test)]
    pub fn runs(&self) -> Vec<[u32; 2]> {
        let mut runs = Vec::new();
        self.runs_into(&mut runs);
        runs
    }

    /// The runs of consecutive cells seen, as `[start, length]`, in order, added to `runs`.
    pub fn runs_into(&self, runs: &mut Vec<[u32; 2]>) {
        // Counted first, so a new list is made at its size at once: it is built for every
        // player after every turn, and kept in the view a connection was sent.
        runs.reserve_exact(self.run_count());
        self.for_each_run(|start, len| runs.push([start as u32, len as u32]));
    }

    /// Calls `f(start, length)` for each run of consecutive cells seen, in order.
    pub fn for_each_run(&self, mut f: impl FnMut(usize, usize)) {
        let span = self.span();
        let mut open: Option<usize> = None; // start of a run still going at the last word's end
        for (k, &w) in (span.clone()).zip(&self.words[span.clone()]) {
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
                        f(start, base + bit - start);
                        open = None;
                    }
                }
            }
        }
        // A run open at the end of the span ends there: the next word is clear, or the end.
        if let Some(start) = open {
            f(start, (span.end * 64).min(self.len) - start);
        }
    }

    /// How many runs [`Sight::runs`] finds: the cells seen whose west neighbour (in row-major
    /// order, across words) is not.
    fn run_count(&self) -> usize {
        let mut carry = 0u64; // the last cell of the word before, seen or not
        let mut count = 0;
        for &w in &self.words[self.span()] {
            count += (w & !((w << 1) | carry)).count_ones() as usize;
            carry = w >> 63;
        }
        count
    }

    /// How many cells it covers (seen or not): the floor's width × height.
    pub fn covered(&self) -> usize {
        self.len
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
        let span = self.span();
        (span.clone()).zip(&self.words[span]).flat_map(|(k, &w)| {
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
        if self.words.len() == len.div_ceil(64) {
            let lit = self.span();
            self.words[lit].fill(0);
        } else {
            self.words.clear();
            self.words.resize(len.div_ceil(64), 0);
        }
        self.len = len;
        (self.lo, self.hi) = (usize::MAX, 0);
    }

    fn light(&mut self, i: usize) {
        let k = i / 64;
        self.words[k] |= 1 << (i % 64);
        self.lo = self.lo.min(k);
        self.hi = self.hi.max(k + 1);
    }
}

/// Saved as the list of flags it replaced. In a compact format (saves are postcard) that list
/// is written and read as a byte string of 0s and 1s instead, whole rather than a flag at a
/// time through serde: postcard writes a list as its length then its elements, a flag as one
/// byte 0 or 1, and a byte string as its length then its bytes, so the bytes are the same (a
/// test below holds this), and a save holds one flag per cell of every character's floor (the
/// engine fuzzer saves and loads worlds thousands of times a second). A human-readable format
/// (JSON) gets the list of `true`s and `false`s.
impl Serialize for Sight {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return s.collect_seq(self.iter());
        }
        // A word's 64 flags are its eight bytes spread, each by a table (see `SPREAD`).
        let mut flags = Vec::with_capacity(self.words.len() * 64);
        for w in &self.words {
            let spread = w
                .to_le_bytes()
                .map(|b| SPREAD[usize::from(b)].to_le_bytes());
            flags.extend_from_slice(spread.as_flattened());
        }
        // The bits past `len` in the last word are clear: drop their flags.
        flags.truncate(self.len);
        s.serialize_bytes(&flags)
    }
}

/// Each byte's eight bits as eight flags of 0 or 1, lowest bit first, as the bytes of a
/// little-endian `u64`: flags are written eight at a time rather than one (the engine fuzzer's
/// build counts coverage on every pass through a loop, which made a pass per flag cost more than
/// the work).
const SPREAD: [u64; 256] = {
    let mut table = [0; 256];
    let mut v = 0;
    while v < 256 {
        let mut b = 0;
        while b < 8 {
            table[v] |= ((v as u64 >> b) & 1) << (8 * b);
            b += 1;
        }
        v += 1;
    }
    table
};

/// The reverse of [`SPREAD`]: eight flags of 0 or 1, as the bytes of a little-endian `u64`, to
/// the byte whose bit `k` is flag `k`. The product adds `x` shifted by 7, 14, ..., 56 bits, which
/// puts flag `k` (bit `8k` of `x`) at bit `56 + k`; no two shifted flags land on the same bit,
/// so nothing carries into the top byte.
fn gather(x: u64) -> u8 {
    (x.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

/// The word of 64 flags of 0 or 1, flag `k` at bit `k`, gathered eight at a time.
fn word_of(flags: &[u8; 64]) -> u64 {
    let bytes = flags.as_chunks::<8>().0;
    let word: [u8; 8] = std::array::from_fn(|k| gather(u64::from_le_bytes(bytes[k])));
    u64::from_le_bytes(word)
}

impl<'de> Deserialize<'de> for Sight {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if d.is_human_readable() {
            Ok(Sight::from_flags(&Vec::<bool>::deserialize(d)?))
        } else {
            d.deserialize_bytes(FlagsVisitor)
        }
    }
}

/// Reads a byte string of 0s and 1s (see above) straight into words, eight flags at a time.
struct FlagsVisitor;

impl<'de> serde::de::Visitor<'de> for FlagsVisitor {
    type Value = Sight;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a byte string of flags, each 0 or 1")
    }

    fn visit_bytes<E: serde::de::Error>(self, flags: &[u8]) -> Result<Sight, E> {
        // Every flag is 0 or 1 exactly when all of them together have no other bit set.
        if flags.iter().fold(0, |any, &f| any | f) > 1 {
            let bad = flags.iter().find(|&&f| f > 1).copied().unwrap_or_default();
            let bad = serde::de::Unexpected::Unsigned(u64::from(bad));
            return Err(E::invalid_value(bad, &"a flag, 0 or 1"));
        }
        let (blocks, rest) = flags.as_chunks::<64>();
        let mut words: Vec<u64> = blocks.iter().map(word_of).collect();
        if !rest.is_empty() {
            let mut last = [0; 64];
            last[..rest.len()].copy_from_slice(rest);
            words.push(word_of(&last));
        }
        Ok(Sight {
            len: flags.len(),
            lo: 0,
            hi: words.len(),
            words,
        })
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
            // Into a list already in use: added after what it holds.
            let mut reused = vec![[7, 7]];
            s.runs_into(&mut reused);
            assert_eq!(reused[0], [7, 7]);
            assert_eq!(reused[1..], runs[..]);
        }
    }

    /// Lit a cell at a time after an earlier field (as a field of view is cast), a sight reads
    /// exactly the cells lit, whichever words either field touched, and copies into another
    /// sight whatever that one held before.
    #[test]
    fn a_sight_lit_again_holds_only_its_new_cells() {
        use crate::game::fov::Lit;
        let len = 4080;
        // Fields of a few rows of an 85-wide floor, here and there; one reaching the end.
        let windows = [
            (0, 85 * 3),
            (85 * 17, 85 * 34),
            (85 * 40, len),
            (64 * 5, 64 * 6),
            (0, 0),
        ];
        let field = |(from, to): (usize, usize), salt: usize| -> Vec<bool> {
            (0..len)
                .map(|i| (from..to).contains(&i) && (i * 7 + salt) % 5 < 3)
                .collect()
        };
        let mut lit = Sight::default();
        let mut copy = Sight::from_flags(&vec![true; len]);
        for (k, &w) in windows.iter().enumerate() {
            for &before in &windows {
                let old = field(before, k + 1);
                lit.clear(len);
                (0..len).filter(|&i| old[i]).for_each(|i| lit.light(i));
                let new = field(w, k);
                lit.clear(len);
                (0..len).filter(|&i| new[i]).for_each(|i| lit.light(i));
                let exact = Sight::from_flags(&new);
                assert_eq!(lit.iter().collect::<Vec<_>>(), new);
                assert_eq!(lit, exact, "window {w:?} after {before:?}");
                assert_eq!(lit.runs(), exact.runs(), "window {w:?} after {before:?}");
                assert_eq!(lit.run_count(), exact.runs().len());
                assert_eq!(
                    lit.cells().collect::<Vec<_>>(),
                    exact.cells().collect::<Vec<_>>()
                );
                copy.clone_from(&lit);
                assert_eq!(copy, exact, "copied over a sight of other cells");
                assert_eq!(copy.runs(), exact.runs());
            }
        }
        // A run that ends with the last lit word, and the floor goes on past it.
        lit.clear(len);
        (100..256).for_each(|i| lit.light(i));
        assert_eq!(lit.runs(), vec![[100, 156]]);
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

    /// Spreading a byte into flags and gathering them back gives the byte, for every byte.
    #[test]
    fn flags_spread_and_gather_eight_at_a_time() {
        for v in 0..=u8::MAX {
            let spread = SPREAD[usize::from(v)].to_le_bytes();
            let want: [u8; 8] = std::array::from_fn(|k| (v >> k) & 1);
            assert_eq!(spread, want, "{v:#010b}");
            assert_eq!(gather(SPREAD[usize::from(v)]), v);
        }
    }

    /// In postcard (saves) the flags are written as a byte string, which must be exactly the
    /// bytes of the list of flags: the saves and their hashes must not change.
    #[test]
    fn it_saves_in_postcard_as_the_bytes_of_the_list_of_flags() {
        for flags in patterns() {
            let s = Sight::from_flags(&flags);
            let bytes = postcard::to_stdvec(&s).unwrap();
            assert_eq!(
                bytes,
                postcard::to_stdvec(&flags).unwrap(),
                "{}",
                flags.len()
            );
            assert_eq!(postcard::from_bytes::<Sight>(&bytes).unwrap(), s);
        }
        // A flag that is neither 0 nor 1 is damage, as it was for a list of flags.
        let bad = [3, 1, 0, 2];
        assert!(postcard::from_bytes::<Vec<bool>>(&bad).is_err());
        assert!(postcard::from_bytes::<Sight>(&bad).is_err());
        // So is a list cut short.
        assert!(postcard::from_bytes::<Sight>(&[3, 1, 0]).is_err());
    }

    #[test]
    fn new_flags_replace_the_old_ones_whatever_their_length() {
        let mut s = Sight::from_flags(&[true; 200]);
        s.set_flags(&[false, true]);
        assert_eq!(s.iter().collect::<Vec<_>>(), [false, true]);
        assert_eq!(s.cells().collect::<Vec<_>>(), [1]);
    }
}
