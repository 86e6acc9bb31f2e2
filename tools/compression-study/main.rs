//! damka-compression-study: re-encodes the win/draw/loss and distance-to-win files of a
//! tables directory several ways, side by side on the same slices, and prints the bytes
//! each way takes and how long a block takes to decode. Nothing is written.
//!
//! ```sh
//! cargo run --release -p damka-compression-study -- [--dtc] TABLES VARIANT [SLICE...]
//! ```
//!
//! With `--dtc`, the distance files studied are the distance-to-conversion files (`.dtc`)
//! in place of the distance-to-win files (the `half` ways, which take a distance's parity
//! from the win/draw/loss value, mean nothing there, and `nearN` leaves out the positions
//! whose own distance is under N).
//!
//! With no SLICE, every slice of VARIANT under TABLES. Each way is named by its parts:
//! - how a value nobody reads is filled (a capture position, an index without a position,
//!   and in distance files a draw): `prev` repeats the previous value read (what the
//!   generator does), `run` takes the neighbour whose run is longer, `major` the block's
//!   most frequent value, `match` copies the values at the offset back (up to 2048) that
//!   agrees with the most values read ahead, so that zstd finds long matches (slow);
//! - for distances, `half` stores the distance halved (a win's distance is odd, a loss's
//!   even, so the win/draw/loss value gives the lost bit back) and `rank` stores each
//!   value's rank by frequency in the slice, with the slice's table of values (counted);
//!   `less dtc` stores the distance to win less the distance to conversion (`.dtc`);
//! - the coder: zstd at a level (`z12`), with a dictionary trained per variant and file
//!   kind (`dict`, its bytes counted once), or `rle`, a byte code in Kingsrow's manner (243
//!   codes of five values, 12 of long runs); `order0` and `order1` are no coder but the
//!   bytes a static model of the slice's values would take (each value by its frequency,
//!   or by its frequency after the value before it), the model's table not counted;
//! - the block: positions a block (`64K` is 65,536);
//! - `no threats`: positions where the side not to move could capture are not read either
//!   (a probe would answer them by a search of one ply, as Kingsrow's tables do); `no
//!   forced`: only those where it still could after every move that does not crown;
//! - `parity` (distances): positions whose side to move's pieces stand on rows that add up
//!   to an even number are not read. Where every quiet move takes a piece one row (English,
//!   Italian), each move of each side from such a position reaches one with an odd sum, so a
//!   probe would answer it by a search of two plies into read values; `wins`: lost
//!   positions are not read either (a search of one ply into the twin's wins);
//! - `delta` (distances): each value of a block stored as its difference from the one
//!   before it in index order (wrapping), the values nobody reads filled first;
//! - `nearN` (distances): positions fewer than N plies from a conversion (their `.dtc`
//!   value; a conversion is a capture or a man's move) are not read either: a probe would
//!   search their moves until it reaches stored distances or other slices.
//!
//! One line more takes the files as built and keeps, of each slice and its twin (the other
//! side to move), only the smaller: Kingsrow's one side to move, where the other side is
//! answered by a search of one ply.

use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use damka::rules::{MoveList, Rules, generate, may_capture};
use damka::tablebase::format::TableFile;
use damka::tablebase::format::{FileKind, pack, unpack, wdl_code};
use damka::tablebase::{Material, SliceIndex};
use damka::{Variant, with_rules};
use rayon::prelude::*;

/// A slice's decoded values and which of them a probe reads.
struct Slice {
    material: Material,
    /// Win/draw/loss codes.
    wdl: Vec<u8>,
    /// Distances to win (meaningless where not read).
    dtw: Vec<u16>,
    /// Distances to conversion (meaningless where not read).
    dtc: Vec<u16>,
    /// Whether an index holds a position without a capture (its values are read).
    read: Vec<bool>,
    /// Whether the side not to move could capture there.
    threat: Vec<bool>,
    /// Whether it could, and still could after every move that does not crown.
    forced: Vec<bool>,
    /// Whether the rows of the side to move's pieces add up to an even number.
    even: Vec<bool>,
    /// Bytes of the two files as built.
    file_bytes: [u64; 2],
}

/// How values nobody reads are filled.
#[derive(Clone, Copy)]
enum Fill {
    Previous,
    LongerRun,
    Majority,
    /// Copies the values at the offset back that matches the most positions ahead (values
    /// read equal, the others anything), so that zstd finds long matches.
    Match,
}

