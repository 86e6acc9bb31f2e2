//! Reading a level of a slice pair: its values, rule results and capture positions from
//! the files ([`read_level`]), the positions the files leave unread found from their moves
//! ([`Unread`]), and the distances to conversion read as they are checked ([`DtcReader`]).

use std::sync::Arc;

use rayon::prelude::*;

use super::SliceFiles;
use super::pair::{PairIndex, TASK_POSITIONS};
use crate::rules::{MoveList, Position, Rules, captures, generate, may_capture};
use crate::tablebase::format::{Header, TableFile};
use crate::tablebase::format::{RuleValue, unpack, wdl_code};
use crate::tablebase::index::levels::{Above, Level, Member, Place, Placements};
use crate::tablebase::index::{KingArrangements, MoverFrame, SliceIndex};
use crate::tablebase::probe::{ProbeError, Tablebase};
use crate::tablebase::unread::{converts_at_once, even_rows, forced_exchange};
use crate::tablebase::value::RuleResult;
use crate::tablebase::value::{Outcome, Wdl};

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
pub(super) fn read_level<R: Rules>(
    tb: &Tablebase,
    files: &[SliceFiles],
    rule_files: Option<&[Arc<TableFile>]>,
    pair: &PairIndex<R>,
    (level, above): (usize, Option<&Level>),
) -> Result<ReadLevel, ProbeError> {
    let (index, placements, arrangements) = (&pair.index, &pair.placements, &pair.arrangements);
    // Whether the pair has distances to the end (else the values are checked without them).
    let dtw = files.iter().all(|f| f.dtw.is_some());
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
        .map(|s| {
            let twin = &files[(s + 1) % files.len()];
            twin.dtw
                .as_ref()
                .is_some_and(|d| d.header().even_rows_searched)
        })
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
                        let o = tb.resolve_captures(&pos, list.as_slice(), dtw)?;
                        *value = o.code();
                        captured[n / 64] |= 1 << (n % 64);
                        continue;
                    }
                }
                let (wdl, dtw_file) = (&files[s].wdl, files[s].dtw.as_deref());
                let [w_block, d_block] = &mut blocks[s];
                let (w, d) = (wdl.header(), dtw_file.map(|f| f.header()));
                let searched = w.searched || d.is_some_and(|d| d.searched);
                let forced = (w.forced_searched || d.is_some_and(|d| d.forced_searched))
                    && forced_exchange(&pos);
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
                let even = d.is_some_and(|d| d.even_rows_searched)
                    && even_rows::<R>(pos.pieces(side).0, side);
                // The distance to the end, where the slice has one (else 0: only the win,
                // draw or loss is checked).
                let mut distance = || match dtw_file {
                    Some(f) => d_block.value(f, i),
                    None => Ok(0),
                };
                let stored = match (w_block.value(wdl, i)? as u8, even) {
                    (wdl_code::WIN, false) => Outcome::win(distance()?),
                    (wdl_code::LOSS, false) => Outcome::loss(distance()?),
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
    let levels_read = LevelsRead {
        index,
        placements,
        arrangements,
        level,
        above,
    };
    if unread.any() {
        // Forced exchanges first: their moves lead to capture positions (read above) or
        // crown. Then a searched slice's positions: their moves lead into the other slice,
        // whose values are all in by then, or, where that slice's distances on even rows
        // are unread, its odd rows. Then those even rows (their moves lead to the searched
        // slice's positions just found), then the searched slice's other positions.
        for pass in Unread::PASSES {
            levels_read.fill_unread(tb, &mut values, &unread, (pass, dtw))?;
        }
    }
    // Distance files that leave positions unread (compacted) have the level's distances
    // held, the unread ones found from their moves.
    let dtc_unread = files.iter().any(|f| leaves_unread(f.dtc.header()));
    let held = (dtc_unread || !(WINDOW_MIN..=WINDOW_MAX).contains(&kings)).then(|| {
        let mut dtcs = vec![0u16; values.batches[0].len()];
        let unread = dtcs
            .par_chunks_mut(TASK_POSITIONS)
            .enumerate()
            .map(|(c, dtcs)| {
                let mut reader = DtcReader::new(files, &values, &captured, None);
                let mut placed = PlacedMen::default();
                let mut unread = UnreadTask::default();
                let mut outcomes = Above::new([Some(&values), above]);
                let len = dtcs.len();
                for (n, (o, dtc)) in (c * TASK_POSITIONS..).zip(dtcs).enumerate() {
                    let m = members[o / kings as usize];
                    let i = m.id * kings + o as u64 % kings;
                    let s = m.slice as usize;
                    if dtc_unread && reader.not_in_file(o).is_none() {
                        let pos = placed.set::<R>(placements, m).position(
                            &index[s],
                            i % kings,
                            arrangements[s].as_ref(),
                        );
                        let file = files[s].dtc.header();
                        if file.ones_searched {
                            let wdl = Outcome::from_code(values.batches[0][o]).map(|o| o.wdl);
                            let t = (s + 1) % index.len();
                            let wdl_of = |after: &Position<R>| {
                                let frame = MoverFrame::of(after);
                                // A man's step stays in the pair; a crowning leaves it.
                                let in_pair = frame.material() == files[t].wdl.header().material;
                                let known = in_pair
                                    .then(|| outcomes.value(&index[t], t as u8, &frame))
                                    .flatten();
                                match known.and_then(Outcome::from_code) {
                                    Some(o) => Ok(o.wdl),
                                    None => tb.resolve(after, false).map(|o| o.wdl),
                                }
                            };
                            if converts_at_once(&pos, wdl.unwrap_or(Wdl::Draw), wdl_of)? {
                                *dtc = 1;
                                continue;
                            }
                        }
                        let twin = &files[(s + 1) % files.len()].dtc;
                        if let Some(why) = Unread::of::<R>(&pos, file, twin) {
                            unread.mark(n, len, why);
                            continue;
                        }
                    }
                    *dtc = reader.in_order(o, m.slice, i)?;
                }
                Ok::<_, ProbeError>(unread.0)
            })
            .collect::<Result<Vec<_>, ProbeError>>()?;
        let mut dtcs = placements.level(blocks.clone(), vec![dtcs]);
        let unread = UnreadLevel(unread);
        if unread.any() {
            for pass in Unread::PASSES {
                levels_read.fill_unread_dtcs(tb, (&values, &mut dtcs), &unread, pass)?;
            }
        }
        Ok::<_, ProbeError>(dtcs)
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
pub(super) struct ReadLevel {
    pub(super) values: Level,
    pub(super) held_dtcs: Option<Level>,
    pub(super) rules: Option<Level>,
    /// A bit a position, in the order of `values`: whether it is a capture position.
    pub(super) captured: Vec<u64>,
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
pub(super) struct DtcReader<'a> {
    files: &'a [SliceFiles],
    values: &'a Level,
    captured: &'a [u64],
    held: Option<&'a Level>,
    /// Where the window's placement starts in the level, and its distances.
    window: (usize, Vec<u16>),
    /// Per slice, the block of its distance file decoded last.
    blocks: [Decoded; 2],
}

impl<'a> DtcReader<'a> {
    pub(super) fn new(
        files: &'a [SliceFiles],
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
    pub(super) fn prefetch(&self, place: Place) {
        if let Some(held) = self.held {
            held.prefetch(place);
        }
    }

    /// The distance to conversion of a successor at position `o` of the level read (its
    /// place in the batch).
    #[inline]
    pub(super) fn successor(&mut self, o: usize) -> Result<u16, ProbeError> {
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
        let file = &self.files[slice].dtc;
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
    pub(super) fn in_order(&mut self, o: usize, slice: u8, i: u64) -> Result<u16, ProbeError> {
        if let Some(held) = self.held {
            return Ok(held.batches[0][o]);
        }
        if let Some(known) = self.not_in_file(o) {
            return Ok(known);
        }
        let slice = slice as usize;
        self.blocks[slice].value(&self.files[slice].dtc, i)
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
pub(super) struct UnreadLevel(Vec<Vec<Unread>>);

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
    /// distance found: where the moves say otherwise, its check finds it wrong. Distances
    /// to the end are found where the pair has them (`dtw`). The outcomes are found first,
    /// two bytes each, then set.
    fn fill_unread(
        &self,
        tb: &Tablebase,
        values: &mut Level,
        unread: &UnreadLevel,
        (pass, dtw): (&[Unread], bool),
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
                            None => tb.resolve(&after, dtw),
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

impl<R: Rules> LevelsRead<'_, R> {
    /// Sets the distances to conversion of the level (`dtcs`, laid out as its `values`)
    /// whose `unread` is in `pass` to what their moves give: 1 for a conversion (a capture
    /// or a man's move) that keeps the result, one more than the successor's distance for
    /// a king's move that does (its successor in this level); the least for a win, the most
    /// for a loss. The distances are found first, then set.
    fn fill_unread_dtcs(
        &self,
        tb: &Tablebase,
        (values, dtcs): (&Level, &mut Level),
        unread: &UnreadLevel,
        pass: &[Unread],
    ) -> Result<(), ProbeError> {
        let members = self.placements.members(self.level);
        let kings = self.placements.kings_per_placement();
        let positions = members.len() * kings as usize;
        let index = self.index;
        let twin = |s: usize| if index.len() == 2 { 1 - s } else { 0 };
        let marked = |o: usize| pass.contains(&unread.at(o));
        let held: &Level = dtcs;
        let found: Vec<Vec<u16>> = (0..positions.div_ceil(TASK_POSITIONS))
            .into_par_iter()
            .map(|c| {
                let mut outcomes = Above::new([Some(values), self.above]);
                let mut distances = Above::new([Some(held)]);
                let mut placed = PlacedMen::default();
                let mut list = MoveList::new();
                let mut found = Vec::new();
                for o in c * TASK_POSITIONS..((c + 1) * TASK_POSITIONS).min(positions) {
                    if !marked(o) {
                        continue;
                    }
                    let m = members[o / kings as usize];
                    let s = m.slice as usize;
                    let pos = placed.set::<R>(self.placements, m).position(
                        &index[s],
                        o as u64 % kings,
                        self.arrangements[s].as_ref(),
                    );
                    let wdl = Outcome::from_code(values.batches[0][o]).map_or(Wdl::Draw, |o| o.wdl);
                    generate(&pos, &mut list);
                    let mut best: Option<u16> = None;
                    for mv in list.as_slice() {
                        let after = pos.play(mv);
                        let frame = MoverFrame::of(&after);
                        let t = twin(s) as u8;
                        let quiet = !mv.is_capture() && !mv.is_promotion();
                        let known = quiet
                            .then(|| outcomes.value(&index[t as usize], t, &frame))
                            .flatten()
                            .and_then(Outcome::from_code);
                        let reached = match known {
                            Some(o) => o.wdl,
                            None => tb.resolve(&after, false)?.wdl,
                        };
                        if reached.negated() != wdl {
                            continue;
                        }
                        let dtc = match quiet && pos.kings().contains(mv.from()) {
                            true => {
                                let d = distances.value(&index[t as usize], t, &frame);
                                d.expect("a king's move stays in the level") + 1
                            }
                            false => 1,
                        };
                        best = Some(match (best, wdl) {
                            (None, _) => dtc,
                            (Some(b), Wdl::Win) => b.min(dtc),
                            (Some(b), _) => b.max(dtc),
                        });
                    }
                    found.push(best.unwrap_or(0));
                }
                Ok(found)
            })
            .collect::<Result<_, ProbeError>>()?;
        dtcs.batches[0]
            .par_chunks_mut(TASK_POSITIONS)
            .zip(found)
            .enumerate()
            .for_each(|(c, (dtcs, found))| {
                let mut found = found.into_iter();
                for (k, dtc) in dtcs.iter_mut().enumerate() {
                    if marked(c * TASK_POSITIONS + k) {
                        *dtc = found.next().expect("a distance for each marked position");
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

/// Whether a distance file leaves some positions' values to their moves.
fn leaves_unread(h: &crate::tablebase::format::Header) -> bool {
    h.searched || h.forced_searched || h.even_rows_searched
}

impl Unread {
    /// Why the distance file `file` (of the slice of `pos`, a won or lost position without
    /// a capture) holds no value for `pos`, whose twin's file of the same kind is `twin`.
    fn of<R: Rules>(pos: &Position<R>, file: &Header, twin: &TableFile) -> Option<Unread> {
        let (side, twin_side) = (pos.side_to_move(), pos.side_to_move().opponent());
        if (file.forced_searched || file.searched) && forced_exchange(pos) {
            return Some(Unread::Forced);
        }
        if file.searched {
            let twin_even = twin.header().even_rows_searched
                && even_rows::<R>(pos.pieces(twin_side).0, twin_side);
            return Some(match twin_even {
                true => Unread::SearchedEven,
                false => Unread::Searched,
            });
        }
        (file.even_rows_searched && even_rows::<R>(pos.pieces(side).0, side))
            .then_some(Unread::EvenWon)
    }

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
pub(super) struct PlacedMen {
    member: Option<Member>,
    men: (u64, u64),
    free: Vec<u64>,
}

impl PlacedMen {
    /// Moves to placement `m` (nothing to do if it is the current one).
    pub(super) fn set<R: Rules>(&mut self, placements: &Placements<R>, m: Member) -> &Self {
        if self.member != Some(m) {
            self.men = placements.men(m);
            SliceIndex::<R>::free_squares(self.men.0 | self.men.1, &mut self.free);
            self.member = Some(m);
        }
        self
    }

    /// The position with these men and the kings' arrangement `k`.
    pub(super) fn position<R: Rules>(
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
