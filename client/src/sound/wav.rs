//! The one WAV shape Delve writes and reads: mono, 16-bit little-endian PCM. The browser decodes
//! the files itself; the native player reads them back with [`decode`].

/// A mono 16-bit PCM WAV file of `samples` at `rate` samples a second.
pub fn encode(rate: u32, samples: &[i16]) -> Vec<u8> {
    let data_len = (samples.len() * 2) as u32;
    let mut out = Vec::with_capacity(44 + samples.len() * 2);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data_len).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&rate.to_le_bytes());
    out.extend_from_slice(&(rate * 2).to_le_bytes()); // bytes a second
    out.extend_from_slice(&2u16.to_le_bytes()); // bytes a frame
    out.extend_from_slice(&16u16.to_le_bytes()); // bits a sample
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data_len.to_le_bytes());
    for s in samples {
        out.extend_from_slice(&s.to_le_bytes());
    }
    out
}

/// The rate and samples of a file [`encode`] wrote; `None` for anything else.
pub fn decode(bytes: &[u8]) -> Option<(u32, Vec<i16>)> {
    let u16_at = |i: usize| Some(u16::from_le_bytes(bytes.get(i..i + 2)?.try_into().ok()?));
    let u32_at = |i: usize| Some(u32::from_le_bytes(bytes.get(i..i + 4)?.try_into().ok()?));
    let shape_ok = bytes.get(0..4)? == b"RIFF"
        && bytes.get(8..16)? == b"WAVEfmt "
        && u16_at(20)? == 1
        && u16_at(22)? == 1
        && u16_at(34)? == 16
        && bytes.get(36..40)? == b"data";
    if !shape_ok {
        return None;
    }
    let rate = u32_at(24)?;
    let len = u32_at(40)? as usize;
    let data = bytes.get(44..44usize.checked_add(len)?)?;
    Some((
        rate,
        data.chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back() {
        let samples = [0, 1, -1, i16::MAX, i16::MIN, 1234];
        let file = encode(22_050, &samples);
        assert_eq!(file.len(), 44 + 12);
        assert_eq!(decode(&file), Some((22_050, samples.to_vec())));
    }

    #[test]
    fn anything_else_is_refused() {
        assert_eq!(decode(b""), None);
        assert_eq!(decode(b"RIFF...."), None);
        let mut file = encode(8_000, &[1, 2, 3]);
        file.truncate(48);
        assert_eq!(decode(&file), None, "data shorter than it says");
    }
}
