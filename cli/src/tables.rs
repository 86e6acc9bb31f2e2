//! What the table subcommands share: the tables directory and the slices found in it.

use std::path::{Path, PathBuf};

use damka::Variant;
use damka::rules::{Color, Position, Rules};
use damka::tablebase::{
    BuildLock, Builder, FileKind, Listing, LockError, Material, Store, Tablebase,
};

use super::CliError;

/// The tables directory: `--tables`, else `$DAMKA_TABLES`, else `tables`; refused (exit
/// code 2) where it names a file.
pub fn tables_dir(arg: &Option<PathBuf>) -> Result<PathBuf, CliError> {
    let dir = arg
        .clone()
        .or_else(|| std::env::var_os("DAMKA_TABLES").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("tables"));
    match dir.exists() && !dir.is_dir() {
        true => Err(CliError::input(format!(
            "--tables {}: a file, not a tables directory",
            dir.display()
        ))),
        false => Ok(dir),
    }
}

/// Takes the lock of `variant`'s builds in `store` for `damka generate`: a slice build's
/// (shared with other slice builds, as cluster jobs run) when `slice` names one, else a whole
/// build's ([`Store::lock_build`]). Held by another build: exit code 1, naming it (process
/// id, host, command). A lock left by a build that was killed is taken over with a warning;
/// on a filesystem without locks the build goes on unlocked, with a warning.
pub fn lock_build(
    store: &Store,
    variant: Variant,
    slice: Option<Material>,
) -> Result<Option<BuildLock>, CliError> {
    let builder = match slice {
        Some(_) => Builder::Slice,
        None => Builder::Whole,
    };
    match store.lock_build(variant, builder) {
        Ok(lock) => {
            if let Some(holder) = lock.taken_over() {
                eprintln!(
                    "warning: {}: taking over the build lock of {holder}, which ended without \
                     releasing it",
                    lock.path().display()
                );
            }
            Ok(Some(lock))
        }
        Err(e @ LockError::Unsupported(..)) => {
            eprintln!("warning: {e}; building without a lock");
            Ok(None)
        }
        Err(e) => Err(CliError {
            message: e.to_string(),
            code: 1,
        }),
    }
}

/// `Ok` where `dir` is a directory, else an error that says how to build tables there
/// (exit code 1).
pub fn tables_there(dir: &Path) -> Result<(), CliError> {
    if dir.is_dir() {
        return Ok(());
    }
    Err(CliError {
        message: format!(
            "no tables directory {} (build tables with `damka generate --variant V --pieces N \
             --tables {}`)",
            dir.display(),
            dir.display()
        ),
        code: 1,
    })
}

/// Opens the tables under `dir`, or says clearly that there are none (exit code 1, as for
/// every table a command needs and does not find).
pub fn open(dir: &Path, cache_bytes: usize) -> Result<Tablebase, CliError> {
    tables_there(dir)?;
    Tablebase::with_cache(dir, cache_bytes).map_err(|e| CliError {
        message: e.to_string(),
        code: 1,
    })
}

/// Refuses a slice of `R` that no position can have: more pieces a side than the variant
/// has men (exit code 2).
pub fn slice_fits<R: Rules>(m: Material) -> Result<(), CliError> {
    let [a, b] = m.sides();
    let most = (a.men + a.kings).max(b.men + b.kings);
    match most <= R::MEN {
        true => Ok(()),
        false => Err(CliError::input(format!(
            "slice {m}: {most} pieces on a side, but {} has at most {} a side",
            R::VARIANT,
            R::MEN
        ))),
    }
}

/// The most pieces `damka generate` builds tables for.
pub const MOST_PIECES: u32 = 10;

/// The command that builds the tables of `variant` up to `pieces` pieces into `dir`;
/// `None` past what `generate` builds ([`MOST_PIECES`]).
pub fn generate_command(variant: Variant, pieces: u32, dir: &Path) -> Option<String> {
    build_command(variant, pieces).map(|c| format!("{c} --tables {}", dir.display()))
}

/// The command that builds the tables of `variant` up to `pieces` pieces, into the default
/// directory; `None` past what `generate` builds ([`MOST_PIECES`]).
pub fn build_command(variant: Variant, pieces: u32) -> Option<String> {
    (pieces <= MOST_PIECES).then(|| format!("damka generate --variant {variant} --pieces {pieces}"))
}

/// The pieces of the slice whose table file is `path` (`DIR/VARIANT/KEY.EXT`).
pub fn slice_pieces(path: &Path) -> Option<u32> {
    let key = path.file_stem()?.to_str()?;
    key.parse::<Material>().ok().map(|m| m.pieces())
}

/// Why no table can hold a position: past the pieces `generate` builds.
pub fn too_many_pieces() -> String {
    format!(
        "no table holds more than {MOST_PIECES} pieces (`damka generate --pieces` builds 2 to \
         {MOST_PIECES}); `damka play` searches such positions"
    )
}

/// The pieces of a position for people: `6 pieces (white 2 men, 1 king; black 3 men)`.
pub fn material_text<R: Rules>(pos: &Position<R>) -> String {
    let side = |c: Color| {
        let count = |n: u32, one: &str, many: &str| match n {
            0 => None,
            1 => Some(format!("1 {one}")),
            n => Some(format!("{n} {many}")),
        };
        let parts: Vec<String> = [
            count(pos.men_of(c).count(), "man", "men"),
            count(pos.kings_of(c).count(), "king", "kings"),
        ]
        .into_iter()
        .flatten()
        .collect();
        match parts.is_empty() {
            true => format!("{c} none"),
            false => format!("{c} {}", parts.join(", ")),
        }
    };
    format!(
        "{} pieces ({}; {})",
        pos.occupied().count(),
        side(Color::White),
        side(Color::Black)
    )
}

/// The variants with a directory under `dir`, or just `only`.
pub fn variants(dir: &Path, only: Option<Variant>) -> Vec<Variant> {
    Store::new(dir)
        .variants()
        .into_iter()
        .filter(|v| only.is_none_or(|o| o == *v))
        .collect()
}

/// The files of `variant` under `dir`.
pub fn listing(dir: &Path, variant: Variant) -> Result<Listing, CliError> {
    Store::new(dir).listing(variant).map_err(|e| CliError {
        message: format!("{}: {e}", dir.join(variant.name()).display()),
        code: 2,
    })
}

/// The slices of `variant` present under `dir` (those with a win/draw/loss file), sorted by
/// piece count then key.
pub fn slices(dir: &Path, variant: Variant) -> Result<Vec<Material>, CliError> {
    Ok(listing(dir, variant)?.slices_with(&[FileKind::Wdl]))
}

/// Bytes for people: `512 MiB`, `1.09 GiB`, `2.3 TiB`.
pub fn human_bytes(bytes: u64) -> String {
    const MIB: f64 = (1u64 << 20) as f64;
    let mib = bytes as f64 / MIB;
    if mib < 1024.0 {
        format!("{:.0} MiB", mib.ceil())
    } else if mib < 1024.0 * 1024.0 {
        format!("{:.2} GiB", mib / 1024.0)
    } else {
        format!("{:.2} TiB", mib / (1024.0 * 1024.0))
    }
}

/// Seconds for people: `0.4 s`, `12 min`, `3.5 h`.
pub fn human_seconds(seconds: f64) -> String {
    if seconds < 60.0 {
        format!("{seconds:.1} s")
    } else if seconds < 3600.0 {
        format!("{:.1} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}
