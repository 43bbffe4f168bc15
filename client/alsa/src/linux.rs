//! The player on Linux: libasound loaded at run time, one mixing thread.

use std::ffi::{CStr, c_char, c_int, c_long, c_uint, c_ulong, c_void};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Frames mixed and written at a time: about 12 ms.
const PERIOD: usize = 256;
/// What we ask ALSA to keep queued, in microseconds: short enough for a blow to sound with it.
const LATENCY_US: c_uint = 60_000;

struct Voice {
    samples: Arc<[i16]>,
    at: usize,
    gain: f32,
}

struct Shared {
    voices: Mutex<Vec<Voice>>,
    /// The device is open and being fed: until then (and for ever, without one) cues are
    /// dropped instead of piling up.
    ready: AtomicBool,
    /// Frames handed to the device so far, and that count when the last sound ended.
    written: AtomicU64,
    quiet_since: AtomicU64,
    rate: u32,
}

/// Plays sounds (mono, 16-bit) on the default ALSA device, mixed.
pub struct Player {
    sounds: Vec<Arc<[i16]>>,
    shared: Arc<Shared>,
}

impl Player {
    /// Starts the output in the background with `sounds` (at `rate` samples a second) to
    /// play: the caller never waits for the device. If there is none, one line says why.
    pub fn start(sounds: Vec<Vec<i16>>, rate: u32) -> Player {
        let sounds = sounds.into_iter().map(Arc::from).collect();
        let shared = Arc::new(Shared {
            voices: Mutex::new(Vec::new()),
            ready: AtomicBool::new(false),
            written: AtomicU64::new(0),
            quiet_since: AtomicU64::new(0),
            rate,
        });
        let for_thread = Arc::clone(&shared);
        let spawned = std::thread::Builder::new()
            .name("delve-sound".into())
            .spawn(move || {
                if let Err(why) = run(&for_thread, rate) {
                    for_thread.ready.store(false, Ordering::Relaxed);
                    eprintln!("delve: no sound: {why}");
                }
            });
        if let Err(e) = spawned {
            eprintln!("delve: no sound: cannot start its thread: {e}");
        }
        Player { sounds, shared }
    }

    /// Plays sound number `k` at `gain` (1 is as made), beside whatever is playing. Dropped
    /// while there is no device.
    pub fn play(&self, k: usize, gain: f32) {
        if !self.shared.ready.load(Ordering::Relaxed) {
            return;
        }
        let Some(samples) = self.sounds.get(k) else {
            return;
        };
        if let Ok(mut v) = self.shared.voices.lock() {
            v.push(Voice {
                samples: Arc::clone(samples),
                at: 0,
                gain,
            });
        }
    }
}

impl Player {
    /// Whether everything asked for has been played out: no sound left to mix, and twice the
    /// device's latency handed over since the last one ended. Always true without a device.
    pub fn drained(&self) -> bool {
        let sh = &self.shared;
        if !sh.ready.load(Ordering::Relaxed) {
            return true;
        }
        let idle = sh.voices.lock().map(|v| v.is_empty()).unwrap_or(true);
        let since = sh.written.load(Ordering::Relaxed) - sh.quiet_since.load(Ordering::Relaxed);
        idle && since * 1_000_000 >= 2 * u64::from(LATENCY_US) * u64::from(sh.rate)
    }
}

type Pcm = *mut c_void;

// The signatures of the libasound functions used, as alsa/pcm.h and alsa/error.h give them.
type OpenFn = unsafe extern "C" fn(*mut Pcm, *const c_char, c_int, c_int) -> c_int;
type SetParamsFn = unsafe extern "C" fn(Pcm, c_int, c_int, c_uint, c_uint, c_int, c_uint) -> c_int;
type NonblockFn = unsafe extern "C" fn(Pcm, c_int) -> c_int;
type WriteiFn = unsafe extern "C" fn(Pcm, *const c_void, c_ulong) -> c_long;
type RecoverFn = unsafe extern "C" fn(Pcm, c_int, c_int) -> c_int;
type StrerrorFn = unsafe extern "C" fn(c_int) -> *const c_char;
type SetLocalFn = unsafe extern "C" fn(Option<LocalHandler>) -> Option<LocalHandler>;

/// The few functions of libasound the player uses.
struct Lib {
    open: OpenFn,
    set_params: SetParamsFn,
    nonblock: NonblockFn,
    writei: WriteiFn,
    recover: RecoverFn,
    strerror: StrerrorFn,
}

// The values of ALSA's enums we pass (alsa/pcm.h).
const STREAM_PLAYBACK: c_int = 0;
const FORMAT_S16_LE: c_int = 2;
const ACCESS_RW_INTERLEAVED: c_int = 3;
const MODE_NONBLOCK: c_int = 1;

/// ALSA's per-thread error handler type (`snd_local_error_handler_t`): not variadic (the
/// arguments come as a `va_list`), so Rust can define one.
type LocalHandler =
    unsafe extern "C" fn(*const c_char, c_int, *const c_char, c_int, *const c_char, *mut c_void);

unsafe extern "C" fn quiet(
    _file: *const c_char,
    _line: c_int,
    _function: *const c_char,
    _err: c_int,
    _fmt: *const c_char,
    _args: *mut c_void,
) {
}

