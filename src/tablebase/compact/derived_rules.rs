//! Rule results derived instead of stored. Under a quiet count alone, a position's result
//! under the rules mostly follows from its win/draw/loss value and its distance to
//! conversion ([`RuleResult::derived`]); exactly so where no result of its slice or of the
//! slices its conversions lead to is drawn by the counts (no cursed win, no blessed loss),
//! and the generator then derives them so itself. [`derive_rules`] compares every stored
//! result with its derivation and re-encodes the rules file: a header alone where all are
//! equal ([`RulesDerived::All`]), else the results that differ with the others marked
//! ([`RulesDerived::Marked`]). A probe of a derived result reads the win/draw/loss and
//! distance-to-conversion files instead (benches/notes/compression.md, "Rule results
//! derived").

use std::path::Path;

use rayon::prelude::*;

use crate::rules::Rules;
use crate::tablebase::format::TableFile;
use crate::tablebase::format::encode::{compress, fill_runs};
use crate::tablebase::format::{
    FileKind, Header, RulesDerived, TableError, assemble, pack, unpack,
};
use crate::tablebase::index::SliceIndex;
use crate::tablebase::index::material::Material;
use crate::tablebase::probe::{ProbeError, Tablebase};
use crate::tablebase::store::Store;
use crate::tablebase::value::RuleResult;
use crate::{Variant, with_rules};

/// What [`derive_rules`] did to a slice's rules file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DerivedRules {
    /// The slice.
    pub material: Material,
    /// The results that are not their derivations, stored (0: the file holds no values).
    pub stored: u64,
    /// Bytes of its rules file before.
    pub bytes_before: u64,
    /// And after.
    pub bytes_after: u64,
}

/// zstd level of the re-encoded rules blocks (as the win/draw/loss and distance blocks
/// `damka compact` re-encodes).
const LEVEL: i32 = 19;

/// Re-encodes the rules file of every slice among `materials` (the slices of `variant`
/// under `dir`) with at least `min_pieces` pieces whose material a quiet count alone
/// governs: derived where every result is its derivation, else with the results equal to
/// their derivations marked, where that takes fewer bytes. Files already re-encoded are
/// skipped.
pub fn derive_rules(
    dir: &Path,
    variant: Variant,
    materials: &[Material],
    min_pieces: u32,
) -> Result<Vec<DerivedRules>, ProbeError> {
    let tb = Tablebase::open(dir)?;
    let mut done = Vec::new();
    for &m in materials.iter().filter(|m| m.pieces() >= min_pieces) {
        let path = Store::path_in(dir, variant, m, FileKind::Rules);
        if !path.is_file() {
            continue;
        }
        let table = TableFile::open(&path, FileKind::Rules, variant, m, 0)?;
        let h = table.header();
        let Some(limit) = h.derived_limit() else {
            continue;
        };
        if h.rules_derived != RulesDerived::None {
            continue;
        }
        let mark = h.derived_mark();
        let (blocks, stored) = with_rules!(variant, R => marked_blocks::<R>(&tb, &table, limit))?;
        let (rules_derived, max_dtw, blocks) = match stored {
            0 => (RulesDerived::All, h.max_dtw, Vec::new()),
            // A stored code could be the mark: the file stays.
            _ if h.max_dtw >= mark => continue,
            _ => (RulesDerived::Marked, mark, blocks),
        };
        let header = Header {
            rules_derived,
            max_dtw,
            ..h.clone()
        };
        let bytes = assemble(header, &blocks);
        let bytes_before = std::fs::metadata(&path)
            .map_err(|e| TableError::Io(path.clone(), e))?
            .len();
        if bytes.len() as u64 >= bytes_before {
            continue;
        }
        crate::files::write_atomically(&path, &bytes)
            .map_err(|e| TableError::Io(path.clone(), e))?;
        done.push(DerivedRules {
            material: m,
            stored,
            bytes_before,
            bytes_after: bytes.len() as u64,
        });
    }
    Ok(done)
}

/// The blocks of `table` (a rules file) with every result equal to the one derived from
/// its position's win/draw/loss value and distance to conversion under a quiet count of
/// `limit` plies, as probes of `tb` find them, marked ([`Header::derived_mark`]), indices
/// without a position filled with the value before them, compressed; and the number of
/// results left stored.
fn marked_blocks<R: Rules>(
    tb: &Tablebase,
    table: &TableFile,
    limit: u32,
) -> Result<(Vec<Vec<u8>>, u64), ProbeError> {
    let h = table.header();
    let index = SliceIndex::<R>::new(h.material);
    let mark = h.derived_mark();
    let coded: Vec<(Vec<u8>, u64)> = (0..h.blocks)
        .into_par_iter()
        .map(|b| {
            let data = table.decode_block(b)?;
            let first = b as u64 * h.block_positions as u64;
            let mut stored = 0;
            let mut values = Vec::with_capacity(h.positions_in_block(b) as usize);
            for j in 0..h.positions_in_block(b) {
                let Some(frame) = index.unrank(first + j) else {
                    values.push(None);
                    continue;
                };
                let code = unpack(&data, h.value_bits, j as usize);
                let derived = tb.derived_rule(&frame.position::<R>(), limit)?;
                if RuleResult::from_code(code) == derived {
                    values.push(Some(mark));
                } else {
                    stored += 1;
                    values.push(Some(code));
                }
            }
            let values = fill_runs(values.into_iter(), |v| v);
            Ok((compress(&pack(&values, h.value_bits), LEVEL), stored))
        })
        .collect::<Result<_, ProbeError>>()?;
    let stored = coded.iter().map(|(_, s)| s).sum();
    Ok((coded.into_iter().map(|(c, _)| c).collect(), stored))
}
