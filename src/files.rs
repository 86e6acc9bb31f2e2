//! Files written whole or not at all.

use std::fs::File;
use std::io::Write;
use std::path::Path;

/// Writes `bytes` as the whole of `path`: to `path` with `.tmp` added to its name, synced,
/// renamed over `path`, and the directory synced, so that `path` holds either its old
/// content or the new one, never part of it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    let tmp = path.with_file_name(name);
    let mut file = File::create(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)?;
    match path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        Some(dir) => File::open(dir)?.sync_all(),
        None => Ok(()),
    }
}
