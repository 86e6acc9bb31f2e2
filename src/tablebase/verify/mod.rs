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
//! indices are checked against a recount.
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

use crate::rules::{
    Governing, Move, MoveList, MoveSink, Position, RuleSet, Rules, captures, generate, may_capture,
};
use crate::tablebase::format::TableError;
use crate::tablebase::format::TableFile;
use crate::tablebase::format::{FileKind, RuleValue, RulesDerived, unpack, wdl_code};
use crate::tablebase::index::levels::{Above, Level, Member, Place, Placements};
use crate::tablebase::index::material::{Material, SliceJob};
use crate::tablebase::index::{KingArrangements, MoverFrame, SliceIndex};
use crate::tablebase::probe::derivable;
use crate::tablebase::probe::{ProbeError, Tablebase};
use crate::tablebase::unread::{even_rows, forced_exchange};
use crate::tablebase::value::next_layer;
use crate::tablebase::value::{Moves, RuleCategory, RuleResult};
use crate::tablebase::value::{Outcome, Wdl};

/// The verdict on one slice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SliceCheck {
    /// Every value agrees with its successors.
    Ok,
    /// The first index whose stored value disagrees.
    Bad {
        /// The index.
        index: u64,
        /// What the table says.
        stored: Outcome,
        /// What the moves say.
        expected: Outcome,
    },
    /// The first index whose stored distance to conversion disagrees.
    BadDtc {
        /// The index.
        index: u64,
        /// What the table says.
        stored: u16,
        /// What the moves say.
        expected: u16,
    },
    /// The first index whose stored rule result disagrees.
    BadRules {
        /// The index.
        index: u64,
        /// What the table says.
        stored: RuleResult,
        /// What the moves say.
        expected: RuleResult,
    },
    /// Every value agrees with its successors, but the rules file's header says another
    /// number of cursed wins and blessed losses than a recount.
    DrawnByRules {
        /// What the header says.
        header: u64,
        /// What the values hold.
        counted: u64,
    },
    /// Every value agrees with its successors, but a header's counts do not agree with a
    /// recount of the stored values.
    Counts {
        /// The file whose header is wrong.
        kind: FileKind,
        /// Wins, draws, losses and unused indices as the header says.
        header: [u64; 4],
        /// The same, counted.
        counted: [u64; 4],
    },
}

/// Positions a parallel task reads or checks at a time.
const TASK_POSITIONS: usize = 1 << 14;

/// What some positions hold: wins, draws and losses, and the first bad value.
#[derive(Default)]
struct Tally {
    counts: [u64; 3],
    /// Wins, draws (of every kind) and losses under the rules, then the draws that are
    /// wins or losses without the counts.
    rule_counts: [u64; 4],
    bad: Option<SliceCheck>,
}

impl Tally {
    /// Adds a level's tally. Levels go from high indices to low ones only roughly: the
    /// lowest bad index is kept.
    fn add_level(&mut self, level: Tally) {
        let lower = match (&self.bad, &level.bad) {
            (Some(old), Some(new)) => bad_index(new) < bad_index(old),
            _ => self.bad.is_none(),
        };
        if lower {
            self.bad = level.bad;
        }
        for (c, n) in self.counts.iter_mut().zip(level.counts) {
            *c += n;
        }
        for (c, n) in self.rule_counts.iter_mut().zip(level.rule_counts) {
            *c += n;
        }
    }