impl Lib {
    fn load() -> Result<Lib, String> {
        // SAFETY: dlopen and dlsym with NUL-terminated names; each symbol is cast to the
        // signature alsa/pcm.h gives it.
        unsafe {
            let lib = libc::dlopen(
                c"libasound.so.2".as_ptr(),
                libc::RTLD_NOW | libc::RTLD_LOCAL,
            );
            if lib.is_null() {
                return Err("the ALSA library (libasound.so.2) is not installed".into());
            }
            let sym = |name: &CStr| {
                let p = libc::dlsym(lib, name.as_ptr());
                if p.is_null() {
                    Err(format!("libasound.so.2 has no {}", name.to_string_lossy()))
                } else {
                    Ok(p)
                }
            };
            // Quiet ALSA's own messages in this thread (the library has had the call since
            // 1.1.9; without it, they are printed).
            if let Ok(p) = sym(c"snd_lib_error_set_local") {
                let set_local = std::mem::transmute::<*mut c_void, SetLocalFn>(p);
                set_local(Some(quiet));
            }
            Ok(Lib {
                open: std::mem::transmute::<*mut c_void, OpenFn>(sym(c"snd_pcm_open")?),
                set_params: std::mem::transmute::<*mut c_void, SetParamsFn>(sym(
                    c"snd_pcm_set_params",
                )?),
                nonblock: std::mem::transmute::<*mut c_void, NonblockFn>(sym(c"snd_pcm_nonblock")?),
                writei: std::mem::transmute::<*mut c_void, WriteiFn>(sym(c"snd_pcm_writei")?),
                recover: std::mem::transmute::<*mut c_void, RecoverFn>(sym(c"snd_pcm_recover")?),
                strerror: std::mem::transmute::<*mut c_void, StrerrorFn>(sym(c"snd_strerror")?),
            })
        }
    }

    fn error(&self, code: c_int) -> String {
        // SAFETY: snd_strerror returns a static string for any code.
        unsafe {
            let s = (self.strerror)(code);
            if s.is_null() {
                format!("error {code}")
            } else {
                CStr::from_ptr(s).to_string_lossy().into_owned()
            }
        }
    }
}

/// Opens the default device and feeds it until it fails.
fn run(shared: &Shared, rate: u32) -> Result<(), String> {
    let lib = Lib::load()?;
    let mut pcm: Pcm = std::ptr::null_mut();
    // SAFETY: the calls follow alsa/pcm.h; `pcm` is only used once opened.
    unsafe {
        // Opened without blocking, so a device another program holds cannot stall us here;
        // then writes block, which paces the thread.
        let r = (lib.open)(
            &mut pcm,
            c"default".as_ptr(),
            STREAM_PLAYBACK,
            MODE_NONBLOCK,
        );
        if r < 0 {
            return Err(format!("cannot open the sound device ({})", lib.error(r)));
        }
        (lib.nonblock)(pcm, 0);
        let r = (lib.set_params)(
            pcm,
            FORMAT_S16_LE,
            ACCESS_RW_INTERLEAVED,
            1,
            rate,
            1,
            LATENCY_US,
        );
        if r < 0 {
            return Err(format!(
                "the sound device refused 16-bit mono ({})",
                lib.error(r)
            ));
        }
    }
    shared.ready.store(true, Ordering::Relaxed);
    let mut out = [0i16; PERIOD];
    // A device that takes samples faster than it plays them (ALSA's `null`, a file) would
    // have this loop spin: never run more than a little ahead of the clock.
    let started = Instant::now();
    let mut written = 0u64;
    loop {
        let ahead = written as f64 / f64::from(rate) - started.elapsed().as_secs_f64();
        if ahead > 0.1 {
            std::thread::sleep(Duration::from_secs_f64(ahead - 0.05));
        }
        mix(shared, &mut out);
        let mut done = 0;
        while done < PERIOD {
            // SAFETY: `out[done..]` holds PERIOD - done frames of one channel.
            let n = unsafe {
                (lib.writei)(pcm, out[done..].as_ptr().cast(), (PERIOD - done) as c_ulong)
            };
            if n >= 0 {
                done += n as usize;
                written += n as u64;
                shared.written.store(written, Ordering::Relaxed);
                continue;
            }
            // An underrun (the game was busy) or a suspend: recover and go on.
            // SAFETY: `pcm` is open; `n` is the error writei returned.
            let r = unsafe { (lib.recover)(pcm, n as c_int, 1) };
            if r < 0 {
                return Err(format!("the sound device failed ({})", lib.error(r)));
            }
        }
    }
}

/// Mixes one period of the voices playing into `out`, dropping those that have ended.
fn mix(shared: &Shared, out: &mut [i16]) {
    let mut acc = [0f32; PERIOD];
    if let Ok(mut voices) = shared.voices.lock() {
        for v in voices.iter_mut() {
            let left = &v.samples[v.at.min(v.samples.len())..];
            for (a, s) in acc.iter_mut().zip(left) {
                *a += f32::from(*s) * v.gain;
            }
            v.at += out.len();
        }
        let playing = !voices.is_empty();
        voices.retain(|v| v.at < v.samples.len());
        if playing && voices.is_empty() {
            // The last sound's end is in this period, which is written next.
            let at = shared.written.load(Ordering::Relaxed) + out.len() as u64;
            shared.quiet_since.store(at, Ordering::Relaxed);
        }
    }
    for (o, a) in out.iter_mut().zip(acc) {
        *o = a.clamp(f32::from(i16::MIN), f32::from(i16::MAX)) as i16;
    }
}
