//! A real browser for end-to-end tests and measurements: Debian's headless Chromium driven over
//! the DevTools protocol (CDP), spoken over a WebSocket with tokio-tungstenite. Flags and facts:
//! ../shared/BROWSER.md (SwiftShader through ANGLE renders the WebGL canvas; the old
//! `--use-gl=swiftshader` leaves it black).
//!
//! Every wait has a deadline and says what it waited for when it fails.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// The Chromium binary: `$CHROMIUM`, else `chromium` on the PATH.
pub fn chromium_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CHROMIUM").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("chromium"))
        .find(|p| p.is_file())
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// Whether this machine can run a browser test (Chromium, and a server that has the browser
/// client); under CI, a missing piece is a failure, elsewhere the test is skipped with a reason.
pub fn can_run() -> bool {
    let missing = if chromium_path().is_none() {
        Some("chromium is not installed (apt-get install chromium)".to_owned())
    } else {
        delve_server::net::web::assets()
            .err()
            .map(|why| format!("the server has no browser client: {why}"))
    };
    match missing {
        None => true,
        Some(why) if in_ci() => panic!("the browser test must run in CI, but {why}"),
        Some(why) => {
            eprintln!("skipping the browser test: {why}");
            false
        }
    }
}

/// A headless Chromium with one page, attached over CDP. Dropping it kills the browser and
/// removes its profile directory.
pub struct Browser {
    _process: Process,
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    session: String,
    next_id: u64,
}

