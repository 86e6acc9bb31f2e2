//! The answers of the JSON API, computed from the tables. Everything here blocks (it reads
//! table files), so the HTTP layer runs it on the probe workers.
//!
//! Shapes (every field always present unless said otherwise):
//! - position: `{"variant", "fen", "category", "dtw", "dtc", "rule_set", "rules", "moves":
//!   [move...]}`, moves best first;
//! - move: `{"move", "category", "dtw", "dtc", "rules", "capture", "crowns", "fen_after",
//!   "path"}`
//!   (`rules` in a position's moves only), with the
//!   category and distance for the side that plays it, counted from before the move (as
//!   `damka probe` prints them);
//! - mainline: `{"variant", "fen", "category", "dtw", "winner", "mainline": [move...],
//!   "truncated"}`;
//! - board: `{"variant", "fen", "side", "size", "orthogonal", "numbered", "squares":
//!   [{"name", "file", "rank", "number"}], "pieces": [{"square", "color", "king"}]}`;
//! - status: `{"version", "variants": [{"variant", "pieces", "max_pieces", "slices"}]}`;
//! - an error: `{"error"}`, the message; a position outside the tables (404) adds
//!   `"material"` (the missing slice's key, null past four digits), `"pieces"` (its piece
//!   count), `"build"` (the `damka generate` command that builds it, null past 10 pieces)
//!   and `"moves"`: the legal moves, in notation order, without results (`{"move",
//!   "capture", "crowns", "fen_after", "path"}`). It never names a path of the server.
//!
//! `category` is `win`, `draw` or `loss`, `dtw` the plies to the end and `dtc` the plies to
//! the next conversion (a capture or a man's move, as `damka probe` prints it); both null for
//! a draw, `dtw` also for tables built without distances to the end (`generate --dtw`),
//! `dtc` for tables built without `.dtc` files. `rules` is the result under
//! the move-count draw rules named by `rule_set` (`serve --rules`, else the variant's
//! default) with the counters at 0: `win`, `cursed-win`, `draw`, `blessed-loss` or `loss`,
//! null where the tables hold none. Clients should ignore fields they do not know.

use std::path::Path;

use damka::notation::squares::{SquareStyle, square_from_file_rank, square_number, square_style};
use damka::notation::{move_text, parse_fen, square_name, write_fen};
use damka::rules::{
    Bitboard, BoardKind, Color, Counters, Geometry, LegalMove, Position, RuleSet, Rules,
    legal_moves, sort_moves,
};
use damka::tablebase::{
    FileKind, Material, Outcome, ProbeError, RatedMove, TableError, Tablebase, Wdl,
};
use damka::{Variant, with_rules};
use serde::Serialize;

use crate::tables::{build_command, listing, material_text, too_many_pieces, variants};

/// The longest perfect-play line the mainline endpoint writes, in plies.
pub const MAINLINE_PLIES: usize = 1000;

/// Why a request has no answer; each maps to one HTTP status.
#[derive(Debug)]
pub enum ApiError {
    /// The request is wrong (unknown variant, malformed FEN, illegal position): 400.
    BadRequest(String),
    /// The position needs a table that is not there: 404, naming the material.
    NotInTables(Box<Missing>),
    /// No such page or endpoint: 404.
    NotFound(String),
    /// Something on the server side failed (a damaged table file): 500.
    Internal(String),
}

/// The answer for a position outside the tables: what is missing and what builds it, and
/// the position's legal moves.
#[derive(Debug, Serialize)]
pub struct Missing {
    /// What is missing, the position's pieces and the command that builds the table.
    error: String,
    /// The slice key of the missing table (`2101`), when it has one.
    material: Option<String>,
    /// The pieces of the missing table.
    pieces: u32,
    /// The command that builds the tables up to `pieces`, `None` past what it builds.
    build: Option<String>,
    /// The legal moves, in notation order.
    moves: Vec<PlainMove>,
}

impl ApiError {
    fn from_probe<R: Rules>(pos: &Position<R>, e: ProbeError) -> ApiError {
        match e {
            ProbeError::Table(TableError::Missing(path)) => missing_table(pos, &path),
            ProbeError::NotCovered(_) | ProbeError::Unreachable(_) => {
                ApiError::BadRequest(e.to_string())
            }
            ProbeError::NoRuleResults(_) => ApiError::NotFound(e.to_string()),
            ProbeError::NoDirectory { .. } => ApiError::Internal(e.to_string()),
            ProbeError::Table(other) => ApiError::Internal(other.to_string()),
        }
    }
}

