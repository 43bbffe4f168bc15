//! Saving the window as a PNG (for `--screenshot`, used by CI and the README).

use std::path::Path;

/// A page has no files: the browser test takes its screenshots through the browser instead.
#[cfg(target_arch = "wasm32")]
pub fn save(path: &Path) -> anyhow::Result<()> {
    anyhow::bail!("cannot save {} from a browser", path.display())
}

/// Captures what has been drawn this frame (call before `next_frame`) and writes it to `path`.
#[cfg(not(target_arch = "wasm32"))]
pub fn save(path: &Path) -> anyhow::Result<()> {
    use std::fs::File;
    use std::io::BufWriter;

    use macroquad::prelude::get_screen_data;

    let img = get_screen_data();
    let (w, h) = (usize::from(img.width), usize::from(img.height));
    // OpenGL reads rows bottom-up; PNG wants them top-down. The alpha channel of the back
    // buffer is meaningless, so write opaque RGB.
    let mut rgb = Vec::with_capacity(w * h * 3);
    for y in (0..h).rev() {
        for px in img.bytes[y * w * 4..(y + 1) * w * 4].chunks_exact(4) {
            rgb.extend_from_slice(&px[..3]);
        }
    }
    let file =
        File::create(path).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", path.display()))?;
    let mut enc = png::Encoder::new(BufWriter::new(file), w as u32, h as u32);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header()?;
    writer.write_image_data(&rgb)?;
    writer.finish()?;
    Ok(())
}