    /// Both tallies together, `self` the one of lower indices.
    fn and(mut self, upper: Tally) -> Tally {
        for (c, u) in self.counts.iter_mut().zip(upper.counts) {
            *c += u;
        }
        for (c, u) in self.rule_counts.iter_mut().zip(upper.rule_counts) {
            *c += u;
        }
        self.bad = self.bad.or(upper.bad);
        self
    }
}

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
        .map(|&s| {
            Ok([
                tb.table(R::VARIANT, s, FileKind::Wdl)?,
                tb.table(R::VARIANT, s, FileKind::Dtw)?,
                tb.table(R::VARIANT, s, FileKind::Dtc)?,
            ])
        })
        .collect::<Result<Vec<_>, ProbeError>>()?;
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
    for file in files.iter().flatten().chain(rule_files.iter().flatten()) {
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

/// The verdict on one slice from its tally over every level: its first bad value, else the
/// first header whose counts disagree with the tally's.
fn slice_verdict(
    tally: Tally,
    size: u64,
    files: &[Arc<TableFile>; 3],
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
    let built = FileKind::BUILT.into_iter().zip(files);
    for (kind, file, counted) in built.map(|(k, f)| (k, f, counted)).chain(rule_file) {
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
    SliceCheck::Ok
}

/// The index of a bad value.
fn bad_index(bad: &SliceCheck) -> u64 {
    match bad {
        SliceCheck::Bad { index, .. }
        | SliceCheck::BadDtc { index, .. }
        | SliceCheck::BadRules { index, .. } => *index,
        SliceCheck::Ok | SliceCheck::Counts { .. } | SliceCheck::DrawnByRules { .. } => u64::MAX,
    }
}

/// How a slice pair's positions are numbered: each slice's index, the placements of the
/// pair's men by level, and each slice's arrangements of kings.
struct PairIndex<R: Rules> {
    index: Vec<SliceIndex<R>>,
    placements: Placements<R>,
    arrangements: Vec<Option<KingArrangements>>,
}

impl<R: Rules> PairIndex<R> {
    /// The numbering of the pair `slices` (one slice where it is its own twin).
    fn new(slices: &[Material]) -> Self {
        let index: Vec<SliceIndex<R>> = slices.iter().map(|&s| SliceIndex::new(s)).collect();
        PairIndex {
            placements: Placements::new(slices),
            arrangements: index.iter().map(|i| i.king_arrangements()).collect(),
            index,
        }
    }
}

/// The outcomes (as codes) and the rule result codes (0 without `rule_files`) of every
/// position of `level`, from both slices' files, in one batch: the placements in key order,
/// each `kings_per_placement` long; its distances to conversion too where placements are
/// too small or too large for a [`DtcReader`]'s window. A capture position's file values
/// are don't-cares; it gets the outcome of its captures instead (found once here rather
/// than once for every move that leads to it) and a distance to conversion of 1 (0 for a
/// draw). Its rule result is stored. A position whose files leave its value to its moves
/// (a searched slice's, a forced exchange) gets the best over them, from this level, the
/// level `above` (the one read before) and the tables ([`LevelsRead::fill_unread`]).
/// Last, a bit a position, in the same order: whether it is a capture position.
///
/// The rule results are read only where `rule_files` are given (the caller gives none
/// where they are all derived: the checks derive them from the values and distances
/// themselves, two bytes a position less).
fn read_level<R: Rules>(
    tb: &Tablebase,
    files: &[[Arc<TableFile>; 3]],
    rule_files: Option<&[Arc<TableFile>]>,
    pair: &PairIndex<R>,
    (level, above): (usize, Option<&Level>),
) -> Result<ReadLevel, ProbeError> {
    let PairIndex {
        index,
        placements,
        arrangements,
    } = pair;
    let members = placements.members(level);
    let kings = placements.kings_per_placement();
    let mut values = vec![0u16; members.len() * kings as usize];
    let mut rules = match rule_files {
        Some(_) => vec![0u16; values.len()],
        None => Vec::new(),
    };
    let mut captured = vec![0u64; values.len().div_ceil(64)];
    // A task's rule results, where they are read.
    let rule_chunks: Vec<Option<&mut [u16]>> = match rule_files {
        Some(_) => rules.chunks_mut(TASK_POSITIONS).map(Some).collect(),
        None => (0..values.len().div_ceil(TASK_POSITIONS))
            .map(|_| None)
            .collect(),
    };
    // Per slice: whether its twin's distance file leaves positions on even rows unread
    // (then this slice is searched, and its own positions are found in two passes).
    let twin_even: Vec<bool> = (0..files.len())
        .map(|s| files[(s + 1) % files.len()][1].header().even_rows_searched)
        .collect();
    // Per slice: the quiet count's plies where its rules file derives results from its
    // values and distances to conversion (set once those are all in; until then a derived
    // result holds `TO_DERIVE`).
    let derived: Vec<Option<u32>> = (0..files.len())
        .map(|s| rule_files.and_then(|f| f[s].header().derived_rules()))
        .collect();
    let unread = values
        .par_chunks_mut(TASK_POSITIONS)
        .zip(rule_chunks)
        .zip(captured.par_chunks_mut(TASK_POSITIONS / 64))
        .enumerate()
        .map(|(c, ((chunk, mut rules), captured))| {
            let mut blocks: [[Decoded; 2]; 2] = Default::default();
            let mut rule_blocks: [Decoded; 2] = Default::default();
            let mut placed = PlacedMen::default();
            let mut list = MoveList::new();
            let mut unread = UnreadTask::default();
            let chunk_len = chunk.len();
            for (n, (o, value)) in (c * TASK_POSITIONS..).zip(chunk.iter_mut()).enumerate() {
                let m = members[o / kings as usize];
                let i = m.id * kings + o as u64 % kings;
                let s = m.slice as usize;
                if let (Some(f), Some(rules)) = (rule_files, rules.as_deref_mut()) {
                    let read = || rule_blocks[s].value(&f[s], i);
                    rules[n] = match f[s].header().rule_value(read)? {
                        RuleValue::Code(code) => code,
                        RuleValue::Derived(_) => TO_DERIVE,
                    };
                }
                let pos = placed.set::<R>(placements, m).position(
                    &index[s],
                    i % kings,
                    arrangements[s].as_ref(),
                );
                if may_capture(&pos) {
                    captures(&pos, &mut list);
                    if !list.as_slice().is_empty() {
                        let o = tb.resolve_captures(&pos, list.as_slice(), true)?;
                        *value = o.code();
                        captured[n / 64] |= 1 << (n % 64);
                        continue;
                    }
                }
                let [wdl, dtw, _] = &files[s];
                let [w_block, d_block] = &mut blocks[s];
                let (w, d) = (wdl.header(), dtw.header());
                let searched = w.searched || d.searched;
                let forced = (w.forced_searched || d.forced_searched) && forced_exchange(&pos);
                if searched || forced {
                    // Its value is its moves' (`LevelsRead::fill_unread`, once the values
                    // read are in), into values that the checks of their own positions hold
                    // to theirs.
                    let twin_side = pos.side_to_move().opponent();
                    let why = match (forced, twin_even[s]) {
                        (true, _) => Unread::Forced,
                        (false, true) if even_rows::<R>(pos.pieces(twin_side).0, twin_side) => {
                            Unread::SearchedEven
                        }
                        (false, _) => Unread::Searched,
                    };
                    unread.mark(n, chunk_len, why);
                    continue;
                }
                let side = pos.side_to_move();
                let even = d.even_rows_searched && even_rows::<R>(pos.pieces(side).0, side);
                let stored = match (w_block.value(wdl, i)? as u8, even) {
                    (wdl_code::WIN, false) => Outcome::win(d_block.value(dtw, i)?),
                    (wdl_code::LOSS, false) => Outcome::loss(d_block.value(dtw, i)?),
                    // A win or loss whose distance is its moves' (the win or loss checked
                    // when it is found).
                    (code @ (wdl_code::WIN | wdl_code::LOSS), true) => {
                        let why = match code {
                            wdl_code::WIN => Unread::EvenWon,
                            _ => Unread::EvenLost,
                        };
                        unread.mark(n, chunk_len, why);
                        continue;
                    }
                    _ => Outcome::DRAW,
                };
                *value = stored.code();
            }
            Ok::<_, ProbeError>(unread.0)
        })
        .collect::<Result<Vec<_>, ProbeError>>()?;
    let unread = UnreadLevel(unread);
    let blocks: Vec<_> = members
        .iter()
        .enumerate()
        .map(|(n, m)| (m.key(), 0, n as u32))
        .collect();
    let mut values = placements.level(blocks.clone(), vec![values]);
    if unread.any() {
        let levels_read = LevelsRead {
            index,
            placements,
            arrangements,
            level,
            above,
        };
        // Forced exchanges first: their moves lead to capture positions (read above) or
        // crown. Then a searched slice's positions: their moves lead into the other slice,
        // whose values are all in by then, or, where that slice's distances on even rows
        // are unread, its odd rows. Then those even rows (their moves lead to the searched
        // slice's positions just found), then the searched slice's other positions.
        for pass in Unread::PASSES {
            levels_read.fill_unread(tb, &mut values, &unread, pass)?;
        }
    }
    let held = (!(WINDOW_MIN..=WINDOW_MAX).contains(&kings)).then(|| {
        let mut dtcs = vec![0u16; values.batches[0].len()];
        dtcs.par_chunks_mut(TASK_POSITIONS)
            .enumerate()
            .try_for_each(|(c, dtcs)| {
                let mut reader = DtcReader::new(files, &values, &captured, None);
                for (o, dtc) in (c * TASK_POSITIONS..).zip(dtcs) {
                    let m = members[o / kings as usize];
                    *dtc = reader.in_order(o, m.slice, m.id * kings + o as u64 % kings)?;
                }
                Ok::<_, ProbeError>(())
            })
            .map(|()| placements.level(blocks.clone(), vec![dtcs]))
    });
    let held = held.transpose()?;
    let mut rules = rule_files.map(|_| placements.level(blocks, vec![rules]));
    if let (Some(rules), true) = (&mut rules, derived.iter().any(Option::is_some)) {
        rules.batches[0]
            .par_chunks_mut(TASK_POSITIONS)
            .enumerate()
            .try_for_each(|(c, rules)| {
                let mut reader = DtcReader::new(files, &values, &captured, held.as_ref());
                for (o, rule) in (c * TASK_POSITIONS..).zip(rules) {
                    let m = members[o / kings as usize];
                    if let (TO_DERIVE, Some(limit)) = (*rule, derived[m.slice as usize]) {
                        let value = values.batches[0][o];
                        let plain = Outcome::from_code(value).map_or(Wdl::Draw, |o| o.wdl);
                        let i = m.id * kings + o as u64 % kings;
                        let dtc = reader.in_order(o, m.slice, i)?;
                        *rule = RuleResult::derived(plain, dtc, limit).code();
                    }
                }
                Ok::<_, ProbeError>(())
            })?;
    }
    Ok(ReadLevel {
        values,
        held_dtcs: held,
        rules,
        captured,
    })
}

/// A level's values and rule results as [`read_level`] reads them (no rule results where
/// it is not to store them), and its distances to conversion where it holds them
/// ([`DtcReader`] reads them).
struct ReadLevel {
    values: Level,
    held_dtcs: Option<Level>,
    rules: Option<Level>,
    /// A bit a position, in the order of `values`: whether it is a capture position.
    captured: Vec<u64>,
}

/// Placements of fewer positions (arrangements of the kings) than this have their level's
/// distances to conversion held: a [`DtcReader`]'s window of one would decode a block for
/// few positions.
const WINDOW_MIN: u64 = 1 << 12;
/// Placements of more positions than this have them held too: a window would be a good part
/// of the slice, once for each thread.
const WINDOW_MAX: u64 = 1 << 22;

/// The distances to conversion of a level read (its `values`, with the capture positions
/// `captured`): from the level that holds them, else from the pair's files as they are asked
/// for: 0 for a draw, 1 for a capture position (its captures convert), else its file's. A
/// check reads a position's own in the order of the level, and those of its king moves'
/// successors, which are all of one placement: a window holds that placement's distances.
struct DtcReader<'a> {
    files: &'a [[Arc<TableFile>; 3]],
    values: &'a Level,
    captured: &'a [u64],
    held: Option<&'a Level>,
    /// Where the window's placement starts in the level, and its distances.
    window: (usize, Vec<u16>),
    /// Per slice, the block of its distance file decoded last.
    blocks: [Decoded; 2],
}

impl<'a> DtcReader<'a> {
    fn new(
        files: &'a [[Arc<TableFile>; 3]],
        values: &'a Level,
        captured: &'a [u64],
        held: Option<&'a Level>,
    ) -> Self {
        DtcReader {
            files,
            values,
            captured,
            held,
            window: (0, Vec::new()),
            blocks: Default::default(),
        }
    }

    /// Asks for the distance at `place` to be loaded, where the level holds it.
    fn prefetch(&self, place: Place) {
        if let Some(held) = self.held {
            held.prefetch(place);
        }
    }

    /// The distance to conversion of a successor at position `o` of the level read (its
    /// place in the batch).
    #[inline]
    fn successor(&mut self, o: usize) -> Result<u16, ProbeError> {
        if let Some(held) = self.held {
            return Ok(held.batches[0][o]);
        }
        let (start, dtcs) = &self.window;
        if let Some(&dtc) = dtcs.get(o.wrapping_sub(*start)) {
            return Ok(dtc);
        }
        self.fill(o)?;
        Ok(self.window.1[o - self.window.0])
    }

    /// Fills the window with the distances of the placement of position `o`.
    fn fill(&mut self, o: usize) -> Result<(), ProbeError> {
        let kings = self.values.kings as usize;
        let start = o - o % kings;
        let m = Member::from_key(self.values.blocks[o / kings].0);
        let slice = m.slice as usize;
        let file = &self.files[slice][2];
        let h = file.header();
        let per_block = h.block_positions as u64;
        let mut dtcs = std::mem::take(&mut self.window.1);
        dtcs.clear();
        let first = m.id * kings as u64;
        let mut i = first;
        while i < first + kings as u64 {
            let b = i / per_block;
            let end = ((b + 1) * per_block).min(first + kings as u64);
            let bytes = self.blocks[slice].block(file, b as u32)?;
            let at = (i - b * per_block) as usize;
            dtcs.extend((at..at + (end - i) as usize).map(|n| unpack(bytes, h.value_bits, n)));
            i = end;
        }
        for (o, dtc) in (start..).zip(dtcs.iter_mut()) {
            if let Some(known) = self.not_in_file(o) {
                *dtc = known;
            }
        }
        self.window = (start, dtcs);
        Ok(())
    }

    /// The distance to conversion of position `o` of the level read (index `i` of slice
    /// `slice`), for reads in the order of the level: from the file, the last block read of
    /// each slice kept.
    fn in_order(&mut self, o: usize, slice: u8, i: u64) -> Result<u16, ProbeError> {
        if let Some(held) = self.held {
            return Ok(held.batches[0][o]);
        }
        if let Some(known) = self.not_in_file(o) {
            return Ok(known);
        }
        let slice = slice as usize;
        self.blocks[slice].value(&self.files[slice][2], i)
    }

    /// The distance to conversion of position `o` where its file's is not it: 0 for a
    /// draw, 1 for a capture position.
    fn not_in_file(&self, o: usize) -> Option<u16> {
        let value = Outcome::from_code(self.values.batches[0][o]);
        if value.is_none_or(|v| v.wdl == Wdl::Draw) {
            Some(0)
        } else {
            (self.captured[o / 64] >> (o % 64) & 1 != 0).then_some(1)
        }
    }
}

/// Which positions of a task of a level read hold no value in their files (only tables
/// compacted by `one_side` have such): nothing where none does, else an entry a position.
#[derive(Default)]
struct UnreadTask(Vec<Unread>);

impl UnreadTask {
    /// Marks the task's position `n` (of `len`) as unread for reason `why`.
    fn mark(&mut self, n: usize, len: usize, why: Unread) {
        if self.0.is_empty() {
            self.0 = vec![Unread::No; len];
        }
        self.0[n] = why;
    }
}

/// The [`UnreadTask`]s of a level, in order.
struct UnreadLevel(Vec<Vec<Unread>>);

impl UnreadLevel {
    /// Why position `o` of the level holds no value, if it does not.
    fn at(&self, o: usize) -> Unread {
        let task = &self.0[o / TASK_POSITIONS];
        task.get(o % TASK_POSITIONS).copied().unwrap_or(Unread::No)
    }

    /// Whether any position of the level is unread.
    fn any(&self) -> bool {
        self.0.iter().flatten().any(|&u| u != Unread::No)
    }
}

/// A rule result of a level being read that is derived once the level's values are in: no
/// code (a rules file's codes stay below its mark, at most `u16::MAX`).
const TO_DERIVE: u16 = u16::MAX;

/// What locates the positions of a level being read and their successors.
struct LevelsRead<'a, R: Rules> {
    index: &'a [SliceIndex<R>],
    placements: &'a Placements<R>,
    arrangements: &'a [Option<KingArrangements>],
    level: usize,
    above: Option<&'a Level>,
}