/// The 404 for `pos`, whose table file `path` is not there: the missing slice (from the file
/// name; a position of more pieces than a key holds names its own count), the position's
/// pieces, the command that builds the table (never the server's path) and the legal moves.
fn missing_table<R: Rules>(pos: &Position<R>, path: &Path) -> ApiError {
    let variant = R::VARIANT;
    let slice = path
        .file_stem()
        .and_then(|s| s.to_str())
        .and_then(|s| s.parse::<Material>().ok());
    let (what, pieces) = match slice {
        Some(m) => (
            format!(
                "no {variant} table for {} pieces, {} to move against {} (slice {m})",
                m.pieces(),
                pieces_text(m.mover_men, m.mover_kings),
                pieces_text(m.other_men, m.other_kings),
            ),
            m.pieces(),
        ),
        None => {
            let pieces = pos.occupied().count();
            (format!("no {variant} table for {pieces} pieces"), pieces)
        }
    };
    let build = build_command(variant, pieces);
    let hint = match &build {
        Some(command) => format!("`{command}` builds it, into the server's tables directory"),
        None => too_many_pieces(),
    };
    ApiError::NotInTables(Box::new(Missing {
        error: format!(
            "not in the tables: {what}; the position has {}; {hint}",
            material_text(pos)
        ),
        material: slice.map(|m| m.to_string()),
        pieces,
        build,
        moves: plain_moves(pos),
    }))
}

/// One side's pieces in words: `2 men and 1 king`, `1 man`, `3 kings`.
fn pieces_text(men: u8, kings: u8) -> String {
    let count = |n: u8, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    match (men, kings) {
        (0, k) => count(k, "king", "kings"),
        (m, 0) => count(m, "man", "men"),
        (m, k) => format!(
            "{} and {}",
            count(m, "man", "men"),
            count(k, "king", "kings")
        ),
    }
}

/// A result category without the move-count rules (those are the `rules` fields).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// The side concerned wins.
    Win,
    /// Neither side can force a win.
    Draw,
    /// The side concerned loses.
    Loss,
}

impl From<Wdl> for Category {
    fn from(wdl: Wdl) -> Category {
        match wdl {
            Wdl::Win => Category::Win,
            Wdl::Draw => Category::Draw,
            Wdl::Loss => Category::Loss,
        }
    }
}

/// The distance to the end of a move's outcome as the API writes it: plies, or null for a
/// draw or where the tables hold no distances to the end.
fn distance<R: Rules>(tb: &Tablebase, o: Outcome) -> Option<u16> {
    (o.wdl != Wdl::Draw && tb.has_dtw(R::VARIANT)).then_some(o.dtw)
}

/// The draw rules the `rules` fields follow: the rule set of a name in the variants that
/// have one, each variant's default in the others.
#[derive(Copy, Clone, Debug)]
pub struct RuleChoice(Option<&'static str>);

impl RuleChoice {
    /// The rule sets called `name` (every variant's default without a name); a name no
    /// variant has is an error naming it.
    pub fn new(name: Option<&str>) -> Result<RuleChoice, String> {
        let Some(name) = name else {
            return Ok(RuleChoice(None));
        };
        Variant::ALL
            .iter()
            .find_map(|&v| RuleSet::find(v, name).ok())
            .map(|r| RuleChoice(Some(r.name)))
            .ok_or_else(|| format!("no variant has draw rules '{name}' (docs/RULES.md lists them)"))
    }

    /// The rule set `variant`'s answers follow.
    pub fn for_variant(self, variant: Variant) -> &'static RuleSet {
        self.0
            .and_then(|name| RuleSet::find(variant, name).ok())
            .unwrap_or_else(|| RuleSet::default_for(variant))
    }
}

/// A position's answer.
#[derive(Debug, Serialize)]
pub struct Probe {
    variant: &'static str,
    fen: String,
    category: Category,
    dtw: Option<u16>,
    dtc: Option<u16>,
    /// The name of the draw rules `rules` follows (`fmjd`, `wcdf`, ...).
    rule_set: &'static str,
    /// The result under those draw rules with the counters at 0 (`win`, `cursed-win`,
    /// `draw`, `blessed-loss`, `loss`); null where the tables hold none.
    rules: Option<&'static str>,
    moves: Vec<MoveAnswer>,
}

/// A legal move: its text, what it does and where it leads.
#[derive(Debug, Serialize)]
pub struct PlainMove {
    /// The move in the variant's notation, disambiguated as PDN requires.
    #[serde(rename = "move")]
    text: String,
    capture: bool,
    crowns: bool,
    fen_after: String,
    /// Every square the piece stands on, start and landings.
    path: Vec<String>,
}

