//! Verification: every block's checksum, then every stored value against its successors.
//!
//! A stored win must have a move to a loss one ply shorter and none faster; a loss only
//! moves to wins, the longest one ply shorter; a draw a move to a draw and none to a loss
//! for the opponent. Checking that the stored outcome equals the best outcome over the
//! moves checks all three at once. The distance to conversion of a won or lost position is
//! checked the same way: 1 for a move that converts (a man's move; a capture position is at
//! 1 itself), one more than a king move's successor for the others, the least over the
//! moves that keep a win, the most over a loss's moves, 0 without a move. Capture positions and indices without a position hold
//! no value and are not checked; a capture position's outcome, which moves into it need, is
//! found from its captures once, as its level is read. Every block is decoded once first,
//! which checks its checksum; last, the headers' counts of wins, draws, losses and unused
//! indices are checked against a recount, and their longest distances and statistics
//! (capture positions' outcomes, the first position at the longest distance) against the
//! values.
//!
//! The slice pair is read level by level of its men placements, as the generator builds it
//! (`levels`): a position's quiet successors are in its own level or the one above, so two
//! levels are in memory at a time, and the memory is bounded like the build's: a level read
//! holds its values and rule results, two bytes each a position, the level above the same.
//! The distances to conversion are read from the files as they are checked
//! ([`DtcReader`]: a position's and its king moves' successors' are of one placement each),
//! but where placements are small or most of the slice: then the level read holds them
//! too. Where every rule result of the pair is derived from its value and distance
//! ([`RulesDerived::All`]), none is held: the checks derive them (English 7's 0403+0304
//! then takes less than its build: benches/notes/generation.md, "Generation in parts", item
//! "2026-12-06, 13:20-13:50").
//!
//! Compacted tables (`one_side`) hold no values for a searched slice and for forced
//! exchanges, and may hold no distances for positions on even rows: as a level is read,
//! each such position gets the best outcome over its moves, found from the levels in
//! memory (forced exchanges first, whose moves lead to capture positions or crown, then the
//! searched slice's whose moves lead to values of its twin, then the twin's even rows, then
//! the searched slice's rest; [`Unread`]), as a probe would find it; a stored win or loss
//! whose distance is unread stays one, so that its check compares it with its moves. The
//! checks of the positions that hold values then read them like any other.

use std::sync::Arc;

use rayon::prelude::*;

use crate::Variant;
use crate::rules::{Governing, RuleSet, Rules};
use crate::tablebase::format::TableError;
use crate::tablebase::format::TableFile;
use crate::tablebase::format::{FileKind, RulesDerived, Stats};
use crate::tablebase::index::levels::Level;
use crate::tablebase::index::material::{Material, SliceJob};
use crate::tablebase::probe::derivable;
use crate::tablebase::probe::{ProbeError, Tablebase};

mod check;
mod pair;
mod read;
mod rules;

use check::{Expected, RuleCheck, StoredRules, check_level};
pub use pair::SliceCheck;
use pair::{PairIndex, Tally};
use read::read_level;
use rules::layered_rules;

/// Checks the files of slice `m` of variant `R` (its rules file too, if it has one, under
/// the rule set its header names): checksums, then consistency, then the headers' counts.
/// The slice and its twin are read level by level; moves that leave the pair are probed.
pub fn verify_slice<R: Rules>(tb: &Tablebase, m: Material) -> Result<SliceCheck, ProbeError> {
    let mut checks = verify_pair::<R>(tb, m)?;
    checks.swap_remove(0).1
}

/// The verdicts of [`verify_pair`]: each slice's, or the error that stopped its check.
pub type PairChecks = Vec<(Material, Result<SliceCheck, ProbeError>)>;

