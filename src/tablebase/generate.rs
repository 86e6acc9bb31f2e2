//! Building tables by retrograde analysis, slice pair by slice pair, in parallel (rayon).
//!
//! A job builds a slice and its twin (same material, the other side to move) together:
//! 1. Every index is unranked once. A position without moves is lost in 0; a position with a
//!    capture is final at once, from the already built slices its captures lead to; so is a
//!    position whose every move crowns a man. Other positions count their quiet moves that
//!    stay in the pair and remember the best result among those that crown.
//! 2. Then ply by ply: each position resolved at distance `d` walks back its predecessors
//!    (the other side's quiet moves played backwards). A predecessor of a loss is a win in
//!    `d + 1`; a predecessor of a win loses one count, and when none is left it is lost,
//!    as slowly as its moves allow. Positions never resolved are draws.
//!
//! Atomics make each ply race-free; every value depends only on the ply at which it is
//! found, so the tables are the same whatever the number of threads.

use std::fmt;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU16, AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;

use super::format::{FileKind, Header, TableError, assemble, pack, wdl_code};
use super::index::{MoverFrame, SliceIndex};
use super::material::{Material, SliceJob};
use super::outcome::{Outcome, Wdl};
use super::probe::{ProbeError, Tablebase};
use super::table::TableFile;
use crate::Variant;
use crate::rules::{Color, Geometry, MoveList, OPPOSITE, Rules, generate};

/// Positions per block in win/draw/loss files.
pub const WDL_BLOCK: u32 = 1 << 16;
/// Positions per block in distance files.
pub const DTW_BLOCK: u32 = 1 << 14;
/// zstd level of win/draw/loss blocks (small and read often: compress hard).
const WDL_LEVEL: i32 = 12;
/// zstd level of distance blocks.
const DTW_LEVEL: i32 = 6;

const UNKNOWN: u16 = 0;
const NO_POSITION: u16 = u16::MAX;
/// Marks a position with a capture: its stored value is never read.
const CAPTURE: u16 = 0x8000;
const CHUNK: u64 = 1 << 13;

/// Decoded input blocks a build caches (`damka generate` opens its inputs with it): inputs
/// are read often, and a large slice fills it.
pub const BUILD_CACHE_BYTES: usize = 1 << 30;

/// Peak bytes a build holds per position of its slices: the state word and the crowning
/// value (6), the solved values (2) and the ply lists. Measured with `/usr/bin/time -v` on
/// one-thread builds of English 1211+1112 and 0402+0204 and International 0401+0104:
/// 9.3-9.5 bytes per position.
pub const BUILD_BYTES_PER_POSITION: u64 = 10;

/// Bytes a build holds besides its positions and the cache: code, threads, input maps.
pub const BUILD_BASE_BYTES: u64 = 64 << 20;

/// What building one job is expected to cost.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Indices of the job's slices.
    pub positions: u64,
    /// Peak memory, bytes: positions, a full input cache and the base.
    pub memory_bytes: u64,
    /// Seconds on one core.
    pub core_seconds: f64,
}

/// Positions a build solves per second on one core, measured with one thread (files
/// written) on this project's 2-core AMD EPYC machine, shared with other work: 1.7 M/s for
/// English 1211+1112 and International 1201+0112, both with men; slices of kings only are
/// slower, 1.1 M/s for English 0402+0204 (short kings) and 0.5 M/s for International
/// 0401+0104 (flying kings walk long rays). The figures used are rounded down.
pub fn positions_per_core_second<R: Rules>(job: &SliceJob) -> f64 {
    if job.key().men() > 0 {
        1.5e6
    } else if R::FLYING_KINGS {
        0.5e6
    } else {
        1.1e6
    }
}

/// The expected memory and one-core time of building `job`.
pub fn estimate<R: Rules>(job: &SliceJob) -> Estimate {
    let positions: u64 = job
        .slices
        .iter()
        .map(|&m| SliceIndex::<R>::new(m).size())
        .sum();
    Estimate {
        positions,
        memory_bytes: positions * BUILD_BYTES_PER_POSITION
            + BUILD_CACHE_BYTES as u64
            + BUILD_BASE_BYTES,
        core_seconds: positions as f64 / positions_per_core_second::<R>(job),
    }
}

