//! Rule results derived instead of stored. Under a quiet count alone, where no result of a
//! slice or of the slices its conversions lead to is drawn by the counts (no cursed win,
//! no blessed loss), a position's result under the rules follows from its win/draw/loss
//! value and its distance to conversion ([`RuleResult::derived`]): the generator derives
//! them so itself. [`derive_rules`] replaces the rules files of such slices by headers
//! that say so ([`super::format::Header::rules_derived`]), after checking every value
//! against the derivation; a probe then reads the win/draw/loss and distance-to-conversion
//! files instead. Most rules files of English, for one (benches/README.md, "Rule results
//! derived").

use std::path::Path;

use rayon::prelude::*;

use super::format::{FileKind, Header, TableError, assemble, unpack};
use super::generate::derivable;
use super::index::SliceIndex;
use super::material::{Material, SliceJob};
use super::probe::{ProbeError, Tablebase};
use super::rule_result::RuleResult;
use super::table::TableFile;
use crate::rules::{Governing, Rules};
use crate::{Variant, with_rules};

/// What [`derive_rules`] did to a slice's rules file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DerivedRules {
    /// The slice.
    pub material: Material,
    /// Bytes of its rules file before.
    pub bytes_before: u64,
    /// And after (a header and an empty block table).
    pub bytes_after: u64,
}

/// Replaces the rules file of every slice among `materials` (the slices of `variant` under
/// `dir`) with at least `min_pieces` pieces whose results may be derived (see the module)
/// by one that derives them, once every stored result is found equal to its derivation (a
/// difference is an error, and the file stays). Files already derived are skipped.
pub fn derive_rules(
    dir: &Path,
    variant: Variant,
    materials: &[Material],
    min_pieces: u32,
) -> Result<Vec<DerivedRules>, ProbeError> {
    let tb = Tablebase::open(dir)?;
    let mut done = Vec::new();
    for &m in materials.iter().filter(|m| m.pieces() >= min_pieces) {
        let path = Tablebase::path_in(dir, variant, m, FileKind::Rules);
        if !path.is_file() {
            continue;
        }
        let table = TableFile::open(&path, FileKind::Rules, variant, m, 0)?;
        let h = table.header();
        let Some(limit) = h.derived_limit() else {
            continue;
        };
        let job = SliceJob::for_slice(m);
        if h.rules_derived
            || h.drawn_by_rules != 0
            || derivable(&tb, variant, &job, Governing::Quiet(Some(limit))).is_none()
        {
            continue;
        }
        with_rules!(variant, R => check_derived::<R>(&tb, &table, limit))?;
        let bytes = |p: &Path| {
            std::fs::metadata(p)
                .map(|d| d.len())
                .map_err(|e| TableError::Io(p.to_path_buf(), e))
        };
        let bytes_before = bytes(&path)?;
        let header = Header {
            rules_derived: true,
            ..h.clone()
        };
        crate::files::write_atomically(&path, &assemble(header, &[]))
            .map_err(|e| TableError::Io(path.clone(), e))?;
        done.push(DerivedRules {
            material: m,
            bytes_before,
            bytes_after: bytes(&path)?,
        });
    }
    Ok(done)
}

/// Checks that every result `table` (a rules file) stores is the one derived from its
/// position's win/draw/loss value and distance to conversion under a quiet count of
/// `limit` plies, as probes of `tb` find them.
fn check_derived<R: Rules>(
    tb: &Tablebase,
    table: &TableFile,
    limit: u32,
) -> Result<(), ProbeError> {
    let h = table.header();
    let index = SliceIndex::<R>::new(h.material);
    (0..h.blocks).into_par_iter().try_for_each(|b| {
        let data = table.decode_block(b)?;
        let first = b as u64 * h.block_positions as u64;
        for j in 0..h.positions_in_block(b) {
            let Some(frame) = index.unrank(first + j) else {
                continue;
            };
            let stored = RuleResult::from_code(unpack(&data, h.value_bits, j as usize));
            let (wdl, dtc) = tb.wdl_and_dtc(&frame.position::<R>())?;
            let derived = RuleResult::derived(wdl, dtc.unwrap_or(0), limit);
            if stored != derived {
                return Err(TableError::Mismatch(
                    table.path().to_path_buf(),
                    format!(
                        "index {}: stored rule result {stored:?}, but {derived:?} from its \
                         win/draw/loss and distance to conversion: not derived",
                        first + j
                    ),
                )
                .into());
            }
        }
        Ok(())
    })
}
