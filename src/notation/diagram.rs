//! Text diagrams of a position for the terminal, drawn from White's side with the variant's
//! square names on the edges.

use super::squares::{SquareStyle, square_from_file_rank, square_name, square_style};
use crate::rules::{BoardKind, Color, Geometry, Position, Rules, Square};

/// The character of a square: `w` and `b` for men, `W` and `B` for kings, `.` for an empty
/// playable square, a space for a square no piece stands on.
fn cell<R: Rules>(pos: &Position<R>, square: Option<Square>) -> char {
    let Some(sq) = square else { return ' ' };
    let king = pos.kings().contains(sq);
    if pos.pieces(Color::White).contains(sq) {
        if king { 'W' } else { 'w' }
    } else if pos.pieces(Color::Black).contains(sq) {
        if king { 'B' } else { 'b' }
    } else {
        '.'
    }
}

/// A text diagram of `pos`, one line per rank from the top (White plays up the board), then
/// a line naming the side to move.
///
/// Men are `w` and `b`, kings `W` and `B`, empty playable squares `.`, and the squares no
/// piece stands on (the light ones of a diagonal board) are blank; lines carry no trailing
/// spaces. Numbered variants show
/// the numbers of the first and last playable squares of each rank at its ends; algebraic
/// ones (Russian, Brazilian, Turkish) show the ranks on the left and the files below.
///
/// ```
/// use damka::notation::{diagram::text_diagram, parse_fen};
/// use damka::rules::English;
/// let pos = parse_fen::<English>("W:WK19,K23:BK28,12").unwrap();
/// let text = text_diagram(&pos);
/// assert!(text.contains(" 9     .   .   .   b  12\n"));
/// assert!(text.ends_with("white to move\n"));
/// ```
pub fn text_diagram<R: Rules>(pos: &Position<R>) -> String {
    let variant = R::VARIANT;
    let size = R::Board::SIZE;
    let numbered =
        square_style(variant) == SquareStyle::Numeric && R::Board::KIND != BoardKind::Orthogonal8;
    let rows: Vec<(u8, Vec<Option<Square>>)> = (0..size)
        .rev()
        .map(|rank| {
            let squares = (0..size)
                .map(|file| square_from_file_rank(variant, file, rank))
                .collect();
            (rank, squares)
        })
        .collect();
    let label = |rank: u8, squares: &[Option<Square>], last: bool| -> String {
        if !numbered {
            return (rank + 1).to_string();
        }
        let mut playable = squares.iter().flatten();
        let sq = if last {
            playable.next_back()
        } else {
            playable.next()
        };
        sq.map(|&s| square_name(variant, s)).unwrap_or_default()
    };
    let width = rows
        .iter()
        .map(|(rank, squares)| label(*rank, squares, false).len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (rank, squares) in &rows {
        let cells: Vec<String> = squares.iter().map(|&s| cell(pos, s).to_string()).collect();
        out.push_str(&format!(
            "{:>width$}   {}",
            label(*rank, squares, false),
            cells.join(" ")
        ));
        if numbered {
            out.push_str(&format!("  {:>width$}", label(*rank, squares, true)));
        }
        let kept = out.trim_end_matches(' ').len();
        out.truncate(kept);
        out.push('\n');
    }
    if !numbered {
        let files: Vec<String> = (0..size)
            .map(|f| ((b'a' + f) as char).to_string())
            .collect();
        out.push_str(&format!("{:width$}   {}\n", "", files.join(" ")));
    }
    out.push_str(&format!("{} to move\n", pos.side_to_move()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_fen;
    use crate::rules::{International, Russian, Turkish};

    #[test]
    fn international_initial_position() {
        let text = text_diagram(&Position::<International>::initial());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 11);
        assert_eq!(lines[0], " 1     b   b   b   b   b   5");
        assert_eq!(lines[4], "21     .   .   .   .   .  25");
        assert_eq!(lines[9], "46   w   w   w   w   w    50");
        assert_eq!(lines[10], "white to move");
    }

    #[test]
    fn algebraic_edges() {
        let pos = parse_fen::<Russian>("B:WKc3:Bh6").unwrap();
        let text = text_diagram(&pos);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 10);
        assert_eq!(lines[2], "6     .   .   .   b");
        assert_eq!(lines[5], "3   .   W   .   .");
        assert_eq!(lines[8], "    a b c d e f g h");
        assert_eq!(lines[9], "black to move");
        let turkish = text_diagram(&Position::<Turkish>::initial());
        assert!(turkish.contains("\n2   w w w w w w w w\n"), "{turkish}");
        assert!(
            turkish.starts_with("8   . . . . . . . .\n7   b b b b b b b b\n"),
            "{turkish}"
        );
    }
}
