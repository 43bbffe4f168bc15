//! `delve-load`'s command line.

use std::path::PathBuf;

use anyhow::{Context, bail};

pub const USAGE: &str = "\
usage: delve-load [--clients N[,N...]] [--per-dungeon K] [--rate R] [--seconds S] [--warmup W]
                  [--idle N] [--repeat K] [--pin] [--server-bin PATH] [--seed S]
                  [--variant NAME=PATH[,VAR=VALUE...]]...
                  [--dungeon-memory P[,P...]] [--dungeons N] [--turns T]
Defaults: --clients 1000 --per-dungeon 4 --rate 5 --seconds 20 --warmup 3 --idle 1000
--repeat 1 --dungeons 100 --turns 30; one variant, `server`, the delve-server beside this binary
(or --server-bin).
--variant measures another server binary, or the same with environment variables set
(MIMALLOC_ARENA_EAGER_COMMIT=0, say), beside the others in the same run; give it once for each.
--dungeon-memory measures the resident memory of dungeons made and played by their players, with
P players each (--dungeons of them, --turns turns played), against the echo's per connection;
--clients '' skips the load rounds.
Raise the file-descriptor limit first for thousands of clients (ulimit -n 20000).";

/// A server to measure: a name for the tables, its binary, and environment variables.
#[derive(Debug, Clone)]
pub struct Variant {
    pub name: String,
    pub path: PathBuf,
    pub env: Vec<(String, String)>,
}

impl Variant {
    /// `NAME=PATH[,VAR=VALUE...]`.
    fn parse(text: &str) -> Option<Variant> {
        let mut parts = text.split(',');
        let (name, path) = parts.next()?.split_once('=')?;
        let env = parts
            .map(|kv| {
                kv.split_once('=')
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
            })
            .collect::<Option<_>>()?;
        Some(Variant {
            name: name.to_owned(),
            path: path.into(),
            env,
        })
    }
}

pub struct Args {
    pub clients: Vec<usize>,
    pub per_dungeon: usize,
    pub rate: f64,
    pub seconds: f64,
    pub warmup: f64,
    pub idle: usize,
    pub repeat: usize,
    pub pin: bool,
    pub server_bin: Option<PathBuf>,
    pub seed: u64,
    pub variants: Vec<Variant>,
    pub dungeon_memory: Vec<usize>,
    pub dungeons: usize,
    pub turns: usize,
}

pub fn parse(args: &[String]) -> anyhow::Result<Args> {
    let mut a = Args {
        clients: vec![1000],
        per_dungeon: 4,
        rate: 5.0,
        seconds: 20.0,
        warmup: 3.0,
        idle: 1000,
        repeat: 1,
        pin: false,
        server_bin: None,
        seed: 1,
        variants: Vec::new(),
        dungeon_memory: Vec::new(),
        dungeons: 100,
        turns: 30,
    };
    let list = |val: &str| -> Result<Vec<usize>, std::num::ParseIntError> {
        val.split(',')
            .filter(|v| !v.is_empty())
            .map(str::parse)
            .collect()
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        if flag == "--pin" {
            a.pin = true;
            continue;
        }
        let val = it
            .next()
            .with_context(|| format!("{flag} needs a value\n{USAGE}"))?;
        let bad = || format!("bad value {val:?} for {flag}\n{USAGE}");
        match flag.as_str() {
            "--clients" => a.clients = list(val).with_context(bad)?,
            "--per-dungeon" => a.per_dungeon = val.parse::<usize>().with_context(bad)?.max(1),
            "--rate" => a.rate = val.parse().with_context(bad)?,
            "--seconds" => a.seconds = val.parse().with_context(bad)?,
            "--warmup" => a.warmup = val.parse().with_context(bad)?,
            "--idle" => a.idle = val.parse().with_context(bad)?,
            "--repeat" => a.repeat = val.parse::<usize>().with_context(bad)?.max(1),
            "--server-bin" => a.server_bin = Some(val.into()),
            "--seed" => a.seed = val.parse().with_context(bad)?,
            "--variant" => a.variants.push(Variant::parse(val).with_context(bad)?),
            "--dungeon-memory" => a.dungeon_memory = list(val).with_context(bad)?,
            "--dungeons" => a.dungeons = val.parse::<usize>().with_context(bad)?.max(1),
            "--turns" => a.turns = val.parse().with_context(bad)?,
            _ => bail!("unknown flag {flag}\n{USAGE}"),
        }
    }
    let positive = |v: f64| v.is_finite() && v > 0.0;
    if !positive(a.rate) || !positive(a.seconds) || !a.warmup.is_finite() || a.warmup < 0.0 {
        bail!("--rate and --seconds must be positive\n{USAGE}");
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_name_a_binary_and_its_environment() {
        let args: Vec<String> = [
            "--variant",
            "lazy=/bin/delve-server,MIMALLOC_ARENA_EAGER_COMMIT=0",
            "--variant",
            "system=/bin/delve-server-system",
            "--dungeon-memory",
            "1,4,8",
            "--clients",
            "",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let a = parse(&args).expect("good arguments");
        assert_eq!(a.variants.len(), 2);
        assert_eq!(a.variants[0].name, "lazy");
        assert_eq!(
            a.variants[0].env,
            [("MIMALLOC_ARENA_EAGER_COMMIT".to_owned(), "0".to_owned())]
        );
        assert!(a.variants[1].env.is_empty());
        assert_eq!(a.dungeon_memory, [1, 4, 8]);
        assert!(a.clients.is_empty());
    }
}
