//! `protolapse cache`: where the on-disk cache is, how many entries it holds and how large
//! it is; `protolapse cache clear` empties it.

use anyhow::{Result, anyhow};

use protolapse::sanitize;
use protolapse::schema::store::{self, Store};

/// The report of `protolapse cache` (`clear`: after emptying it).
pub fn cache(disabled: bool, clear: bool) -> Result<String> {
    let Some(root) = store::location() else {
        return Err(anyhow!(
            "no cache folder is known for this user\n  help: set {} to a folder",
            store::DIR_VAR
        ));
    };
    let shown = sanitize::line(&root.display().to_string());
    let cap = store::max_bytes();
    let mut out = format!("location  {shown}\n");
    if disabled {
        out.push_str("(not used in this run: --no-cache)\n");
    }
    if !root.exists() {
        out.push_str(&format!(
            "entries   0\nsize      0 B (cap {}, {})\n",
            size(cap),
            store::MAX_VAR
        ));
        return Ok(out);
    }
    let store = Store::open(&root, cap).map_err(|e| anyhow!(e))?;
    if clear {
        let removed = store
            .clear()
            .map_err(|e| anyhow!("cannot clear the cache folder {shown}: {e}"))?;
        out.push_str(&format!(
            "cleared   {} entries, {}\n",
            removed.entries,
            size(removed.bytes)
        ));
    }
    let usage = store.usage();
    out.push_str(&format!(
        "entries   {}\nsize      {} (cap {}, {})\n",
        usage.entries,
        size(usage.bytes),
        size(cap),
        store::MAX_VAR
    ));
    Ok(out)
}

/// A size for people: `0 B`, `12.3 KiB`, `4.0 MiB`.
fn size(bytes: u64) -> String {
    let b = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} B")
    } else if b < 1024.0 * 1024.0 {
        format!("{:.1} KiB", b / 1024.0)
    } else if b < 1024.0 * 1024.0 * 1024.0 {
        format!("{:.1} MiB", b / (1024.0 * 1024.0))
    } else {
        format!("{:.1} GiB", b / (1024.0 * 1024.0 * 1024.0))
    }
}