/// Why a build failed.
#[derive(Debug)]
pub enum GenerateError {
    /// An input table could not be probed.
    Probe(ProbeError),
    /// A file could not be written.
    Io(PathBuf, std::io::Error),
    /// A slice's inputs are not all built.
    MissingInputs(Vec<PathBuf>),
    /// A written file did not pass its check.
    Check(TableError),
}

impl fmt::Display for GenerateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenerateError::Probe(e) => write!(f, "reading an input table: {e}"),
            GenerateError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            GenerateError::MissingInputs(paths) => {
                write!(f, "inputs not built yet:")?;
                for p in paths {
                    write!(f, " {}", p.display())?;
                }
                Ok(())
            }
            GenerateError::Check(e) => write!(f, "written table failed its check: {e}"),
        }
    }
}

impl std::error::Error for GenerateError {}

impl From<ProbeError> for GenerateError {
    fn from(e: ProbeError) -> Self {
        GenerateError::Probe(e)
    }
}

/// What was built (or found built) for one slice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceReport {
    /// The slice.
    pub material: Material,
    /// Indices in the slice.
    pub positions: u64,
    /// Bytes of the win/draw/loss file.
    pub wdl_bytes: u64,
    /// Bytes of the distance file.
    pub dtw_bytes: u64,
    /// Whether the files were already there and checked, not built.
    pub skipped: bool,
}

/// Whether both files of every slice of `job` exist and pass their checks.
pub fn job_done(dir: &Path, variant: Variant, job: &SliceJob) -> bool {
    job.slices.iter().all(|&m| {
        [FileKind::Wdl, FileKind::Dtw].iter().all(|&kind| {
            let path = Tablebase::path_in(dir, variant, m, kind);
            TableFile::open(&path, kind, variant, m, 0)
                .and_then(|t| t.check_blocks())
                .is_ok()
        })
    })
}

/// The input files `job` needs that are not there.
pub fn missing_inputs(dir: &Path, variant: Variant, job: &SliceJob) -> Vec<PathBuf> {
    job.inputs
        .iter()
        .flat_map(|&m| {
            [FileKind::Wdl, FileKind::Dtw].map(|k| Tablebase::path_in(dir, variant, m, k))
        })
        .filter(|p| !p.is_file())
        .collect()
}

/// Where a build reports how far it has come; the command line draws it as a bar.
pub trait Progress: Sync {
    /// A job of `total` units of work begins.
    fn start(&self, total: u64);
    /// `n` more units are done.
    fn advance(&self, n: u64);
    /// The job is done (whatever the count says).
    fn finish(&self);
}

/// Progress reported nowhere.
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _total: u64) {}
    fn advance(&self, _n: u64) {}
    fn finish(&self) {}
}

/// Builds one job's slices and writes their files under the tables directory of `tb`.
/// Files are written to a temporary name, checked, and renamed only when all are good.
pub fn build_job<R: Rules>(
    job: &SliceJob,
    tb: &Tablebase,
    progress: &dyn Progress,
) -> Result<Vec<SliceReport>, GenerateError> {
    let slices: Vec<Slice<R>> = job.slices.iter().map(|&m| Slice::new(m)).collect();
    let total: u64 = slices.iter().map(|s| s.index.size()).sum();
    progress.start(2 * total);
    let solved = solve(&slices, tb, progress)?;
    let dir = tb.dir().join(R::VARIANT.name());
    fs::create_dir_all(&dir).map_err(|e| GenerateError::Io(dir.clone(), e))?;
    let mut written = Vec::new();
    let mut reports = Vec::new();
    for (slice, values) in slices.iter().zip(&solved) {
        let m = slice.index.material();
        let (wdl, dtw) = encode_files(R::VARIANT, m, values);
        let mut bytes = [0u64; 2];
        for (i, (kind, data)) in [(FileKind::Wdl, wdl), (FileKind::Dtw, dtw)]
            .into_iter()
            .enumerate()
        {
            let path = Tablebase::path_in(tb.dir(), R::VARIANT, m, kind);
            let tmp = path.with_extension(format!("{}.tmp", kind.extension()));
            write_synced(&tmp, &data)?;
            TableFile::open(&tmp, kind, R::VARIANT, m, u32::MAX)
                .and_then(|t| t.check_blocks())
                .map_err(GenerateError::Check)?;
            bytes[i] = data.len() as u64;
            written.push((tmp, path));
        }
        reports.push(SliceReport {
            material: m,
            positions: slice.index.size(),
            wdl_bytes: bytes[0],
            dtw_bytes: bytes[1],
            skipped: false,
        });
    }
    for (tmp, path) in written {
        fs::rename(&tmp, &path).map_err(|e| GenerateError::Io(path.clone(), e))?;
    }
    sync_dir(&dir)?;
    Ok(reports)
}