/// What a distance file stores of each distance to win.
#[derive(Clone, Copy)]
enum Distance {
    Whole,
    /// Halved: the win/draw/loss value gives the parity back.
    Half,
    /// Less the position's distance to conversion.
    LessDtc,
}

/// How a block's packed values are coded.
#[derive(Clone, Copy)]
enum Coder {
    Zstd(i32),
    ZstdDict(i32),
    Rle,
    /// No coder: the ideal bytes of a static model of the slice (order 0 or 1), counts
    /// table not counted.
    Entropy(u8),
}

/// One way of storing a file kind.
struct Way {
    name: &'static str,
    fill: Fill,
    /// Distances: what is stored of each, and whether it is rank-coded.
    distance: Distance,
    rank: bool,
    coder: Coder,
    block: usize,
    /// Positions where the side not to move could capture are not read either (a probe
    /// answers them by a search of one ply, as Kingsrow's tables do): `Some(false)` all of
    /// them, `Some(true)` those where every move leaves the other side a capture or crowns
    /// (so that the search ends in capture searches, never in the twin slice).
    threats: Option<bool>,
    /// Positions whose side to move's rows add up to an even number are not read.
    parity: bool,
    /// Lost positions are not read.
    wins: bool,
    /// Each value of a block is stored as its difference from the one before (wrapping).
    delta: bool,
    /// Positions fewer than this many plies from a conversion are not read.
    near: u16,
}

const fn way(name: &'static str, fill: Fill, coder: Coder, block: usize) -> Way {
    Way {
        name,
        fill,
        distance: Distance::Whole,
        rank: false,
        coder,
        block,
        threats: None,
        parity: false,
        wins: false,
        delta: false,
        near: 0,
    }
}

const fn threats(w: Way, name: &'static str, forced: bool) -> Way {
    Way {
        name,
        threats: Some(forced),
        ..w
    }
}

const K: usize = 1024;

const WDL_WAYS: [Way; 12] = [
    way("prev z12 64K", Fill::Previous, Coder::Zstd(12), 64 * K),
    way("major z12 64K", Fill::Majority, Coder::Zstd(12), 64 * K),
    way("run z12 64K", Fill::LongerRun, Coder::Zstd(12), 64 * K),
    way("run z12 16K", Fill::LongerRun, Coder::Zstd(12), 16 * K),
    way("run z12 256K", Fill::LongerRun, Coder::Zstd(12), 256 * K),
    way("run z19 64K", Fill::LongerRun, Coder::Zstd(19), 64 * K),
    way("run z19 256K", Fill::LongerRun, Coder::Zstd(19), 256 * K),
    way(
        "run dict z12 64K",
        Fill::LongerRun,
        Coder::ZstdDict(12),
        64 * K,
    ),
    way("run rle 64K", Fill::LongerRun, Coder::Rle, 64 * K),
    threats(
        way("", Fill::LongerRun, Coder::Zstd(12), 64 * K),
        "run z12 64K no threats",
        false,
    ),
    threats(
        way("", Fill::LongerRun, Coder::Zstd(19), 64 * K),
        "run z19 64K no threats",
        false,
    ),
    threats(
        way("", Fill::LongerRun, Coder::Zstd(19), 64 * K),
        "run z19 64K no forced",
        true,
    ),
];

const fn dtw_way(
    name: &'static str,
    distance: Distance,
    rank: bool,
    coder: Coder,
    block: usize,
) -> Way {
    Way {
        name,
        fill: Fill::Previous,
        distance,
        rank,
        coder,
        block,
        threats: None,
        parity: false,
        wins: false,
        delta: false,
        near: 0,
    }
}

const fn parity(w: Way, name: &'static str) -> Way {
    Way {
        name,
        parity: true,
        ..w
    }
}

const fn wins(w: Way, name: &'static str) -> Way {
    Way {
        name,
        wins: true,
        ..w
    }
}

const fn near(w: Way, name: &'static str, plies: u16) -> Way {
    Way {
        name,
        near: plies,
        ..w
    }
}

const fn delta(w: Way, name: &'static str) -> Way {
    Way {
        name,
        delta: true,
        ..w
    }
}

