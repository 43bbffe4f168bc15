//! The game's sound effects, made from oscillators and noise: no recorded sound, nothing taken
//! from elsewhere. Each [`Cue`] has a short recipe; the same code always makes the same samples
//! (the noise is a fixed-seed generator), so the committed WAV files can be checked against it.
//!
//! The recipes aim for the dry, small sounds of Brogue rather than anything musical: a thump
//! for a blow, a swish for a miss, a falling tone for a kill, a rising arpeggio for a level.

use std::f64::consts::TAU;

use super::Cue;

/// Samples a second of every effect.
pub const RATE: u32 = 22_050;

/// The samples of one effect, mono.
pub fn render(cue: Cue) -> Vec<i16> {
    let mut s = Synth::new(cue as u32 + 1);
    match cue {
        Cue::Hit => {
            s.thump(0.0, 0.12, 190.0, 70.0, 0.8);
            s.noise(0.0, 0.05, 0.45, 0.35);
        }
        Cue::Hurt => {
            s.thump(0.0, 0.18, 120.0, 45.0, 0.9);
            s.noise(0.0, 0.08, 0.35, 0.15);
        }
        Cue::Miss => {
            // A swish: noise that swells and fades, brightening as it goes.
            s.swish(0.0, 0.16, 0.35);
        }
        Cue::Kill => {
            s.thump(0.0, 0.10, 200.0, 80.0, 0.7);
            s.glide(0.04, 0.30, 520.0, 130.0, 0.35);
        }
        Cue::LevelUp => {
            for (k, f) in [523.25, 659.25, 783.99, 1046.5].into_iter().enumerate() {
                s.bell(k as f64 * 0.075, 0.30, f, 0.28);
            }
        }
        Cue::Door => {
            // A creak (a wobbling low buzz) and the knock of the door against the wall.
            s.creak(0.0, 0.24, 0.22);
            s.thump(0.22, 0.08, 150.0, 90.0, 0.5);
        }
        Cue::Stairs => {
            // Four steps, each lower than the last.
            for k in 0..4 {
                let t = f64::from(k) * 0.11;
                s.thump(t, 0.08, 170.0 - 20.0 * f64::from(k), 70.0, 0.55);
                s.noise(t, 0.03, 0.15, 0.5);
            }
        }
        Cue::Death => {
            for (k, f) in [440.0, 349.23, 293.66, 220.0].into_iter().enumerate() {
                s.bell(k as f64 * 0.22, 0.55, f, 0.30);
            }
            s.thump(0.66, 0.5, 90.0, 40.0, 0.6);
        }
        Cue::Victory => {
            let notes = [
                (0.0, 523.25),
                (0.12, 659.25),
                (0.24, 783.99),
                (0.36, 1046.5),
            ];
            for (t, f) in notes {
                s.bell(t, 0.35, f, 0.25);
            }
            // The last chord held.
            for f in [523.25, 659.25, 783.99] {
                s.bell(0.50, 0.9, f, 0.16);
            }
        }
    }
    s.finish()
}

/// A buffer being mixed into, in floating point, with its own noise source.
struct Synth {
    buf: Vec<f64>,
    seed: u32,
}

impl Synth {
    fn new(seed: u32) -> Synth {
        Synth {
            buf: Vec::new(),
            seed: seed.wrapping_mul(0x9E37_79B9) | 1,
        }
    }

    /// A noise sample in -1..1 (xorshift32: the same on every machine).
    fn rand(&mut self) -> f64 {
        let mut x = self.seed;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.seed = x;
        f64::from(x) / f64::from(u32::MAX) * 2.0 - 1.0
    }

    /// Adds `f(time into the sound, its length)` from `start` for `len` seconds.
    fn add(&mut self, start: f64, len: f64, mut f: impl FnMut(&mut Self, f64, f64) -> f64) {
        let first = (start * f64::from(RATE)) as usize;
        let n = (len * f64::from(RATE)) as usize;
        if self.buf.len() < first + n {
            self.buf.resize(first + n, 0.0);
        }
        for i in 0..n {
            let t = i as f64 / f64::from(RATE);
            let v = f(self, t, len);
            self.buf[first + i] += v;
        }
    }

