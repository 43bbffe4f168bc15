//! Frame-time statistics, for the budgets in docs/BENCHMARKS.md: the frame interval macroquad
//! reports (`get_frame_time`, capped by the display's refresh in a browser) and the time this
//! client's own work took in the frame (network, input, drawing calls; the GPU's share is not in
//! it), which compares the browser and native builds without the refresh cap in the way.

use std::collections::VecDeque;

/// The last [`FrameStats::WINDOW`] frames.
#[derive(Debug, Default)]
pub struct FrameStats {
    /// (frame interval, work), in milliseconds.
    samples: VecDeque<(f64, f64)>,
    pub frames: u64,
}

impl FrameStats {
    pub const WINDOW: usize = 300;

    pub fn push(&mut self, interval_ms: f64, work_ms: f64) {
        if self.samples.len() == Self::WINDOW {
            self.samples.pop_front();
        }
        self.samples.push_back((interval_ms, work_ms));
        self.frames += 1;
    }

    /// Mean frame interval and mean work, in milliseconds (0 before any frame).
    pub fn means(&self) -> (f64, f64) {
        let n = self.samples.len().max(1) as f64;
        let (a, b) = self
            .samples
            .iter()
            .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
        (a / n, b / n)
    }
}

/// Milliseconds on a fine clock (the page's `performance.now()` in a browser).
#[cfg(target_arch = "wasm32")]
pub fn clock_ms() -> f64 {
    delve_web_js::clock_ms()
}

/// Milliseconds on a fine clock (since the first call).
#[cfg(not(target_arch = "wasm32"))]
pub fn clock_ms() -> f64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means_cover_the_last_window_only() {
        let mut s = FrameStats::default();
        assert_eq!(s.means(), (0.0, 0.0));
        for _ in 0..FrameStats::WINDOW {
            s.push(100.0, 50.0);
        }
        for _ in 0..FrameStats::WINDOW {
            s.push(16.0, 2.0);
        }
        assert_eq!(s.means(), (16.0, 2.0));
        assert_eq!(s.frames, 2 * FrameStats::WINDOW as u64);
    }
}