const DTW_WAYS: [Way; 27] = [
    wins(
        dtw_way("", Distance::Whole, false, Coder::Zstd(6), 16 * K),
        "wins z6 16K",
    ),
    wins(
        parity(
            dtw_way("", Distance::Whole, false, Coder::Zstd(6), 16 * K),
            "",
        ),
        "wins parity z6 16K",
    ),
    parity(
        dtw_way("", Distance::Whole, false, Coder::Zstd(6), 16 * K),
        "parity z6 16K",
    ),
    parity(
        dtw_way("", Distance::Half, true, Coder::Zstd(12), 16 * K),
        "parity half rank z12 16K",
    ),
    parity(
        dtw_way("", Distance::Half, true, Coder::Zstd(19), 64 * K),
        "parity half rank z19 64K",
    ),
    dtw_way(
        "prev z6 16K",
        Distance::Whole,
        false,
        Coder::Zstd(6),
        16 * K,
    ),
    dtw_way("half z6 16K", Distance::Half, false, Coder::Zstd(6), 16 * K),
    dtw_way(
        "half rank z6 16K",
        Distance::Half,
        true,
        Coder::Zstd(6),
        16 * K,
    ),
    dtw_way(
        "half rank z12 16K",
        Distance::Half,
        true,
        Coder::Zstd(12),
        16 * K,
    ),
    dtw_way(
        "half rank z12 64K",
        Distance::Half,
        true,
        Coder::Zstd(12),
        64 * K,
    ),
    dtw_way(
        "half rank z19 64K",
        Distance::Half,
        true,
        Coder::Zstd(19),
        64 * K,
    ),
    dtw_way(
        "less dtc z6 16K",
        Distance::LessDtc,
        false,
        Coder::Zstd(6),
        16 * K,
    ),
    dtw_way(
        "less dtc rank z6 16K",
        Distance::LessDtc,
        true,
        Coder::Zstd(6),
        16 * K,
    ),
    dtw_way(
        "less dtc rank z12 16K",
        Distance::LessDtc,
        true,
        Coder::Zstd(12),
        16 * K,
    ),
    dtw_way(
        "half rank dict z12 16K",
        Distance::Half,
        true,
        Coder::ZstdDict(12),
        16 * K,
    ),
    delta(
        dtw_way("", Distance::Whole, false, Coder::Zstd(6), 16 * K),
        "delta z6 16K",
    ),
    delta(
        dtw_way("", Distance::Half, false, Coder::Zstd(6), 16 * K),
        "half delta z6 16K",
    ),
    delta(
        parity(
            dtw_way("", Distance::Whole, false, Coder::Zstd(6), 16 * K),
            "",
        ),
        "parity delta z6 16K",
    ),
    delta(
        parity(
            dtw_way("", Distance::Half, false, Coder::Zstd(12), 16 * K),
            "",
        ),
        "parity half delta z12 16K",
    ),
    delta(
        parity(
            dtw_way("", Distance::Half, false, Coder::Zstd(19), 64 * K),
            "",
        ),
        "parity half delta z19 64K",
    ),
    parity(
        dtw_way("", Distance::Whole, false, Coder::Zstd(19), 16 * K),
        "parity z19 16K",
    ),
    parity(
        fill_way(Fill::LongerRun, Coder::Zstd(19)),
        "parity run z19 16K",
    ),
    parity(
        fill_way(Fill::Match, Coder::Zstd(19)),
        "parity match z19 16K",
    ),
    near(
        parity(
            dtw_way("", Distance::Whole, false, Coder::Zstd(19), 16 * K),
            "",
        ),
        "parity near2 z19 16K",
        2,
    ),
    near(
        parity(
            dtw_way("", Distance::Whole, false, Coder::Zstd(19), 16 * K),
            "",
        ),
        "parity near3 z19 16K",
        3,
    ),
    parity(
        dtw_way("", Distance::Whole, false, Coder::Entropy(0), 16 * K),
        "parity order0",
    ),
    parity(
        dtw_way("", Distance::Whole, false, Coder::Entropy(1), 16 * K),
        "parity order1",
    ),
];

/// A distance way of 16K blocks, whole distances, filled as `fill` says.
const fn fill_way(fill: Fill, coder: Coder) -> Way {
    Way {
        fill,
        ..dtw_way("", Distance::Whole, false, coder, 16 * K)
    }
}

/// Bytes of a zstd dictionary.
const DICT_BYTES: usize = 112 << 10;

/// What one way gave over the slices.
#[derive(Default, Clone)]
struct Total {
    bytes: u64,
    blocks: u64,
    decode_secs: f64,
}

