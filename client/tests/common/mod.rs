//! What the window tests share: a virtual display of their own.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A virtual display of its own, gone when dropped.
pub struct Xvfb {
    child: Child,
    pub display: String,
}

impl Xvfb {
    pub fn start(w: u32, h: u32) -> Option<Xvfb> {
        let found = Command::new("Xvfb").arg("-help").output().is_ok();
        if !found {
            return None;
        }
        // A display number nobody uses: no socket and no lock file.
        let n = (140..400).find(|n| {
            !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
                && !Path::new(&format!("/tmp/.X{n}-lock")).exists()
        })?;
        let child = Command::new("Xvfb")
            .arg(format!(":{n}"))
            .args(["-screen", "0", &format!("{w}x{h}x24"), "-nolisten", "tcp"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let x = Xvfb {
            child,
            display: format!(":{n}"),
        };
        // Ready once its socket is there.
        let deadline = Instant::now() + Duration::from_secs(20);
        let socket = format!("/tmp/.X11-unix/X{n}");
        while !Path::new(&socket).exists() {
            assert!(Instant::now() < deadline, "Xvfb :{n} did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(x)
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
