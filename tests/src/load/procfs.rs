//! What Linux says about a process: CPU time from `/proc/PID/stat`, resident memory from
//! `/proc/PID/status`.

use std::time::Duration;

use anyhow::{Context, bail};

/// User plus system CPU time of every thread of `pid` so far.
pub fn cpu_time(pid: u32, ticks_per_sec: u64) -> anyhow::Result<Duration> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .with_context(|| format!("cannot read /proc/{pid}/stat"))?;
    let ticks = cpu_ticks(&text)?;
    Ok(Duration::from_secs_f64(ticks as f64 / ticks_per_sec as f64))
}

/// `utime + stime` (fields 14 and 15, in clock ticks) of one `/proc/PID/stat` line. The command
/// name (field 2) is in parentheses and may itself hold spaces and parentheses, so fields are
/// counted from the last `)`.
pub fn cpu_ticks(stat: &str) -> anyhow::Result<u64> {
    let rest = stat
        .rfind(')')
        .map(|i| &stat[i + 1..])
        .context("no ')' in /proc/PID/stat")?;
    // After the name: field 3 (state) is the first, so utime (14) is at index 11.
    let fields: Vec<&str> = rest.split_whitespace().collect();
    if fields.len() < 13 {
        bail!("/proc/PID/stat has too few fields");
    }
    let utime: u64 = fields[11].parse().context("utime")?;
    let stime: u64 = fields[12].parse().context("stime")?;
    Ok(utime + stime)
}

/// Resident memory of `pid`, in bytes.
pub fn rss(pid: u32) -> anyhow::Result<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .with_context(|| format!("cannot read /proc/{pid}/status"))?;
    rss_bytes(&text)
}

/// The `VmRSS` line of a `/proc/PID/status`, in bytes.
pub fn rss_bytes(status: &str) -> anyhow::Result<u64> {
    let line = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .context("no VmRSS in /proc/PID/status")?;
    let kb: u64 = line
        .trim()
        .strip_suffix("kB")
        .context("VmRSS is not in kB")?
        .trim()
        .parse()
        .context("VmRSS")?;
    Ok(kb * 1024)
}

/// Clock ticks per second (`getconf CLK_TCK`; 100 on every Linux this runs on).
pub fn ticks_per_sec() -> u64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100)
}

/// The 1-minute load average, as the machine's busyness while measuring.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_ticks_are_utime_plus_stime_even_with_parentheses_in_the_name() {
        let line = "4242 (delve (x) srv) S 1 4242 4242 0 -1 4194560 1234 0 0 0 \
                    731 269 0 0 20 0 3 0 5000 1000000 2000 18446744073709551615";
        assert_eq!(cpu_ticks(line).unwrap(), 731 + 269);
        assert!(cpu_ticks("4242 (x) S 1 2").is_err(), "too short");
        assert!(cpu_ticks("no name here").is_err());
    }

    #[test]
    fn rss_is_read_in_kilobytes() {
        let status = "Name:\tdelve-server\nVmPeak:\t  99999 kB\nVmRSS:\t   10240 kB\nThreads:\t3\n";
        assert_eq!(rss_bytes(status).unwrap(), 10240 * 1024);
        assert!(rss_bytes("Name:\tx\n").is_err());
    }

    #[test]
    fn reads_this_process() {
        let me = std::process::id();
        assert!(rss(me).unwrap() > 0);
        assert!(cpu_time(me, ticks_per_sec()).is_ok());
    }
}