/// Whether the distance files studied are the distance-to-conversion files (`--dtc`).
static STUDY_DTC: AtomicBool = AtomicBool::new(false);

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "--dtc") {
        STUDY_DTC.store(true, Ordering::Relaxed);
        args.remove(0);
    }
    if args.len() < 2 {
        eprintln!("usage: damka-compression-study [--dtc] TABLES VARIANT [SLICE...]");
        return ExitCode::from(2);
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("damka-compression-study: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let dir = Path::new(&args[0]);
    let variant: Variant = args[1].parse().map_err(|e| format!("{e}"))?;
    let materials: Vec<Material> = if args.len() > 2 {
        args[2..]
            .iter()
            .map(|s| s.parse().map_err(|e| format!("{e}")))
            .collect::<Result<_, String>>()?
    } else {
        slices_in(&dir.join(variant.name()))?
    };
    let mut wdl_totals = vec![Total::default(); WDL_WAYS.len()];
    let mut dtw_totals = vec![Total::default(); DTW_WAYS.len()];
    let mut file_totals = [0u64; 2];
    let mut file_bytes = std::collections::HashMap::new();
    let mut positions = 0u64;
    let mut read_positions = 0u64;
    // Blocks for training and coding with a dictionary, per file kind: (way, raw blocks).
    let mut dict_raw: [Vec<Vec<u8>>; 2] = [Vec::new(), Vec::new()];
    println!(
        "kind  slice  positions  read  file  {}",
        WDL_WAYS
            .iter()
            .map(|w| w.name)
            .collect::<Vec<_>>()
            .join(" | ")
    );
    for &m in &materials {
        let slice = load(dir, variant, m)?;
        positions += slice.wdl.len() as u64;
        read_positions += slice.read.iter().filter(|&&r| r).count() as u64;
        file_totals[0] += slice.file_bytes[0];
        file_totals[1] += slice.file_bytes[1];
        file_bytes.insert(m, slice.file_bytes);
        let wdl_row = study(
            &slice,
            &WDL_WAYS,
            FileKind::Wdl,
            &mut wdl_totals,
            &mut dict_raw[0],
        );
        let dtw_row = study(
            &slice,
            &DTW_WAYS,
            FileKind::Dtw,
            &mut dtw_totals,
            &mut dict_raw[1],
        );
        let read = slice.read.iter().filter(|&&r| r).count();
        println!(
            "wdl {m} {} {read} {} {}",
            slice.wdl.len(),
            slice.file_bytes[0],
            wdl_row
        );
        println!(
            "dtw {m} {} {read} {} {}",
            slice.wdl.len(),
            slice.file_bytes[1],
            dtw_row
        );
    }
    for (kind, (ways, totals)) in [
        (&WDL_WAYS[..], &mut wdl_totals),
        (&DTW_WAYS[..], &mut dtw_totals),
    ]
    .into_iter()
    .enumerate()
    {
        if let Some(i) = ways
            .iter()
            .position(|w| matches!(w.coder, Coder::ZstdDict(_)))
        {
            totals[i] = with_dictionary(&dict_raw[kind], ways[i].coder)?;
        }
    }
    // Kingsrow's one side to move: of a slice and its twin (the same material, the other
    // side to move), keep the smaller file; the other side is answered by a search of one
    // ply into it.
    let mut one_side = [0u64; 2];
    for (m, bytes) in &file_bytes {
        match file_bytes.get(&m.flipped()) {
            Some(twin) if m != &m.flipped() => {
                for kind in 0..2 {
                    // Each pair counted once, from either of its slices: half its smaller.
                    one_side[kind] += bytes[kind].min(twin[kind]);
                }
            }
            _ => {
                for kind in 0..2 {
                    one_side[kind] += 2 * bytes[kind];
                }
            }
        }
    }
    let one_side = one_side.map(|b| b / 2);
    println!();
    println!(
        "{} {}: {} slices, {positions} positions ({read_positions} read)",
        variant.name(),
        if args.len() > 2 {
            "chosen slices"
        } else {
            "all slices"
        },
        materials.len()
    );
    for (kind, name, ways, totals) in [
        (0, "win/draw/loss", &WDL_WAYS[..], &wdl_totals),
        (1, "distance to win", &DTW_WAYS[..], &dtw_totals),
    ] {
        println!("{name}:");
        println!(
            "  {:<24} {:>12} {:>10} {:>10}",
            "way", "bytes", "pos/byte", "us/block"
        );
        println!(
            "  {:<24} {:>12} {:>10.1} {:>10}",
            "files as built",
            file_totals[kind],
            positions as f64 / file_totals[kind] as f64,
            "-"
        );
        println!(
            "  {:<24} {:>12} {:>10.1} {:>10}",
            "as built, one side",
            one_side[kind],
            positions as f64 / one_side[kind] as f64,
            "-"
        );
        for (w, t) in ways.iter().zip(totals) {
            println!(
                "  {:<24} {:>12} {:>10.1} {:>10.2}",
                w.name,
                t.bytes,
                positions as f64 / t.bytes as f64,
                t.decode_secs * 1e6 / t.blocks.max(1) as f64
            );
        }
    }
    Ok(())
}

/// The slices of which a win/draw/loss file is in `dir`, sorted.
fn slices_in(dir: &Path) -> Result<Vec<Material>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut out = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.extension().is_some_and(|x| x == "wdl")
            && let Some(m) = path.file_stem().and_then(|s| s.to_str()?.parse().ok())
        {
            out.push(m);
        }
    }
    out.sort_by_key(|m: &Material| (m.pieces(), m.to_string()));
    Ok(out)
}

