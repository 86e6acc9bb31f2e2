//! The engine-facing half: positions as bitboards in the library's own layout, probed
//! without text, without allocation, and conditionally (memory only); square and FEN
//! helpers to build those bitboards.

use std::ffi::{c_char, c_int};

use damka::notation::{parse_fen, parse_square};
use damka::rules::{Bitboard, Color, Position, Rules};
use damka::tablebase::Wdl;
use damka::{Variant, with_rules};

use crate::status::{Failure, damka_status, guard, null, str_arg};
use crate::tablebase::{damka_tablebase, probe_failure};
use crate::variant::{variant_of_name, variant_of_number};

/// The variants, numbered as PDN's GameType tag numbers them (also the number in a table
/// file's header).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum damka_variant {
    /// International draughts, 10x10.
    DAMKA_INTERNATIONAL = 20,
    /// English draughts (checkers).
    DAMKA_ENGLISH = 21,
    /// Italian draughts.
    DAMKA_ITALIAN = 22,
    /// Spanish draughts.
    DAMKA_SPANISH = 24,
    /// Russian draughts.
    DAMKA_RUSSIAN = 25,
    /// Brazilian draughts.
    DAMKA_BRAZILIAN = 26,
    /// Turkish draughts.
    DAMKA_TURKISH = 30,
}

/// The two sides. White is the side written `W` in FEN; its men start on the rows of
/// bits 0 up and move towards the high bits. English is the one variant where Black moves
/// first.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum damka_color {
    /// White (`W` in FEN).
    DAMKA_WHITE = 0,
    /// Black (`B` in FEN).
    DAMKA_BLACK = 1,
}

/// A position as bitboards, in the layout damka uses inside (no conversion on a probe).
///
/// `white` and `black` hold each side's pieces, men and kings; `kings` marks which of them
/// are kings. So White's men are `white & ~kings`, White's kings `white & kings`, Black's
/// men `black & ~kings`, Black's kings `black & kings`. `side` is `DAMKA_WHITE` or
/// `DAMKA_BLACK`. A valid position has no bit outside the board, no square in both
/// colours, no king bit on an empty square and no man on the row where it would be
/// crowned (White's men are crowned on the highest row, Black's on the row of bit 0).
///
/// The bits: rows count from White's side (row 0 holds bit 0). On the 8x8 diagonal boards
/// (English, Italian, Spanish, Russian, Brazilian) two rows take 9 bits, 4 squares each,
/// and bits 8, 17 and 26 are never squares (the highest square is bit 34). On the 10x10
/// board (International) two rows take 11 bits, 5 squares each, and bits 10, 21, 32 and
/// 43 are never squares (the highest is bit 53). On the Turkish board (every square of
/// 8x8) the bit of file f (a = 0) and rank r (rank 1 = 0) is 8 * r + f. The board below
/// is seen from White's side, one line a rank from the top: `square=bit` for every
/// playable square, left to right, with the squares written as the variant writes them
/// in FEN and moves. `damka_square_bit` gives the same answer at run time.
///
/// Squares and bits by variant:
///   english:
///       1=34   2=33   3=32   4=31
///       5=30   6=29   7=28   8=27
///       9=25  10=24  11=23  12=22
///      13=21  14=20  15=19  16=18
///      17=16  18=15  19=14  20=13
///      21=12  22=11  23=10  24=9
///      25=7   26=6   27=5   28=4
///      29=3   30=2   31=1   32=0
///   italian:
///       1=31   2=32   3=33   4=34
///       5=27   6=28   7=29   8=30
///       9=22  10=23  11=24  12=25
///      13=18  14=19  15=20  16=21
///      17=13  18=14  19=15  20=16
///      21=9   22=10  23=11  24=12
///      25=4   26=5   27=6   28=7
///      29=0   30=1   31=2   32=3
///   spanish:
///      32=31  31=32  30=33  29=34
///      28=27  27=28  26=29  25=30
///      24=22  23=23  22=24  21=25
///      20=18  19=19  18=20  17=21
///      16=13  15=14  14=15  13=16
///      12=9   11=10  10=11   9=12
///       8=4    7=5    6=6    5=7
///       4=0    3=1    2=2    1=3
///   russian:
///      b8=34  d8=33  f8=32  h8=31
///      a7=30  c7=29  e7=28  g7=27
///      b6=25  d6=24  f6=23  h6=22
///      a5=21  c5=20  e5=19  g5=18
///      b4=16  d4=15  f4=14  h4=13
///      a3=12  c3=11  e3=10  g3=9
///      b2=7   d2=6   f2=5   h2=4
///      a1=3   c1=2   e1=1   g1=0
///   brazilian:
///      b8=34  d8=33  f8=32  h8=31
///      a7=30  c7=29  e7=28  g7=27
///      b6=25  d6=24  f6=23  h6=22
///      a5=21  c5=20  e5=19  g5=18
///      b4=16  d4=15  f4=14  h4=13
///      a3=12  c3=11  e3=10  g3=9
///      b2=7   d2=6   f2=5   h2=4
///      a1=3   c1=2   e1=1   g1=0
///   international:
///       1=53   2=52   3=51   4=50   5=49
///       6=48   7=47   8=46   9=45  10=44
///      11=42  12=41  13=40  14=39  15=38
///      16=37  17=36  18=35  19=34  20=33
///      21=31  22=30  23=29  24=28  25=27
///      26=26  27=25  28=24  29=23  30=22
///      31=20  32=19  33=18  34=17  35=16
///      36=15  37=14  38=13  39=12  40=11
///      41=9   42=8   43=7   44=6   45=5
///      46=4   47=3   48=2   49=1   50=0
///   turkish:
///      a8=56  b8=57  c8=58  d8=59  e8=60  f8=61  g8=62  h8=63
///      a7=48  b7=49  c7=50  d7=51  e7=52  f7=53  g7=54  h7=55
///      a6=40  b6=41  c6=42  d6=43  e6=44  f6=45  g6=46  h6=47
///      a5=32  b5=33  c5=34  d5=35  e5=36  f5=37  g5=38  h5=39
///      a4=24  b4=25  c4=26  d4=27  e4=28  f4=29  g4=30  h4=31
///      a3=16  b3=17  c3=18  d3=19  e3=20  f3=21  g3=22  h3=23
///      a2=8   b2=9   c2=10  d2=11  e2=12  f2=13  g2=14  h2=15
///      a1=0   b1=1   c1=2   d1=3   e1=4   f1=5   g1=6   h1=7
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct damka_position {
    /// White's pieces (men and kings).
    pub white: u64,
    /// Black's pieces (men and kings).
    pub black: u64,
    /// The kings of both sides.
    pub kings: u64,
    /// The side to move: `DAMKA_WHITE` or `DAMKA_BLACK`.
    pub side: i32,
}