impl<R: Rules> LevelsRead<'_, R> {
    /// Sets the positions of the level (`values`, laid out as [`read_level`] lays it out)
    /// whose `unread` is in `pass` to the best outcome over their moves: a quiet move's
    /// successor from this level or the one above, any other (or a successor whose value is
    /// not in yet) from the tables. A position whose win or loss is stored keeps it, with the
    /// distance found: where the moves say otherwise, its check finds it wrong. The
    /// outcomes are found first, two bytes each, then set.
    fn fill_unread(
        &self,
        tb: &Tablebase,
        values: &mut Level,
        unread: &UnreadLevel,
        pass: &[Unread],
    ) -> Result<(), ProbeError> {
        let members = self.placements.members(self.level);
        let kings = self.placements.kings_per_placement();
        let positions = members.len() * kings as usize;
        let index = self.index;
        let twin = |s: usize| if index.len() == 2 { 1 - s } else { 0 };
        let slice = |o: usize| members[o / kings as usize].slice as usize;
        let marked = |o: usize| pass.contains(&unread.at(o));
        let found: Vec<Vec<u16>> = (0..positions.div_ceil(TASK_POSITIONS))
            .into_par_iter()
            .map(|c| {
                let mut read = Above::new([Some(&*values), self.above]);
                let mut placed = PlacedMen::default();
                let mut list = MoveList::new();
                let mut found = Vec::new();
                for o in c * TASK_POSITIONS..((c + 1) * TASK_POSITIONS).min(positions) {
                    if !marked(o) {
                        continue;
                    }
                    let (m, s) = (members[o / kings as usize], slice(o));
                    let pos = placed.set::<R>(self.placements, m).position(
                        &index[s],
                        o as u64 % kings,
                        self.arrangements[s].as_ref(),
                    );
                    generate(&pos, &mut list);
                    let best = Outcome::best_of(list.as_slice().iter().map(|mv| {
                        let after = pos.play(mv);
                        let known = match mv.is_capture() || mv.is_promotion() {
                            true => None,
                            false => {
                                let t = twin(s) as u8;
                                read.value(&index[t as usize], t, &MoverFrame::of(&after))
                                    .and_then(Outcome::from_code)
                            }
                        };
                        match known {
                            Some(known) => Ok(known),
                            None => tb.resolve(&after, true),
                        }
                    }))?;
                    found.push(best.code());
                }
                Ok(found)
            })
            .collect::<Result<_, ProbeError>>()?;
        values.batches[0]
            .par_chunks_mut(TASK_POSITIONS)
            .zip(found)
            .enumerate()
            .for_each(|(c, (values, found))| {
                let mut found = found.into_iter();
                for (k, value) in values.iter_mut().enumerate() {
                    let o = c * TASK_POSITIONS + k;
                    if marked(o) {
                        let found = found.next().expect("an outcome for each marked position");
                        *value = unread.at(o).with_stored(found);
                    }
                }
            });
        Ok(())
    }
}