/// Decodes slice `m`'s win/draw/loss and distance files and finds which indices are read.
fn load(dir: &Path, variant: Variant, m: Material) -> Result<Slice, String> {
    let open = |kind: FileKind| {
        let path = dir
            .join(variant.name())
            .join(format!("{m}.{}", kind.extension()));
        let bytes = std::fs::metadata(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?
            .len();
        let file = TableFile::open(&path, kind, variant, m, 0).map_err(|e| e.to_string())?;
        Ok::<_, String>((file, bytes))
    };
    let (wdl_file, wdl_bytes) = open(FileKind::Wdl)?;
    let (dtw_file, dtw_bytes) = open(match STUDY_DTC.load(Ordering::Relaxed) {
        true => FileKind::Dtc,
        false => FileKind::Dtw,
    })?;
    let (dtc_file, _) = open(FileKind::Dtc)?;
    let values = |file: &TableFile| -> Result<Vec<u16>, String> {
        let h = file.header();
        let blocks: Vec<Vec<u16>> = (0..h.blocks)
            .into_par_iter()
            .map(|b| {
                let data = file.decode_block(b).map_err(|e| e.to_string())?;
                Ok((0..h.positions_in_block(b) as usize)
                    .map(|i| unpack(&data, h.value_bits, i))
                    .collect())
            })
            .collect::<Result<_, String>>()?;
        Ok(blocks.concat())
    };
    let wdl: Vec<u8> = values(&wdl_file)?.into_iter().map(|v| v as u8).collect();
    let dtw = values(&dtw_file)?;
    let dtc = values(&dtc_file)?;
    let (read, (threat, (forced, even))) = with_rules!(variant, R => read_mask::<R>(m, wdl.len()));
    Ok(Slice {
        material: m,
        wdl,
        dtw,
        dtc,
        read,
        threat,
        forced,
        even,
        file_bytes: [wdl_bytes, dtw_bytes],
    })
}

/// Whether each index of slice `m` holds a position without a capture; whether the side not
/// to move could capture there; whether it could after every move that does not crown; and
/// whether the rows of the side to move's pieces add up to an even number.
#[allow(clippy::type_complexity)]
fn read_mask<R: Rules>(m: Material, n: usize) -> (Vec<bool>, (Vec<bool>, (Vec<bool>, Vec<bool>))) {
    let index = SliceIndex::<R>::new(m);
    (0..n as u64)
        .into_par_iter()
        .map(|i| match index.unrank(i) {
            None => (false, (false, (false, false))),
            Some(f) => {
                let pos = f.position::<R>();
                let quiet = !may_capture(&pos);
                let threat = may_capture(&f.turned::<R>().position::<R>());
                let forced = quiet && threat && {
                    let mut moves = MoveList::new();
                    generate(&pos, &mut moves);
                    moves
                        .as_slice()
                        .iter()
                        .all(|mv| mv.is_promotion() || may_capture(&pos.play(mv)))
                };
                let rows: u32 = damka::rules::Bitboard(f.mover)
                    .squares()
                    .map(|s| <R::Board as damka::rules::Geometry>::col_row(s).1 as u32)
                    .sum();
                (quiet, (threat, (forced, rows.is_multiple_of(2))))
            }
        })
        .unzip()
}

/// Codes `slice`'s file of `kind` every way of `ways` (but those with a dictionary, whose
/// raw blocks go to `dict_raw`), adds to `totals`, and returns the row of bytes.
fn study(
    slice: &Slice,
    ways: &[Way],
    kind: FileKind,
    totals: &mut [Total],
    dict_raw: &mut Vec<Vec<u8>>,
) -> String {
    let mut row = Vec::new();
    for (w, total) in ways.iter().zip(totals.iter_mut()) {
        let (values, bits, table_bytes) = stored_values(slice, w, kind);
        let raws: Vec<Vec<u8>> = values.par_chunks(w.block).map(|b| pack(b, bits)).collect();
        if let Coder::Entropy(order) = w.coder {
            let bytes = entropy_bytes(&values, order) + table_bytes;
            total.bytes += bytes;
            row.push(bytes.to_string());
            continue;
        }
        if let Coder::ZstdDict(_) = w.coder {
            dict_raw.extend(raws);
            row.push("-".to_string());
            continue;
        }
        let coded: Vec<Vec<u8>> = raws.par_iter().map(|r| encode(r, w.coder, None)).collect();
        let mut zstd = zstd::bulk::Decompressor::new().expect("zstd decompressor");
        let start = Instant::now();
        for (c, r) in coded.iter().zip(&raws) {
            let len = decode(c, w.coder, r.len(), &mut zstd);
            assert_eq!(len, r.len(), "{} decodes to its length", w.name);
        }
        total.decode_secs += start.elapsed().as_secs_f64();
        let bytes = coded.iter().map(|c| c.len() as u64).sum::<u64>() + table_bytes;
        total.bytes += bytes;
        total.blocks += coded.len() as u64;
        row.push(bytes.to_string());
    }
    row.join(" | ")
}

/// The values `way` stores for `slice`'s file of `kind`, their bits, and the bytes of the
/// slice's table of values (rank coding).
fn stored_values(slice: &Slice, way: &Way, kind: FileKind) -> (Vec<u16>, u8, u64) {
    let n = slice.wdl.len();
    let read = |i: usize| -> Option<u16> {
        let unread = match way.threats {
            None => false,
            Some(false) => slice.threat[i],
            Some(true) => slice.forced[i],
        };
        if !slice.read[i]
            || unread
            || (way.parity && slice.even[i])
            || (kind != FileKind::Wdl && slice.dtc[i] < way.near)
        {
            return None;
        }
        match kind {
            FileKind::Wdl => Some(slice.wdl[i] as u16),
            _ if slice.wdl[i] == wdl_code::DRAW => None,
            _ if way.wins && slice.wdl[i] == wdl_code::LOSS => None,
            _ => {
                let d = slice.dtw[i];
                let odd = slice.wdl[i] == wdl_code::WIN;
                assert!(
                    STUDY_DTC.load(Ordering::Relaxed) || (d % 2 == 1) == odd,
                    "{}: index {i}: distance {d} of the wrong parity",
                    slice.material
                );
                Some(match way.distance {
                    Distance::Whole => d,
                    Distance::Half => d >> 1,
                    Distance::LessDtc => d.wrapping_sub(slice.dtc[i]),
                })
            }
        }
    };
    let mut known: Vec<Option<u16>> = (0..n).map(read).collect();
    let mut table_bytes = 0;
    if way.rank {
        let mut counts = std::collections::HashMap::new();
        for v in known.iter().flatten() {
            *counts.entry(*v).or_insert(0u64) += 1;
        }
        let mut by_count: Vec<(u16, u64)> = counts.into_iter().collect();
        by_count.sort_by_key(|&(v, c)| (std::cmp::Reverse(c), v));
        let mut rank_of = std::collections::HashMap::new();
        for (r, (v, _)) in by_count.iter().enumerate() {
            rank_of.insert(*v, r as u16);
        }
        table_bytes = 2 * by_count.len() as u64;
        for v in known.iter_mut().flatten() {
            *v = rank_of[v];
        }
    }
    let largest = known.iter().flatten().copied().max().unwrap_or(0);
    let bits = match kind {
        FileKind::Wdl => 2,
        _ if largest < 256 => 8,
        _ => 16,
    };
    let values = known
        .par_chunks(way.block)
        .flat_map_iter(|b| {
            let mut v = fill(b, way.fill);
            if way.delta {
                for i in (1..v.len()).rev() {
                    v[i] = v[i].wrapping_sub(v[i - 1]) & ((1u32 << bits) - 1) as u16;
                }
            }
            v
        })
        .collect();
    (values, bits, table_bytes)
}

/// A block's values with those nobody reads (`None`) filled as `how` says.
fn fill(block: &[Option<u16>], how: Fill) -> Vec<u16> {
    let known: Vec<(usize, u16)> = block
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.map(|v| (i, v)))
        .collect();
    let Some(&(_, first)) = known.first() else {
        return vec![0; block.len()];
    };
    match how {
        Fill::Match => fill_by_match(block, first),
        Fill::Previous => {
            let mut last = first;
            block
                .iter()
                .map(|v| {
                    if let Some(v) = v {
                        last = *v;
                    }
                    last
                })
                .collect()
        }
        Fill::Majority => {
            let mut counts = std::collections::HashMap::new();
            for &(_, v) in &known {
                *counts.entry(v).or_insert(0u64) += 1;
            }
            let major = counts
                .into_iter()
                .max_by_key(|&(v, c)| (c, std::cmp::Reverse(v)))
                .map_or(0, |(v, _)| v);
            block.iter().map(|v| v.unwrap_or(major)).collect()
        }
        Fill::LongerRun => {
            // The run of equal known values each known value ends (back) and starts (ahead).
            let k = known.len();
            let mut back = vec![1u32; k];
            let mut ahead = vec![1u32; k];
            for j in 1..k {
                if known[j].1 == known[j - 1].1 {
                    back[j] = back[j - 1] + 1;
                }
            }
            for j in (0..k - 1).rev() {
                if known[j].1 == known[j + 1].1 {
                    ahead[j] = ahead[j + 1] + 1;
                }
            }
            let mut out = vec![first; block.len()];
            for j in 0..k {
                let (at, v) = known[j];
                out[at] = v;
                let gap_end = known.get(j + 1).map_or(block.len(), |&(i, _)| i);
                let take = match known.get(j + 1) {
                    Some(&(_, next)) if ahead[j + 1] > back[j] => next,
                    _ => v,
                };
                out[at + 1..gap_end].fill(take);
            }
            out
        }
    }
}