    /// A falling sine, quickly fading: a blow, a footstep.
    fn thump(&mut self, start: f64, len: f64, from: f64, to: f64, gain: f64) {
        let mut phase = 0.0;
        self.add(start, len, |_, t, len| {
            let f = from + (to - from) * (t / len);
            phase += TAU * f / f64::from(RATE);
            let env = (1.0 - t / len).powi(3) * attack(t, 0.002);
            gain * env * phase.sin()
        });
    }

    /// A burst of noise, smoothed by a one-pole filter (`bright` 0..1: how much high end).
    fn noise(&mut self, start: f64, len: f64, gain: f64, bright: f64) {
        let mut low = 0.0;
        self.add(start, len, |s, t, len| {
            let r = s.rand();
            low += bright * (r - low);
            let env = (1.0 - t / len).powi(2) * attack(t, 0.001);
            gain * env * low
        });
    }

    /// Noise swelling and fading with its brightness rising.
    fn swish(&mut self, start: f64, len: f64, gain: f64) {
        let mut low = 0.0;
        self.add(start, len, |s, t, len| {
            let x = t / len;
            let r = s.rand();
            low += (0.05 + 0.4 * x) * (r - low);
            let env = (x * std::f64::consts::PI).sin().powi(2);
            gain * env * low * 2.0
        });
    }

    /// A sine sliding from one pitch to another, fading.
    fn glide(&mut self, start: f64, len: f64, from: f64, to: f64, gain: f64) {
        let mut phase = 0.0;
        self.add(start, len, |_, t, len| {
            let x = t / len;
            let f = from * (to / from).powf(x);
            phase += TAU * f / f64::from(RATE);
            // A touch of the octave above, for a less pure tone.
            let v = phase.sin() + 0.3 * (2.0 * phase).sin();
            gain * (1.0 - x).powi(2) * attack(t, 0.004) * v
        });
    }

    /// A struck note: a triangle wave with a bright start and a long fade.
    fn bell(&mut self, start: f64, len: f64, f: f64, gain: f64) {
        self.add(start, len, |_, t, len| {
            let x = t / len;
            let p = (t * f).fract();
            let tri = 4.0 * (p - 0.5).abs() - 1.0;
            let shimmer = 0.25 * (TAU * 2.0 * f * t).sin() * (-t * 18.0).exp();
            gain * (1.0 - x).powi(2) * attack(t, 0.003) * (tri + shimmer)
        });
    }

    /// A low buzz whose pitch wobbles: hinges.
    fn creak(&mut self, start: f64, len: f64, gain: f64) {
        let mut phase = 0.0;
        self.add(start, len, |_, t, len| {
            let x = t / len;
            let f = 95.0 + 35.0 * x + 12.0 * (TAU * 23.0 * t).sin();
            phase += f / f64::from(RATE);
            let saw = 2.0 * phase.fract() - 1.0;
            let env = (x * std::f64::consts::PI).sin();
            gain * env * saw
        });
    }

    /// The samples, limited to the 16-bit range with a short fade at the end (no click).
    fn finish(self) -> Vec<i16> {
        let n = self.buf.len();
        let fade = (f64::from(RATE) * 0.005) as usize;
        self.buf
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let tail = ((n - i) as f64 / fade as f64).min(1.0);
                let v = (v * tail).clamp(-1.0, 1.0);
                (v * f64::from(i16::MAX)).round() as i16
            })
            .collect()
    }
}

/// A ramp from 0 to 1 over `len` seconds, so no sound starts with a click.
fn attack(t: f64, len: f64) -> f64 {
    (t / len).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_effect_is_short_audible_and_unclipped() {
        for cue in Cue::ALL {
            let s = render(cue);
            let secs = s.len() as f64 / f64::from(RATE);
            assert!((0.05..=1.5).contains(&secs), "{cue:?}: {secs} s");
            let peak = s.iter().map(|v| v.unsigned_abs()).max().unwrap_or(0);
            assert!(peak > 3_000, "{cue:?} is too quiet: {peak}");
            let clipped = s.iter().filter(|v| v.unsigned_abs() >= 32_767).count();
            assert!(clipped < s.len() / 100, "{cue:?}: {clipped} clipped");
            let last = s.last().copied().unwrap_or(0).unsigned_abs();
            assert!(last < 200, "{cue:?} ends with a click: {last}");
        }
    }

    #[test]
    fn the_same_recipe_makes_the_same_sound() {
        assert_eq!(render(Cue::Miss), render(Cue::Miss));
        assert_ne!(render(Cue::Hit), render(Cue::Hurt));
    }
}