/// Why a position of a level read holds no value in its files, and so in which pass of
/// [`LevelsRead::fill_unread`] its moves give it one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unread {
    /// It holds its value (or is a capture position).
    No,
    /// A forced exchange ([`forced_exchange`]).
    Forced,
    /// A searched slice's position whose moves lead to values (its twin's, or its twin's
    /// on odd rows).
    Searched,
    /// A won position on even rows ([`even_rows`]) whose distance is unread.
    EvenWon,
    /// A lost one.
    EvenLost,
    /// A searched slice's position whose moves lead to its twin's even rows.
    SearchedEven,
}

impl Unread {
    /// The passes of [`LevelsRead::fill_unread`], in order: each one's moves lead to values
    /// read or found in an earlier one.
    const PASSES: [&[Unread]; 4] = [
        &[Unread::Forced],
        &[Unread::Searched],
        &[Unread::EvenWon, Unread::EvenLost],
        &[Unread::SearchedEven],
    ];

    /// The code to set for a position found to be `found` (a code): `found`, but a stored
    /// win or loss stays one.
    fn with_stored(self, found: u16) -> u16 {
        let stored = match self {
            Unread::EvenWon => Wdl::Win,
            Unread::EvenLost => Wdl::Loss,
            _ => return found,
        };
        let found = Outcome::from_code(found).expect("a found outcome");
        Outcome {
            wdl: stored,
            dtw: found.dtw,
        }
        .code()
    }
}