/// Offsets back [`Fill::Match`] tries.
const MATCH_WINDOW: usize = 2048;
/// Positions ahead it compares at most.
const MATCH_AHEAD: usize = 256;

/// [`Fill::Match`]: each position not read takes the value at the offset back in use; where
/// a value read differs from it, the offset that matches the most positions ahead is taken.
fn fill_by_match(block: &[Option<u16>], first: u16) -> Vec<u16> {
    let mut out: Vec<u16> = Vec::with_capacity(block.len());
    let mut offset = 0usize;
    for (i, v) in block.iter().enumerate() {
        let copied = (offset > 0).then(|| out[i - offset]);
        match (v, copied) {
            (None, Some(c)) => out.push(c),
            (Some(v), Some(c)) if *v == c => out.push(c),
            _ => {
                // A new offset: the one whose copy agrees longest with what is read ahead.
                let mut best = (0usize, 0usize);
                for d in 1..=i.min(MATCH_WINDOW) {
                    let (mut len, mut known) = (0, 0);
                    while len < MATCH_AHEAD && i + len < block.len() {
                        let back = out[i - d + len % d];
                        match block[i + len] {
                            Some(x) if x != back => break,
                            Some(_) => {
                                len += 1;
                                known += 1
                            }
                            None => len += 1,
                        }
                    }
                    if known > best.1 {
                        best = (d, known);
                    }
                }
                offset = best.0;
                out.push(match (v, offset) {
                    (Some(v), _) => *v,
                    (None, 0) => out.last().copied().unwrap_or(first),
                    (None, d) => out[i - d],
                });
            }
        }
    }
    out
}