/// The move `legal[index]` of `pos`.
fn plain_move<R: Rules>(pos: &Position<R>, legal: &[LegalMove], index: usize) -> PlainMove {
    let lm = &legal[index];
    PlainMove {
        text: move_text(R::VARIANT, legal, index),
        capture: lm.mv.is_capture(),
        crowns: lm.mv.is_promotion(),
        fen_after: write_fen(&pos.play(&lm.mv)),
        path: lm.paths[0]
            .squares
            .iter()
            .map(|&sq| square_name(R::VARIANT, sq))
            .collect(),
    }
}

/// The legal moves of `pos`, in notation order.
fn plain_moves<R: Rules>(pos: &Position<R>) -> Vec<PlainMove> {
    let legal = legal_moves(pos);
    let mut ordered: Vec<&LegalMove> = legal.iter().collect();
    sort_moves(R::VARIANT, &mut ordered);
    let legal: Vec<LegalMove> = ordered.into_iter().cloned().collect();
    (0..legal.len())
        .map(|i| plain_move(pos, &legal, i))
        .collect()
}

/// One legal move with its result for the side that plays it.
#[derive(Debug, Serialize)]
pub struct MoveAnswer {
    #[serde(flatten)]
    played: PlainMove,
    category: Category,
    dtw: Option<u16>,
    dtc: Option<u16>,
    /// Its result under the draw rules for the side playing it (null without).
    rules: Option<&'static str>,
}

fn move_answer<R: Rules>(
    tb: &Tablebase,
    pos: &Position<R>,
    (legal, index): (&[LegalMove], usize),
    rated: &RatedMove,
    rules: Option<&'static str>,
) -> MoveAnswer {
    MoveAnswer {
        played: plain_move(pos, legal, index),
        category: rated.outcome.wdl.into(),
        dtw: distance::<R>(tb, rated.outcome),
        dtc: rated.dtc,
        rules,
    }
}

/// The variant named in a request path.
pub fn variant(name: &str) -> Result<Variant, ApiError> {
    name.parse::<Variant>()
        .map_err(|e| ApiError::BadRequest(e.to_string()))
}

fn position<R: Rules>(fen: Option<&str>) -> Result<Position<R>, ApiError> {
    let fen = fen.ok_or_else(|| ApiError::BadRequest("missing query parameter 'fen'".into()))?;
    parse_fen::<R>(fen).map_err(|e| ApiError::BadRequest(format!("bad FEN '{fen}': {e}")))
}

/// The rated moves of a position with their texts' legal list (the moves in rated order).
fn rated<R: Rules>(
    tb: &Tablebase,
    pos: &Position<R>,
) -> Result<(Vec<RatedMove>, Vec<LegalMove>), ApiError> {
    let rated = tb
        .rated_moves(pos)
        .map_err(|e| ApiError::from_probe(pos, e))?;
    let legal = rated.iter().map(|r| r.mv.clone()).collect();
    Ok((rated, legal))
}

/// `GET /api/v1/VARIANT?fen=FEN`: the position's result and every move's, best first.
pub fn probe(
    tb: &Tablebase,
    variant: Variant,
    fen: Option<&str>,
    rules: RuleChoice,
) -> Result<Probe, ApiError> {
    with_rules!(variant, R => probe_in::<R>(tb, fen, rules.for_variant(variant)))
}

fn probe_in<R: Rules>(
    tb: &Tablebase,
    fen: Option<&str>,
    rule_set: &'static RuleSet,
) -> Result<Probe, ApiError> {
    let pos = position::<R>(fen)?;
    let (wdl, dtw) = tb
        .probe_result(&pos)
        .map_err(|e| ApiError::from_probe(&pos, e))?;
    let dtc = match tb.probe_dtc(&pos) {
        Err(ProbeError::Table(TableError::Missing(_))) => None,
        found => found.map_err(|e| ApiError::from_probe(&pos, e))?,
    };
    // Tables built before rule results, or a material without them: null.
    let ruled = match tb.rule_moves(&pos, rule_set, Counters::default()) {
        Err(ProbeError::Table(TableError::Missing(_)) | ProbeError::NoRuleResults(_)) => None,
        found => Some(found.map_err(|e| ApiError::from_probe(&pos, e))?),
    };
    let rules = match ruled {
        None => None,
        Some(_) => Some(
            tb.probe_rules(&pos, rule_set, Counters::default())
                .map_err(|e| ApiError::from_probe(&pos, e))?
                .name(),
        ),
    };
    let (rated, legal) = rated(tb, &pos)?;
    let moves = rated
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let rule = ruled
                .iter()
                .flatten()
                .find(|m| m.rated.mv == r.mv)
                .map(|m| m.category.name());
            move_answer(tb, &pos, (&legal, i), r, rule)
        })
        .collect();
    Ok(Probe {
        variant: R::VARIANT.name(),
        fen: write_fen(&pos),
        category: wdl.into(),
        dtw,
        dtc,
        rule_set: rule_set.name,
        rules,
        moves,
    })
}

