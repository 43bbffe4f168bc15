//! Is there a display to open a window on? macroquad panics deep inside when there is none; the
//! game checks first, says what it needs (and how to run it under Xvfb), and exits having
//! created nothing. On Linux and the BSDs the window is an X11 one, so the check asks whether
//! the X server that `DISPLAY` names answers; elsewhere there is always a display.

/// Where the X server of a `DISPLAY` value listens: a local socket (`:0`, `unix:0`) or a TCP
/// port (`host:0` listens on 6000 + 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum XServer {
    Local(u32),
    Tcp(String, u16),
}

/// Reads a `DISPLAY` value: `[host]:number[.screen]`.
pub fn parse_display(value: &str) -> Option<XServer> {
    let (host, rest) = value.rsplit_once(':')?;
    let number: u32 = rest.split('.').next()?.parse().ok()?;
    // Where macOS's XQuartz puts its socket path into DISPLAY, the path is local too.
    if host.is_empty() || host == "unix" || host.starts_with('/') {
        Some(XServer::Local(number))
    } else {
        Some(XServer::Tcp(
            host.to_string(),
            6000u16.checked_add(number as u16)?,
        ))
    }
}

/// The sentence to print when there is no display, naming the way out.
pub fn no_display_message(why: &str) -> String {
    format!(
        "delve: this game needs a graphical display, and {why}.\n\
         Run it on a desktop, or under a virtual display, for example:\n    \
         xvfb-run -s \"-screen 0 1280x800x24\" delve --solo"
    )
}

/// `Err(message)` when no window could be opened.
#[cfg(all(unix, not(target_os = "macos"), not(target_arch = "wasm32")))]
pub fn check() -> Result<(), String> {
    use std::net::TcpStream;
    use std::os::unix::net::UnixStream;
    use std::time::Duration;

    let value = std::env::var("DISPLAY").unwrap_or_default();
    if value.is_empty() {
        return Err(no_display_message("DISPLAY is not set"));
    }
    let answers = match parse_display(&value) {
        Some(XServer::Local(n)) => {
            UnixStream::connect(format!("/tmp/.X11-unix/X{n}")).is_ok()
                || TcpStream::connect(("127.0.0.1", 6000 + n as u16)).is_ok()
        }
        Some(XServer::Tcp(host, port)) => {
            use std::net::ToSocketAddrs;
            (host.as_str(), port).to_socket_addrs().is_ok_and(|mut a| {
                a.any(|addr| TcpStream::connect_timeout(&addr, Duration::from_secs(3)).is_ok())
            })
        }
        // A form we do not know: let the window library try.
        None => true,
    };
    if answers {
        Ok(())
    } else {
        Err(no_display_message(&format!(
            "no X server answers at DISPLAY={value}"
        )))
    }
}

#[cfg(not(all(unix, not(target_os = "macos"), not(target_arch = "wasm32"))))]
pub fn check() -> Result<(), String> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_values_name_their_server() {
        assert_eq!(parse_display(":0"), Some(XServer::Local(0)));
        assert_eq!(parse_display(":99.0"), Some(XServer::Local(99)));
        assert_eq!(parse_display("unix:1"), Some(XServer::Local(1)));
        assert_eq!(
            parse_display("box:2.0"),
            Some(XServer::Tcp("box".into(), 6002))
        );
        assert_eq!(parse_display("nonsense"), None);
    }

    #[test]
    fn the_message_says_how_to_run_under_xvfb() {
        let m = no_display_message("DISPLAY is not set");
        assert!(m.contains("DISPLAY is not set"));
        assert!(m.contains("xvfb-run -s \"-screen 0 1280x800x24\""));
    }
}
