//! Board diagrams as SVG, drawn from White's side: the board of the variant (8x8 or 10x10 dark
//! squares, or Turkish 8x8 with every square used), square numbers or coordinates, men and
//! kings of both sides, and the last move's start and end squares highlighted.

use crate::notation::squares::{SquareStyle, file_rank, square_from_file_rank, square_style};
use crate::rules::{BoardKind, Color, Geometry, Position, Rules, Square};

/// The side of a square, in SVG units (pixels at scale 1): 40 on 8x8 boards, 34 on 10x10.
const fn square_side(size: u32) -> u32 {
    if size > 8 { 34 } else { 40 }
}
/// The margin around the board; it holds the coordinates of algebraic variants.
const MARGIN: u32 = 16;

/// Colours of the board and pieces.
const LIGHT: &str = "#f0d9b5";
const DARK: &str = "#b58863";
const TURKISH: &str = "#e2c290";
const LINE: &str = "#7a5a32";
const FRAME: &str = "#5b3b1a";
const NUMBER: &str = "#f7ecd9";
const FROM: &str = "#e9d94a";
const TO: &str = "#f0b429";
const WHITE_FILL: &str = "#fbfbf7";
const WHITE_EDGE: &str = "#3a3a3a";
const BLACK_FILL: &str = "#1f1f1f";
const BLACK_EDGE: &str = "#000000";
const CROWN: &str = "#d4a017";

/// An SVG drawing of `pos` from White's side, with the squares of `last` (the move that led to
/// it: start, end) highlighted. `label` is the drawing's accessible name.
///
/// Kings carry a gold crown. Numbered variants show each playable square's number in its
/// corner; algebraic ones (Russian, Brazilian, Turkish) show files and ranks in the margin.
///
/// ```
/// use damka::analyse::svg::diagram;
/// use damka::notation::parse_fen;
/// use damka::rules::English;
/// let pos = parse_fen::<English>("W:WK19,K23:BK28,12").unwrap();
/// let svg = diagram(&pos, None, "First Position");
/// assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
/// assert_eq!(svg.matches("class=\"crown\"").count(), 3);
/// ```
pub fn diagram<R: Rules>(pos: &Position<R>, last: Option<(Square, Square)>, label: &str) -> String {
    let variant = R::VARIANT;
    let size = u32::from(R::Board::SIZE);
    let turkish = R::Board::KIND == BoardKind::Orthogonal8;
    let numbered = square_style(variant) == SquareStyle::Numeric;
    let sq_side = square_side(size);
    let board = size * sq_side;
    let side = board + 2 * MARGIN;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"board\" width=\"{side}\" \
         height=\"{side}\" viewBox=\"0 0 {side} {side}\" role=\"img\" aria-label=\"{}\">",
        escape(label)
    );
    out.push_str(&format!(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{FRAME}\"/>",
        MARGIN - 3,
        MARGIN - 3,
        board + 6,
        board + 6
    ));
    // The squares, rank 8 (or 10) at the top.
    for rank in 0..size {
        for file in 0..size {
            let (x, y) = corner(size, file, rank);
            let square = square_from_file_rank(variant, file as u8, rank as u8);
            let fill = match (turkish, square) {
                (true, _) => TURKISH,
                (false, Some(_)) => DARK,
                (false, None) => LIGHT,
            };
            let stroke = if turkish {
                format!(" stroke=\"{LINE}\" stroke-width=\"1\"")
            } else {
                String::new()
            };
            out.push_str(&format!(
                "<rect x=\"{x}\" y=\"{y}\" width=\"{sq_side}\" height=\"{sq_side}\" \
                 fill=\"{fill}\"{stroke}/>"
            ));
        }
    }
    if let Some((from, to)) = last {
        for (sq, colour, class) in [(from, FROM, "from"), (to, TO, "to")] {
            let (x, y) = square_corner(variant, size, sq);
            out.push_str(&format!(
                "<rect class=\"{class}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" \
                 fill=\"{colour}\" fill-opacity=\"0.75\" stroke=\"{colour}\" \
                 stroke-width=\"2\"/>",
                x + 1,
                y + 1,
                sq_side - 2,
                sq_side - 2
            ));
        }
    }
    if numbered {
        for rank in 0..size {
            for file in 0..size {
                let Some(sq) = square_from_file_rank(variant, file as u8, rank as u8) else {
                    continue;
                };
                let Some(n) = crate::notation::squares::square_number(variant, sq) else {
                    continue;
                };
                let (x, y) = corner(size, file, rank);
                // A fifth of the square, in the corner clear of the piece.
                let font = sq_side as f32 / 5.0;
                out.push_str(&format!(
                    "<text x=\"{}\" y=\"{:.1}\" font-size=\"{font:.1}\" \
                     font-family=\"sans-serif\" fill=\"{NUMBER}\">{n}</text>",
                    x + 2,
                    y as f32 + font
                ));
            }
        }
    } else {
        for i in 0..size {
            let letter = (b'a' + i as u8) as char;
            let (x, _) = corner(size, i, 0);
            let (_, y) = corner(size, 0, i);
            out.push_str(&format!(
                "<text x=\"{}\" y=\"{}\" font-size=\"11\" font-family=\"sans-serif\" \
                 text-anchor=\"middle\" fill=\"#333\">{letter}</text>",
                x + sq_side / 2,
                MARGIN + board + 13
            ));
            out.push_str(&format!(
                "<text x=\"{}\" y=\"{}\" font-size=\"11\" font-family=\"sans-serif\" \
                 text-anchor=\"middle\" fill=\"#333\">{}</text>",
                MARGIN / 2 - 1,
                y + sq_side / 2 + 4,
                i + 1
            ));
        }
    }
    for color in [Color::White, Color::Black] {
        for sq in pos.pieces(color).squares() {
            let (x, y) = square_corner(variant, size, sq);
            let king = pos.kings().contains(sq);
            piece(
                &mut out,
                x + sq_side / 2,
                y + sq_side / 2,
                sq_side,
                color,
                king,
            );
        }
    }
    out.push_str("</svg>");
    out
}

