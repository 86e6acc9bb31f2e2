//! damka for Python: probe the endgame tables, list legal moves, count perft.
//!
//! A thin layer over the `damka` library: every answer is the library's, every error its
//! message. Variants are named as on the command line (`english`, `international`, ...),
//! positions are FEN strings and moves are written in the variant's notation, exactly as
//! `damka probe` and `damka moves` print them. Probes and perft run without the GIL, so
//! Python threads can probe one [`Tablebase`] at the same time.

use std::path::PathBuf;

use damka::notation::movetext::{full_path_text, sort_moves};
use damka::notation::{move_text, parse_fen};
use damka::rules::{self, Counters, Position, RuleSet, Rules, Variant};
use damka::tablebase::probe::DEFAULT_CACHE_BYTES;
use damka::tablebase::{Outcome, ProbeError, Wdl};
use damka::with_rules;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyString};

create_exception!(
    damka,
    TablebaseError,
    PyException,
    "A table the probe needs is missing or damaged (or the tables directory does not exist)."
);

/// The variant named `name`, or a `ValueError` listing the names.
fn parse_variant(name: &str) -> PyResult<Variant> {
    name.parse()
        .map_err(|e: rules::UnknownVariant| PyValueError::new_err(e.to_string()))
}

/// The position of a FEN, or a `ValueError` saying what is wrong with it.
fn position<R: Rules>(fen: &str) -> PyResult<Position<R>> {
    parse_fen::<R>(fen).map_err(|e| PyValueError::new_err(format!("bad FEN '{fen}': {e}")))
}

/// A probe's error as Python sees it: a table that cannot be used is a [`TablebaseError`],
/// a position that no table can hold a `ValueError`.
fn probe_error(e: ProbeError) -> PyErr {
    match e {
        ProbeError::Table(_) => TablebaseError::new_err(e.to_string()),
        ProbeError::NotCovered(_) | ProbeError::Unreachable(_) => {
            PyValueError::new_err(e.to_string())
        }
        ProbeError::NoRuleResults(_) | ProbeError::NoDirectory { .. } => {
            TablebaseError::new_err(e.to_string())
        }
    }
}

/// A count of plies as Python passes it: any `int`, checked in the method that takes it so
/// that its error names the argument ([`Plies::get`]).
struct Plies(Result<u32, String>);

impl Plies {
    const ZERO: Plies = Plies(Ok(0));

    /// The count, or a `ValueError` naming the argument `name` and the range it takes.
    fn get(&self, name: &str) -> PyResult<u32> {
        self.0.clone().map_err(|given| {
            PyValueError::new_err(format!(
                "{name} must be a count of plies from 0 to {}, not {given}",
                u32::MAX
            ))
        })
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Plies {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Plies> {
        let int = obj.cast::<PyInt>()?;
        Ok(Plies(int.extract::<u32>().map_err(|_| int.to_string())))
    }
}

/// The counters of `quiet_plies` and `material_plies`, each checked.
fn counters(quiet_plies: &Plies, material_plies: &Plies) -> PyResult<Counters> {
    Ok(Counters {
        quiet: quiet_plies.get("quiet_plies")?,
        material: material_plies.get("material_plies")?,
    })
}

/// 1 for a win, 0 for a draw, -1 for a loss.
fn wdl_number(wdl: Wdl) -> i8 {
    match wdl {
        Wdl::Win => 1,
        Wdl::Draw => 0,
        Wdl::Loss => -1,
    }
}

/// The distance in plies, `None` for a draw.
fn dtw_plies(outcome: Outcome) -> Option<u16> {
    (outcome.wdl != Wdl::Draw).then_some(outcome.dtw)
}

/// A directory of damka endgame tables (as `damka generate` writes them), probed from any
/// thread.
///
/// Tables are opened on first use and decoded blocks are cached (256 MiB at most), so the
/// first probe of a table reads the disk and later ones mostly do not. Results are for the
/// side to move and are the theoretical ones: no move-count draw rules.
///
/// Raises `damka.TablebaseError` when `dir` does not exist or is not a directory.
#[pyclass(frozen, module = "damka")]
struct Tablebase {
    inner: damka::tablebase::Tablebase,
}

impl Tablebase {
    fn probe_wdl_as<R: Rules>(&self, py: Python<'_>, fen: &str) -> PyResult<i8> {
        let pos = position::<R>(fen)?;
        let wdl = py
            .detach(|| self.inner.probe_wdl(&pos))
            .map_err(probe_error)?;
        Ok(wdl_number(wdl))
    }

    fn probe_dtw_as<R: Rules>(&self, py: Python<'_>, fen: &str) -> PyResult<Option<u16>> {
        let pos = position::<R>(fen)?;
        let outcome = py
            .detach(|| self.inner.probe_dtw(&pos))
            .map_err(probe_error)?;
        Ok(dtw_plies(outcome))
    }

    fn probe_dtc_as<R: Rules>(&self, py: Python<'_>, fen: &str) -> PyResult<Option<u16>> {
        let pos = position::<R>(fen)?;
        py.detach(|| self.inner.probe_dtc(&pos))
            .map_err(probe_error)
    }

    fn rule_moves_as<R: Rules>(
        &self,
        py: Python<'_>,
        fen: &str,
        counters: Counters,
    ) -> PyResult<(&'static str, Vec<(String, &'static str)>)> {
        let pos = position::<R>(fen)?;
        let rules = RuleSet::default_for(R::VARIANT);
        py.detach(|| {
            let category = self.inner.probe_rules(&pos, rules, counters)?;
            let moves = self.inner.rule_moves(&pos, rules, counters)?;
            let legal: Vec<_> = self
                .inner
                .rated_moves(&pos)?
                .into_iter()
                .map(|r| r.mv)
                .collect();
            let named = moves
                .iter()
                .map(|m| {
                    let i = legal.iter().position(|l| *l == m.rated.mv).unwrap_or(0);
                    (move_text(R::VARIANT, &legal, i), m.category.name())
                })
                .collect();
            Ok((category.name(), named))
        })
        .map_err(probe_error)
    }

    fn moves_as<R: Rules>(
        &self,
        py: Python<'_>,
        fen: &str,
    ) -> PyResult<Vec<(String, i8, Option<u16>)>> {
        let pos = position::<R>(fen)?;
        py.detach(|| {
            let rated = self.inner.rated_moves(&pos)?;
            let legal: Vec<_> = rated.iter().map(|r| r.mv.clone()).collect();
            Ok(rated
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    (
                        move_text(R::VARIANT, &legal, i),
                        wdl_number(r.outcome.wdl),
                        dtw_plies(r.outcome).filter(|_| self.inner.has_dtw(R::VARIANT)),
                    )
                })
                .collect())
        })
        .map_err(probe_error)
    }
}