/// [`verify_slice`] for slice `m` and its twin at once (they are read together, so this
/// costs about what checking one of them does): the verdict on `m`, then on its twin if it
/// is another slice. An error reading the pair is the error of both; one checking a slice's
/// moves (a table they lead to that cannot be read) is that slice's.
pub fn verify_pair<R: Rules>(tb: &Tablebase, m: Material) -> Result<PairChecks, ProbeError> {
    let slices = if m.is_symmetric() {
        vec![m]
    } else {
        vec![m, m.flipped()]
    };
    let files = slices
        .iter()
        .map(|&s| SliceFiles::open(tb, R::VARIANT, s))
        .collect::<Result<Vec<_>, ProbeError>>()?;
    if files.iter().any(|f| f.dtw.is_some()) && files.iter().any(|f| f.dtw.is_none()) {
        return Err(
            TableError::Missing(tb.store().path(R::VARIANT, m.flipped(), FileKind::Dtw)).into(),
        );
    }
    let rule_files = match tb.table(R::VARIANT, m, FileKind::Rules) {
        Err(TableError::Missing(_)) => None,
        Err(e) => return Err(e.into()),
        Ok(_) => Some(
            slices
                .iter()
                .map(|&s| tb.table(R::VARIANT, s, FileKind::Rules))
                .collect::<Result<Vec<_>, TableError>>()?,
        ),
    };
    let rules = match &rule_files {
        None => None,
        Some(f) => {
            let byte = f[0].header().rule_set;
            Some(RuleSet::numbered(R::VARIANT, byte).ok_or_else(|| {
                TableError::Mismatch(
                    tb.store().path(R::VARIANT, m, FileKind::Rules),
                    format!("header byte 72: rule set {byte} is not one of the variant's"),
                )
            })?)
        }
    };
    // Where the generator derives the pair's rule results from its distances to conversion
    // (its headers count no result drawn by the counts either), each is checked against
    // that derivation, without a loop over the moves. The recount of the pair's drawn
    // results against its headers confirms the premise (the inputs' own checks theirs).
    let [a, b] = m.sides();
    let pair_none = rule_files
        .iter()
        .flatten()
        .all(|t| t.header().drawn_by_rules == 0);
    let derived = rules
        .filter(|_| pair_none)
        .and_then(|r| derivable(tb, R::VARIANT, &SliceJob::for_slice(m), r.governing(a, b)));
    for file in files
        .iter()
        .flat_map(SliceFiles::all)
        .chain(rule_files.iter().flatten())
    {
        (0..file.header().blocks)
            .into_par_iter()
            .try_for_each(|b| file.decode_block(b).map(drop))?;
    }
    let pair = PairIndex::<R>::new(&slices);
    let PairIndex {
        index,
        placements,
        arrangements,
    } = &pair;
    let mut tallies: Vec<Result<Tally, ProbeError>> =
        slices.iter().map(|_| Ok(Tally::default())).collect();
    // Where every result of the pair is derived and checked against its derivation, the
    // levels hold none: each check derives the stored one too, from its file's quiet count.
    let stored_derived: Option<Vec<u32>> = match (derived, &rule_files) {
        (Some(_), Some(f)) => f
            .iter()
            .map(|t| {
                let h = t.header();
                h.derived_rules()
                    .filter(|_| h.rules_derived == RulesDerived::All)
            })
            .collect(),
        _ => None,
    };
    // The rules files whose results the levels hold.
    let held_rule_files = rule_files.as_deref().filter(|_| stored_derived.is_none());
    let mut above: Option<(Level, Option<Level>)> = None;
    for level in (0..placements.levels()).rev() {
        let read = read_level(
            tb,
            &files,
            held_rule_files,
            &pair,
            (level, above.as_ref().map(|(a, _)| a)),
        )?;
        let rules_above = above.as_ref().and_then(|(_, r)| r.as_ref());
        let layered = match (rules.map(|r| (r, r.governing(a, b))), &read.rules) {
            (Some((set, Governing::Both { plies, .. })), Some(rule_level)) => Some(layered_rules(
                tb,
                &pair,
                level,
                [&read.values, rule_level],
                rules_above,
                (set, plies),
            )?),
            _ => None,
        };
        let expected = match (&layered, derived) {
            (Some(l), _) => Expected::Layered(l),
            (None, Some(limit)) => Expected::Derived(limit),
            (None, None) => Expected::Moves,
        };
        let stored_rules = |slice: usize| match (&read.rules, &stored_derived) {
            (Some(level), _) => Some(StoredRules::Read(level)),
            (None, limits) => limits.as_ref().map(|l| StoredRules::Derived(l[slice])),
        };
        for (slice, state) in tallies.iter_mut().enumerate() {
            let Ok(tally) = state else {
                continue;
            };
            let checked = check_level(
                tb,
                index,
                placements,
                (slice as u8, &arrangements[slice]),
                (&read, &files),
                above.as_ref().map(|(a, _)| a),
                rules.zip(stored_rules(slice)).map(|(r, stored)| RuleCheck {
                    set: r,
                    stored,
                    above: rules_above,
                    expected,
                }),
            );
            match checked {
                Ok(level) => tally.add_level(level),
                Err(e) => *state = Err(e),
            }
        }
        above = Some((read.values, read.rules));
    }
    Ok(slices
        .iter()
        .zip(tallies)
        .enumerate()
        .map(|(s, (&slice, tally))| {
            let check = tally.map(|tally| {
                let rule_file = rule_files.as_ref().map(|f| &f[s]);
                slice_verdict(tally, index[s].size(), &files[s], rule_file)
            });
            (slice, check)
        })
        .collect())
}