/// Run lengths the byte code has a code for, longest last.
const RLE_RUNS: [usize; 4] = [16, 64, 256, 2048];
/// The first run code: codes below it hold five values in base 3.
const RLE_FIRST_RUN: u8 = 243;

fn encode(raw: &[u8], coder: Coder, dict: Option<&[u8]>) -> Vec<u8> {
    match coder {
        Coder::Zstd(level) => zstd::bulk::compress(raw, level).expect("zstd compresses"),
        Coder::ZstdDict(level) => {
            let mut c = zstd::bulk::Compressor::with_dictionary(level, dict.expect("a dictionary"))
                .expect("zstd compressor");
            c.compress(raw).expect("zstd compresses")
        }
        Coder::Rle => rle_encode(raw),
        Coder::Entropy(_) => unreachable!("not a coder"),
    }
}

/// The ideal bytes of `values` under a static model of order `order` (0: each value's
/// frequency; 1: its frequency after the value before it).
fn entropy_bytes(values: &[u16], order: u8) -> u64 {
    let mut counts = std::collections::HashMap::new();
    let mut ctx_counts = std::collections::HashMap::new();
    let mut prev = 0u16;
    for &v in values {
        let ctx = if order == 0 { 0 } else { prev };
        *counts.entry((ctx, v)).or_insert(0u64) += 1;
        *ctx_counts.entry(ctx).or_insert(0u64) += 1;
        prev = v;
    }
    let bits: f64 = counts
        .iter()
        .map(|(&(ctx, _), &c)| c as f64 * (ctx_counts[&ctx] as f64 / c as f64).log2())
        .sum();
    (bits / 8.0) as u64
}

