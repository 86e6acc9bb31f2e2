//! The tables handle and the text-facing probes: FEN in, results and moves out.

use std::ffi::{CString, c_char, c_int};

use damka::notation::{move_text, parse_fen};
use damka::rules::{Counters, Position, RuleSet, Rules};
use damka::tablebase::probe::DEFAULT_CACHE_BYTES;
use damka::tablebase::{Outcome, ProbeError, RuleCategory, TableError, Tablebase, Wdl};
use damka::with_rules;

use crate::status::{Failure, damka_status, guard, guard_ptr, null, str_arg};
use crate::variant::variant_of_name;

/// An open tables directory. Opaque; every function taking one may be called from any
/// number of threads at once.
#[allow(non_camel_case_types)]
pub struct damka_tablebase {
    pub(crate) tb: Tablebase,
}

/// The failure of a probe.
pub(crate) fn probe_failure(e: ProbeError) -> Failure {
    let status = match &e {
        ProbeError::NotCovered(_) | ProbeError::Unreachable(_) => {
            damka_status::DAMKA_ERR_NOT_COVERED
        }
        ProbeError::NoRuleResults(_) => damka_status::DAMKA_ERR_NO_RULES,
        ProbeError::NoDirectory { .. } => damka_status::DAMKA_ERR_DIRECTORY,
        ProbeError::Table(TableError::Missing(_)) => damka_status::DAMKA_ERR_NO_TABLE,
        ProbeError::Table(_) => damka_status::DAMKA_ERR_TABLE,
    };
    Failure::new(status, e)
}

/// Opens the tables directory `dir` (the one `damka generate --tables DIR` builds: `DIR/english/2101.wdl`, ...), with a
/// 256 MiB cache of decoded blocks. Files are opened when a probe first needs them.
/// Returns NULL on failure (`damka_last_error` says why). Close it with `damka_close`.
///
/// # Safety
/// `dir` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn damka_open(dir: *const c_char) -> *mut damka_tablebase {
    // Safety: the caller's guarantee is passed on.
    unsafe { damka_open_with_cache(dir, DEFAULT_CACHE_BYTES) }
}

/// `damka_open` with a cache of about `cache_bytes` of decoded blocks (16 KiB pages; at
/// least one page).
///
/// # Safety
/// `dir` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn damka_open_with_cache(
    dir: *const c_char,
    cache_bytes: usize,
) -> *mut damka_tablebase {
    guard_ptr(|| {
        // Safety: the caller's guarantee.
        let dir = unsafe { str_arg(dir, "dir")? };
        let tb = Tablebase::with_cache(dir, cache_bytes).map_err(probe_failure)?;
        Ok(Box::into_raw(Box::new(damka_tablebase { tb })))
    })
}

/// Closes a handle from `damka_open` (NULL is ignored). No call may use it afterwards,
/// nor be running on it in another thread.
///
/// # Safety
/// `tb` is NULL or a handle from `damka_open` not closed yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn damka_close(tb: *mut damka_tablebase) {
    if !tb.is_null() {
        guard(|| {
            // Safety: a handle from damka_open (Box::into_raw), closed once.
            drop(unsafe { Box::from_raw(tb) });
            Ok(())
        });
    }
}

/// The arguments of the FEN probes, checked.
///
/// # Safety
/// As for `damka_probe_wdl`.
unsafe fn fen_args<'a, T>(
    tb: *const damka_tablebase,
    variant: *const c_char,
    fen: *const c_char,
    out: *mut T,
) -> Result<(&'a Tablebase, damka::Variant, &'a str, &'a mut T), Failure> {
    // Safety: the caller's guarantees.
    let (tb, variant, fen, out) = unsafe {
        (
            tb.as_ref(),
            str_arg(variant, "variant")?,
            str_arg(fen, "fen")?,
            out.as_mut(),
        )
    };
    let tb = &tb.ok_or_else(|| null("tb"))?.tb;
    let out = out.ok_or_else(|| null("output pointer"))?;
    Ok((tb, variant_of_name(variant)?, fen, out))
}

