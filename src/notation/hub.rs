//! The Hub protocol's text, for each variant: positions, moves, variant names and the line
//! syntax ([`syntax`]). Pure text; the protocol loop is `damka hub`, in the command-line
//! crate.
//!
//! Scan defined both for International draughts; pydraughts, the one Hub client that speaks
//! other variants, extends them, and damka reads and writes what pydraughts does:
//!
//! - **Position** (`pos pos=...`): the side to move, then one character per playable square
//!   (`w`, `b`, `W`, `B` for men and kings, `e` for empty). The board is seen from the side
//!   that moves first in the variant, that side is called white, and the squares are counted
//!   from the top left of that view, row by row (all 64 squares in Turkish). For every
//!   variant but English this is the usual White-at-the-bottom board: International squares
//!   in their standard order (Scan's format), the 8x8 boards from their top-left playable
//!   square. In English, where Black moves first, the board is turned half a turn and the
//!   colours swapped: `W` means Black to move, `w` a black man, and character `i` describes
//!   English square `33 - i`. The English start is thus `Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww`.
//! - **Moves** (`moves="..."`, `done move=...`): squares as numbers, quiet moves
//!   `from-to`, captures `fromxto` followed by `x` and each captured square, in any order
//!   (`28x19x23`). The numbers are the variant's PDN numbers for International, English,
//!   Italian and Spanish; Russian, Brazilian and Turkish, whose PDN squares are algebraic,
//!   number them from a1 along the first rank, then the second, and so on (`9-13` is
//!   a3-b4 in Russian; `17-25` is a3-a4 in Turkish).

pub mod syntax;

use std::fmt;

use crate::notation::squares::{square_from_file_rank, square_from_number};
use crate::rules::{Bitboard, BoardKind, Color, Move, MoveList, Position, Rules, Square, generate};
use crate::rules::{Geometry, SquareStyle, Variant};

/// Reads a variant name as Hub clients send it: damka's names, Scan's `normal`, pydraughts'
/// `standard` (International) and `american` (English).
///
/// ```
/// use damka::{Variant, notation::hub::parse_variant};
/// assert_eq!(parse_variant("normal"), Some(Variant::International));
/// assert_eq!(parse_variant("English"), Some(Variant::English));
/// assert_eq!(parse_variant("frisian"), None);
/// ```
pub fn parse_variant(name: &str) -> Option<Variant> {
    match name.trim().to_ascii_lowercase().as_str() {
        "normal" | "standard" => Some(Variant::International),
        other => other.parse().ok(),
    }
}

/// Why a Hub position or move was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotationError {
    /// The position string has the wrong number of characters.
    Length {
        /// The expected count: side plus one per square.
        expected: usize,
        /// The count read.
        found: usize,
    },
    /// The first character is not `W` or `B`.
    Side(char),
    /// A square character is not one of `wbWBe`.
    Piece {
        /// The square's index in the string (1-based).
        index: usize,
        /// The character read.
        found: char,
    },
    /// The pieces do not make a position of the variant.
    Position(String),
    /// A move text is not squares joined by `-` or `x`.
    MoveSyntax(String),
    /// No legal move matches the text.
    Illegal(String),
    /// Several legal moves match a text that gives no captured squares.
    Ambiguous(String),
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotationError::Length { expected, found } => write!(
                f,
                "position has {found} characters, expected {expected} (side and one per square)"
            ),
            NotationError::Side(c) => write!(f, "side to move '{c}' is not W or B"),
            NotationError::Piece { index, found } => {
                write!(f, "square {index} is '{found}', not one of w b W B e")
            }
            NotationError::Position(e) => write!(f, "not a legal position: {e}"),
            NotationError::MoveSyntax(t) => write!(f, "'{t}' is not a move"),
            NotationError::Illegal(t) => write!(f, "illegal move '{t}'"),
            NotationError::Ambiguous(t) => {
                write!(f, "ambiguous move '{t}' (give the captured squares)")
            }
        }
    }
}

impl std::error::Error for NotationError {}

