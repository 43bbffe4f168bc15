//! Builds the browser client and embeds it in the server, so `cargo run -p delve-server` serves a
//! working page with no manual step.
//!
//! It runs a nested `cargo build -p delve-client --target wasm32-unknown-unknown --profile web`
//! into its own target directory (`target/web`): a different directory, so the nested cargo never
//! waits on the build lock the outer one holds, and incremental, so an unchanged client costs a
//! second. The wasm, macroquad's JS loader (shipped inside the macroquad crate) and our plugin are
//! written to OUT_DIR with gzip copies and content hashes; `src/net/web.rs` includes them.
//!
//! Without the wasm target (or with `DELVE_SKIP_WEB=1`, for builds that never serve a page), the
//! server still builds; its page then says how to get the browser client, and the script runs
//! again by itself once the target is installed (it watches the toolchain's list of targets).

use std::env;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "wasm32-unknown-unknown";

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let root = manifest
        .parent()
        .expect("server/ sits in the workspace")
        .to_owned();
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets it"));
    for watched in [
        "client/src",
        "client/Cargo.toml",
        "client/web",
        "client/web-js",
        "protocol/src",
        "protocol/Cargo.toml",
        "Cargo.lock",
        "Cargo.toml",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(watched).display());
    }
    println!("cargo:rerun-if-env-changed=DELVE_SKIP_WEB");
    // Installing the wasm target later must bring the browser client in at the next build
    // (the page tells its reader to do exactly that), so the script also runs again when the
    // toolchain's targets change.
    if let Some(watched) = targets_watch() {
        println!("cargo:rerun-if-changed={}", watched.display());
    }
    let rust = match build(&root, &out) {
        Ok(assets) => assets,
        Err(why) => {
            println!("cargo:warning=the browser client is not built: {why}");
            format!("pub const ASSETS: Result<Assets, &str> = Err({why:?});\n")
        }
    };
    write(&out.join("web_assets.rs"), rust.as_bytes());
}

fn write(path: &Path, bytes: &[u8]) {
    if let Err(e) = std::fs::write(path, bytes) {
        panic!("cannot write {}: {e}", path.display());
    }
}

/// The toolchain's sysroot, as the compiler building this says.
fn sysroot() -> Result<PathBuf, String> {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .map_err(|e| format!("cannot run rustc: {e}"))?;
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// What changes when a target is added to the toolchain: rustup's list of installed components
/// (`lib/rustlib/components`, rewritten by `rustup target add`), or, for a toolchain rustup
/// does not manage, the `lib/rustlib` folder that gets the new target's folder. Both exist
/// whether or not the wasm target is there (cargo runs a script again on every build while a
/// watched path is missing).
fn targets_watch() -> Option<PathBuf> {
    let rustlib = sysroot().ok()?.join("lib/rustlib");
    let components = rustlib.join("components");
    if components.is_file() {
        Some(components)
    } else {
        rustlib.is_dir().then_some(rustlib)
    }
}

/// Builds the client and writes the assets; returns the Rust that includes them.
fn build(root: &Path, out: &Path) -> Result<String, String> {
    if env::var_os("DELVE_SKIP_WEB").is_some_and(|v| !v.is_empty() && v != "0") {
        return Err("the server was built with DELVE_SKIP_WEB set.".into());
    }
    if !sysroot()?.join("lib/rustlib").join(TARGET).exists() {
        return Err(format!(
            "the {TARGET} target is not installed (rustup target add {TARGET})."
        ));
    }
    let target_dir = outer_target_dir(out).join("web");
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--profile", "web", "--target", TARGET])
        .args([
            "-p",
            "delve-client",
            "--bin",
            "delve",
            "--message-format=json",
        ])
        .arg("--target-dir")
        .arg(&target_dir)
        .current_dir(root);
    // What the outer cargo set for the host build must not leak into the wasm one: flags for
    // another target, clippy's wrapper, a target dir that would share the outer build's lock.
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "CARGO_BUILD_TARGET_DIR",
        "CARGO_PRIMARY_PACKAGE",
        "CARGO_MAKEFLAGS",
        "MAKEFLAGS",
        "MFLAGS",
    ] {
        cmd.env_remove(var);
    }
    let output = cmd
        .output()
        .map_err(|e| format!("cannot run cargo for the browser client: {e}"))?;
    let messages = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        let errors: String = messages
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| v["message"]["rendered"].as_str().map(str::to_owned))
            .collect();
        let stderr = String::from_utf8_lossy(&output.stderr);
        panic!("building the browser client failed:\n{errors}\n{stderr}");
    }
    // The loader ships inside the macroquad crate; cargo says where that crate's sources are.
    let mut loader = None;
    for line in messages.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["reason"] == "compiler-artifact"
            && v["target"]["name"] == "macroquad"
            && let Some(m) = v["manifest_path"].as_str()
        {
            loader = Some(Path::new(m).with_file_name("js").join("mq_js_bundle.js"));
        }
    }
    let loader = loader.ok_or("cargo did not say where macroquad's sources are")?;
    let wasm = target_dir.join(TARGET).join("web").join("delve.wasm");
    let web = root.join("client/web");
    let mut rust = String::from("pub const ASSETS: Result<Assets, &str> = Ok(Assets {\n");
    let mut names = Vec::new();
    for (field, path, stem, ext) in [
        ("wasm", wasm.as_path(), "delve", "wasm"),
        ("loader", loader.as_path(), "mq_js_bundle", "js"),
        ("plugin", web.join("delve.js").as_path(), "delve", "js"),
    ] {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let name = format!("{stem}-{:016x}.{ext}", fnv(&bytes));
        embed(&mut rust, out, field, &name, &bytes);
        names.push(name);
    }
    let page = std::fs::read_to_string(web.join("index.html"))
        .map_err(|e| format!("cannot read the page: {e}"))?
        .replace("{{wasm}}", &format!("/{}", names[0]))
        .replace("{{loader}}", &format!("/{}", names[1]))
        .replace("{{plugin}}", &format!("/{}", names[2]));
    embed(&mut rust, out, "page", "index.html", page.as_bytes());
    rust.push_str("});\n");
    Ok(rust)
}

/// Writes `bytes` and a gzip copy to OUT_DIR and the `Asset` that includes them.
fn embed(rust: &mut String, out: &Path, field: &str, name: &str, bytes: &[u8]) {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let gz = gz
        .write_all(bytes)
        .and_then(|()| gz.finish())
        .expect("gzip into memory");
    write(&out.join(name), bytes);
    write(&out.join(format!("{name}.gz")), &gz);
    let _ = writeln!(
        rust,
        "    {field}: Asset {{ name: {name:?}, etag: \"\\\"{:016x}\\\"\", raw: include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{name}\")), gzip: include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{name}.gz\")) }},",
        fnv(bytes)
    );
}

/// The outer build's target directory: OUT_DIR is `<target>/[<triple>/]<profile>/build/<pkg>/out`.
fn outer_target_dir(out: &Path) -> PathBuf {
    out.ancestors()
        .find(|p| p.file_name().is_some_and(|n| n == "build"))
        .and_then(|build| build.parent()?.parent())
        .map_or_else(|| out.join("target"), Path::to_owned)
}

/// FNV-1a, 64 bits: a content hash for asset names and ETags (not a security measure).
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