/// The files of a slice that hold its values: win/draw/loss, distance to the end where
/// built, distance to conversion.
pub(super) struct SliceFiles {
    pub(super) wdl: Arc<TableFile>,
    pub(super) dtw: Option<Arc<TableFile>>,
    pub(super) dtc: Arc<TableFile>,
}

impl SliceFiles {
    /// Opens slice `m`'s files (its distance file if there is one).
    fn open(tb: &Tablebase, variant: Variant, m: Material) -> Result<SliceFiles, ProbeError> {
        let dtw = match tb.table(variant, m, FileKind::Dtw) {
            Err(TableError::Missing(_)) => None,
            file => Some(file?),
        };
        Ok(SliceFiles {
            wdl: tb.table(variant, m, FileKind::Wdl)?,
            dtw,
            dtc: tb.table(variant, m, FileKind::Dtc)?,
        })
    }

    /// The files with their kinds.
    fn all(&self) -> impl Iterator<Item = &Arc<TableFile>> {
        [Some(&self.wdl), self.dtw.as_ref(), Some(&self.dtc)]
            .into_iter()
            .flatten()
    }
}

/// The verdict on one slice from its tally over every level: its first bad value, else the
/// first header whose counts disagree with the tally's.
fn slice_verdict(
    tally: Tally,
    size: u64,
    files: &SliceFiles,
    rule_file: Option<&Arc<TableFile>>,
) -> SliceCheck {
    if let Some(bad) = tally.bad {
        return bad;
    }
    let [wins, draws, losses] = tally.counts;
    let counted = [wins, draws, losses, size - wins - draws - losses];
    let [wins, draws, losses, drawn] = tally.rule_counts;
    let rule_counted = [wins, draws, losses, size - wins - draws - losses];
    if let Some(f) = rule_file
        && f.header().drawn_by_rules != drawn
    {
        return SliceCheck::DrawnByRules {
            header: f.header().drawn_by_rules,
            counted: drawn,
        };
    }
    let rule_file = rule_file.map(|f| (FileKind::Rules, f, rule_counted));
    let built = files.all().map(|f| (f.header().kind, f, counted));
    for (kind, file, counted) in built.chain(rule_file) {
        let h = file.header();
        let header = [h.wins, h.draws, h.losses, h.unused];
        if header != counted {
            return SliceCheck::Counts {
                kind,
                header,
                counted,
            };
        }
    }
    header_fields(&tally, files)
}

/// The verdict on a slice's headers' longest distances and statistics against its `tally`:
/// each distance file's longest distance and the first index that holds it, the win/draw/loss
/// file's longest distance (the distance to the end's, 0 without one), and its capture
/// positions' outcomes.
/// A file without statistics (converted from an older version) has only its longest
/// distance checked.
fn header_fields(tally: &Tally, files: &SliceFiles) -> SliceCheck {
    let bad = |kind: FileKind, what: String| SliceCheck::HeaderField { kind, what };
    let distance_files = [files.dtw.as_ref(), Some(&files.dtc)];
    for (file, longest) in distance_files.into_iter().zip(tally.longest) {
        // Without a distance file (the distance to the end), nothing to check.
        let Some(file) = file else { continue };
        let (h, kind) = (file.header(), file.header().kind);
        let (distance, at) = longest.map_or((0, None), |(d, i)| (d, Some(i)));
        if h.max_dtw != distance {
            return bad(
                kind,
                format!(
                    "longest distance (bytes 18-19) {}, the values' longest is {distance}",
                    h.max_dtw
                ),
            );
        }
        if let Some(Stats::LongestAt(said)) = h.stats
            && said != at
        {
            return bad(
                kind,
                format!(
                    "first position at the longest distance (bytes 88-95) {}, the values' is {}",
                    index_words(said),
                    index_words(at)
                ),
            );
        }
    }
    let wdl = files.wdl.header();
    // The distance to the end's longest, 0 without a distance file.
    let dtw = files.dtw.as_ref().map_or(0, |f| f.header().max_dtw);
    if wdl.max_dtw != dtw {
        return bad(
            FileKind::Wdl,
            format!(
                "longest distance (bytes 18-19) {}, the distance to the end's is {dtw}",
                wdl.max_dtw
            ),
        );
    }
    if let Some(Stats::Captures {
        wins,
        draws,
        losses,
    }) = wdl.stats
        && [wins, draws, losses] != tally.captures
    {
        return bad(
            FileKind::Wdl,
            format!(
                "capture positions won, drawn, lost (bytes 88-111) {:?}, counted {:?}",
                [wins, draws, losses],
                tally.captures
            ),
        );
    }
    SliceCheck::Ok
}

/// An index for a message: the number, or `none`.
fn index_words(at: Option<u64>) -> String {
    at.map_or("none".into(), |i| format!("index {i}"))
}
