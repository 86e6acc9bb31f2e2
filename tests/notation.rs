//! FEN and move text: round trips for every variant, malformed input with its exact error,
//! reading and writing moves with the PDN 3.0 disambiguation rule.

use damka::notation::movetext::parse_move_squares;
use damka::notation::{
    FenError, MoveTextError, SquareError, move_text, parse_fen, parse_move, write_fen,
};
use damka::rules::{
    Bitboard, Color, English, International, Position, PositionError, Rules, Russian, Spanish,
    Turkish, legal_moves,
};
use damka::{Variant, with_rules};

/// A tiny deterministic generator for random games.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// Positions along random games from the start: men, kings, both sides to move.
fn random_positions<R: Rules>(games: usize, seed: u64) -> Vec<Position<R>> {
    let mut rng = Lcg(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::<R>::initial();
        for _ in 0..200 {
            out.push(pos);
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            pos = pos.play(&moves[rng.below(moves.len())].mv);
        }
    }
    out
}

fn fen_round_trip<R: Rules>() -> usize {
    let positions = random_positions::<R>(20, 7);
    for pos in &positions {
        let fen = write_fen(pos);
        assert_eq!(
            parse_fen::<R>(&fen).as_ref(),
            Ok(pos),
            "{:?}: {fen}",
            R::VARIANT
        );
    }
    positions.len()
}

#[test]
fn fen_round_trips_in_every_variant() {
    for variant in Variant::ALL {
        let n = with_rules!(variant, R => fen_round_trip::<R>());
        assert!(n > 500, "{variant}: only {n} positions");
    }
}

#[test]
fn initial_fens_are_the_standard_ones() {
    assert_eq!(
        write_fen(&Position::<International>::initial()),
        format!(
            "W:W{}:B{}",
            (31..=50)
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(","),
            (1..=20)
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(",")
        )
    );
    assert_eq!(
        parse_fen::<International>("W:W31-50:B1-20"),
        Ok(Position::initial())
    );
    // English: Black moves first and holds 1-12.
    assert_eq!(
        parse_fen::<English>("B:W21-32:B1-12"),
        Ok(Position::initial())
    );
    // Spanish: White on 1-12.
    assert_eq!(
        parse_fen::<Spanish>("W:W1-12:B21-32"),
        Ok(Position::initial())
    );
    assert_eq!(
        write_fen(&Position::<Turkish>::initial()),
        "W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3:\
         Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7"
    );
}

#[test]
fn fen_quirks_of_real_files_are_read() {
    let first = parse_fen::<English>("W:WK19,K23:BK28,12").expect("First Position");
    assert_eq!(first.kings().count(), 3);
    assert_eq!(parse_fen::<English>(" W:WK23,K19:B12,K28. "), Ok(first));
    // Empty sides and the lidraughts suffix.
    let empty = parse_fen::<English>("W::.").expect("empty board");
    assert!(empty.occupied().is_empty());
    assert_eq!(
        parse_fen::<International>("W:W31-50:B1-20:H0:F1"),
        Ok(Position::initial())
    );
    // Numeric squares in an algebraic variant use the English numbering (1 = b8, 32 = g1).
    assert_eq!(
        parse_fen::<Russian>("W:W21-32:B1-12").map(|p| write_fen(&p)),
        parse_fen::<Russian>(
            "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8"
        )
        .map(|p| write_fen(&p))
    );
    // A FEN pasted with its PDN tag, or in quotes, reads as the FEN.
    for pasted in [
        "[FEN \"W:W31,32:B1,2\"]",
        " [fen \" W:W31,32:B1,2. \"] ",
        "[FEN\"W:W31,32:B1,2\"]",
        "\"W:W31,32:B1,2\"",
    ] {
        assert_eq!(
            parse_fen::<International>(pasted).map(|p| write_fen(&p)),
            Ok("W:W31,32:B1,2".to_string()),
            "{pasted}"
        );
    }
    // A range of kings.
    let kings = parse_fen::<International>("B:WK1-3:B45").expect("range of kings");
    assert_eq!(kings.kings_of(Color::White).count(), 3);
    assert_eq!(kings.side_to_move(), Color::Black);
}

