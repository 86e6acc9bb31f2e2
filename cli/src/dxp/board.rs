//! International draughts as DXP writes it: set-up positions and moves by square number.

use damka::notation::hub::move_squares;
use damka::rules::{Bitboard, International, Move, MoveList, Position, Square, generate};
use damka::{Color, Variant};

use super::message::Message;

/// The squares by number: index `n - 1` is square `n`.
fn squares() -> Vec<Square> {
    move_squares(Variant::International)
}

/// The number (1 to 50) of a square.
fn number(squares: &[Square], sq: Square) -> u8 {
    squares
        .iter()
        .position(|&s| s == sq)
        .map_or(0, |i| i as u8 + 1)
}

/// The position of a GAMEREQ's set-up: the side to move and 50 characters `e`, `w`, `z`,
/// `W`, `Z` in square order.
pub fn setup_position(to_move: Color, text: &str) -> Result<Position<International>, String> {
    let squares = squares();
    if text.len() != squares.len() {
        return Err(format!(
            "a set-up position has {} squares, not {}",
            squares.len(),
            text.len()
        ));
    }
    let (mut white, mut black, mut kings) = (Bitboard::EMPTY, Bitboard::EMPTY, Bitboard::EMPTY);
    for (c, &sq) in text.chars().zip(&squares) {
        match c {
            'w' | 'W' => white |= sq.bb(),
            'z' | 'Z' => black |= sq.bb(),
            'e' => {}
            other => return Err(format!("bad square {other:?} in a set-up position")),
        }
        if c == 'W' || c == 'Z' {
            kings |= sq.bb();
        }
    }
    Position::new(white, black, kings, to_move).map_err(|e| format!("illegal set-up position: {e}"))
}

/// The 50 square characters of a position, for a GAMEREQ.
pub fn setup_text(pos: &Position<International>) -> String {
    squares()
        .iter()
        .map(|&sq| {
            let c = match () {
                _ if pos.pieces(Color::White).contains(sq) => 'w',
                _ if pos.pieces(Color::Black).contains(sq) => 'z',
                _ => return 'e',
            };
            match pos.kings().contains(sq) {
                true => c.to_ascii_uppercase(),
                false => c,
            }
        })
        .collect()
}

/// The MOVE message of `mv`: from, to and every captured square (in increasing order).
pub fn move_message(mv: &Move, seconds: u16) -> Message {
    let squares = squares();
    let mut captured: Vec<u8> = mv
        .captured()
        .squares()
        .map(|sq| number(&squares, sq))
        .collect();
    captured.sort_unstable();
    Message::Move {
        seconds,
        from: number(&squares, mv.from()),
        to: number(&squares, mv.to()),
        captured,
    }
}

/// The legal move of `pos` with these from and to squares that takes exactly these pieces
/// (in any order: several capture paths may share from and to, and peers list captures in
/// the order they jumped them or sorted).
pub fn find_move(
    pos: &Position<International>,
    from: u8,
    to: u8,
    captured: &[u8],
) -> Result<Move, String> {
    let squares = squares();
    let square = |n: u8| {
        usize::from(n)
            .checked_sub(1)
            .and_then(|i| squares.get(i).copied())
            .ok_or_else(|| format!("square {n} is not on the board"))
    };
    let (f, t) = (square(from)?, square(to)?);
    let mut taken = Bitboard::EMPTY;
    for &n in captured {
        let sq = square(n)?;
        if taken.contains(sq) {
            return Err(format!("captured square {n} given twice"));
        }
        taken |= sq.bb();
    }
    let mut list = MoveList::new();
    generate(pos, &mut list);
    list.as_slice()
        .iter()
        .find(|m| m.from() == f && m.to() == t && m.captured() == taken)
        .copied()
        .ok_or_else(|| {
            let mut text = format!("{from}-{to}");
            for n in captured {
                text.push_str(&format!("x{n}"));
            }
            format!("illegal move {text}")
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use damka::notation::parse_fen;

    #[test]
    fn the_start_position_reads_as_written() {
        let start = Position::<International>::initial();
        let text = setup_text(&start);
        assert_eq!(
            text,
            format!("{}{}{}", "z".repeat(20), "e".repeat(10), "w".repeat(20))
        );
        assert_eq!(setup_position(Color::White, &text), Ok(start));
        let pos = parse_fen::<International>("B:WK3,28:BK46,19").unwrap();
        assert_eq!(setup_position(Color::Black, &setup_text(&pos)), Ok(pos));
        assert!(setup_position(Color::White, "e").is_err());
    }

    #[test]
    fn moves_are_matched_by_from_to_and_the_set_taken() {
        let pos = parse_fen::<International>("W:W33:B28,29").unwrap();
        assert!(find_move(&pos, 33, 24, &[29]).is_ok());
        assert!(find_move(&pos, 33, 22, &[29]).is_err());
        let pos = parse_fen::<International>("W:W32:B28,19").unwrap();
        let mv = find_move(&pos, 32, 14, &[19, 28]).unwrap();
        assert_eq!(find_move(&pos, 32, 14, &[28, 19]), Ok(mv));
        assert_eq!(
            move_message(&mv, 3),
            Message::Move {
                seconds: 3,
                from: 32,
                to: 14,
                captured: vec![19, 28]
            }
        );
        assert_eq!(
            find_move(&pos, 32, 14, &[28]),
            Err("illegal move 32-14x28".to_string())
        );
        assert_eq!(
            find_move(&pos, 32, 14, &[28, 28]),
            Err("captured square 28 given twice".to_string())
        );
        assert_eq!(
            find_move(&pos, 0, 14, &[]),
            Err("square 0 is not on the board".to_string())
        );
    }
}
