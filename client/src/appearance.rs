//! How the game looks, as the player set it: the size of the interface (a percentage on top of
//! the size the window itself calls for) and whether the map is drawn in tiles or in glyphs.
//! Kept beside the key file, in `appearance.toml` in the config folder (natively), or in the
//! page's `localStorage` (in a browser). Pure: no window here.

/// The smallest and largest interface size the player can set, in percent, and the step the
/// menu and Ctrl +/- take.
pub const SCALE_MIN: u16 = 50;
pub const SCALE_MAX: u16 = 300;
pub const SCALE_STEP: u16 = 10;

/// The look of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Appearance {
    /// The interface's size, in percent of the size chosen for the window (100: as chosen).
    pub scale: u16,
    /// Classic glyphs (`@`, letters, `#`) on the map instead of the tiles.
    pub glyphs: bool,
}

impl Default for Appearance {
    fn default() -> Self {
        Appearance {
            scale: 100,
            glyphs: false,
        }
    }
}

impl Appearance {
    /// One step larger (`up`) or smaller, within the bounds.
    pub fn step_scale(&mut self, up: bool) {
        self.scale = if up {
            self.scale.saturating_add(SCALE_STEP).min(SCALE_MAX)
        } else {
            self.scale.saturating_sub(SCALE_STEP).max(SCALE_MIN)
        };
    }

    /// The file's text.
    pub fn to_file(self) -> String {
        format!(
            "# How Delve looks. scale: the interface's size in percent ({SCALE_MIN}-{SCALE_MAX}; \
             Ctrl +/- and the menu change it);\n# glyphs: letters and signs on the map instead \
             of the tiles.\nscale = {}\nglyphs = {}\n",
            self.scale, self.glyphs
        )
    }

    /// Reads the file; what is missing or wrong in it keeps its default.
    pub fn from_file(text: &str) -> Appearance {
        #[derive(serde::Deserialize)]
        struct File {
            scale: Option<i64>,
            glyphs: Option<bool>,
        }
        let mut a = Appearance::default();
        if let Ok(f) = toml::from_str::<File>(text) {
            if let Some(s) = f.scale {
                a.scale = s.clamp(i64::from(SCALE_MIN), i64::from(SCALE_MAX)) as u16;
            }
            if let Some(g) = f.glyphs {
                a.glyphs = g;
            }
        }
        a
    }

    /// The player's settings (the defaults where none are kept).
    pub fn load() -> Appearance {
        #[cfg(not(target_arch = "wasm32"))]
        let text =
            crate::tokens::config_dir().and_then(|d| std::fs::read_to_string(d.join(FILE)).ok());
        #[cfg(target_arch = "wasm32")]
        let text = delve_web_js::storage_get(STORAGE_KEY);
        text.map(|t| Appearance::from_file(&t)).unwrap_or_default()
    }

    /// Keeps the settings for the next game; says why not when they cannot be kept.
    pub fn save(self) -> Result<(), String> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            let dir = crate::tokens::config_dir().ok_or("no config folder (HOME is not set)")?;
            std::fs::create_dir_all(&dir)
                .and_then(|()| std::fs::write(dir.join(FILE), self.to_file()))
                .map_err(|e| format!("{}: {e}", dir.join(FILE).display()))
        }
        #[cfg(target_arch = "wasm32")]
        {
            delve_web_js::storage_set(STORAGE_KEY, &self.to_file());
            Ok(())
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
const FILE: &str = "appearance.toml";
#[cfg(target_arch = "wasm32")]
const STORAGE_KEY: &str = "delve.appearance";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_reads_back_and_bad_values_keep_their_bounds() {
        let a = Appearance {
            scale: 130,
            glyphs: true,
        };
        assert_eq!(Appearance::from_file(&a.to_file()), a);
        assert_eq!(Appearance::from_file("scale = 9000\n").scale, SCALE_MAX);
        assert_eq!(Appearance::from_file("scale = 1\n").scale, SCALE_MIN);
        assert_eq!(Appearance::from_file("not toml ["), Appearance::default());
    }

    #[test]
    fn steps_stop_at_the_bounds() {
        let mut a = Appearance::default();
        a.step_scale(true);
        assert_eq!(a.scale, 110);
        for _ in 0..100 {
            a.step_scale(true);
        }
        assert_eq!(a.scale, SCALE_MAX);
        for _ in 0..100 {
            a.step_scale(false);
        }
        assert_eq!(a.scale, SCALE_MIN);
    }
}