impl Browser {
    /// Starts Chromium with a window of `width`×`height` on a blank page.
    pub async fn launch(width: u32, height: u32) -> anyhow::Result<Browser> {
        let exe = chromium_path().ok_or_else(|| anyhow!("chromium is not installed"))?;
        static SEQ: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let profile = std::env::temp_dir().join(format!(
            "delve-chromium-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&profile);
        std::fs::create_dir_all(&profile)?;
        let mut process = Process {
            profile: profile.clone(),
            child: None,
        };
        let child = Command::new(&exe)
            .args([
                "--headless=new",
                "--no-sandbox",
                "--use-gl=angle",
                "--use-angle=swiftshader",
                "--enable-unsafe-swiftshader",
                "--remote-debugging-port=0",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ])
            .arg(format!("--window-size={width},{height}"))
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot start {}", exe.display()))?;
        let child = process.child.insert(child);
        // Chromium writes its port and browser endpoint once it listens.
        let file = profile.join("DevToolsActivePort");
        let deadline = Instant::now() + Duration::from_secs(30);
        let endpoint = loop {
            if let Ok(text) = std::fs::read_to_string(&file) {
                let mut lines = text.lines();
                if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                    break format!("ws://127.0.0.1:{port}{path}");
                }
            }
            if let Ok(Some(status)) = child.try_wait() {
                bail!("chromium exited at start ({status})");
            }
            if Instant::now() > deadline {
                bail!("chromium wrote no DevToolsActivePort within 30 s");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let (ws, _) = tokio_tungstenite::connect_async(&endpoint)
            .await
            .context("cannot reach chromium's DevTools endpoint")?;
        let mut browser = Browser {
            _process: process,
            ws,
            session: String::new(),
            next_id: 1,
        };
        let targets = browser.call("Target.getTargets", json!({})).await?;
        let page = targets["targetInfos"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["type"] == "page"))
            .and_then(|t| t["targetId"].as_str())
            .ok_or_else(|| anyhow!("chromium has no page: {targets}"))?
            .to_owned();
        let attached = browser
            .call(
                "Target.attachToTarget",
                json!({ "targetId": page, "flatten": true }),
            )
            .await?;
        browser.session = attached["sessionId"]
            .as_str()
            .ok_or_else(|| anyhow!("no session id: {attached}"))?
            .to_owned();
        browser.call("Page.enable", json!({})).await?;
        // Headless Chromium counts its (invisible) window frame in --window-size: set the page's
        // own size, which is what a player's window would give the canvas.
        browser.resize(width, height).await?;
        // A headless window never has the OS focus; without this, the page thinks it is in
        // the background and key events have no focused element.
        browser
            .call(
                "Emulation.setFocusEmulationEnabled",
                json!({ "enabled": true }),
            )
            .await?;
        Ok(browser)
    }

    /// Sets the page's size, as a player resizing the window would.
    pub async fn resize(&mut self, width: u32, height: u32) -> anyhow::Result<()> {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        )
        .await?;
        Ok(())
    }

    /// Makes the page a phone's: `width`×`height` CSS pixels at a density of 2, touch events
    /// and no mouse, as Chromium's device emulation does it.
    pub async fn phone(&mut self, width: u32, height: u32) -> anyhow::Result<()> {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 2, "mobile": true }),
        )
        .await?;
        self.call(
            "Emulation.setTouchEmulationEnabled",
            json!({ "enabled": true, "maxTouchPoints": 5 }),
        )
        .await?;
        Ok(())
    }

    /// A finger's tap at (`x`, `y`) CSS pixels: down, then up.
    pub async fn tap(&mut self, x: f64, y: f64) -> anyhow::Result<()> {
        self.call(
            "Input.dispatchTouchEvent",
            json!({ "type": "touchStart", "touchPoints": [{ "x": x, "y": y }] }),
        )
        .await?;
        self.call(
            "Input.dispatchTouchEvent",
            json!({ "type": "touchEnd", "touchPoints": [] }),
        )
        .await?;
        Ok(())
    }

    /// Text typed into the focused element as a phone's keyboard gives it (no key events).
    pub async fn insert_text(&mut self, text: &str) -> anyhow::Result<()> {
        self.call("Input.insertText", json!({ "text": text }))
            .await?;
        Ok(())
    }

    /// Sends a CDP command (to the page once attached) and returns its result.
    pub async fn call(&mut self, method: &str, params: Value) -> anyhow::Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if !self.session.is_empty() {
            msg["sessionId"] = json!(self.session);
        }
        self.ws.send(Message::text(msg.to_string())).await?;
        let answer = tokio::time::timeout(Duration::from_secs(30), async {
            while let Some(frame) = self.ws.next().await {
                let Message::Text(text) = frame? else {
                    continue;
                };
                let v: Value = serde_json::from_str(text.as_str())?;
                if v["id"] == json!(id) {
                    return Ok(v);
                }
                // Events are not needed: the tests read the page's state instead.
            }
            bail!("chromium closed the DevTools connection")
        })
        .await
        .map_err(|_| anyhow!("chromium did not answer {method} within 30 s"))??;
        if let Some(e) = answer.get("error") {
            bail!("{method} failed: {e}");
        }
        Ok(answer["result"].clone())
    }

    /// Loads `url` in the page.
    pub async fn navigate(&mut self, url: &str) -> anyhow::Result<()> {
        self.call("Page.navigate", json!({ "url": url })).await?;
        Ok(())
    }

    /// Reloads the page. Until the new page publishes its status, [`Browser::status`] reads
    /// null, not the old page's last words.
    pub async fn reload(&mut self) -> anyhow::Result<()> {
        self.eval("window.delveOldPage = true").await?;
        self.call("Page.reload", json!({ "ignoreCache": false }))
            .await?;
        Ok(())
    }

    /// The value of a JavaScript expression in the page.
    pub async fn eval(&mut self, expr: &str) -> anyhow::Result<Value> {
        let r = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": expr, "returnByValue": true }),
            )
            .await?;
        if let Some(e) = r.get("exceptionDetails") {
            bail!("{expr} threw: {e}");
        }
        Ok(r["result"]["value"].clone())
    }

    /// The game's published status (`window.delveStatus`), or null before the first frame.
    pub async fn status(&mut self) -> anyhow::Result<Value> {
        self.eval("window.delveOldPage ? null : (window.delveStatus || null)")
            .await
    }

    /// Reads the game's status until `ok` holds, for at most `within`; fails naming `what` and
    /// the last status seen.
    pub async fn wait_status(
        &mut self,
        what: &str,
        within: Duration,
        ok: impl Fn(&Value) -> bool,
    ) -> anyhow::Result<Value> {
        let deadline = Instant::now() + within;
        loop {
            let st = self.status().await?;
            if ok(&st) {
                return Ok(st);
            }
            if Instant::now() > deadline {
                bail!("waited {within:?} for {what}; the page's status is {st}");
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Runs `source` in every page this tab loads from now on, before the page's own scripts.
    pub async fn before_each_page(&mut self, source: &str) -> anyhow::Result<()> {
        self.call(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": source }),
        )
        .await?;
        Ok(())
    }

    /// Moves the mouse to (`x`, `y`) in the page, as a player's hand would.
    pub async fn mouse_to(&mut self, x: f64, y: f64) -> anyhow::Result<()> {
        self.call(
            "Input.dispatchMouseEvent",
            json!({ "type": "mouseMoved", "x": x, "y": y }),
        )
        .await?;
        Ok(())
    }

    /// Presses and releases one key, by its DOM `code` (`Numpad6`, `KeyI`, `Enter`, ...).
    pub async fn press(&mut self, code: &str) -> anyhow::Result<()> {
        for kind in ["rawKeyDown", "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({ "type": kind, "code": code, "key": code }),
            )
            .await?;
        }
        Ok(())
    }

    /// Types `text` as a player would (each character a key press with its character).
    pub async fn type_text(&mut self, text: &str) -> anyhow::Result<()> {
        for c in text.chars() {
            let code = if c.is_ascii_alphabetic() {
                format!("Key{}", c.to_ascii_uppercase())
            } else {
                String::new()
            };
            let key = c.to_string();
            self.call(
                "Input.dispatchKeyEvent",
                json!({ "type": "keyDown", "code": code, "key": key, "text": key }),
            )
            .await?;
            self.call(
                "Input.dispatchKeyEvent",
                json!({ "type": "keyUp", "code": code, "key": key }),
            )
            .await?;
        }
        Ok(())
    }

    /// A PNG of the page as it is drawn now.
    pub async fn screenshot(&mut self) -> anyhow::Result<Vec<u8>> {
        let r = self
            .call("Page.captureScreenshot", json!({ "format": "png" }))
            .await?;
        let b64 = r["data"]
            .as_str()
            .ok_or_else(|| anyhow!("no screenshot data"))?;
        data_encoding::BASE64
            .decode(b64.as_bytes())
            .context("the screenshot is not base64")
    }
}

/// The browser process and its profile directory, cleaned up however the test ends.
struct Process {
    profile: PathBuf,
    child: Option<Child>,
}

impl Drop for Process {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Distinct colours in a PNG (a blank or black page has one or two).
pub fn png_colours(png: &[u8]) -> anyhow::Result<(u32, u32, usize)> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info()?;
    let mut buf = vec![0; reader.output_buffer_size().unwrap_or(0)];
    let info = reader.next_frame(&mut buf)?;
    let px = info.color_type.samples();
    let set: std::collections::HashSet<&[u8]> =
        buf[..info.buffer_size()].chunks_exact(px).collect();
    Ok((info.width, info.height, set.len()))
}