/// The placement whose positions a task is going through: its men and the squares they
/// leave free, computed once per placement.
#[derive(Default)]
struct PlacedMen {
    member: Option<Member>,
    men: (u64, u64),
    free: Vec<u64>,
}

impl PlacedMen {
    /// Moves to placement `m` (nothing to do if it is the current one).
    fn set<R: Rules>(&mut self, placements: &Placements<R>, m: Member) -> &Self {
        if self.member != Some(m) {
            self.men = placements.men(m);
            SliceIndex::<R>::free_squares(self.men.0 | self.men.1, &mut self.free);
            self.member = Some(m);
        }
        self
    }

    /// The position with these men and the kings' arrangement `k`.
    fn position<R: Rules>(
        &self,
        index: &SliceIndex<R>,
        k: u64,
        arrangements: Option<&KingArrangements>,
    ) -> Position<R> {
        index
            .with_kings(self.men.0, self.men.1, &self.free, k, arrangements)
            .position::<R>()
    }
}

/// The last decoded block of one file (one per file: members alternate between slices).
#[derive(Default)]
struct Decoded {
    block: Option<u32>,
    bytes: Vec<u8>,
}

impl Decoded {
    /// The value at index `i` of `file`.
    fn value(&mut self, file: &TableFile, i: u64) -> Result<u16, ProbeError> {
        let h = file.header();
        let per_block = h.block_positions as u64;
        let bytes = self.block(file, (i / per_block) as u32)?;
        Ok(unpack(bytes, h.value_bits, (i % per_block) as usize))
    }