fn read_fen<R: Rules>(fen: &str) -> Result<Position<R>, Failure> {
    parse_fen::<R>(fen)
        .map_err(|e| Failure::new(damka_status::DAMKA_ERR_FEN, format!("bad FEN: {e}")))
}

fn wdl_number(wdl: Wdl) -> i32 {
    match wdl {
        Wdl::Win => 1,
        Wdl::Draw => 0,
        Wdl::Loss => -1,
    }
}

/// Win, draw or loss of a FEN position of `variant` (`english`, `italian`, `spanish`,
/// `russian`, `brazilian`, `international`, `turkish`): on `DAMKA_OK`, `*wdl` is 1 (the
/// side to move wins), 0 (draw) or -1 (it loses). Only the win/draw/loss files are read.
///
/// # Safety
/// `tb` is NULL or a live handle; `variant` and `fen` are NULL or NUL-terminated strings;
/// `wdl` is NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn damka_probe_wdl(
    tb: *const damka_tablebase,
    variant: *const c_char,
    fen: *const c_char,
    wdl: *mut c_int,
) -> c_int {
    guard(|| {
        // Safety: the caller's guarantees are passed on.
        let (tb, variant, fen, wdl) = unsafe { fen_args(tb, variant, fen, wdl)? };
        let outcome = with_rules!(variant, R => tb.probe_wdl(&read_fen::<R>(fen)?));
        *wdl = wdl_number(outcome.map_err(probe_failure)?);
        Ok(())
    })
}

/// The distance to the end of the game of a FEN position, in plies with perfect play
/// (the winner fastest, the loser slowest): on `DAMKA_OK` `*dtw` is set (odd when the side
/// to move wins, even when it loses; 0: it has no move). A draw has no distance: the call
/// returns `DAMKA_DRAW` and leaves `*dtw` unchanged.
///
/// # Safety
/// As for `damka_probe_wdl`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn damka_probe_dtw(
    tb: *const damka_tablebase,
    variant: *const c_char,
    fen: *const c_char,
    dtw: *mut c_int,
) -> c_int {
    guard(|| {
        // Safety: the caller's guarantees are passed on.
        let (tb, variant, fen, dtw) = unsafe { fen_args(tb, variant, fen, dtw)? };
        let outcome = with_rules!(variant, R => tb.probe_dtw(&read_fen::<R>(fen)?));
        let outcome = outcome.map_err(probe_failure)?;
        if outcome.wdl == Wdl::Draw {
            return Err(Failure::fixed(
                damka_status::DAMKA_DRAW,
                c"the position is a draw: no distance",
            ));
        }
        *dtw = outcome.dtw as c_int;
        Ok(())
    })
}

/// The distance to conversion of a FEN position: for a win or a loss, the plies until the
/// next capture or man's move (or the end of the game), the winner hastening to one that
/// keeps the win and the loser delaying it (Kingsrow's moves to conversion, in plies). On
/// `DAMKA_OK` `*dtc` is set (1: the side to move converts at once; 0: it has no move). A draw
/// returns `DAMKA_DRAW` and leaves `*dtc` unchanged; tables built without distances to
/// conversion (no `.dtc` file) give `DAMKA_ERR_NO_TABLE`.
///
/// # Safety
/// As for `damka_probe_wdl`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn damka_probe_dtc(
    tb: *const damka_tablebase,
    variant: *const c_char,
    fen: *const c_char,
    dtc: *mut c_int,
) -> c_int {
    guard(|| {
        // Safety: the caller's guarantees are passed on.
        let (tb, variant, fen, dtc) = unsafe { fen_args(tb, variant, fen, dtc)? };
        let distance = with_rules!(variant, R => tb.probe_dtc(&read_fen::<R>(fen)?));
        match distance.map_err(probe_failure)? {
            Some(d) => *dtc = c_int::from(d),
            None => {
                return Err(Failure::fixed(
                    damka_status::DAMKA_DRAW,
                    c"the position is a draw: no distance",
                ));
            }
        }
        Ok(())
    })
}

