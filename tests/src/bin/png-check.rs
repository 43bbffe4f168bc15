//! `png-check FILE [MIN_COLOURS]`: fails unless FILE is a readable PNG with at least
//! MIN_COLOURS (default 2) distinct colours. CI uses it to catch a missing or blank screenshot.

use std::collections::HashSet;
use std::fs::File;
use std::io::BufReader;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: png-check FILE [MIN_COLOURS]");
        return ExitCode::from(2);
    };
    let min: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(2);
    match colours(&path) {
        Ok((w, h, n)) if n >= min => {
            println!("{path}: {w}x{h}, {n} distinct colours");
            ExitCode::SUCCESS
        }
        Ok((w, h, n)) => {
            eprintln!("{path}: {w}x{h} has only {n} distinct colours (need {min}): blank?");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn colours(path: &str) -> anyhow::Result<(u32, u32, usize)> {
    let mut decoder = png::Decoder::new(BufReader::new(File::open(path)?));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info()?;
    let mut buf = vec![0; reader.output_buffer_size().unwrap_or(0)];
    let info = reader.next_frame(&mut buf)?;
    let bytes = &buf[..info.buffer_size()];
    let px = info.color_type.samples();
    let set: HashSet<&[u8]> = bytes.chunks_exact(px).collect();
    Ok((info.width, info.height, set.len()))
}