    /// Block `b` of `file`, decoded.
    fn block(&mut self, file: &TableFile, b: u32) -> Result<&[u8], ProbeError> {
        if self.block != Some(b) {
            self.bytes = file.decode_block(b)?;
            self.block = Some(b);
        }
        Ok(&self.bytes)
    }
}

/// How a pair's rule results are checked.
#[derive(Copy, Clone)]
struct RuleCheck<'a> {
    /// The rule set.
    set: &'a RuleSet,
    /// The slice's stored results.
    stored: StoredRules<'a>,
    /// The rule results of the level above.
    above: Option<&'a Level>,
    /// What each result is checked against.
    expected: Expected<'a>,
}

/// Where a slice's stored rule results are.
#[derive(Copy, Clone)]
enum StoredRules<'a> {
    /// In the level read.
    Read(&'a Level),
    /// Derived from the values and distances to conversion (its file's
    /// [`RulesDerived::All`]) under a quiet count of these plies.
    Derived(u32),
}

/// What a stored rule result must be.
#[derive(Copy, Clone)]
enum Expected<'a> {
    /// The one from its moves.
    Moves,
    /// The one its distance to conversion gives ([`RuleResult::derived`]) under a quiet
    /// count of these plies.
    Derived(u32),
    /// Where two counts run, the level's results built again layer by layer
    /// ([`layered_rules`]).
    Layered(&'a Level),
}

/// Checks the positions of slice `slice` (of the pair's, with its kings' `arrangements`) in
/// `level` (values, distances to conversion and, with a rule set, rule results) and counts
/// their values.
fn check_level<R: Rules>(
    tb: &Tablebase,
    index: &[SliceIndex<R>],
    placements: &Placements<R>,
    (slice, arrangements): (u8, &Option<KingArrangements>),
    (read, files): (&ReadLevel, &[[Arc<TableFile>; 3]]),
    above: Option<&Level>,
    rules: Option<RuleCheck<'_>>,
) -> Result<Tally, ProbeError> {
    let (level, rule_level, captured) = (&read.values, read.rules.as_ref(), &read.captured);
    let kings = level.kings;
    let twin = if index.len() == 2 { 1 - slice } else { 0 };
    let mine: Vec<(u64, Place)> = level.starts(slice).collect();
    let positions = mine.len() * kings as usize;
    // Whether the expected rule results come from the successors' (then a capture
    // position's moves, its captures, are needed too).
    let rules_from_moves = rules.is_some_and(|r| matches!(r.expected, Expected::Moves));
    (0..positions.div_ceil(TASK_POSITIONS))
        .into_par_iter()
        .map_init(
            || {
                let successors: Vec<(MoverFrame, Option<Place>)> = Vec::new();
                (
                    MoveList::new(),
                    Above::new([Some(level), above]),
                    successors,
                    DtcReader::new(files, level, captured, read.held_dtcs.as_ref()),
                )
            },
            |(list, read, successors, dtcs), c| {
                let mut tally = Tally::default();
                let mut placed = PlacedMen::default();
                for o in c * TASK_POSITIONS..((c + 1) * TASK_POSITIONS).min(positions) {
                    let (id, start) = mine[o / kings as usize];
                    let i = id * kings + o as u64 % kings;
                    let here = start.plus((i % kings) as usize);
                    let capture = captured[here.in_batch() / 64] >> (here.in_batch() % 64) & 1 != 0;
                    let pos = placed.set::<R>(placements, Member { slice, id }).position(
                        &index[slice as usize],
                        i % kings,
                        arrangements.as_ref(),
                    );
                    match capture && !rules_from_moves {
                        true => list.clear(),
                        false => generate(&pos, list),
                    }
                    let moves = list.as_slice();
                    // Where each move leads: a quiet move stays in the pair, and its level
                    // holds the outcome (the captures' one if it leads to a capture).
                    successors.clear();
                    successors.extend(moves.iter().map(|mv| {
                        let frame = MoverFrame::of(&pos.play(mv));
                        let place = match mv.is_capture() || mv.is_promotion() {
                            false => read.place(&index[twin as usize], twin, &frame),
                            true => None,
                        };
                        // What is read below of each successor lies scattered over the
                        // levels: the loads are asked for now, all at once.
                        if let Some(p) = place {
                            let (values, rule_results) = match p.level {
                                0 => (Some(level), rule_level),
                                _ => (above, rules.and_then(|r| r.above)),
                            };
                            if let Some(values) = values {
                                values.prefetch(p);
                            }
                            if let (true, Some(results)) = (rules_from_moves, rule_results) {
                                results.prefetch(p);
                            }
                            if p.level == 0 && pos.kings().contains(mv.from()) {
                                dtcs.prefetch(p);
                            }
                        }
                        (frame, place)
                    }));
                    // A wrong rule result is reported after a wrong value or distance of
                    // the same position (the rule result may follow from those).
                    let mut rule_bad = None;
                    if let Some(rules) = rules {
                        let plain = Outcome::from_code(level.at(here))
                            .unwrap_or(Outcome::DRAW)
                            .wdl;
                        let expected = match rules.expected {
                            Expected::Derived(limit) => RuleResult::derived(
                                plain,
                                dtcs.in_order(here.in_batch(), slice, i)?,
                                limit,
                            ),
                            Expected::Moves => {
                                let levels = [rule_level, rules.above];
                                expected_rule(
                                    tb,
                                    rules.set,
                                    (&pos, plain),
                                    moves,
                                    successors,
                                    levels,
                                )?
                            }
                            Expected::Layered(layered) => RuleResult::from_code(layered.at(here)),
                        };
                        let stored = match rules.stored {
                            StoredRules::Read(l) => RuleResult::from_code(l.at(here)),
                            StoredRules::Derived(limit) => RuleResult::derived(
                                plain,
                                dtcs.in_order(here.in_batch(), slice, i)?,
                                limit,
                            ),
                        };
                        tally.rule_counts[match stored.category {
                            RuleCategory::Win => 0,
                            RuleCategory::Loss => 2,
                            _ => 1,
                        }] += 1;
                        if matches!(
                            stored.category,
                            RuleCategory::CursedWin | RuleCategory::BlessedLoss
                        ) {
                            tally.rule_counts[3] += 1;
                        }
                        if stored != expected {
                            rule_bad = Some(SliceCheck::BadRules {
                                index: i,
                                stored,
                                expected,
                            });
                        }
                    }
                    if capture {
                        tally.bad = tally.bad.take().or(rule_bad);
                        continue;
                    }
                    let stored = Outcome::from_code(level.at(here)).unwrap_or(Outcome::DRAW);
                    let mut expected: Option<Outcome> = None;
                    // Over the moves that keep the stored result: the least distance to
                    // conversion for a win, the most for a loss.
                    let mut expected_dtc: Option<u16> = None;
                    for (mv, &(_, place)) in moves.iter().zip(successors.iter()) {
                        let after = place.and_then(|p| match p.level {
                            0 => Outcome::from_code(level.at(p)),
                            _ => above.and_then(|a| Outcome::from_code(a.at(p))),
                        });
                        let o = match after {
                            Some(o) => o,
                            None => tb.resolve(&pos.play(mv), true)?,
                        }
                        .before_move();
                        if o.wdl == stored.wdl && stored.wdl != Wdl::Draw {
                            // A king's move keeps the placement (this level); any other
                            // converts.
                            let kept =
                                place.filter(|p| p.level == 0 && pos.kings().contains(mv.from()));
                            let conversion = match kept {
                                Some(p) => dtcs.successor(p.in_batch())? + 1,
                                None => 1,
                            };
                            expected_dtc = Some(match (expected_dtc, stored.wdl) {
                                (None, _) => conversion,
                                (Some(d), Wdl::Win) => d.min(conversion),
                                (Some(d), _) => d.max(conversion),
                            });
                        }
                        expected = Some(expected.map_or(o, |e| e.max(o)));
                    }
                    let expected = expected.unwrap_or(Outcome::loss(0));
                    let expected_dtc = expected_dtc.unwrap_or(0);
                    if stored == expected && stored.wdl != Wdl::Draw && tally.bad.is_none() {
                        let stored_dtc = dtcs.in_order(here.in_batch(), slice, i)?;
                        if stored_dtc != expected_dtc {
                            tally.bad = Some(SliceCheck::BadDtc {
                                index: i,
                                stored: stored_dtc,
                                expected: expected_dtc,
                            });
                        }
                    }
                    tally.counts[match stored.wdl {
                        Wdl::Win => 0,
                        Wdl::Draw => 1,
                        Wdl::Loss => 2,
                    }] += 1;
                    if stored != expected && tally.bad.is_none() {
                        tally.bad = Some(SliceCheck::Bad {
                            index: i,
                            stored,
                            expected,
                        });
                    }
                    tally.bad = tally.bad.take().or(rule_bad);
                }
                Ok(tally)
            },
        )
        .try_reduce(Tally::default, |a, b| Ok(a.and(b)))
}

