//! The temporary folders protolapse writes to (never the repository): the demo's repository,
//! and the texts protoc reads in a load (with its outputs). Each is named
//! `protolapse-KIND-PID-RANDOM` and removed when dropped; a process that ends without
//! dropping them (killed mid-load, or a terminal UI quit while its history still loaded)
//! leaves them behind, and the next process that makes one removes those of processes no
//! longer running.

use std::path::Path;
use std::sync::Once;
use std::time::Duration;

/// What a temporary folder is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Demo,
    Texts,
}

impl Kind {
    const ALL: [Kind; 2] = [Kind::Demo, Kind::Texts];

    fn prefix(self) -> &'static str {
        match self {
            Kind::Demo => "protolapse-demo-",
            Kind::Texts => "protolapse-texts-",
        }
    }
}

/// A process this one cannot see (another pid namespace sharing the folder) may still use
/// a folder written to this recently: a protoc call lasts at most two minutes.
const YOUNG: Duration = Duration::from_secs(10 * 60);
/// Where `/proc` does not tell which processes run, a folder this old is stale.
const DAY: Duration = Duration::from_secs(24 * 60 * 60);

/// A new temporary folder of `kind`, removed when dropped; the first one a process makes
/// sweeps what dead processes left first.
pub fn folder(kind: Kind) -> std::io::Result<tempfile::TempDir> {
    static SWEPT: Once = Once::new();
    SWEPT.call_once(|| sweep_stale(&std::env::temp_dir()));
    tempfile::Builder::new()
        .prefix(&format!("{}{}-", kind.prefix(), std::process::id()))
        .tempdir()
}

/// Removes the folders of every [`Kind`] in `tmp` that a process no longer running left
/// behind. A folder is stale when the process named in it is gone (where `/proc` tells) and
/// it was last written to more than ten minutes ago, or when it is older than a day
/// (elsewhere, or unnamed); only folders, never a link, are removed.
pub fn sweep_stale(tmp: &Path) {
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    let proc_fs = Path::new("/proc/self").is_dir();
    let ours = std::process::id();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name
            .to_str()
            .and_then(|n| Kind::ALL.iter().find_map(|k| n.strip_prefix(k.prefix())))
        else {
            continue;
        };
        let Ok(meta) = entry.path().symlink_metadata() else {
            continue;
        };
        if !meta.is_dir() {
            continue;
        }
        let age = meta.modified().ok().and_then(|t| t.elapsed().ok());
        let pid: Option<u32> = rest.split('-').next().and_then(|p| p.parse().ok());
        let stale = match pid {
            Some(p) if p == ours => false,
            Some(p) if proc_fs => age.is_some_and(|a| a >= YOUNG) && !running(p),
            _ => age.is_some_and(|a| a > DAY),
        };
        if stale {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Whether process `pid` runs, as `/proc` tells: a zombie (killed, not reaped yet) does not.
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // `pid (name) S ...`: the state follows the name's last parenthesis.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_none_or(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => false,
    }
}