/// The squares of the position string, in order: index `i` is the square of character
/// `i + 1` (after the side to move).
pub fn frame_squares<R: Rules>() -> Vec<Square> {
    let size = R::Board::SIZE;
    let mut out = Vec::with_capacity(R::Board::SQUARES as usize);
    for row in 0..size {
        for col in 0..size {
            // (col, rank) in the first mover's view, rank 0 at the bottom.
            let rank = size - 1 - row;
            let (file, rank) = match R::FIRST {
                Color::White => (col, rank),
                Color::Black => (size - 1 - col, size - 1 - rank),
            };
            if let Some(sq) = square_from_file_rank(R::VARIANT, file, rank) {
                out.push(sq);
            }
        }
    }
    out
}

/// The squares by Hub move number: index `n - 1` is the square numbered `n`.
pub fn move_squares(variant: Variant) -> Vec<Square> {
    match variant.facts().square_style {
        SquareStyle::Algebraic => {
            let size = match crate::notation::squares::board_kind(variant) {
                BoardKind::Diagonal10 => 10,
                BoardKind::Diagonal8 | BoardKind::Orthogonal8 => 8,
            };
            let mut out = Vec::new();
            for rank in 0..size {
                for file in 0..size {
                    if let Some(sq) = square_from_file_rank(variant, file, rank) {
                        out.push(sq);
                    }
                }
            }
            out
        }
        SquareStyle::Numeric => (1..)
            .map_while(|n| square_from_number(variant, n))
            .collect(),
    }
}

/// The Hub number of a square.
fn number_of(squares: &[Square], sq: Square) -> usize {
    squares.iter().position(|&s| s == sq).map_or(0, |i| i + 1)
}

/// Reads a Hub position string.
///
/// ```
/// use damka::notation::hub::parse_position;
/// use damka::rules::{English, Position};
/// let start = parse_position::<English>("Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww").unwrap();
/// assert_eq!(start, Position::<English>::initial());
/// ```
pub fn parse_position<R: Rules>(text: &str) -> Result<Position<R>, NotationError> {
    let squares = frame_squares::<R>();
    let chars: Vec<char> = text.trim().chars().collect();
    if chars.len() != squares.len() + 1 {
        return Err(NotationError::Length {
            expected: squares.len() + 1,
            found: chars.len(),
        });
    }
    let first = R::FIRST;
    let side = match chars[0] {
        'W' => first,
        'B' => first.opponent(),
        c => return Err(NotationError::Side(c)),
    };
    let mut pieces = [Bitboard::EMPTY; 2];
    let mut kings = Bitboard::EMPTY;
    for (i, (&c, &sq)) in chars[1..].iter().zip(&squares).enumerate() {
        let (color, king) = match c {
            'w' => (first, false),
            'W' => (first, true),
            'b' => (first.opponent(), false),
            'B' => (first.opponent(), true),
            'e' => continue,
            found => {
                return Err(NotationError::Piece {
                    index: i + 1,
                    found,
                });
            }
        };
        pieces[color.index()] |= sq.bb();
        if king {
            kings |= sq.bb();
        }
    }
    let white = pieces[Color::White.index()];
    let black = pieces[Color::Black.index()];
    Position::new(white, black, kings, side).map_err(|e| match e {
        crate::rules::PositionError::ManOnPromotionRow(c, sq) => NotationError::Position(format!(
            "{c} man on its promotion row (square {})",
            number_of(&squares, sq)
        )),
        other => NotationError::Position(other.to_string()),
    })
}

/// Writes a position as a Hub position string.
pub fn write_position<R: Rules>(pos: &Position<R>) -> String {
    let first = R::FIRST;
    let mut out = String::with_capacity(65);
    out.push(if pos.side_to_move() == first {
        'W'
    } else {
        'B'
    });
    for sq in frame_squares::<R>() {
        let c = if pos.pieces(first).contains(sq) {
            'w'
        } else if pos.pieces(first.opponent()).contains(sq) {
            'b'
        } else {
            out.push('e');
            continue;
        };
        out.push(if pos.kings().contains(sq) {
            c.to_ascii_uppercase()
        } else {
            c
        });
    }
    out
}

/// Writes a move: `32-28`, or for a capture `28x19x23` (start, end, captured squares in
/// increasing order).
pub fn move_text(variant: Variant, mv: &Move) -> String {
    let numbers = move_squares(variant);
    let mut out = number_of(&numbers, mv.from()).to_string();
    let sep = if mv.is_capture() { 'x' } else { '-' };
    out.push(sep);
    out.push_str(&number_of(&numbers, mv.to()).to_string());
    let mut taken: Vec<usize> = mv
        .captured()
        .squares()
        .map(|sq| number_of(&numbers, sq))
        .collect();
    taken.sort_unstable();
    for n in taken {
        out.push(sep);
        out.push_str(&n.to_string());
    }
    out
}