#[pymethods]
impl Tablebase {
    /// Opens the tables under `dir` (`dir/VARIANT/KEY.wdl`, `.dtw` and `.dtc` files).
    #[new]
    fn new(dir: PathBuf) -> PyResult<Self> {
        damka::tablebase::Tablebase::with_cache(&dir, DEFAULT_CACHE_BYTES)
            .map(|inner| Tablebase { inner })
            .map_err(probe_error)
    }

    /// The tables directory.
    #[getter]
    fn dir(&self) -> PathBuf {
        self.inner.dir().to_path_buf()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let dir = PyString::new(py, &self.inner.dir().to_string_lossy()).repr()?;
        Ok(format!("damka.Tablebase({dir})"))
    }

    /// Win (1), draw (0) or loss (-1) for the side to move in `fen`.
    ///
    /// Captures are searched; only the win/draw/loss files are read. Raises `ValueError`
    /// for an unknown variant, a bad FEN or a position no table can hold: one no game
    /// reaches, whose side not to move has no pieces (`W:W:B`, `W:WK5:B`), or a Turkish man
    /// on its own back rank. A side to move without pieces or moves has lost: -1 (distance
    /// 0). Raises `damka.TablebaseError` when a table the position needs is missing or
    /// damaged.
    fn probe_wdl(&self, py: Python<'_>, variant: &str, fen: &str) -> PyResult<i8> {
        with_rules!(parse_variant(variant)?, R => self.probe_wdl_as::<R>(py, fen))
    }

    /// The plies to the end of the game with perfect play (the winner fastest, the loser
    /// slowest) for a win or a loss, `None` for a draw.
    ///
    /// A lost position without a move gives 0. Combine it with `probe_wdl` for the side
    /// that wins. Raises like `probe_wdl`.
    fn probe_dtw(&self, py: Python<'_>, variant: &str, fen: &str) -> PyResult<Option<u16>> {
        with_rules!(parse_variant(variant)?, R => self.probe_dtw_as::<R>(py, fen))
    }

    /// For a win or a loss, the plies to the next capture or man's move (or the end of the
    /// game), the winner hastening to one that keeps the win and the loser delaying it
    /// (Kingsrow's moves to conversion, in plies); `None` for a draw.
    ///
    /// A position with a capture gives 1, a lost one without a move 0. Raises like
    /// `probe_wdl` (`damka.TablebaseError` also for tables built without `.dtc` files).
    fn probe_dtc(&self, py: Python<'_>, variant: &str, fen: &str) -> PyResult<Option<u16>> {
        with_rules!(parse_variant(variant)?, R => self.probe_dtc_as::<R>(py, fen))
    }

