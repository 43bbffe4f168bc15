//! The native client's sound output: a small ALSA player. One thread mixes the effects being
//! played and writes them to the default sound device. `libasound.so.2` is opened with `dlopen`
//! when the player starts, so nothing about sound is needed to build (macroquad's `audio`
//! feature links `-lasound`, which needs `libasound2-dev`, and panics without a device), and a
//! machine without the library or without a device gets one line saying so and silence.
//!
//! ALSA reports its own failures by printing to standard error (several lines when there is no
//! sound card, as under Xvfb); the thread installs a handler that keeps them quiet, and says
//! what failed in its one line instead.
//!
//! Why a crate of its own: the workspace forbids unsafe code, and loading and calling a C
//! library is unsafe. This crate hands out safe functions only. On other systems it is a
//! player that plays nothing.

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub use linux::Player;

/// Plays nothing: there is no output for this system.
#[cfg(not(target_os = "linux"))]
pub struct Player;

#[cfg(not(target_os = "linux"))]
impl Player {
    /// Says in one line that this system gets no sound.
    pub fn start(_sounds: Vec<Vec<i16>>, _rate: u32) -> Player {
        eprintln!("delve: no sound: this build plays sound on Linux and in the browser only");
        Player
    }

    /// Does nothing.
    pub fn play(&self, _sound: usize, _gain: f32) {}

    /// Always true: nothing is ever playing.
    pub fn drained(&self) -> bool {
        true
    }
}