/// Finds the legal move of `pos` that a Hub move text names.
///
/// A capture may be given by its start and end alone when no other legal move shares them.
pub fn parse_move<R: Rules>(pos: &Position<R>, text: &str) -> Result<Move, NotationError> {
    let numbers = move_squares(R::VARIANT);
    let syntax = || NotationError::MoveSyntax(text.to_string());
    let mut squares = Vec::new();
    for part in text.trim().split(['-', 'x', 'X']) {
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(syntax());
        }
        let n: usize = part.parse().map_err(|_| syntax())?;
        let sq = n
            .checked_sub(1)
            .and_then(|i| numbers.get(i))
            .ok_or_else(syntax)?;
        squares.push(*sq);
    }
    if squares.len() < 2 {
        return Err(syntax());
    }
    let (from, to) = (squares[0], squares[1]);
    let taken = squares[2..]
        .iter()
        .fold(Bitboard::EMPTY, |bb, sq| bb | sq.bb());
    let mut list = MoveList::new();
    generate(pos, &mut list);
    let mut found = list
        .as_slice()
        .iter()
        .filter(|m| m.from() == from && m.to() == to)
        .filter(|m| squares.len() == 2 || m.captured() == taken);
    match (found.next(), found.next()) {
        (Some(m), None) => Ok(*m),
        // Two paths with the same start, end and captured pieces are one move to a Hub GUI.
        (Some(m), Some(_)) if squares.len() > 2 => Ok(*m),
        (Some(_), Some(_)) => Err(NotationError::Ambiguous(text.to_string())),
        (None, _) => Err(NotationError::Illegal(text.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_fen;
    use crate::rules::{
        Brazilian, English, International, Italian, Russian, Spanish, Turkish, legal_moves,
    };

    fn round_trip<R: Rules>(fen: &str) {
        let pos = parse_fen::<R>(fen).unwrap();
        let text = write_position(&pos);
        assert_eq!(parse_position::<R>(&text), Ok(pos), "{fen} -> {text}");
        for mv in legal_moves(&pos) {
            let t = move_text(R::VARIANT, &mv.mv);
            assert_eq!(parse_move(&pos, &t), Ok(mv.mv), "{fen}: {t}");
        }
    }

    #[test]
    fn international_is_scans_format() {
        let start = Position::<International>::initial();
        assert_eq!(
            write_position(&start),
            "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww"
        );
        // Black to move; white kings on 4 and 5, men on 26, 37, 38; black kings 39 and 49.
        let text = format!(
            "B{}WW{}w{}ww{}{}",
            "e".repeat(3),
            "e".repeat(20),
            "e".repeat(10),
            "B",
            "e".repeat(9) + "Be"
        );
        let pos = parse_position::<International>(&text).unwrap();
        assert_eq!(
            pos,
            parse_fen::<International>("B:WK4,K5,26,37,38:BK39,K49").unwrap()
        );
        assert_eq!(write_position(&pos), text);
        assert!(parse_move(&pos, "39x15x26").is_err());
        assert!(parse_move(&pos, "49x41x37x38").is_ok());
        assert!(parse_move(&pos, "49x32x38").is_err());
        assert!(parse_move(&pos, "49-44").is_err());
    }

    #[test]
    fn english_is_seen_from_black() {
        // pydraughts' strings for B:W18,K30:B5,K9 and for the start.
        let pos = parse_position::<English>("WeeBeeeeeeeeeeebeeeeeeeeWeeeweeee").unwrap();
        assert_eq!(pos, parse_fen::<English>("B:W18,K30:B5,K9").unwrap());
        let start = Position::<English>::initial();
        assert_eq!(write_position(&start), "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww");
        let mut texts: Vec<String> = legal_moves(&start)
            .iter()
            .map(|m| move_text(Variant::English, &m.mv))
            .collect();
        texts.sort();
        assert_eq!(
            texts,
            ["10-14", "10-15", "11-15", "11-16", "12-16", "9-13", "9-14"]
        );
    }

    #[test]
    fn algebraic_variants_number_from_a1() {
        // pydraughts' strings for W:Wa1,Kc3:Bh8,Kb6 and its moves 1-5 (a1-b2), 10-13 (c3-b4).
        let pos = parse_position::<Russian>("WeeebeeeeBeeeeeeeeeeeeWeeeeeeweee").unwrap();
        assert_eq!(pos, parse_fen::<Russian>("W:Wa1,Kc3:Bh8,Kb6").unwrap());
        parse_move(&pos, "1-5").unwrap();
        parse_move(&pos, "10-13").unwrap();
        let pos = parse_position::<Turkish>(
            "WeeeeeeebeeeeeeeeeBeeeeeeeeeeeeeeeeeeeeeeeeWeeeeeeeeeeeeeweeeeeee",
        )
        .unwrap();
        assert_eq!(pos, parse_fen::<Turkish>("W:Wa1,Kc3:Bh8,Kb6").unwrap());
        parse_move(&pos, "19-27").unwrap();
        // Italian: pydraughts' W:W29,K22:B1,K8.
        let pos = parse_position::<Italian>("WbeeeeeeBeeeeeeeeeeeeeWeeeeeeweee").unwrap();
        assert_eq!(pos, parse_fen::<Italian>("W:W29,K22:B1,K8").unwrap());
    }

    #[test]
    fn captures_list_the_taken_squares() {
        let pos = parse_fen::<English>("W:W26:B22,14,23,15").unwrap();
        let texts: Vec<String> = legal_moves(&pos)
            .iter()
            .map(|m| move_text(Variant::English, &m.mv))
            .collect();
        assert!(texts.contains(&"26x10x14x22".to_string()), "{texts:?}");
        assert!(texts.contains(&"26x10x15x23".to_string()), "{texts:?}");
        assert!(parse_move(&pos, "26x10x22x14").is_ok());
        assert_eq!(
            parse_move(&pos, "26x10"),
            Err(NotationError::Ambiguous("26x10".into()))
        );
        assert_eq!(
            parse_move(&pos, "26x10x22"),
            Err(NotationError::Illegal("26x10x22".into()))
        );
    }

    #[test]
    fn every_variant_round_trips() {
        round_trip::<International>("W:W31-50:B1-20");
        round_trip::<International>("B:WK4,K5,26,37,38:BK39,K49,10");
        round_trip::<English>("B:W18,K30:B5,K9");
        round_trip::<English>("W:W26:B22,14,23,15");
        round_trip::<Italian>("W:W29,K22:B1,K8");
        round_trip::<Spanish>("W:W1-12:B21-32");
        round_trip::<Russian>("W:Wc3:Bd4,f6");
        round_trip::<Brazilian>("B:Wc3,e3,Kg1:Bd4,f6,Kb8");
        round_trip::<Turkish>("W:Wa2,b2,Kd4:Bd5,d7,Kh8");
        for variant in Variant::ALL {
            let n = crate::with_rules!(variant, R => frame_squares::<R>().len());
            assert_eq!(n, move_squares(variant).len(), "{variant}");
        }
    }

    #[test]
    fn rejects_bad_input() {
        assert_eq!(
            parse_position::<English>("Wbbb"),
            Err(NotationError::Length {
                expected: 33,
                found: 4
            })
        );
        assert_eq!(
            parse_position::<English>("Xbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww"),
            Err(NotationError::Side('X'))
        );
        assert_eq!(
            parse_position::<English>("Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwwz"),
            Err(NotationError::Piece {
                index: 32,
                found: 'z'
            })
        );
        assert!(matches!(
            parse_position::<English>("Wwbbbbbbbbbbbeeeeeeeewwwwwwwwwwww"),
            Err(NotationError::Position(_))
        ));
        let start = Position::<English>::initial();
        for bad in ["", "9", "9-", "9--13", "a-b", "0-13", "99-13", "9 13"] {
            assert_eq!(
                parse_move(&start, bad),
                Err(NotationError::MoveSyntax(bad.into())),
                "{bad}"
            );
        }
        assert_eq!(
            parse_move(&start, "21-17"),
            Err(NotationError::Illegal("21-17".into()))
        );
    }
}