/// The perfect-play line from a position.
#[derive(Debug, Serialize)]
pub struct Mainline {
    variant: &'static str,
    fen: String,
    category: Category,
    dtw: Option<u16>,
    /// `white` or `black`; null for a draw.
    winner: Option<&'static str>,
    /// The best move at each ply until the side to move has none; empty for a draw.
    mainline: Vec<MoveAnswer>,
    /// Whether the line stopped at [`MAINLINE_PLIES`] before the end.
    truncated: bool,
}

/// `GET /api/v1/VARIANT/mainline?fen=FEN`: the perfect-play line to the end of the game
/// (the fastest win against the slowest loss), at most [`MAINLINE_PLIES`] plies. A draw has
/// no end: its line is empty.
pub fn mainline(tb: &Tablebase, variant: Variant, fen: Option<&str>) -> Result<Mainline, ApiError> {
    with_rules!(variant, R => mainline_in::<R>(tb, fen))
}

fn mainline_in<R: Rules>(tb: &Tablebase, fen: Option<&str>) -> Result<Mainline, ApiError> {
    let start = position::<R>(fen)?;
    let (wdl, dtw) = tb
        .probe_result(&start)
        .map_err(|e| ApiError::from_probe(&start, e))?;
    let winner = match wdl {
        Wdl::Win => Some(start.side_to_move()),
        Wdl::Loss => Some(start.side_to_move().opponent()),
        Wdl::Draw => None,
    };
    let mut line = Vec::new();
    let mut truncated = false;
    if winner.is_some() {
        for step in tb.mainline(&start) {
            let step = step.map_err(|e| ApiError::from_probe(&start, e))?;
            if line.len() == MAINLINE_PLIES {
                truncated = true;
                break;
            }
            let legal: Vec<LegalMove> = step.rated.iter().map(|r| r.mv.clone()).collect();
            line.push(move_answer(
                tb,
                &step.position,
                (&legal, 0),
                step.best(),
                None,
            ));
        }
    }
    Ok(Mainline {
        variant: R::VARIANT.name(),
        fen: write_fen(&start),
        category: wdl.into(),
        dtw,
        winner: winner.map(Color::name),
        mainline: line,
        truncated,
    })
}

/// A variant's board and the pieces of a position on it, for drawing and setting up.
#[derive(Debug, Serialize)]
pub struct Board {
    variant: &'static str,
    fen: String,
    /// `white` or `black`.
    side: &'static str,
    /// Files (and ranks) of the board.
    size: u8,
    /// Turkish: every square is used and men move straight.
    orthogonal: bool,
    /// Whether squares are written as numbers (else as `c3`).
    numbered: bool,
    squares: Vec<BoardSquare>,
    pieces: Vec<Piece>,
}

/// A playable square: its name in the variant's notation, file and rank from 0 (a1 is
/// 0, 0), and its PDN number where the variant numbers squares.
#[derive(Debug, Serialize)]
struct BoardSquare {
    name: String,
    file: u8,
    rank: u8,
    number: Option<u32>,
}

#[derive(Debug, Serialize)]
struct Piece {
    square: String,
    color: &'static str,
    king: bool,
}

/// `GET /api/v1/VARIANT/board[?fen=FEN]`: the board's squares and the position's pieces
/// (an empty board, the variant's first side to move, without a FEN). Reads no table.
pub fn board(variant: Variant, fen: Option<&str>) -> Result<Board, ApiError> {
    with_rules!(variant, R => board_in::<R>(fen))
}