    /// The result of `fen` under its variant's default draw rules (`docs/RULES.md`), with
    /// `quiet_plies` played without a capture or man move and `material_plies` since its
    /// material count started: `"win"`, `"cursed-win"` (won, but not within the counts),
    /// `"draw"`, `"blessed-loss"` or `"loss"`. Counts past the rules' limits all give the
    /// same answer, up to 2**32 - 1; a count outside 0 to 2**32 - 1 raises `ValueError`
    /// naming it. Raises `damka.TablebaseError` for tables without rule results (or with
    /// another rule set's), else like `probe_wdl`.
    #[pyo3(
        signature = (variant, fen, quiet_plies=Plies::ZERO, material_plies=Plies::ZERO),
        text_signature = "(self, variant, fen, quiet_plies=0, material_plies=0)"
    )]
    fn probe_rules(
        &self,
        py: Python<'_>,
        variant: &str,
        fen: &str,
        quiet_plies: Plies,
        material_plies: Plies,
    ) -> PyResult<&'static str> {
        let counters = counters(&quiet_plies, &material_plies)?;
        with_rules!(parse_variant(variant)?, R => {
            let pos = position::<R>(fen)?;
            let rules = RuleSet::default_for(R::VARIANT);
            py.detach(|| self.inner.probe_rules(&pos, rules, counters))
                .map(|c| c.name())
                .map_err(probe_error)
        })
    }

    /// The result of `fen` under the default draw rules (as `probe_rules`) and every legal
    /// move with its category for the side playing it, best under the rules first (wins
    /// fastest to convert first): `("win", [(move, category), ...])`. Counts are checked as
    /// `probe_rules` checks them.
    #[pyo3(
        signature = (variant, fen, quiet_plies=Plies::ZERO, material_plies=Plies::ZERO),
        text_signature = "(self, variant, fen, quiet_plies=0, material_plies=0)"
    )]
    fn rule_moves(
        &self,
        py: Python<'_>,
        variant: &str,
        fen: &str,
        quiet_plies: Plies,
        material_plies: Plies,
    ) -> PyResult<(&'static str, Vec<(String, &'static str)>)> {
        let counters = counters(&quiet_plies, &material_plies)?;
        with_rules!(parse_variant(variant)?, R => self.rule_moves_as::<R>(py, fen, counters))
    }

    /// Every legal move of `fen` with its result, best first: `[(move, wdl, dtw), ...]`.
    ///
    /// `wdl` (1, 0, -1) is the result for the side playing the move, `dtw` the plies to the
    /// end counted from before the move (`None` for a draw). Fastest wins come first, then
    /// draws, then the slowest losses; equal moves in notation order. Moves are written in
    /// the variant's notation as `damka probe` prints them (`11-15`, `27x18`, `c3:e5`).
    /// Raises like `probe_wdl`.
    fn moves(
        &self,
        py: Python<'_>,
        variant: &str,
        fen: &str,
    ) -> PyResult<Vec<(String, i8, Option<u16>)>> {
        with_rules!(parse_variant(variant)?, R => self.moves_as::<R>(py, fen))
    }
}

fn legal_moves_as<R: Rules>(fen: &str) -> PyResult<Vec<String>> {
    let pos = position::<R>(fen)?;
    let legal = rules::legal_moves(&pos);
    let mut sorted: Vec<_> = legal.iter().collect();
    sort_moves(R::VARIANT, &mut sorted);
    Ok(sorted
        .into_iter()
        .map(|mv| full_path_text(R::VARIANT, mv))
        .collect())
}

/// The legal moves of `fen`, in notation order, each with its full path (every landing
/// square of a capture: `47x38x24`, `c3:e5:g3`), as `damka moves` prints them.
///
/// Raises `ValueError` for an unknown variant or a bad FEN.
#[pyfunction]
fn legal_moves(variant: &str, fen: &str) -> PyResult<Vec<String>> {
    with_rules!(parse_variant(variant)?, R => legal_moves_as::<R>(fen))
}

fn perft_as<R: Rules>(py: Python<'_>, fen: Option<&str>, depth: u32) -> PyResult<u64> {
    let pos = match fen {
        Some(fen) => position::<R>(fen)?,
        None => Position::<R>::initial(),
    };
    Ok(py.detach(|| rules::perft(&pos, depth)))
}

/// The number of leaves of the move tree `depth` plies deep from `fen` (the variant's
/// initial position when `fen` is `None`).
///
/// A capture that takes the same pieces and ends on the same square by two paths counts
/// once. Runs on one thread without the GIL. Raises `ValueError` for an unknown variant or
/// a bad FEN.
#[pyfunction]
#[pyo3(signature = (variant, fen, depth))]
fn perft(py: Python<'_>, variant: &str, fen: Option<&str>, depth: u32) -> PyResult<u64> {
    with_rules!(parse_variant(variant)?, R => perft_as::<R>(py, fen, depth))
}

/// Probe damka's draughts endgame tables, list legal moves and count perft, for English,
/// Italian, Spanish, Russian, Brazilian, International and Turkish draughts.
///
/// >>> import damka
/// >>> tb = damka.Tablebase("tables")
/// >>> tb.probe_wdl("english", "W:WK19,K23:BK28,12")
/// 1
#[pymodule(name = "damka")]
mod module {
    #[pymodule_export]
    use super::{Tablebase, TablebaseError, legal_moves, perft};

    use pyo3::prelude::*;
    use pyo3::types::PyTuple;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        let names = damka::Variant::ALL.map(|v| v.name());
        m.add("VARIANTS", PyTuple::new(m.py(), names)?)?;
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        Ok(())
    }
}