fn write_synced(path: &Path, data: &[u8]) -> Result<(), GenerateError> {
    let io = |e| GenerateError::Io(path.to_path_buf(), e);
    let mut file = fs::File::create(path).map_err(io)?;
    file.write_all(data).map_err(io)?;
    file.sync_all().map_err(io)
}

fn sync_dir(dir: &Path) -> Result<(), GenerateError> {
    fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| GenerateError::Io(dir.to_path_buf(), e))
}

/// The build state of one slice.
struct Slice<R: Rules> {
    index: SliceIndex<R>,
    /// Per position, one word so that a predecessor costs one memory access: the low 16 bits
    /// hold the outcome code (`Outcome::code`, `UNKNOWN`, `NO_POSITION`, `CAPTURE` marked),
    /// the next 8 bits the quiet moves into the pair whose successor is not yet known to be
    /// won (the position is lost when none is left).
    state: Vec<AtomicU32>,
    /// Best outcome among moves that crown a man (code, 0 for none).
    crowning: Vec<AtomicU16>,
}

const CODE_BITS: u32 = 0xffff;
const ONE_MOVE: u32 = 1 << 16;
const COUNT_BITS: u32 = 0xff << 16;

impl<R: Rules> Slice<R> {
    fn new(m: Material) -> Self {
        let index = SliceIndex::<R>::new(m);
        let n = index.size();
        Slice {
            index,
            state: (0..n).map(|_| AtomicU32::new(UNKNOWN as u32)).collect(),
            crowning: (0..n).map(|_| AtomicU16::new(0)).collect(),
        }
    }
}

/// Sets the outcome of an unresolved position to `code`; false if it was resolved already.
#[inline(always)]
fn claim(cell: &AtomicU32, code: u16) -> bool {
    let mut seen = cell.load(Relaxed);
    loop {
        if seen & CODE_BITS != UNKNOWN as u32 {
            return false;
        }
        match cell.compare_exchange_weak(seen, seen | code as u32, Relaxed, Relaxed) {
            Ok(_) => return true,
            Err(now) => seen = now,
        }
    }
}

/// A position resolved at some distance, waiting for its ply: the number of its slice in the
/// job (0, or 1 for the twin) in the top byte, its index in the 56 bits below. Eight bytes,
/// so that the lists of a large slice stay small while any slice size can be indexed.
#[derive(Copy, Clone)]
struct Entry(u64);

impl Entry {
    const INDEX_BITS: u32 = 56;

    fn new(slice: usize, index: u64) -> Entry {
        debug_assert!(slice < 2 && index >> Self::INDEX_BITS == 0);
        Entry((slice as u64) << Self::INDEX_BITS | index)
    }

    fn slice(self) -> usize {
        (self.0 >> Self::INDEX_BITS) as usize
    }

    fn index(self) -> u64 {
        self.0 & ((1 << Self::INDEX_BITS) - 1)
    }
}

/// Lists of positions by distance.
#[derive(Default)]
struct Schedule {
    resolved: Vec<Vec<Entry>>,
    seeds: Vec<Vec<Entry>>,
}