/// The rule result of `pos` (plain result `plain`) under `rules` from its `moves`, which
/// lead to `successors` (each one's frame and, for a quiet move, its place in the pair's
/// levels): the rule results there, from `rule_levels` at that place or from the tables,
/// each counted through the move or not as the rule set says.
fn expected_rule<R: Rules>(
    tb: &Tablebase,
    rules: &RuleSet,
    (pos, plain): (&Position<R>, Wdl),
    moves: &[Move],
    successors: &[(MoverFrame, Option<Place>)],
    rule_levels: [Option<&Level>; 2],
) -> Result<RuleResult, ProbeError> {
    let before = MoverFrame::of(pos).material().sides();
    let limit = rules.governing(before[0], before[1]).plies();
    let mut fold = Moves::default();
    for (mv, (frame, place)) in moves.iter().zip(successors) {
        let result =
            place.and_then(|p| rule_levels[p.level].map(|l| RuleResult::from_code(l.at(p))));
        let result = match result {
            Some(r) => r,
            None => tb.stored_rule::<R>(frame)?,
        };
        let [them, us] = frame.material().sides();
        let quiet = !mv.is_capture() && !mv.is_promotion();
        let conversion = !quiet || !pos.kings().contains(mv.from());
        let carried = rules.carries(before, [us, them], conversion);
        fold.add(result.contribution(carried, limit));
    }
    Ok(fold.result(plain))
}

/// A position of [`layered_rules`], as its moves were found once.
#[derive(Copy, Clone)]
enum Layered {
    /// The same result at every layer (no move, or a plain draw).
    Fixed(RuleResult),
    /// A plain win or loss whose moves other than a king's give `exits`.
    Open { plain: Wdl, exits: Moves },
}

