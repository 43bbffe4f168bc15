//! The browser's output: macroquad's audio over Web Audio. The page decodes each file in the
//! background (a coroutine per effect, so the game never waits on it); an effect asked for
//! before its file is decoded is skipped.

use macroquad::audio::{PlaySoundParams, Sound, load_sound_from_bytes, play_sound};
use macroquad::experimental::coroutines::{Coroutine, start_coroutine};

pub struct Player {
    loading: Vec<Option<Coroutine<Option<Sound>>>>,
    sounds: Vec<Option<Sound>>,
}

impl Player {
    pub fn start(files: &[&'static [u8]]) -> Player {
        let loading = files
            .iter()
            .map(|&bytes| {
                Some(start_coroutine(async move {
                    load_sound_from_bytes(bytes).await.ok()
                }))
            })
            .collect();
        Player {
            loading,
            sounds: vec![None; files.len()],
        }
    }

    /// The page plays on by itself: nothing to wait for.
    pub fn drained(&self) -> bool {
        true
    }

    pub fn play(&mut self, k: usize, gain: f32) {
        if let Some(slot) = self.loading.get_mut(k)
            && let Some(done) = slot.as_ref().and_then(Coroutine::retrieve)
        {
            self.sounds[k] = done;
            *slot = None;
        }
        if let Some(Some(sound)) = self.sounds.get(k) {
            play_sound(
                sound,
                PlaySoundParams {
                    looped: false,
                    volume: gain,
                },
            );
        }
    }
}
