//! `delve-server --config FILE`: the server's options from a TOML file, for an operator who
//! would rather keep them in one place than in a service unit's command line.
//!
//! Each key is an option's long name (`turn_timeout = 5` is `--turn-timeout 5`, `no_web = true`
//! is `--no-web`), so every option the command line has is in the file too, and the two cannot
//! drift. The file's options go first and the command line's after them, with clap's "the last
//! one wins", so the command line overrides the file.

use std::ffi::OsString;
use std::path::Path;

use clap::{CommandFactory, FromArgMatches};

/// Parses the command line, with the options of its `--config FILE` (if any) before it.
pub fn parse<C: CommandFactory + FromArgMatches>() -> C {
    let args: Vec<OsString> = std::env::args_os().collect();
    let command = C::command().args_override_self(true);
    let args = match config_path(&args) {
        Some(path) => match file_args(&path, &command) {
            Ok(from_file) => {
                let mut all = vec![args[0].clone()];
                all.extend(from_file);
                all.extend(args[1..].iter().cloned());
                all
            }
            Err(why) => {
                let mut command = command;
                command
                    .error(clap::error::ErrorKind::InvalidValue, why)
                    .exit()
            }
        },
        None => args,
    };
    let matches = command.get_matches_from(args);
    C::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// The value of `--config` on the command line.
fn config_path(args: &[OsString]) -> Option<std::path::PathBuf> {
    let mut it = args.iter().skip(1);
    while let Some(arg) = it.next() {
        let arg = arg.to_string_lossy();
        if arg == "--config" {
            return it.next().map(Into::into);
        }
        if let Some(path) = arg.strip_prefix("--config=") {
            return Some(path.into());
        }
    }
    None
}

/// The file's options as command-line arguments.
fn file_args(path: &Path, command: &clap::Command) -> Result<Vec<OsString>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the config file {}: {e}", path.display()))?;
    let table: toml::Table =
        toml::from_str(&text).map_err(|e| format!("config file {}: {e}", path.display()))?;
    let known: Vec<&str> = command
        .get_arguments()
        .filter_map(|a| a.get_long())
        .filter(|l| !["config", "help", "version"].contains(l))
        .collect();
    let mut out = Vec::new();
    for (key, value) in table {
        let long = key.replace('_', "-");
        if !known.contains(&long.as_str()) {
            return Err(format!(
                "config file {}: unknown option `{key}` (the options are {})",
                path.display(),
                known.join(", ").replace('-', "_")
            ));
        }
        let flag = OsString::from(format!("--{long}"));
        match value {
            toml::Value::Boolean(true) => out.push(flag),
            toml::Value::Boolean(false) => {}
            toml::Value::String(s) => out.extend([flag, s.into()]),
            toml::Value::Integer(n) => out.extend([flag, n.to_string().into()]),
            toml::Value::Float(x) => out.extend([flag, x.to_string().into()]),
            other => {
                return Err(format!(
                    "config file {}: `{key}` must be a string, a number or true/false, not {}",
                    path.display(),
                    other.type_str()
                ));
            }
        }
    }
    Ok(out)
}
