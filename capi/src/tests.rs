//! The C entry points against `damka probe`: random positions of every variant, answered
//! through the C ABI (C strings, raw pointers, status codes) and by the command line on the
//! same tables, must print the same; plus every error path.
//!
//! The `damka` binary is the one `cargo test --release` builds for the workspace
//! (`target/release/damka`); alone, build it first: `cargo build --release -p damka-cli`.

use std::ffi::{CStr, CString, c_char, c_int};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use damka::notation::write_fen;
use damka::rules::{Bitboard, Color, Geometry, Position, Rules};
use damka::tablebase::{Material, SliceIndex};
use damka::{Variant, with_rules};

use crate::position::*;
use crate::status::{damka_last_error, damka_status};
use crate::tablebase::*;
use crate::variant::variant_of_number;

#[path = "../../tests/common/mod.rs"]
mod common;
use common::Lcg;

/// Random positions compared per variant, of up to the tables' 4 pieces
/// (`shared::holds`).
const SAMPLES: usize = 60;

#[path = "../../tests/common/tables.rs"]
mod shared;

/// Tables of every variant up to 4 pieces, built by the `damka` binary into the directory
/// the integration tests share (`tests/common/tables.rs`).
fn tables_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let tmp = target_dir().parent().expect("target directory").join("tmp");
        std::fs::create_dir_all(&tmp).expect("the target directory's tmp");
        let mut dir = PathBuf::new();
        for variant in Variant::ALL {
            dir = shared::shared_tables(&cli(), &tmp, variant);
        }
        dir
    })
}

/// `target/<profile>`, from this test binary's path (`target/<profile>/deps/NAME`).
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    exe.parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps")
        .to_path_buf()
}