/// The top-left corner of the square on `file` and `rank` (from 0, rank 0 at the bottom).
fn corner(size: u32, file: u32, rank: u32) -> (u32, u32) {
    let side = square_side(size);
    (MARGIN + file * side, MARGIN + (size - 1 - rank) * side)
}

fn square_corner(variant: crate::Variant, size: u32, sq: Square) -> (u32, u32) {
    let (file, rank) = file_rank(variant, sq);
    corner(size, u32::from(file), u32::from(rank))
}

/// Draws a man, or a king (a man with a crown), centred on (`cx`, `cy`).
fn piece(out: &mut String, cx: u32, cy: u32, side: u32, color: Color, king: bool) {
    let (fill, edge, ring) = match color {
        Color::White => (WHITE_FILL, WHITE_EDGE, "#b9b9b0"),
        Color::Black => (BLACK_FILL, BLACK_EDGE, "#5a5a5a"),
    };
    let r = side as f32 * 0.35;
    out.push_str(&format!(
        "<g class=\"{} {}\"><circle cx=\"{cx}\" cy=\"{cy}\" r=\"{r:.1}\" fill=\"{fill}\" \
         stroke=\"{edge}\" stroke-width=\"1.5\"/><circle cx=\"{cx}\" cy=\"{cy}\" \
         r=\"{:.1}\" fill=\"none\" stroke=\"{ring}\" stroke-width=\"1.5\"/>",
        color.name(),
        if king { "king" } else { "man" },
        r * 0.68
    ));
    if king {
        let (x, y) = (cx as f32, cy as f32);
        let s = r * 0.5;
        let points = [
            (-1.0, 0.55),
            (-1.05, -0.45),
            (-0.5, 0.05),
            (0.0, -0.75),
            (0.5, 0.05),
            (1.05, -0.45),
            (1.0, 0.55),
        ]
        .iter()
        .map(|(dx, dy)| format!("{:.1},{:.1}", x + dx * s, y + dy * s))
        .collect::<Vec<_>>()
        .join(" ");
        out.push_str(&format!(
            "<polygon class=\"crown\" points=\"{points}\" fill=\"{CROWN}\" \
             stroke=\"{edge}\" stroke-width=\"1\" stroke-linejoin=\"round\"/>"
        ));
    }
    out.push_str("</g>");
}

/// `text` with the characters that mean something in XML escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::{parse_fen, parse_square};
    use crate::rules::{English, International, Russian, Turkish};

    fn squares_drawn(svg: &str) -> usize {
        svg.matches("<rect x=").count() - 1
    }

    #[test]
    fn boards_have_the_right_size_and_pieces() {
        let pos = Position::<English>::initial();
        let svg = diagram(&pos, None, "x");
        assert_eq!(squares_drawn(&svg), 64);
        assert_eq!(svg.matches(&format!("fill=\"{DARK}\"")).count(), 32);
        assert_eq!(svg.matches("class=\"white man\"").count(), 12);
        assert_eq!(svg.matches("class=\"black man\"").count(), 12);
        assert!(svg.contains(">32</text>") && !svg.contains(">33</text>"));

        let svg = diagram(&Position::<International>::initial(), None, "x");
        assert_eq!(squares_drawn(&svg), 100);
        assert_eq!(svg.matches(&format!("fill=\"{DARK}\"")).count(), 50);
        assert_eq!(svg.matches("class=\"white man\"").count(), 20);
        assert!(svg.contains(">50</text>"));

        // Russian: the 8x8 dark squares, named by coordinates rather than numbers.
        let svg = diagram(&Position::<Russian>::initial(), None, "x");
        assert_eq!(squares_drawn(&svg), 64);
        assert_eq!(svg.matches(&format!("fill=\"{DARK}\"")).count(), 32);
        assert!(svg.contains(">a</text>") && !svg.contains(">32</text>"));

        let svg = diagram(&Position::<Turkish>::initial(), None, "x");
        assert_eq!(squares_drawn(&svg), 64);
        assert_eq!(svg.matches(&format!("fill=\"{TURKISH}\"")).count(), 64);
        assert_eq!(svg.matches("class=\"black man\"").count(), 16);
        assert!(svg.contains(">h</text>") && svg.contains(">8</text>"));
    }

    #[test]
    fn kings_and_last_move_are_marked() {
        let pos = parse_fen::<English>("W:WK19,K23:BK28,12").expect("fen");
        let from = parse_square(crate::Variant::English, "32").expect("square");
        let to = parse_square(crate::Variant::English, "28").expect("square");
        let svg = diagram(&pos, Some((from, to)), "a \"b\" <c>");
        assert_eq!(svg.matches("class=\"white king\"").count(), 2);
        assert_eq!(svg.matches("class=\"black king\"").count(), 1);
        assert_eq!(svg.matches("class=\"black man\"").count(), 1);
        assert_eq!(svg.matches("class=\"crown\"").count(), 3);
        assert!(svg.contains("aria-label=\"a &quot;b&quot; &lt;c&gt;\""));
        // 28 is h2 seen from White: file 7, rank 1, so its corner is 16 + 7 * 40, 16 + 6 * 40
        // (the highlight is inset by 1); 32 is g1.
        assert!(
            svg.contains("<rect class=\"to\" x=\"297\" y=\"257\""),
            "{svg}"
        );
        assert!(
            svg.contains("<rect class=\"from\" x=\"257\" y=\"297\""),
            "{svg}"
        );
    }
}