impl damka_variant {
    /// The C value of `variant` (its PDN GameType number): a variant added to the library
    /// needs its value here before this compiles.
    pub(crate) const fn of(variant: Variant) -> damka_variant {
        match variant {
            Variant::International => damka_variant::DAMKA_INTERNATIONAL,
            Variant::English => damka_variant::DAMKA_ENGLISH,
            Variant::Italian => damka_variant::DAMKA_ITALIAN,
            Variant::Spanish => damka_variant::DAMKA_SPANISH,
            Variant::Russian => damka_variant::DAMKA_RUSSIAN,
            Variant::Brazilian => damka_variant::DAMKA_BRAZILIAN,
            Variant::Turkish => damka_variant::DAMKA_TURKISH,
        }
    }
}

/// A checked position of `R` from C bitboards.
fn position_of<R: Rules>(p: &damka_position) -> Result<Position<R>, Failure> {
    let side = match p.side {
        0 => Color::White,
        1 => Color::Black,
        other => {
            return Err(Failure::new(
                damka_status::DAMKA_ERR_POSITION,
                format!("side {other} is neither DAMKA_WHITE (0) nor DAMKA_BLACK (1)"),
            ));
        }
    };
    Position::new(
        Bitboard(p.white),
        Bitboard(p.black),
        Bitboard(p.kings),
        side,
    )
    .map_err(|e| {
        Failure::new(
            damka_status::DAMKA_ERR_POSITION,
            format!("{}: {e}", R::VARIANT),
        )
    })
}

/// The answer of a bitboard probe: written only on success.
fn write_outcome(outcome: damka::tablebase::Outcome, wdl: &mut c_int, dtw: Option<&mut c_int>) {
    // Without branches: the results of random probes are random.
    *wdl = i32::from(outcome.wdl == Wdl::Win) - i32::from(outcome.wdl == Wdl::Loss);
    if let Some(dtw) = dtw {
        *dtw = if outcome.wdl == Wdl::Draw {
            -1
        } else {
            outcome.dtw as c_int
        };
    }
}

const NOT_IN_MEMORY: Failure = Failure::fixed(
    damka_status::DAMKA_NOT_IN_MEMORY,
    c"the answer needs a table block that is not in memory",
);

/// The shared body of the two bitboard probes.
///
/// # Safety
/// As for `damka_probe_position`.
unsafe fn probe_bits(
    tb: *const damka_tablebase,
    variant: c_int,
    pos: *const damka_position,
    wdl: *mut c_int,
    dtw: *mut c_int,
    cached_only: bool,
) -> c_int {
    guard(|| {
        // Safety: each pointer is NULL or valid for its type, as the caller guarantees.
        let (tb, pos, wdl, dtw) =
            unsafe { (tb.as_ref(), pos.as_ref(), wdl.as_mut(), dtw.as_mut()) };
        let tb = &tb.ok_or_else(|| null("tb"))?.tb;
        let pos = pos.ok_or_else(|| null("pos"))?;
        let wdl = wdl.ok_or_else(|| null("wdl"))?;
        let with_dtw = dtw.is_some();
        let variant = variant_of_number(variant)?;
        let outcome = with_rules!(variant, R => {
            let pos = position_of::<R>(pos)?;
            if cached_only {
                // No answer from memory: an unreachable position is refused as the plain
                // probe refuses it, at no cost to the answers found.
                match tb.resolve_cached(&pos, with_dtw) {
                    Some(outcome) => outcome,
                    None => {
                        pos.reachable().map_err(|e| probe_failure(e.into()))?;
                        return Err(NOT_IN_MEMORY);
                    }
                }
            } else {
                tb.resolve(&pos, with_dtw).map_err(probe_failure)?
            }
        });
        write_outcome(outcome, wdl, dtw);
        Ok(())
    })
}