fn push_at(lists: &mut Vec<Vec<Entry>>, ply: usize, e: Entry) {
    if lists.len() <= ply {
        lists.resize_with(ply + 1, Vec::new);
    }
    lists[ply].push(e);
}

/// One finding of the first pass: resolved at `dtw`, or a crowning win seeded at `dtw`.
enum Found {
    Resolved(u16, u64),
    Seed(u16, u64),
}

fn solve<R: Rules>(
    slices: &[Slice<R>],
    tb: &Tablebase,
    progress: &dyn Progress,
) -> Result<Vec<Vec<u16>>, GenerateError> {
    let mut schedule = Schedule::default();
    for (s, slice) in slices.iter().enumerate() {
        let chunks = slice.index.size().div_ceil(CHUNK);
        let found = (0..chunks)
            .into_par_iter()
            .map(|c| {
                let range = c * CHUNK..((c + 1) * CHUNK).min(slice.index.size());
                let n = range.end - range.start;
                let out = first_pass(slice, range, tb);
                progress.advance(n);
                out
            })
            .collect::<Result<Vec<_>, GenerateError>>()?;
        for f in found.into_iter().flatten() {
            match f {
                Found::Resolved(d, i) => {
                    push_at(&mut schedule.resolved, d as usize, Entry::new(s, i))
                }
                Found::Seed(d, i) => push_at(&mut schedule.seeds, d as usize, Entry::new(s, i)),
            }
        }
    }
    let twin = |s: usize| if slices.len() == 2 { 1 - s } else { s };
    let mut ply = 0usize;
    while ply < schedule.resolved.len().max(schedule.seeds.len()) {
        let mut frontier =
            std::mem::take(schedule.resolved.get_mut(ply).unwrap_or(&mut Vec::new()));
        if let Some(seeds) = schedule.seeds.get_mut(ply) {
            let win = Outcome::win(ply as u16).code();
            for e in std::mem::take(seeds) {
                if claim(&slices[e.slice()].state[e.index() as usize], win) {
                    frontier.push(e);
                }
            }
        }
        let next: Vec<Vec<(u16, Entry)>> = frontier
            .par_chunks(4096)
            .map(|chunk| {
                let mut out = Vec::new();
                for &e in chunk {
                    let t = twin(e.slice());
                    back_propagate(
                        &slices[e.slice()],
                        &slices[t],
                        t,
                        e.index(),
                        ply as u16,
                        &mut out,
                    );
                }
                progress.advance(chunk.len() as u64);
                out
            })
            .collect();
        for (d, e) in next.into_iter().flatten() {
            push_at(&mut schedule.resolved, d as usize, e);
        }
        ply += 1;
    }
    progress.finish();
    Ok(slices
        .iter()
        .map(|s| {
            s.state
                .par_iter()
                .map(|v| match (v.load(Relaxed) & CODE_BITS) as u16 {
                    UNKNOWN => Outcome::DRAW.code(),
                    code => code,
                })
                .collect()
        })
        .collect())
}

/// The first pass over `range` of `slice`.
fn first_pass<R: Rules>(
    slice: &Slice<R>,
    range: std::ops::Range<u64>,
    tb: &Tablebase,
) -> Result<Vec<Found>, GenerateError> {
    let mut found = Vec::new();
    let mut list = MoveList::new();
    for i in range {
        let cell = &slice.state[i as usize];
        let Some(frame) = slice.index.unrank(i) else {
            cell.store(NO_POSITION as u32, Relaxed);
            continue;
        };
        let pos = frame.position::<R>();
        generate(&pos, &mut list);
        let moves = list.as_slice();
        let resolved = if moves.is_empty() {
            Some(Outcome::loss(0))
        } else if moves[0].is_capture() {
            let mut best: Option<Outcome> = None;
            for mv in moves {
                let o = tb.resolve(&pos.play(mv), true)?.before_move();
                best = Some(best.map_or(o, |b| b.max(o)));
            }
            let best = best.unwrap_or(Outcome::loss(0));
            cell.store((CAPTURE | best.code()) as u32, Relaxed);
            if best.wdl != Wdl::Draw {
                found.push(Found::Resolved(best.dtw, i));
            }
            continue;
        } else {
            let mut inside = 0u8;
            let mut crowning: Option<Outcome> = None;
            for mv in moves {
                if mv.is_promotion() {
                    let o = tb.resolve(&pos.play(mv), true)?.before_move();
                    crowning = Some(crowning.map_or(o, |c| c.max(o)));
                } else {
                    inside += 1;
                }
            }
            if inside == 0 {
                crowning
            } else {
                cell.store(inside as u32 * ONE_MOVE, Relaxed);
                if let Some(c) = crowning {
                    slice.crowning[i as usize].store(c.code(), Relaxed);
                    if c.wdl == Wdl::Win {
                        found.push(Found::Seed(c.dtw, i));
                    }
                }
                None
            }
        };
        if let Some(o) = resolved {
            cell.store(o.code() as u32, Relaxed);
            if o.wdl != Wdl::Draw {
                found.push(Found::Resolved(o.dtw, i));
            }
        }
    }
    Ok(found)
}