/// Decodes a block coded without a dictionary to `len` bytes (the byte code: to one byte a
/// value), with the zstd context `zstd`.
fn decode(coded: &[u8], coder: Coder, len: usize, zstd: &mut zstd::bulk::Decompressor) -> usize {
    match coder {
        Coder::Rle => rle_decode(coded, len * 4).len() / 4,
        _ => zstd.decompress(coded, len).expect("zstd decodes").len(),
    }
}

/// Win/draw/loss values (2 bits each, packed) as the byte code.
fn rle_encode(raw: &[u8]) -> Vec<u8> {
    let n = raw.len() * 4;
    let values: Vec<u8> = (0..n).map(|i| unpack(raw, 2, i) as u8).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        let v = values[i];
        let run = values[i..].iter().take_while(|&&x| x == v).count();
        if let Some(j) = RLE_RUNS.iter().rposition(|&r| r <= run) {
            out.push(RLE_FIRST_RUN + v * RLE_RUNS.len() as u8 + j as u8);
            i += RLE_RUNS[j];
            continue;
        }
        let mut code = 0u8;
        for d in (0..5).rev() {
            code = code * 3 + values.get(i + d).copied().unwrap_or(0).min(2);
        }
        out.push(code);
        i += 5;
    }
    out
}

/// The values of a byte-coded block of `n` values, a byte each.
fn rle_decode(coded: &[u8], n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n + 5);
    for &c in coded {
        if c >= RLE_FIRST_RUN {
            let c = (c - RLE_FIRST_RUN) as usize;
            let (v, j) = (c / RLE_RUNS.len(), c % RLE_RUNS.len());
            out.resize(out.len() + RLE_RUNS[j], v as u8);
        } else {
            let mut c = c;
            for _ in 0..5 {
                out.push(c % 3);
                c /= 3;
            }
        }
    }
    out.truncate(n);
    out
}

/// Trains a dictionary on a sample of `raws` and codes them all with it.
fn with_dictionary(raws: &[Vec<u8>], coder: Coder) -> Result<Total, String> {
    if raws.is_empty() {
        return Ok(Total::default());
    }
    let step = (raws.len() / 4000).max(1);
    let sample: Vec<&[u8]> = raws.iter().step_by(step).map(|r| &r[..]).collect();
    let dict = zstd::dict::from_samples(&sample, DICT_BYTES)
        .map_err(|e| format!("training a dictionary: {e}"))?;
    let coded: Vec<Vec<u8>> = raws
        .par_iter()
        .map(|r| encode(r, coder, Some(&dict)))
        .collect();
    let mut d = zstd::bulk::Decompressor::with_dictionary(&dict).map_err(|e| e.to_string())?;
    let start = Instant::now();
    for (c, r) in coded.iter().zip(raws) {
        let out = d.decompress(c, r.len()).map_err(|e| e.to_string())?;
        assert_eq!(out.len(), r.len());
    }
    Ok(Total {
        bytes: coded.iter().map(|c| c.len() as u64).sum::<u64>() + dict.len() as u64,
        blocks: coded.len() as u64,
        decode_secs: start.elapsed().as_secs_f64(),
    })
}