/// Probes a position given as bitboards (see `damka_position`): no text is parsed and,
/// once the blocks it needs are in memory, no lock is taken and nothing is allocated (but
/// for a position with more than 8 different captures, whose list spills to the heap).
/// `variant` is a `damka_variant`. On `DAMKA_OK`, `*wdl` is 1 (the side to move wins), 0
/// (draw) or -1 (it loses). `dtw` may be NULL: then only the win/draw/loss files are
/// read. Otherwise `*dtw` is the number of plies to the end of the game with perfect play
/// (odd for a win, even for a loss), or -1 for a draw. Captures are played out by a small
/// search, as every probe does. Reads and decodes blocks from disk as needed; safe to
/// call from any number of threads at once on the same tables.
///
/// # Safety
/// `tb` is NULL or a live handle from `damka_open`; `pos`, `wdl` and `dtw` are NULL or
/// valid for their types.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn damka_probe_position(
    tb: *const damka_tablebase,
    variant: c_int,
    pos: *const damka_position,
    wdl: *mut c_int,
    dtw: *mut c_int,
) -> c_int {
    // Safety: the caller's guarantees are passed on.
    unsafe { probe_bits(tb, variant, pos, wdl, dtw, false) }
}

/// The conditional form of `damka_probe_position` (Kingsrow's "conditional" lookup): the
/// same answer when every table file it needs is open and every block it needs is in
/// memory, else `DAMKA_NOT_IN_MEMORY` at once, without touching the disk. Cheap enough for
/// every node of a search; probe with `damka_probe_position` where a disk read is worth
/// it (near the root) and the blocks it loads serve this form afterwards.
///
/// # Safety
/// As for `damka_probe_position`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn damka_probe_position_cached(
    tb: *const damka_tablebase,
    variant: c_int,
    pos: *const damka_position,
    wdl: *mut c_int,
    dtw: *mut c_int,
) -> c_int {
    // Safety: the caller's guarantees are passed on.
    unsafe { probe_bits(tb, variant, pos, wdl, dtw, true) }
}

/// Reads a FEN of `variant` (a name: `english`, ...) into bitboards.
///
/// # Safety
/// `variant` and `fen` are NULL or NUL-terminated strings; `out` is NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn damka_position_from_fen(
    variant: *const c_char,
    fen: *const c_char,
    out: *mut damka_position,
) -> c_int {
    guard(|| {
        // Safety: the caller's guarantees.
        let (variant, fen, out) = unsafe {
            (
                str_arg(variant, "variant")?,
                str_arg(fen, "fen")?,
                out.as_mut(),
            )
        };
        let out = out.ok_or_else(|| null("out"))?;
        let variant = variant_of_name(variant)?;
        *out = with_rules!(variant, R => {
            let pos = parse_fen::<R>(fen)
                .map_err(|e| Failure::new(damka_status::DAMKA_ERR_FEN, format!("bad FEN: {e}")))?;
            damka_position {
                white: pos.pieces(Color::White).0,
                black: pos.pieces(Color::Black).0,
                kings: pos.kings().0,
                side: pos.side_to_move().index() as i32,
            }
        });
        Ok(())
    })
}

/// The bit of a square of `variant` (a `damka_variant`), the square written as the variant
/// writes it (`"32"`, `"c3"`): `*bit` is set so that `1ULL << *bit` is the square in a
/// `damka_position`.
///
/// # Safety
/// `square` is NULL or a NUL-terminated string; `bit` is NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn damka_square_bit(
    variant: c_int,
    square: *const c_char,
    bit: *mut c_int,
) -> c_int {
    guard(|| {
        // Safety: the caller's guarantees.
        let (square, bit) = unsafe { (str_arg(square, "square")?, bit.as_mut()) };
        let bit = bit.ok_or_else(|| null("bit"))?;
        let variant = variant_of_number(variant)?;
        let sq = parse_square(variant, square)
            .map_err(|e| Failure::new(damka_status::DAMKA_ERR_FEN, format!("{variant}: {e}")))?;
        *bit = sq.bit() as c_int;
        Ok(())
    })
}

/// The number (`damka_variant`) of the variant named `name` (`english`, `italian`,
/// `spanish`, `russian`, `brazilian`, `international`, `turkish`).
///
/// # Safety
/// `name` is NULL or a NUL-terminated string; `variant` is NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn damka_variant_from_name(
    name: *const c_char,
    variant: *mut c_int,
) -> c_int {
    guard(|| {
        // Safety: the caller's guarantees.
        let (name, variant) = unsafe { (str_arg(name, "name")?, variant.as_mut()) };
        let variant = variant.ok_or_else(|| null("variant"))?;
        *variant = damka_variant::of(variant_of_name(name)?) as c_int;
        Ok(())
    })
}