/// A result under the move-count rules as a number: 2 win, 1 cursed win (won, but not
/// within the counts), 0 draw, -1 blessed loss (lost, but drawn by the counts), -2 loss.
fn category_number(c: RuleCategory) -> i32 {
    match c {
        RuleCategory::Win => 2,
        RuleCategory::CursedWin => 1,
        RuleCategory::Draw => 0,
        RuleCategory::BlessedLoss => -1,
        RuleCategory::Loss => -2,
    }
}

/// `damka_move::rules` when the tables hold no rule results for the position.
pub const DAMKA_NO_RULES: i32 = -9;

/// The result of a FEN position under its variant's default draw rules (`docs/RULES.md`)
/// with `quiet_plies` played without a capture or man move and `material_plies` since its
/// material count started (0 and 0: just after a conversion). On `DAMKA_OK` `*category`
/// is 2 win, 1 cursed win (won, but not within the counts), 0 draw, -1 blessed loss, -2
/// loss. Every count past the rules' limits gives the same answer (`INT_MAX` included).
/// Tables built without rule results (no `.rules` file) give `DAMKA_ERR_NO_TABLE`; rules
/// files of another rule set `DAMKA_ERR_NO_RULES`; a negative count `DAMKA_ERR_ARGUMENT`,
/// its message naming it.
///
/// # Safety
/// As for `damka_probe_wdl`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn damka_probe_rules(
    tb: *const damka_tablebase,
    variant: *const c_char,
    fen: *const c_char,
    quiet_plies: c_int,
    material_plies: c_int,
    category: *mut c_int,
) -> c_int {
    guard(|| {
        // Safety: the caller's guarantees are passed on.
        let (tb, variant, fen, category) = unsafe { fen_args(tb, variant, fen, category)? };
        let plies = |n: c_int, name: &str| {
            u32::try_from(n).map_err(|_| {
                Failure::new(
                    damka_status::DAMKA_ERR_ARGUMENT,
                    format!("{name} is {n}: a count of plies is 0 or more"),
                )
            })
        };
        let counters = Counters {
            quiet: plies(quiet_plies, "quiet_plies")?,
            material: plies(material_plies, "material_plies")?,
        };
        let rules = RuleSet::default_for(variant);
        let c = with_rules!(variant, R => tb.probe_rules(&read_fen::<R>(fen)?, rules, counters));
        *category = category_number(c.map_err(probe_failure)?);
        Ok(())
    })
}

/// One legal move with its perfect-play result.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug)]
pub struct damka_move {
    /// The move in the variant's notation, as `damka probe` writes it (`"23-18"`,
    /// `"c3:e5:g3"`): the start and end squares, with the landing squares only where two
    /// legal moves need telling apart. Owned by the list.
    pub text: *const c_char,
    /// The result for the side playing it: 1 win, 0 draw, -1 loss.
    pub wdl: i32,
    /// Plies to the end of the game, counted from before the move; -1 for a draw and where
    /// the tables hold no distances to the end (built without `damka generate --dtw`).
    pub dtw: i32,
    /// Plies to the next conversion through the move for the side playing it (1 where it
    /// converts: a capture or a man's move); -1 for a draw.
    pub dtc: i32,
    /// The bit (see `damka_position`) the moving piece leaves.
    pub from: u32,
    /// The bit it ends on.
    pub to: u32,
    /// The pieces it takes (0 for a quiet move).
    pub captured: u64,
    /// Its result for the side playing it under the variant's default draw rules, the
    /// counters of the position being 0 (as `damka_probe_rules`: 2 win ... -2 loss), or
    /// `DAMKA_NO_RULES` (-9) when the tables hold no rule results for the position.
    pub rules: i32,
}