/// Walks back from position `i` of `from`, resolved at `ply`, into its predecessors in
/// `into` (slice number `t`); newly resolved predecessors are pushed with their distance.
fn back_propagate<R: Rules>(
    from: &Slice<R>,
    into: &Slice<R>,
    t: usize,
    i: u64,
    ply: u16,
    out: &mut Vec<(u16, Entry)>,
) {
    let code = (from.state[i as usize].load(Relaxed) & CODE_BITS) as u16 & !CAPTURE;
    let Some(outcome) = Outcome::from_code(code) else {
        return;
    };
    let Some(frame) = from.index.unrank(i) else {
        return;
    };
    predecessors::<R>(&frame, |q| {
        let Some(j) = into.index.rank(&q) else { return };
        let cell = &into.state[j as usize];
        match outcome.wdl {
            Wdl::Loss => {
                if claim(cell, Outcome::win(ply + 1).code()) {
                    out.push((ply + 1, Entry::new(t, j)));
                }
            }
            Wdl::Win => {
                // Resolved positions have their code set: the count is then ignored (and a
                // borrow out of it only reaches the unused top bits).
                let before = cell.fetch_sub(ONE_MOVE, Relaxed);
                if before & CODE_BITS != UNKNOWN as u32 || before & COUNT_BITS != ONE_MOVE {
                    return;
                }
                let dtw = match Outcome::from_code(into.crowning[j as usize].load(Relaxed)) {
                    None => ply + 1,
                    Some(c) if c.wdl == Wdl::Loss => c.dtw.max(ply + 1),
                    // A crowning that draws or wins is better than every move left.
                    Some(_) => return,
                };
                cell.fetch_or(Outcome::loss(dtw).code() as u32, Relaxed);
                out.push((dtw, Entry::new(t, j)));
            }
            Wdl::Draw => {}
        }
    });
}

/// Calls `f` with every position (seen from its side to move) from which a quiet move that
/// does not crown leads to `p`: the other side's last move, played backwards.
#[inline]
fn predecessors<R: Rules>(p: &MoverFrame, mut f: impl FnMut(MoverFrame)) {
    let empty = R::Board::VALID & !(p.mover | p.other);
    let men = p.other & !p.kings;
    let kings = p.other & p.kings;
    let forward = R::Board::FORWARD[Color::Black.index()] | R::Board::SIDEWAYS;
    let men_squares = R::Board::men_squares(Color::Black);
    for (d, &back) in OPPOSITE.iter().enumerate() {
        if forward >> d & 1 == 0 {
            continue;
        }
        let sources = R::Board::step(empty & men_squares, d) & men;
        for to in crate::rules::Bitboard(sources).squares() {
            let to = to.bb().0;
            let from = R::Board::step(to, back);
            let q = MoverFrame {
                mover: p.mover,
                other: p.other ^ to ^ from,
                kings: p.kings,
            };
            f(q.turned::<R>());
        }
    }
    for to in crate::rules::Bitboard(kings).squares() {
        let to = to.bb().0;
        for d in 0..4 {
            let mut from = R::Board::step(to, d) & empty;
            while from != 0 {
                let moved = to ^ from;
                let q = MoverFrame {
                    mover: p.mover,
                    other: p.other ^ moved,
                    kings: p.kings ^ moved,
                };
                f(q.turned::<R>());
                if !R::FLYING_KINGS {
                    break;
                }
                from = R::Board::step(from, d) & empty;
            }
        }
    }
}