#[test]
fn malformed_fens_give_their_error() {
    use FenError::*;
    let cases: Vec<(&str, FenError)> = vec![
        ("", Empty),
        ("   .", Empty),
        ("X:W31:B1", BadSideToMove("X".into())),
        ("W", MissingPieces),
        ("W:Q31:B1", BadField("Q31".into())),
        ("W:W31:W32", RepeatedColor(Color::White)),
        ("W:W51:B1", Square(SquareError::OutOfRange("51".into()))),
        ("W:W0:B1", Square(SquareError::OutOfRange("0".into()))),
        ("W:Wfoo:B1", Square(SquareError::Malformed("foo".into()))),
        ("W:W40-31:B1", BadRange("40-31".into())),
        ("W:Wa-b:B1", BadRange("a-b".into())),
        ("W:W31,31:B1", RepeatedSquare("31".into())),
        ("W:W31:B31", Overlap("31".into())),
        ("W:W3:B40", ManOnPromotionRow(Color::White, "3".into())),
        ("W:W30:B48", ManOnPromotionRow(Color::Black, "48".into())),
        ("[Event \"x\"]", Tag("[Event \"x\"]".into())),
        ("[FEN \"W:W31:B1\"", Tag("[FEN \"W:W31:B1\"".into())),
        ("[FEN W:W31:B1]", Tag("[FEN W:W31:B1]".into())),
        (
            "W:WK1-21:B45",
            TooManyPieces {
                color: Color::White,
                count: 21,
                max: 20,
            },
        ),
    ];
    for (fen, expected) in cases {
        assert_eq!(
            parse_fen::<International>(fen),
            Err(expected),
            "FEN {fen:?}"
        );
    }
    // Algebraic squares: light squares and squares off the board.
    assert_eq!(
        parse_fen::<Russian>("W:Wa2:Bh8"),
        Err(Square(SquareError::NotPlayable("a2".into())))
    );
    assert_eq!(
        parse_fen::<Russian>("W:Wi1:Bh8"),
        Err(Square(SquareError::OutOfRange("i1".into())))
    );
    assert_eq!(
        parse_fen::<English>("W:Wc3:B1"),
        Err(Square(SquareError::Malformed("c3".into())))
    );
    // Every error has a message naming the problem.
    let message = parse_fen::<International>("W:W3:B40")
        .unwrap_err()
        .to_string();
    assert!(message.contains("man on 3"), "{message}");
}

#[test]
fn positions_validate_with_distinct_errors() {
    type P = Position<English>;
    let sq = |n: u8| {
        damka::notation::squares::square_from_number(Variant::English, n as u32)
            .expect("square")
            .bb()
    };
    assert_eq!(
        P::new(sq(20), sq(20), Bitboard::EMPTY, Color::White),
        Err(PositionError::Overlap(sq(20).first().unwrap()))
    );
    assert_eq!(
        P::new(Bitboard(1 << 8), sq(1), Bitboard::EMPTY, Color::White),
        Err(PositionError::OffBoard(8))
    );
    assert!(matches!(
        P::new(sq(20), sq(1), sq(5), Color::White),
        Err(PositionError::KingWithoutPiece(_))
    ));
    assert!(matches!(
        P::new(sq(20), sq(30), Bitboard::EMPTY, Color::White),
        Err(PositionError::ManOnPromotionRow(Color::Black, _))
    ));
    let all = Bitboard((1..=13).fold(0, |acc, n| acc | sq(n + 12).0));
    assert!(matches!(
        P::new(all, sq(1), Bitboard::EMPTY, Color::White),
        Err(PositionError::TooManyPieces {
            color: Color::White,
            count: 13,
            max: 12
        })
    ));
    assert!(P::new(sq(20), sq(1), sq(1), Color::Black).is_ok());
}