/// The legal moves of a position, best first: the fastest wins, then draws, then the
/// slowest losses; moves of equal result in the notation's order (as `damka probe`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug)]
pub struct damka_move_list {
    /// Number of moves (0: the side to move has none, and has lost).
    pub len: usize,
    /// The moves, `moves[0]` the best.
    pub moves: *const damka_move,
}

/// A list as `damka_moves` hands it out: the public part first, then what it points into.
#[repr(C)]
struct OwnedMoves {
    list: damka_move_list,
    moves: Vec<damka_move>,
    texts: Vec<CString>,
}

fn rated_list<R: Rules>(tb: &Tablebase, fen: &str) -> Result<OwnedMoves, Failure> {
    let pos = read_fen::<R>(fen)?;
    let rated = tb.rated_moves(&pos).map_err(probe_failure)?;
    let ruled = match tb.rule_moves(&pos, RuleSet::default_for(R::VARIANT), Counters::default()) {
        Ok(moves) => moves,
        Err(ProbeError::Table(TableError::Missing(_)) | ProbeError::NoRuleResults(_)) => Vec::new(),
        Err(e) => return Err(probe_failure(e)),
    };
    let legal: Vec<_> = rated.iter().map(|r| r.mv.clone()).collect();
    let texts: Vec<CString> = (0..legal.len())
        .map(|i| CString::new(move_text(R::VARIANT, &legal, i)).unwrap_or_default())
        .collect();
    let moves: Vec<damka_move> = rated
        .iter()
        .zip(&texts)
        .map(|(r, text)| damka_move {
            text: text.as_ptr(),
            wdl: wdl_number(r.outcome.wdl),
            dtw: match tb.has_dtw(R::VARIANT) {
                true => dtw_number(r.outcome),
                false => -1,
            },
            dtc: r.dtc.map_or(-1, i32::from),
            from: r.mv.mv.from().bit() as u32,
            to: r.mv.mv.to().bit() as u32,
            captured: r.mv.mv.captured().0,
            rules: ruled
                .iter()
                .find(|m| m.rated.mv == r.mv)
                .map_or(DAMKA_NO_RULES, |m| category_number(m.category)),
        })
        .collect();
    Ok(OwnedMoves {
        list: damka_move_list {
            len: moves.len(),
            moves: moves.as_ptr(),
        },
        moves,
        texts,
    })
}

fn dtw_number(o: Outcome) -> i32 {
    match o.wdl {
        Wdl::Draw => -1,
        _ => o.dtw as i32,
    }
}

/// Every legal move of a FEN position with its result, best first. On `DAMKA_OK`, `*out`
/// is a list to free with `damka_move_list_free`; on failure `*out` is set to NULL.
///
/// # Safety
/// As for `damka_probe_wdl`; `out` is NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn damka_moves(
    tb: *const damka_tablebase,
    variant: *const c_char,
    fen: *const c_char,
    out: *mut *mut damka_move_list,
) -> c_int {
    if let Some(out) = std::ptr::NonNull::new(out) {
        // Safety: valid by the caller's guarantee.
        unsafe { out.write(std::ptr::null_mut()) };
    }
    guard(|| {
        // Safety: the caller's guarantees are passed on.
        let (tb, variant, fen, out) = unsafe { fen_args(tb, variant, fen, out)? };
        let owned = with_rules!(variant, R => rated_list::<R>(tb, fen)?);
        *out = Box::into_raw(Box::new(owned)).cast::<damka_move_list>();
        Ok(())
    })
}

/// Frees a list from `damka_moves` (NULL is ignored), with its move texts.
///
/// # Safety
/// `list` is NULL or a list from `damka_moves` not freed yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn damka_move_list_free(list: *mut damka_move_list) {
    if !list.is_null() {
        guard(|| {
            // Safety: damka_moves hands out a Box<OwnedMoves> cast to its first field
            // (repr(C), so at offset 0); it is freed once.
            drop(unsafe { Box::from_raw(list.cast::<OwnedMoves>()) });
            Ok(())
        });
    }
}