fn board_in<R: Rules>(fen: Option<&str>) -> Result<Board, ApiError> {
    let variant = R::VARIANT;
    let pos = match fen {
        Some(_) => position::<R>(fen)?,
        None => {
            let empty = Bitboard::EMPTY;
            Position::<R>::new(empty, empty, empty, R::FIRST)
                .map_err(|e| ApiError::Internal(e.to_string()))?
        }
    };
    let size = R::Board::SIZE;
    let numbered = square_style(variant) == SquareStyle::Numeric;
    let mut squares = Vec::new();
    for rank in 0..size {
        for file in 0..size {
            if let Some(sq) = square_from_file_rank(variant, file, rank) {
                squares.push(BoardSquare {
                    name: square_name(variant, sq),
                    file,
                    rank,
                    number: numbered.then(|| square_number(variant, sq)).flatten(),
                });
            }
        }
    }
    let mut pieces = Vec::new();
    for color in [Color::White, Color::Black] {
        for sq in pos.pieces(color).squares() {
            pieces.push(Piece {
                square: square_name(variant, sq),
                color: color.name(),
                king: pos.kings().contains(sq),
            });
        }
    }
    Ok(Board {
        variant: variant.name(),
        fen: write_fen(&pos),
        side: pos.side_to_move().name(),
        size,
        orthogonal: R::Board::KIND == BoardKind::Orthogonal8,
        numbered,
        squares,
        pieces,
    })
}

/// What the server holds.
#[derive(Debug, Serialize)]
pub struct Status {
    version: &'static str,
    variants: Vec<VariantStatus>,
}

/// The tables of one variant: `pieces` is the largest count up to which every slice is
/// there (both files), `max_pieces` the largest slice present, `slices` how many there are.
#[derive(Debug, Serialize)]
struct VariantStatus {
    variant: &'static str,
    pieces: u32,
    max_pieces: u32,
    slices: usize,
}

/// `GET /api/v1/status`: the variants and piece counts the tables directory holds.
pub fn status(dir: &Path) -> Result<Status, ApiError> {
    let mut out = Vec::new();
    for variant in variants(dir, None) {
        let present: Vec<Material> = listing(dir, variant)
            .map_err(|e| ApiError::Internal(e.message))?
            .slices_with(&FileKind::BUILT);
        let max_side = with_rules!(variant, R => R::MEN);
        let max_pieces = present.iter().map(Material::pieces).max().unwrap_or(0);
        let pieces = (2..=max_pieces)
            .take_while(|&n| {
                Material::all_up_to(n, max_side)
                    .iter()
                    .all(|m| present.contains(m))
            })
            .last()
            .unwrap_or(0);
        out.push(VariantStatus {
            variant: variant.name(),
            pieces,
            max_pieces,
            slices: present.len(),
        });
    }
    Ok(Status {
        version: env!("CARGO_PKG_VERSION"),
        variants: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_counted_in_words() {
        assert_eq!(pieces_text(2, 1), "2 men and 1 king");
        assert_eq!(pieces_text(1, 0), "1 man");
        assert_eq!(pieces_text(0, 3), "3 kings");
    }

    #[test]
    fn a_missing_table_names_its_slice_pieces_and_build_never_a_path() {
        let pos = parse_fen::<damka::rules::English>("W:W21,22,23:B5,6").expect("fen");
        let path = Path::new("/srv/secret/english/3020.wdl");
        let ApiError::NotInTables(missing) = missing_table(&pos, path) else {
            panic!("not a 404");
        };
        assert_eq!(missing.material.as_deref(), Some("3020"));
        assert_eq!(missing.pieces, 5);
        assert_eq!(
            missing.build.as_deref(),
            Some("damka generate --variant english --pieces 5")
        );
        assert_eq!(
            missing.error,
            "not in the tables: no english table for 5 pieces, 3 men to move against 2 men \
             (slice 3020); the position has 5 pieces (white 3 men; black 2 men); `damka \
             generate --variant english --pieces 5` builds it, into the server's tables \
             directory"
        );
        assert_eq!(missing.moves.len(), legal_moves(&pos).len());
        // The initial position: no slice key holds 12 men a side.
        let pos = Position::<damka::rules::English>::initial();
        let path = Path::new("/srv/secret/english/120120.wdl");
        let ApiError::NotInTables(missing) = missing_table(&pos, path) else {
            panic!("not a 404");
        };
        assert_eq!((missing.material, missing.pieces), (None, 24));
        assert_eq!(missing.build, None);
        assert!(!missing.error.contains("/srv"), "{}", missing.error);
        assert!(
            missing.error.starts_with(
                "not in the tables: no english table for 24 pieces; the position has 24 \
                 pieces (white 12 men; black 12 men); no table holds more than 10 pieces"
            ),
            "{}",
            missing.error
        );
        let texts: Vec<&str> = missing.moves.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(
            texts,
            ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
        );
    }
}