#[test]
fn moves_are_read_whatever_the_separator() {
    let pos = Position::<International>::initial();
    let legal = legal_moves(&pos);
    for text in ["32-28", "32x28", "32 - 28", "032-028"] {
        let mv = parse_move(Variant::International, &legal, text).expect(text);
        assert_eq!(
            move_text(
                Variant::International,
                &legal,
                legal.iter().position(|m| m == mv).unwrap()
            ),
            "32-28"
        );
    }
    assert!(matches!(
        parse_move(Variant::International, &legal, "32-27x"),
        Err(MoveTextError::Syntax(_))
    ));
    match parse_move(Variant::International, &legal, "32-23") {
        Err(MoveTextError::Illegal { legal, .. }) => assert_eq!(legal.len(), 9),
        other => panic!("expected illegal, got {other:?}"),
    }
    let russian = Position::<Russian>::initial();
    let legal = legal_moves(&russian);
    let mv = parse_move(Variant::Russian, &legal, "c3-d4").expect("c3-d4");
    assert_eq!(
        mv.mv.from(),
        parse_move_squares(Variant::Russian, "c3-d4").unwrap()[0]
    );
    // Numeric squares are accepted in algebraic variants too (22 = c3, 18 = d4).
    assert_eq!(parse_move(Variant::Russian, &legal, "22-18"), Ok(mv));
}

#[test]
fn captures_are_written_short_unless_ambiguous() {
    // International: a white man on 37 with four black men around has several captures,
    // each from 37 to a different square, so from and to are enough for every one.
    let fen = "W:W37:B32,31,21,22";
    let pos = parse_fen::<International>(fen).expect(fen);
    let legal = legal_moves(&pos);
    let mut texts: Vec<String> = (0..legal.len())
        .map(|i| move_text(Variant::International, &legal, i))
        .collect();
    texts.sort();
    // The only capture goes round the four men and back to 37.
    assert_eq!(texts, vec!["37x37".to_string()]);
    assert_eq!(
        damka::notation::full_path_text(Variant::International, &legal[0]),
        "37x28x17x26x37"
    );
    assert!(parse_move(Variant::International, &legal, "37x28x17x26x37").is_ok());
}

fn written_moves_read_back<R: Rules>() -> usize {
    let mut longer = 0;
    for pos in random_positions::<R>(30, 11) {
        let legal = legal_moves(&pos);
        for (i, lm) in legal.iter().enumerate() {
            let text = move_text(R::VARIANT, &legal, i);
            let read = parse_move(R::VARIANT, &legal, &text);
            assert_eq!(read, Ok(lm), "{:?} {}: {text}", R::VARIANT, write_fen(&pos));
            let full = damka::notation::full_path_text(R::VARIANT, lm);
            assert_eq!(parse_move(R::VARIANT, &legal, &full), Ok(lm), "{full}");
            if parse_move_squares(R::VARIANT, &text).unwrap().len() > 2 {
                longer += 1;
            }
        }
    }
    longer
}

#[test]
fn every_written_move_reads_back_as_itself() {
    let mut longer = 0;
    for variant in Variant::ALL {
        longer += with_rules!(variant, R => written_moves_read_back::<R>());
    }
    // Random games do produce captures that need their landing squares.
    assert!(longer > 0);
}

#[test]
fn ambiguous_capture_needs_its_path() {
    // English: a white man on 26 reaches 10 by two routes that take different pieces:
    // 26x17x10 (over 22 and 14) and 26x19x10 (over 23 and 15).
    let fen = "W:W26:B22,14,23,15";
    let pos = parse_fen::<English>(fen).expect(fen);
    let legal = legal_moves(&pos);
    let texts: Vec<String> = (0..legal.len())
        .map(|i| move_text(Variant::English, &legal, i))
        .collect();
    // Both routes end on 10 from 26, so each is written with its turning square.
    assert!(texts.contains(&"26x17x10".to_string()), "{texts:?}");
    assert!(texts.contains(&"26x19x10".to_string()), "{texts:?}");
    match parse_move(Variant::English, &legal, "26x10") {
        Err(MoveTextError::Ambiguous { candidates, .. }) => {
            assert_eq!(
                candidates,
                vec!["26x17x10".to_string(), "26x19x10".to_string()]
            )
        }
        other => panic!("expected ambiguous, got {other:?}"),
    }
    for t in &texts {
        let mv = parse_move(Variant::English, &legal, t).expect(t);
        assert_eq!(&legal[legal.iter().position(|m| m == mv).unwrap()], mv);
    }
}