/// Encodes the solved values of a slice as its two files.
fn encode_files(variant: Variant, m: Material, values: &[u16]) -> (Vec<u8>, Vec<u8>) {
    let stored = |v: u16| -> Option<Outcome> {
        if v == NO_POSITION || v & CAPTURE != 0 {
            None
        } else {
            Outcome::from_code(v)
        }
    };
    let max_dtw = values
        .par_iter()
        .filter_map(|&v| stored(v))
        .map(|o| o.dtw)
        .max()
        .unwrap_or(0);
    let dtw_bits = if max_dtw <= u8::MAX as u16 { 8 } else { 16 };
    let counts = values
        .par_iter()
        .map(|&v| match stored(v).map(|o| o.wdl) {
            Some(Wdl::Win) => [1u64, 0, 0, 0],
            Some(Wdl::Draw) => [0, 1, 0, 0],
            Some(Wdl::Loss) => [0, 0, 1, 0],
            None => [0, 0, 0, 1],
        })
        .reduce(
            || [0; 4],
            |a, b| [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]],
        );
    let header = |kind, value_bits, block_positions| Header {
        kind,
        variant,
        material: m,
        value_bits,
        max_dtw,
        block_positions,
        positions: values.len() as u64,
        blocks: 0,
        table_crc: 0,
        wins: counts[0],
        draws: counts[1],
        losses: counts[2],
        unused: counts[3],
    };
    let wdl_of = |v: u16| -> Option<u16> {
        stored(v).map(|o| match o.wdl {
            Wdl::Win => wdl_code::WIN as u16,
            Wdl::Draw => wdl_code::DRAW as u16,
            Wdl::Loss => wdl_code::LOSS as u16,
        })
    };
    // Draws have no distance.
    let dtw_of = |v: u16| stored(v).filter(|o| o.wdl != Wdl::Draw).map(|o| o.dtw);
    let wdl_blocks: Vec<Vec<u8>> = values
        .par_chunks(WDL_BLOCK as usize)
        .map(|b| compress(&pack(&fill_runs(b, wdl_of), 2), WDL_LEVEL))
        .collect();
    let dtw_blocks: Vec<Vec<u8>> = values
        .par_chunks(DTW_BLOCK as usize)
        .map(|b| compress(&pack(&fill_runs(b, dtw_of), dtw_bits), DTW_LEVEL))
        .collect();
    (
        assemble(header(FileKind::Wdl, 2, WDL_BLOCK), &wdl_blocks),
        assemble(header(FileKind::Dtw, dtw_bits, DTW_BLOCK), &dtw_blocks),
    )
}

/// The values of a block, where `f` says `None` (a value nobody reads) repeating the last
/// one said: long runs compress best.
fn fill_runs(block: &[u16], f: impl Fn(u16) -> Option<u16>) -> Vec<u16> {
    let mut last = block.iter().find_map(|&v| f(v)).unwrap_or(0);
    block
        .iter()
        .map(|&v| {
            if let Some(x) = f(v) {
                last = x;
            }
            last
        })
        .collect()
}

fn compress(raw: &[u8], level: i32) -> Vec<u8> {
    zstd::bulk::compress(raw, level).expect("zstd compresses any input in memory")
}

#[cfg(test)]
mod tests {
    use super::Entry;

    #[test]
    fn entries_hold_indices_past_32_bits() {
        for (slice, index) in [(0, 0), (1, 0), (0, u32::MAX as u64 + 7), (1, (1 << 56) - 1)] {
            let e = Entry::new(slice, index);
            assert_eq!((e.slice(), e.index()), (slice, index));
        }
        assert_eq!(std::mem::size_of::<Entry>(), 8);
    }
}