fn cli() -> PathBuf {
    let bin = target_dir().join(format!("damka{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.is_file(),
        "{} missing: build the command line first (cargo build --release -p damka-cli)",
        bin.display()
    );
    bin
}

fn c(text: &str) -> CString {
    CString::new(text).expect("no NUL")
}

fn last_error() -> String {
    // Safety: damka_last_error never returns NULL.
    unsafe { CStr::from_ptr(damka_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// A C handle on the tables (closed on drop).
struct Handle(*mut damka_tablebase);

impl Handle {
    fn open(dir: &Path) -> Handle {
        Handle::with_cache(dir, damka::tablebase::probe::DEFAULT_CACHE_BYTES)
    }

    fn with_cache(dir: &Path, bytes: usize) -> Handle {
        let dir = c(dir.to_str().expect("UTF-8 path"));
        // Safety: a NUL-terminated string.
        let tb = unsafe { damka_open_with_cache(dir.as_ptr(), bytes) };
        assert!(!tb.is_null(), "damka_open: {}", last_error());
        Handle(tb)
    }

    fn ptr(&self) -> *const damka_tablebase {
        self.0
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // Safety: a live handle, closed once.
        unsafe { damka_close(self.0) }
    }
}

// Safety: damka_tablebase is shared between threads by design (the library's Tablebase
// is Sync); the tests only pass the pointer to the C functions.
unsafe impl Send for Handle {}
// Safety: as above.
unsafe impl Sync for Handle {}

/// The name `damka probe` prints for a rule category number.
fn category_name(c: c_int) -> &'static str {
    match c {
        2 => "win",
        1 => "cursed-win",
        0 => "draw",
        -1 => "blessed-loss",
        -2 => "loss",
        other => panic!("{other} is not a rule category"),
    }
}

/// What `damka probe` prints, written from the answers of the C functions.
fn c_probe_text(tb: &Handle, variant: Variant, fen: &str) -> Result<String, (c_int, String)> {
    let (v, f) = (c(variant.name()), c(fen));
    let fail = |code| (code, last_error());
    let mut wdl = 9;
    // Safety: live handle, NUL-terminated strings, valid out pointer.
    let code = unsafe { damka_probe_wdl(tb.0, v.as_ptr(), f.as_ptr(), &mut wdl) };
    if code != 0 {
        return Err(fail(code));
    }
    let mut out = format!("result {}\n", ["loss", "draw", "win"][(wdl + 1) as usize]);
    let mut dtw = -7;
    // Safety: as above.
    let code = unsafe { damka_probe_dtw(tb.0, v.as_ptr(), f.as_ptr(), &mut dtw) };
    if code == 0 {
        out.push_str(&format!("dtw {dtw}\n"));
    }
    let mut category = -7;
    // Safety: as above.
    let rules = unsafe { damka_probe_rules(tb.0, v.as_ptr(), f.as_ptr(), 0, 0, &mut category) };
    // The tables are built with the default rules: every position has its rule result.
    assert_eq!(rules, 0, "{fen}: {}", last_error());
    out.push_str(&format!("rules {}\n", category_name(category)));
    match code {
        0 => {
            assert_ne!(wdl, 0, "{fen}: a distance for a draw");
            assert_eq!(dtw % 2, if wdl == 1 { 1 } else { 0 }, "{fen}: parity");
            let mut dtc = -7;
            // Safety: as above.
            let code = unsafe { damka_probe_dtc(tb.0, v.as_ptr(), f.as_ptr(), &mut dtc) };
            assert_eq!(code, 0, "{fen}: {}", last_error());
            assert!((0..=dtw).contains(&dtc), "{fen}: dtc {dtc}, dtw {dtw}");
            out.push_str(&format!("dtc {dtc}\n"));
        }
        1 => {
            assert_eq!((wdl, dtw), (0, -7), "{fen}: DAMKA_DRAW only for a draw");
            let mut dtc = -7;
            // Safety: as above.
            let code = unsafe { damka_probe_dtc(tb.0, v.as_ptr(), f.as_ptr(), &mut dtc) };
            assert_eq!(
                (code, dtc),
                (1, -7),
                "{fen}: no distance to conversion for a draw"
            );
        }
        other => return Err(fail(other)),
    }
    let mut list = std::ptr::null_mut();
    // Safety: as above.
    let code = unsafe { damka_moves(tb.0, v.as_ptr(), f.as_ptr(), &mut list) };
    if code != 0 {
        assert!(list.is_null());
        return Err(fail(code));
    }
    // Safety: damka_moves gave a list of `len` moves with NUL-terminated texts.
    let moves = unsafe { std::slice::from_raw_parts((*list).moves, (*list).len) };
    for m in moves {
        // Safety: as above.
        let text = unsafe { CStr::from_ptr(m.text) }.to_str().expect("UTF-8");
        match m.wdl {
            0 => {
                assert_eq!(m.dtw, -1);
                out.push_str(&format!("{text} draw"));
            }
            w => out.push_str(&format!(
                "{text} {} {}",
                if w == 1 { "win" } else { "loss" },
                m.dtw
            )),
        }
        out.push_str(&format!(" rules {}\n", category_name(m.rules)));
    }
    // Safety: a list from damka_moves, freed once.
    unsafe { damka_move_list_free(list) };
    Ok(out)
}

fn cli_probe_text(dir: &Path, variant: Variant, fen: &str) -> Result<String, String> {
    let out = Command::new(cli())
        .args([
            "probe",
            "--variant",
            variant.name(),
            "--fen",
            fen,
            "--tables",
        ])
        .arg(dir)
        .output()
        .expect("run damka probe");
    if out.status.success() {
        Ok(String::from_utf8(out.stdout).expect("UTF-8"))
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The bitboard probes must agree with the FEN ones.
fn check_bitboards(tb: &Handle, variant: Variant, fen: &str, pos: &damka_position) {
    let (v, f) = (c(variant.name()), c(fen));
    let mut from_fen = damka_position {
        white: 0,
        black: 0,
        kings: 0,
        side: 0,
    };
    // Safety: NUL-terminated strings, valid out pointer.
    let code = unsafe { damka_position_from_fen(v.as_ptr(), f.as_ptr(), &mut from_fen) };
    assert_eq!(code, 0, "{fen}: {}", last_error());
    assert_eq!(&from_fen, pos, "{fen}");
    let number = variant.game_type() as c_int;
    let (mut wdl, mut dtw) = (9, 9);
    // Safety: live handle, valid pointers.
    let code = unsafe { damka_probe_position(tb.0, number, pos, &mut wdl, &mut dtw) };
    assert_eq!(code, 0, "{fen}: {}", last_error());
    let mut fen_wdl = 9;
    // Safety: as above.
    unsafe { damka_probe_wdl(tb.0, v.as_ptr(), f.as_ptr(), &mut fen_wdl) };
    assert_eq!(wdl, fen_wdl, "{fen}");
    let mut fen_dtw = -1;
    // Safety: as above.
    unsafe { damka_probe_dtw(tb.0, v.as_ptr(), f.as_ptr(), &mut fen_dtw) };
    assert_eq!(dtw, fen_dtw, "{fen}");
    // The blocks are in memory now: the conditional form answers, with or without dtw.
    let (mut cached_wdl, mut cached_dtw) = (9, 9);
    // Safety: as above.
    let code =
        unsafe { damka_probe_position_cached(tb.0, number, pos, &mut cached_wdl, &mut cached_dtw) };
    assert_eq!(code, 0, "{fen}: {}", last_error());
    assert_eq!((cached_wdl, cached_dtw), (wdl, dtw), "{fen}");
    let mut wdl_only = 9;
    // Safety: as above; dtw may be NULL.
    let code = unsafe {
        damka_probe_position_cached(tb.0, number, pos, &mut wdl_only, std::ptr::null_mut())
    };
    assert_eq!((code, wdl_only), (0, wdl), "{fen}");
}

/// A random position of at most `pieces` pieces in the shared tables' slices, either side
/// to move.
fn random_position<R: Rules>(rng: &mut Lcg, pieces: u32) -> Position<R> {
    let slices: Vec<Material> = Material::all_up_to(pieces, R::MEN)
        .into_iter()
        .filter(|&m| shared::holds(R::VARIANT, m))
        .collect();
    loop {
        let m = slices[rng.below(slices.len() as u64) as usize];
        let index = SliceIndex::<R>::new(m);
        if let Some(f) = index.unrank(rng.below(index.size())) {
            let turn = |bb| Bitboard(R::Board::rotate(bb));
            let (white, black, side) = if rng.below(2) == 0 {
                (Bitboard(f.mover), Bitboard(f.other), Color::White)
            } else {
                (turn(f.other), turn(f.mover), Color::Black)
            };
            let kings = if side == Color::White {
                Bitboard(f.kings)
            } else {
                turn(f.kings)
            };
            return Position::new(white, black, kings, side).expect("a slice position");
        }
    }
}

fn agree_with_cli<R: Rules>(tb: &Handle, rng: &mut Lcg) -> usize {
    let mut compared = 0;
    for _ in 0..SAMPLES {
        let pos = random_position::<R>(rng, shared::PIECES);
        let fen = write_fen(&pos);
        let ours = c_probe_text(tb, R::VARIANT, &fen);
        let theirs = cli_probe_text(tables_dir(), R::VARIANT, &fen);
        match (ours, theirs) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{} {fen}", R::VARIANT);
                let bits = damka_position {
                    white: pos.pieces(Color::White).0,
                    black: pos.pieces(Color::Black).0,
                    kings: pos.kings().0,
                    side: pos.side_to_move().index() as i32,
                };
                check_bitboards(tb, R::VARIANT, &fen, &bits);
                compared += 1;
            }
            // No table holds it: neither answers, both say why in the same words.
            (Err((code, why)), Err(cli_why)) => {
                assert_eq!(
                    code,
                    damka_status::DAMKA_ERR_NOT_COVERED as c_int,
                    "{fen}: {why}"
                );
                assert!(cli_why.contains(&why), "{fen}: {cli_why}");
            }
            (a, b) => panic!("{} {fen}: C {a:?}, command line {b:?}", R::VARIANT),
        }
    }
    compared
}

#[test]
fn c_answers_equal_damka_probe_on_random_positions_of_every_variant() {
    let tb = Handle::open(tables_dir());
    let mut rng = Lcg(12);
    for variant in Variant::ALL {
        let compared = with_rules!(variant, R => agree_with_cli::<R>(&tb, &mut rng));
        assert!(
            compared * 10 >= SAMPLES * 9,
            "{variant}: only {compared} of {SAMPLES} positions compared"
        );
    }
}

#[test]
fn first_position_is_a_win_in_61() {
    let tb = Handle::open(tables_dir());
    let text = c_probe_text(&tb, Variant::English, "W:WK19,K23:BK28,12").expect("probe");
    assert!(
        text.starts_with("result win\ndtw 61\nrules win\ndtc 17\n"),
        "{text}"
    );
    assert_eq!(
        Ok(text),
        cli_probe_text(tables_dir(), Variant::English, "W:WK19,K23:BK28,12")
    );
}

/// The finished-game rule through the C ABI: a position no game reaches (the side not to
/// move without pieces) is refused by every probe, from a FEN or bitboards, plain or
/// conditional, with `DAMKA_ERR_NOT_COVERED` and the library's message; a side to move
/// without pieces has lost, at distance 0.
#[test]
fn unreachable_positions_are_refused_and_a_finished_game_is_a_loss() {
    use damka_status::*;
    let tb = Handle::open(tables_dir());
    let fresh = Handle::open(tables_dir());
    let english = c("english");
    let code = |s: damka_status| s as c_int;
    for (fen, idle) in [("W:W:B", "black"), ("B:W:B", "white"), ("W:WK5:B", "black")] {
        let f = c(fen);
        let message = format!(
            "illegal position: {idle}, not to move, has no pieces (no game reaches it: the \
             capture of {idle}'s last piece ends the game with {idle} to move, a loss)"
        );
        let mut out = 7;
        let mut list = std::ptr::null_mut();
        let mut bits = damka_position {
            white: 0,
            black: 0,
            kings: 0,
            side: 0,
        };
        // Safety: live handles, NUL-terminated strings, valid out pointers.
        let codes = unsafe {
            [
                (
                    "wdl",
                    damka_probe_wdl(tb.0, english.as_ptr(), f.as_ptr(), &mut out),
                ),
                (
                    "dtw",
                    damka_probe_dtw(tb.0, english.as_ptr(), f.as_ptr(), &mut out),
                ),
                (
                    "dtc",
                    damka_probe_dtc(tb.0, english.as_ptr(), f.as_ptr(), &mut out),
                ),
                (
                    "rules",
                    damka_probe_rules(tb.0, english.as_ptr(), f.as_ptr(), 0, 0, &mut out),
                ),
                (
                    "moves",
                    damka_moves(tb.0, english.as_ptr(), f.as_ptr(), &mut list),
                ),
                ("fen to bits", {
                    let read = damka_position_from_fen(english.as_ptr(), f.as_ptr(), &mut bits);
                    assert_eq!(read, 0, "{fen}: {}", last_error());
                    damka_probe_position(tb.0, 21, &bits, &mut out, std::ptr::null_mut())
                }),
                (
                    "conditional",
                    damka_probe_position_cached(fresh.0, 21, &bits, &mut out, std::ptr::null_mut()),
                ),
            ]
        };
        for (what, got) in codes {
            assert_eq!(got, code(DAMKA_ERR_NOT_COVERED), "{fen} {what}");
            // Every failure sets the message; the last one's is the one to read, and each
            // call made the same.
        }
        assert_eq!(last_error(), message, "{fen}");
        assert_eq!(out, 7, "{fen}: an output written on failure");
        assert!(list.is_null(), "{fen}: a move list on failure");
    }
    // The finished game: the side to move has no pieces, and has lost in 0 plies.
    let over = c("W:W:BK5");
    let (mut wdl, mut dtw, mut dtc) = (9, 9, 9);
    // Safety: as above.
    unsafe {
        assert_eq!(
            damka_probe_wdl(tb.0, english.as_ptr(), over.as_ptr(), &mut wdl),
            0
        );
        assert_eq!(
            damka_probe_dtw(tb.0, english.as_ptr(), over.as_ptr(), &mut dtw),
            0
        );
        assert_eq!(
            damka_probe_dtc(tb.0, english.as_ptr(), over.as_ptr(), &mut dtc),
            0
        );
    }
    assert_eq!((wdl, dtw, dtc), (-1, 0, 0));
}

/// Counts of plies at their limits: `INT_MAX` plies without a conversion give what any
/// count past the rules' 80 plies gives (First Position: a win the counts draw), a
/// negative count is refused, naming it.
#[test]
fn counts_at_their_limits_answer_or_say_which_is_wrong() {
    use damka_status::*;
    let tb = Handle::open(tables_dir());
    let (english, fen) = (c("english"), c("W:WK19,K23:BK28,12"));
    let rules = |quiet: c_int, material: c_int| {
        let mut category = 9;
        // Safety: a live handle, NUL-terminated strings, a valid out pointer.
        let code = unsafe {
            damka_probe_rules(
                tb.0,
                english.as_ptr(),
                fen.as_ptr(),
                quiet,
                material,
                &mut category,
            )
        };
        (code, category)
    };
    assert_eq!(rules(0, 0), (0, 2), "a win");
    assert_eq!(rules(1000, 0), (0, 1), "past the 40 moves each: cursed");
    assert_eq!(rules(c_int::MAX, 0), (0, 1), "{}", last_error());
    assert_eq!(rules(c_int::MAX, c_int::MAX), (0, 1), "{}", last_error());
    assert_eq!(rules(-1, 0), (DAMKA_ERR_ARGUMENT as c_int, 9));
    assert_eq!(
        last_error(),
        "quiet_plies is -1: a count of plies is 0 or more"
    );
    assert_eq!(rules(0, c_int::MIN), (DAMKA_ERR_ARGUMENT as c_int, 9));
    assert_eq!(
        last_error(),
        format!(
            "material_plies is {}: a count of plies is 0 or more",
            c_int::MIN
        )
    );
}

/// Four threads probing at once (blocks loaded by several threads at a time) get the
/// answers one thread gets, with the default cache and with one of 3 pages, where the
/// threads evict each other's pages all the time.
#[test]
fn threads_share_one_handle() {
    let mut rng = Lcg(99);
    let positions: Vec<damka_position> = (0..3000)
        .map(|_| {
            let p = random_position::<damka::rules::English>(&mut rng, 4);
            damka_position {
                white: p.pieces(Color::White).0,
                black: p.pieces(Color::Black).0,
                kings: p.kings().0,
                side: p.side_to_move().index() as i32,
            }
        })
        .collect();
    let probe_all = |tb: &Handle| {
        positions
            .iter()
            .map(|p| {
                let (mut wdl, mut dtw) = (9, 9);
                // Safety: live handle, valid pointers.
                let code = unsafe { damka_probe_position(tb.ptr(), 21, p, &mut wdl, &mut dtw) };
                (code, wdl, dtw)
            })
            .collect::<Vec<_>>()
    };
    let alone = probe_all(&Handle::open(tables_dir()));
    assert!(alone.iter().filter(|r| r.0 == 0).count() > 2500);
    for tb in [
        Handle::open(tables_dir()),
        Handle::with_cache(tables_dir(), 3 * 16384),
    ] {
        let together: Vec<_> = std::thread::scope(|s| {
            let runs: Vec<_> = (0..4).map(|_| s.spawn(|| probe_all(&tb))).collect();
            runs.into_iter()
                .map(|r| r.join().expect("thread"))
                .collect()
        });
        for run in together {
            assert!(run == alone, "a thread got other answers");
        }
    }
}

#[test]
fn errors_are_codes_with_messages() {
    use damka_status::*;
    let tb = Handle::open(tables_dir());
    let english = c("english");
    let fen = c("W:WK19,K23:BK28,12");
    let mut out = 0;
    let call = |tb: *const damka_tablebase, v: *const c_char, f: *const c_char, out: *mut c_int| {
        // Safety: every pointer is NULL or valid.
        unsafe { damka_probe_wdl(tb, v, f, out) }
    };
    let code = |s: damka_status| s as c_int;
    assert_eq!(
        call(std::ptr::null(), english.as_ptr(), fen.as_ptr(), &mut out),
        code(DAMKA_ERR_NULL)
    );
    assert_eq!(last_error(), "tb is NULL");
    assert_eq!(
        call(tb.0, std::ptr::null(), fen.as_ptr(), &mut out),
        code(DAMKA_ERR_NULL)
    );
    assert_eq!(
        call(tb.0, english.as_ptr(), fen.as_ptr(), std::ptr::null_mut()),
        code(DAMKA_ERR_NULL)
    );
    let bad_utf8 = c"W:W\xc3";
    assert_eq!(
        call(tb.0, english.as_ptr(), bad_utf8.as_ptr(), &mut out),
        code(DAMKA_ERR_UTF8)
    );
    assert_eq!(
        call(tb.0, c"chess".as_ptr(), fen.as_ptr(), &mut out),
        code(DAMKA_ERR_VARIANT)
    );
    assert!(
        last_error().contains("unknown variant 'chess'"),
        "{}",
        last_error()
    );
    assert_eq!(
        call(tb.0, english.as_ptr(), c"W:W33:B1".as_ptr(), &mut out),
        code(DAMKA_ERR_FEN)
    );
    assert!(last_error().starts_with("bad FEN"), "{}", last_error());
    // Five pieces: the 5-piece tables were not built.
    let five = c("W:W20,21,22:B1,2");
    assert_eq!(
        call(tb.0, english.as_ptr(), five.as_ptr(), &mut out),
        code(DAMKA_ERR_NO_TABLE)
    );
    assert!(
        last_error().contains("table file missing"),
        "{}",
        last_error()
    );
    assert_eq!(
        call(tb.0, english.as_ptr(), c"W:W20:B".as_ptr(), &mut out),
        code(DAMKA_ERR_NOT_COVERED)
    );
    // A draw has no distance: two kings against one on the same diagonal... any draw will
    // do, so find one among the moves of a known position.
    let mut dtw = 5;
    // Safety: valid pointers.
    let draw = unsafe { damka_probe_dtw(tb.0, english.as_ptr(), c"W:WK1:BK32".as_ptr(), &mut dtw) };
    assert_eq!((draw, dtw), (code(DAMKA_DRAW), 5), "{}", last_error());
    // Directory and handle errors.
    // Safety: NULL and a NUL-terminated string.
    assert!(unsafe { damka_open(std::ptr::null()) }.is_null());
    assert_eq!(last_error(), "dir is NULL");
    // Safety: a NUL-terminated string.
    assert!(unsafe { damka_open(c"/no/such/damka/tables".as_ptr()) }.is_null());
    assert!(
        last_error().contains("no such tables directory"),
        "{}",
        last_error()
    );
    // Safety: NULL is ignored.
    unsafe { damka_close(std::ptr::null_mut()) };
    // Safety: NULL is ignored.
    unsafe { damka_move_list_free(std::ptr::null_mut()) };
    // Bitboards that are not positions.
    let (mut wdl, mut d) = (0, 0);
    let mut probe = |p: damka_position, variant: c_int| {
        // Safety: valid pointers.
        unsafe { damka_probe_position(tb.0, variant, &p, &mut wdl, &mut d) }
    };
    let pos = |white, black, kings, side| damka_position {
        white,
        black,
        kings,
        side,
    };
    assert_eq!(
        probe(pos(1 << 8, 1, 0, 0), 21),
        code(DAMKA_ERR_POSITION),
        "ghost bit"
    );
    assert!(
        last_error().contains("bit 8 is not a square"),
        "{}",
        last_error()
    );
    assert_eq!(
        probe(pos(1, 1, 0, 0), 21),
        code(DAMKA_ERR_POSITION),
        "overlap"
    );
    assert_eq!(
        probe(pos(1, 2, 4, 0), 21),
        code(DAMKA_ERR_POSITION),
        "king on nothing"
    );
    assert_eq!(
        probe(pos(1 << 34, 1, 0, 0), 21),
        code(DAMKA_ERR_POSITION),
        "uncrowned man"
    );
    assert_eq!(
        probe(pos(1, 2, 0, 2), 21),
        code(DAMKA_ERR_POSITION),
        "side 2"
    );
    assert_eq!(
        probe(pos(1, 2, 0, 0), 23),
        code(DAMKA_ERR_VARIANT),
        "GameType 23"
    );
    // Conditional probes: a fresh handle holds nothing in memory.
    let fresh = Handle::open(tables_dir());
    let p = pos(1 << 4, 1 << 30, (1 << 4) | (1 << 30), 0);
    // Safety: valid pointers.
    let code_cached =
        unsafe { damka_probe_position_cached(fresh.0, 21, &p, &mut wdl, std::ptr::null_mut()) };
    assert_eq!(code_cached, code(DAMKA_NOT_IN_MEMORY));
    assert!(last_error().contains("not in memory"), "{}", last_error());
    // Square names.
    let mut bit = -1;
    // Safety: valid pointers.
    assert_eq!(unsafe { damka_square_bit(21, c"32".as_ptr(), &mut bit) }, 0);
    assert_eq!(bit, 0);
    // Safety: valid pointers.
    assert_eq!(unsafe { damka_square_bit(25, c"c3".as_ptr(), &mut bit) }, 0);
    // Safety: valid pointers.
    assert_eq!(
        unsafe { damka_square_bit(21, c"33".as_ptr(), &mut bit) },
        code(DAMKA_ERR_FEN)
    );
    let mut number = 0;
    // Safety: valid pointers.
    assert_eq!(
        unsafe { damka_variant_from_name(c"Turkish".as_ptr(), &mut number) },
        0
    );
    assert_eq!(number, damka_variant::DAMKA_TURKISH as c_int);
}

#[test]
fn every_variant_has_a_c_value_numbered_as_its_game_type() {
    for variant in Variant::ALL {
        let value = damka_variant::of(variant) as c_int;
        assert_eq!(value, c_int::from(variant.game_type()), "{variant}");
        assert_eq!(variant_of_number(value).ok(), Some(variant));
    }
    let unknown = variant_of_number(23).expect_err("no variant 23");
    let message = unknown.message.to_string_lossy();
    assert!(message.contains("20, 21, 22, 24, 25, 26, 30"), "{message}");
}

#[test]
fn a_cache_too_large_returns_null_with_the_reason() {
    let dir = c(tables_dir().to_str().expect("a UTF-8 path"));
    for bytes in [usize::MAX, 1 << 62] {
        // Safety: a NUL-terminated string.
        let tb = unsafe { damka_open_with_cache(dir.as_ptr(), bytes) };
        assert!(tb.is_null(), "{bytes}");
        let error = last_error();
        assert!(error.contains("a block cache of"), "{error}");
        assert!(error.contains(&bytes.to_string()), "{error}");
    }
}

/// Tables built without distances to the end (`damka generate` without `--dtw`): the
/// results and distances to conversion are answered, moves ordered by those; the distance
/// to the end is an error naming its missing file, and every move's is -1.
#[test]
fn tables_without_distances_to_the_end_answer() {
    let dir = target_dir().join("capi-lean-tables");
    let _ = std::fs::remove_dir_all(&dir);
    shared::generate_lean(&cli(), &dir, Variant::English, &["--pieces", "4"]);
    let tb = Handle::open(&dir);
    let (v, f) = (c("english"), c("W:WK19,K23:BK28,12"));
    let (mut wdl, mut dtw, mut dtc) = (0, 0, 0);
    // Safety: a live handle, NUL-terminated strings, valid out-parameters.
    unsafe {
        assert_eq!(
            damka_probe_wdl(tb.0, v.as_ptr(), f.as_ptr(), &mut wdl),
            damka_status::DAMKA_OK as c_int
        );
        assert_eq!(
            damka_probe_dtc(tb.0, v.as_ptr(), f.as_ptr(), &mut dtc),
            damka_status::DAMKA_OK as c_int
        );
        assert_ne!(
            damka_probe_dtw(tb.0, v.as_ptr(), f.as_ptr(), &mut dtw),
            damka_status::DAMKA_OK as c_int
        );
    }
    assert_eq!((wdl, dtc), (1, 17));
    assert!(last_error().contains("0211.dtw"), "{}", last_error());
    let mut list: *mut damka_move_list = std::ptr::null_mut();
    // Safety: as above; the list is freed once below.
    let code = unsafe { damka_moves(tb.0, v.as_ptr(), f.as_ptr(), &mut list) };
    assert_eq!(code, damka_status::DAMKA_OK as c_int, "{}", last_error());
    // Safety: a list from damka_moves, of `len` moves.
    let moves = unsafe { std::slice::from_raw_parts((*list).moves, (*list).len) };
    let found: Vec<(i32, i32, i32)> = moves.iter().map(|m| (m.wdl, m.dtw, m.dtc)).collect();
    assert_eq!(
        found,
        [
            (1, -1, 17),
            (1, -1, 21),
            (1, -1, 21),
            (1, -1, 25),
            (-1, -1, 2),
            (-1, -1, 2)
        ]
    );
    // Safety: a list from damka_moves, freed once.
    unsafe { damka_move_list_free(list) };
    drop(tb);
    std::fs::remove_dir_all(&dir).expect("remove the scratch tables");
}
