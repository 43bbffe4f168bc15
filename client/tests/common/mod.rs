//! What the window tests share: a virtual display of their own.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A virtual display of its own, gone when dropped.
pub struct Xvfb {
    child: Child,
    pub display: String,
}

impl Xvfb {
    /// A display for a test of `what` ("the window tests"), or `None` where Xvfb is not
    /// installed: the test is then skipped, except on CI, where it must run.
    pub fn for_test(w: u32, h: u32, what: &str) -> Option<Xvfb> {
        let x = Xvfb::start(w, h);
        if x.is_none() {
            assert!(
                std::env::var_os("CI").is_none(),
                "Xvfb is needed for {what} (apt-get install xvfb)"
            );
            eprintln!("skipped: no Xvfb here (apt-get install xvfb)");
        }
        x
    }

    pub fn start(w: u32, h: u32) -> Option<Xvfb> {
        let found = Command::new("Xvfb").arg("-help").output().is_ok();
        if !found {
            return None;
        }
        // Xvfb picks a free display number itself and writes it to our pipe once it accepts
        // connections (picking one here raced: two tests at once took the same number, and
        // the first to finish killed the other's display).
        let mut child = Command::new("Xvfb")
            .args(["-displayfd", "1"])
            .args(["-screen", "0", &format!("{w}x{h}x24"), "-nolisten", "tcp"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let mut line = String::new();
        let read = child
            .stdout
            .take()
            .map(|out| BufReader::new(out).read_line(&mut line));
        let n: u32 = match (read, line.trim().parse()) {
            (Some(Ok(_)), Ok(n)) => n,
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("Xvfb did not start (it told no display number: {line:?})");
            }
        };
        let x = Xvfb {
            child,
            display: format!(":{n}"),
        };
        Some(x)
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