/// What the layers of [`layered_rules`] need of the positions of one task.
#[derive(Default)]
struct LayerMoves {
    /// Per position.
    positions: Vec<Layered>,
    /// Per position, the end of its king moves' successors in `successors`.
    ends: Vec<u32>,
    /// The places of the king moves' successors in the level.
    successors: Vec<u32>,
}

/// Where a material count runs beside the quiet count (`tablebase::probe::rules`), the rule results of
/// every position of level `level` (both slices, laid out as `read_level`'s), built forward
/// from the moves: layer 0 (the quiet count run out) is drawn but for positions without a
/// move; each next layer takes a king's move from the layer before and any other move from
/// the stored results (the level above's for a man's step, the tables' for a capture or a
/// crowning), until two layers are equal or the quiet count's plies are reached. The moves
/// are generated once; a layer is then a pass over the successors' places.
fn layered_rules<R: Rules>(
    tb: &Tablebase,
    pair: &PairIndex<R>,
    level: usize,
    [plain, stored]: [&Level; 2],
    above: Option<&Level>,
    (set, material): (&RuleSet, u32),
) -> Result<Level, ProbeError> {
    let PairIndex {
        index,
        placements,
        arrangements,
    } = pair;
    let members = placements.members(level);
    let kings = placements.kings_per_placement();
    let positions = members.len() * kings as usize;
    let twin = |s: usize| if index.len() == 2 { 1 - s } else { 0 };
    let tasks = (0..positions.div_ceil(TASK_POSITIONS))
        .into_par_iter()
        .map(|c| {
            let mut task = LayerMoves::default();
            let mut placed = PlacedMen::default();
            let mut list = MoveList::new();
            let mut read_stored = Above::new([Some(stored), above]);
            for o in c * TASK_POSITIONS..((c + 1) * TASK_POSITIONS).min(positions) {
                let m = members[o / kings as usize];
                let s = m.slice as usize;
                let i = m.id * kings + o as u64 % kings;
                let wdl = plain
                    .value(m.slice, i)
                    .and_then(Outcome::from_code)
                    .unwrap_or(Outcome::DRAW)
                    .wdl;
                let pos = placed.set::<R>(placements, m).position(
                    &index[s],
                    i % kings,
                    arrangements[s].as_ref(),
                );
                generate(&pos, &mut list);
                let entry = match (list.as_slice(), wdl) {
                    ([], _) => Layered::Fixed(RuleResult::NO_MOVE),
                    (_, Wdl::Draw) => Layered::Fixed(RuleResult::drawn(Wdl::Draw)),
                    (moves, wdl) => {
                        let mut exits = Moves::default();
                        let before = MoverFrame::of(&pos).material().sides();
                        let t = twin(s) as u8;
                        for mv in moves {
                            let next = pos.play(mv);
                            let frame = MoverFrame::of(&next);
                            if !mv.is_capture() && pos.kings().contains(mv.from()) {
                                let place = index[t as usize]
                                    .rank(&frame)
                                    .and_then(|j| {
                                        let (_, at) = plain.place(t, j / kings)?;
                                        Some(at + (j % kings) as usize)
                                    })
                                    .ok_or_else(|| {
                                        ProbeError::NotCovered(
                                            "a king's move leaves its placement".into(),
                                        )
                                    })?;
                                task.successors.push(place as u32);
                                continue;
                            }
                            // A man's step stays in the pair; a capture or a crowning
                            // leaves it.
                            let read = match mv.is_capture() || mv.is_promotion() {
                                false => read_stored.value(&index[t as usize], t, &frame),
                                true => None,
                            };
                            let result = match read {
                                Some(code) => RuleResult::from_code(code),
                                None => tb.stored_rule::<R>(&frame)?,
                            };
                            let [them, us] = frame.material().sides();
                            let carried = set.carries(before, [us, them], true);
                            exits.add(result.contribution(carried, Some(material)));
                        }
                        Layered::Open { plain: wdl, exits }
                    }
                };
                task.positions.push(entry);
                task.ends.push(task.successors.len() as u32);
            }
            Ok(task)
        })
        .collect::<Result<Vec<LayerMoves>, ProbeError>>()?;
    // Layer 0: the quiet count has run out.
    let mut layer: Vec<u16> = tasks
        .iter()
        .flat_map(|t| &t.positions)
        .map(|p| match p {
            Layered::Fixed(r) => r.code(),
            Layered::Open { plain, .. } => RuleResult::drawn(*plain).code(),
        })
        .collect();
    let quiet = set.quiet.map_or(0, |q| q.plies);
    for _ in 0..quiet {
        let next: Vec<u16> = tasks
            .par_iter()
            .flat_map_iter(|t| {
                let layer = &layer;
                t.positions
                    .iter()
                    .enumerate()
                    .map(move |(p, entry)| match *entry {
                        Layered::Fixed(r) => r.code(),
                        Layered::Open { plain, exits } => {
                            let from = if p == 0 { 0 } else { t.ends[p - 1] as usize };
                            let kings = t.successors[from..t.ends[p] as usize]
                                .iter()
                                .map(|&s| RuleResult::from_code(layer[s as usize]));
                            next_layer(exits, kings, material, plain).code()
                        }
                    })
            })
            .collect();
        let unchanged = next == layer;
        layer = next;
        if unchanged {
            break;
        }
    }
    Ok(placements.level(stored.blocks.clone(), vec![layer]))
}
