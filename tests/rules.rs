//! Position tests for every rule of `docs/RULES.md`: for each rule, positions whose exact legal
//! move lists were worked out by hand from the rules (the board is drawn above each one).
//!
//! A move is written as its full path in the variant's notation, then the captured squares in
//! jump order in brackets, then `crowned` when a man is crowned by it:
//! `b6:d8:g5 [c7,f6] crowned`. The lists are compared sorted. Every position is also checked
//! for internal consistency: `perft(1)` equals the number of legal moves, every path starts and
//! ends on the move's squares and takes exactly the move's pieces, no move is listed twice,
//! and the move text written for each move reads back as that move.
//!
//! Diagrams: White at the bottom moving up in every variant, `w`/`b` men, `W`/`B` kings, `.`
//! an empty playable square, blank an unplayable one. Numeric squares (English, Italian,
//! Spanish, International) follow the notation table of `RULES.md`:
//! English 1 = b8, 4 = h8, 29 = a1, 32 = g1; Italian 1 = a8, 4 = g8, 29 = b1, 32 = h1;
//! Spanish 1 = h1, 4 = b1, 29 = g8, 32 = a8; International 1 = b10, 5 = j10, 46 = a1, 50 = i1.

use damka::Variant::{self, Brazilian, English, International, Italian, Russian, Spanish, Turkish};
use damka::notation::movetext::captured_text;
use damka::notation::{full_path_text, move_text, parse_fen, parse_move, write_fen};
use damka::rules::{
    Bitboard, LegalMove, Move, MoveList, Position, Rules, count_moves, generate,
    generate_counting_king_quiets, legal_moves, perft, with_moves,
};
use damka::with_rules;

/// One legal move as text: full path, `[captured squares]`, ` crowned`.
fn describe(variant: Variant, lm: &LegalMove) -> String {
    let mut text = full_path_text(variant, lm);
    if lm.mv.is_capture() {
        text.push_str(&format!(" [{}]", captured_text(variant, lm)));
    }
    if lm.mv.is_promotion() {
        text.push_str(" crowned");
    }
    text
}

/// Checks that the legal moves of `pos` agree with each other and with the rest of the crate.
fn check_consistency<R: Rules>(fen: &str, pos: &Position<R>, legal: &[LegalMove]) {
    let v = R::VARIANT;
    assert_eq!(
        perft(pos, 1),
        legal.len() as u64,
        "{v} {fen}: perft(1) disagrees with legal_moves"
    );
    for (i, lm) in legal.iter().enumerate() {
        let name = describe(v, lm);
        assert!(
            legal[..i].iter().all(|other| other.mv != lm.mv),
            "{v} {fen}: {name} listed twice"
        );
        assert!(!lm.paths.is_empty(), "{v} {fen}: {name} has no path");
        for (j, path) in lm.paths.iter().enumerate() {
            assert!(
                !lm.paths[..j].contains(path),
                "{v} {fen}: {name} repeats a path"
            );
            assert_eq!(
                path.squares.first(),
                Some(&lm.mv.from()),
                "{v} {fen}: {name}"
            );
            assert_eq!(path.squares.last(), Some(&lm.mv.to()), "{v} {fen}: {name}");
            if lm.mv.is_capture() {
                assert_eq!(
                    path.squares.len(),
                    path.captured.len() + 1,
                    "{v} {fen}: {name}"
                );
            } else {
                assert_eq!(path.squares.len(), 2, "{v} {fen}: {name}");
                assert!(path.captured.is_empty(), "{v} {fen}: {name}");
            }
            let taken = path
                .captured
                .iter()
                .fold(Bitboard::EMPTY, |bb, sq| bb | sq.bb());
            assert_eq!(
                taken,
                lm.mv.captured(),
                "{v} {fen}: {name} path takes other pieces"
            );
            assert_eq!(
                taken.count() as usize,
                path.captured.len(),
                "{v} {fen}: {name} takes a piece twice"
            );
        }
        let text = move_text(v, legal, i);
        let read = parse_move(v, legal, &text)
            .unwrap_or_else(|e| panic!("{v} {fen}: move text '{text}' of {name}: {e}"));
        assert_eq!(read.mv, lm.mv, "{v} {fen}: '{text}' reads as another move");
        let next = pos.play(&lm.mv);
        assert_eq!(next.side_to_move(), pos.side_to_move().opponent());
        let next_fen = write_fen(&next);
        assert_eq!(
            parse_fen::<R>(&next_fen).as_ref(),
            Ok(&next),
            "{v} {fen}: {name} gives {next_fen}"
        );
    }
}

fn moves_of<R: Rules>(fen: &str) -> Vec<String> {
    let pos = parse_fen::<R>(fen).unwrap_or_else(|e| panic!("{} {fen}: {e}", R::VARIANT));
    let legal = legal_moves(&pos);
    check_consistency(fen, &pos, &legal);
    let mut out: Vec<String> = legal.iter().map(|lm| describe(R::VARIANT, lm)).collect();
    out.sort();
    out
}

/// The sorted legal moves of a position, described as in [`describe`].
fn moves(variant: Variant, fen: &str) -> Vec<String> {
    with_rules!(variant, R => moves_of::<R>(fen))
}

/// Asserts the exact legal move list of a position (in any order).
#[track_caller]
fn assert_moves(variant: Variant, fen: &str, expected: &[&str]) {
    let mut want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(moves(variant, fen), want, "{variant} {fen}");
}

fn paths_of<R: Rules>(fen: &str) -> Vec<(String, Vec<String>)> {
    let pos = parse_fen::<R>(fen).unwrap_or_else(|e| panic!("{} {fen}: {e}", R::VARIANT));
    let legal = legal_moves(&pos);
    check_consistency(fen, &pos, &legal);
    let mut out: Vec<(String, Vec<String>)> = legal
        .iter()
        .map(|lm| {
            let mut paths: Vec<String> = lm
                .paths
                .iter()
                .map(|p| {
                    let one = LegalMove {
                        mv: lm.mv,
                        paths: vec![p.clone()],
                    };
                    describe(R::VARIANT, &one)
                })
                .collect();
            paths.sort();
            (describe(R::VARIANT, lm), paths)
        })
        .collect();
    out.sort();
    out
}

/// Every legal move with all of its capture paths (each described as in [`describe`]).
fn all_paths(variant: Variant, fen: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = with_rules!(variant, R => paths_of::<R>(fen))
        .into_iter()
        .map(|(_, paths)| paths)
        .collect();
    out.sort();
    out
}

// ---------------------------------------------------------------------------------------------
// Common to all variants
// ---------------------------------------------------------------------------------------------

/// Capture is compulsory: one capture on the board hides every quiet move of every piece.
#[test]
fn compulsory_capture_hides_quiet_moves() {
    // English, c3 (22) takes d4 (18); g3 (24) could go to f4 or h4 but may not.
    //    8   .   .   .   .
    //    7 .   .   .   .
    //    6   .   .   .   .
    //    5 .   .   .   .
    //    4   .   b   .   .
    //    3 .   w   .   w
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(English, "W:W22,24:B18", &["22x15 [18]"]);
    // The same pieces with Black to move: d4 takes c3 and lands on b2 (25).
    assert_moves(English, "B:W22,24:B18", &["18x25 [22]"]);
    // Italian: d3 (22) takes e4 (19); h3 (24) could go to g4.
    //    8 .   .   .   .
    //    7   .   .   .   .
    //    6 .   .   .   .
    //    5   .   .   .   .
    //    4 .   .   b   .
    //    3   .   w   .   w
    //    2 .   .   .   .
    //    1   .   .   .   .
    //      a b c d e f g h
    assert_moves(Italian, "W:W22,24:B19", &["22x15 [19]"]);
    // Spanish: d3 (11) takes e4 (14); h3 (9) could go to g4.
    //    8 .   .   .   .
    //    7   .   .   .   .
    //    6 .   .   .   .
    //    5   .   .   .   .
    //    4 .   .   b   .
    //    3   .   w   .   w
    //    2 .   .   .   .
    //    1   .   .   .   .
    //      a b c d e f g h
    assert_moves(Spanish, "W:W9,11:B14", &["11x18 [14]"]);
    // Russian and Brazilian: c3 takes d4; g3 and the king on h2 (g1) have quiet moves.
    //    8   .   .   .   .
    //    7 .   .   .   .
    //    6   .   .   .   .
    //    5 .   .   .   .
    //    4   .   b   .   .
    //    3 .   w   .   w
    //    2   .   .   .   W
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(Russian, "W:Wc3,g3,Kh2:Bd4", &["c3:e5 [d4]"]);
    assert_moves(Brazilian, "W:Wc3,g3,Kh2:Bd4", &["c3xe5 [d4]"]);
    // International: c3 (37) takes d4 (32); g3 (39) has two quiet moves.
    //   10   .   .   .   .   .
    //    9 .   .   .   .   .
    //    8   .   .   .   .   .
    //    7 .   .   .   .   .
    //    6   .   .   .   .   .
    //    5 .   .   .   .   .
    //    4   .   b   .   .   .
    //    3 .   w   .   w   .
    //    2   .   .   .   .   .
    //    1 .   .   .   .   .
    //      a b c d e f g h i j
    assert_moves(International, "W:W37,39:B32", &["37x28 [32]"]);
    // Turkish: d4 takes d5; g2 could step to g3, f2 or h2.
    //    8 . . . . . . . .
    //    7 . . . . . . . .
    //    6 . . . . . . . .
    //    5 . . . b . . . .
    //    4 . . . w . . . .
    //    3 . . . . . . . .
    //    2 . . . . . . w .
    //    1 . . . . . . . .
    //      a b c d e f g h
    assert_moves(Turkish, "W:Wd4,g2:Bd5", &["d4xd6 [d5]"]);
}

/// A capture sequence is one move and must be completed: a piece that can jump again goes on.
#[test]
fn capture_sequences_are_completed() {
    // English: c3 (22) takes d4 (18) to e5 (15) and must go on over f6 (11) to g7 (8).
    //    8   .   .   .   .
    //    7 .   .   .   .
    //    6   .   .   b   .
    //    5 .   .   .   .
    //    4   .   b   .   .
    //    3 .   w   .   w
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(English, "W:W22,24:B18,11", &["22x15x8 [18,11]"]);
    // Russian (free choice, so no precedence rule forces it): c3:e5 alone is not a move.
    //    8   .   .   .   .
    //    7 .   .   .   .
    //    6   .   .   b   .
    //    5 .   .   .   .
    //    4   .   b   .   .
    //    3 .   w   .   .
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(Russian, "W:Wc3:Bd4,f6", &["c3:e5:g7 [d4,f6]"]);
    // International: 37x28 must go on to 19.
    //   10   .   .   .   .   .
    //    9 .   .   .   .   .
    //    8   .   .   .   .   .
    //    7 .   .   .   .   .
    //    6   .   .   b   .   .
    //    5 .   .   .   .   .
    //    4   .   b   .   .   .
    //    3 .   w   .   .   .
    //    2   .   .   .   .   .
    //    1 .   .   .   .   .
    //      a b c d e f g h i j
    assert_moves(International, "W:W37:B32,23", &["37x28x19 [32,23]"]);
    // Turkish: d4 takes d5 and d7 and is crowned on d8.
    //    8 . . . . . . . .
    //    7 . . . b . . . .
    //    6 . . . . . . . .
    //    5 . . . b . . . .
    //    4 . . . w . . . .
    //    3 . . . . . . . .
    //    2 . . . . . . . .
    //    1 . . . . . . . .
    //      a b c d e f g h
    assert_moves(Turkish, "W:Wd4:Bd5,d7", &["d4xd6xd8 [d5,d7] crowned"]);
}

/// Men capture backward in Russian, Brazilian and International only.
#[test]
fn men_capture_backward_only_where_allowed() {
    // Italian: d3 (22) with e2 (27) behind it and f1 empty: it just steps to c4 or e4.
    //    8 .   .   .   .
    //    7   .   .   .   .
    //    6 .   .   .   .
    //    5   .   .   .   .
    //    4 .   .   .   .
    //    3   .   w   .   .
    //    2 .   .   b   .
    //    1   .   .   .   .
    //      a b c d e f g h
    assert_moves(Italian, "W:W22:B27", &["22-18", "22-19"]);
    // Spanish: d3 (11) with e2 (6) behind it: steps to e4 (14) or c4 (15).
    //    8 .   .   .   .
    //    7   .   .   .   .
    //    6 .   .   .   .
    //    5   .   .   .   .
    //    4 .   .   .   .
    //    3   .   w   .   .
    //    2 .   .   b   .
    //    1   .   .   .   .
    //      a b c d e f g h
    assert_moves(Spanish, "W:W11:B6", &["11-14", "11-15"]);
    // Russian and Brazilian: d4 takes c3 backward.
    //    8   .   .   .   .
    //    7 .   .   .   .
    //    6   .   .   .   .
    //    5 .   .   .   .
    //    4   .   w   .   .
    //    3 .   b   .   .
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(Russian, "W:Wd4:Bc3", &["d4:b2 [c3]"]);
    assert_moves(Brazilian, "W:Wd4:Bc3", &["d4xb2 [c3]"]);
    // International: d4 (32) takes c3 (37) backward, landing on b2 (41).
    //   10   .   .   .   .   .
    //    9 .   .   .   .   .
    //    8   .   .   .   .   .
    //    7 .   .   .   .   .
    //    6   .   .   .   .   .
    //    5 .   .   .   .   .
    //    4   .   w   .   .   .
    //    3 .   b   .   .   .
    //    2   .   .   .   .   .
    //    1 .   .   .   .   .
    //      a b c d e f g h i j
    assert_moves(International, "W:W32:B37", &["32x41 [37]"]);
    // English and Turkish: see `english_men_forward_only` and `turkish_men`.
}

/// Two paths that take the same pieces and end on the same square are one move.
#[test]
fn duplicate_captures_are_one_move() {
    // International: the man on c3 (37) runs round the diamond d4-d6-b6-b4 in either
    // direction, takes the same four men and ends back on 37: one move with two paths.
    //   10   .   .   .   .   .
    //    9 .   .   .   .   .
    //    8   .   .   .   .   .
    //    7 .   .   .   .   .
    //    6   b   b   .   .   .
    //    5 .   .   .   .   .
    //    4   b   b   .   .   .
    //    3 .   w   .   .   .
    //    2   .   .   .   .   .
    //    1 .   .   .   .   .
    //      a b c d e f g h i j
    assert_eq!(
        all_paths(International, "W:W37:B32,22,21,31"),
        vec![vec![
            "37x26x17x28x37 [31,21,22,32]".to_string(),
            "37x28x17x26x37 [32,22,21,31]".to_string(),
        ]]
    );
    // After it Black has no piece left, and so no move.
    let pos = parse_fen::<damka::rules::International>("W:W37:B32,22,21,31").unwrap();
    let legal = legal_moves(&pos);
    let next = pos.play(&legal[0].mv);
    assert_eq!(write_fen(&next), "B:W37:B");
    assert!(legal_moves(&next).is_empty());
    assert_eq!(perft(&next, 1), 0);

    // Russian, the same diamond on 8x8 (free choice, the sequence must still be completed).
    //    8   .   .   .   .
    //    7 .   .   .   .
    //    6   b   b   .   .
    //    5 .   .   .   .
    //    4   b   b   .   .
    //    3 .   w   .   .
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_eq!(
        all_paths(Russian, "W:Wc3:Bd4,d6,b6,b4"),
        vec![vec![
            "c3:a5:c7:e5:c3 [b4,b6,d6,d4]".to_string(),
            "c3:e5:c7:a5:c3 [d4,d6,b6,b4]".to_string(),
        ]]
    );
    // Brazilian, the same.
    assert_eq!(
        all_paths(Brazilian, "W:Wc3:Bd4,d6,b6,b4"),
        vec![vec![
            "c3xa5xc7xe5xc3 [b4,b6,d6,d4]".to_string(),
            "c3xe5xc7xa5xc3 [d4,d6,b6,b4]".to_string(),
        ]]
    );

    // International: the king a1 (46) takes c3 (37), landing on d4 (32) or e5 (28), from
    // either of which it takes f6 (23) and lands on g7, h8, i9 or j10 (19, 14, 10, 5): four
    // moves of two paths each.
    //   10   .   .   .   .   .
    //    9 .   .   .   .   .
    //    8   .   .   .   .   .
    //    7 .   .   .   .   .
    //    6   .   .   b   .   .
    //    5 .   .   .   .   .
    //    4   .   .   .   .   .
    //    3 .   b   .   .   .
    //    2   .   .   .   .   .
    //    1 W   .   .   .   .
    //      a b c d e f g h i j
    assert_eq!(
        all_paths(International, "W:WK46:B37,23"),
        vec![
            vec!["46x28x10 [37,23]", "46x32x10 [37,23]"],
            vec!["46x28x14 [37,23]", "46x32x14 [37,23]"],
            vec!["46x28x19 [37,23]", "46x32x19 [37,23]"],
            vec!["46x28x5 [37,23]", "46x32x5 [37,23]"],
        ]
    );
    // Russian, the same on 8x8: a1 takes c3 (landing d4 or e5) then f6 (landing g7 or h8).
    //    8   .   .   .   .
    //    7 .   .   .   .
    //    6   .   .   b   .
    //    5 .   .   .   .
    //    4   .   .   .   .
    //    3 .   b   .   .
    //    2   .   .   .   .
    //    1 W   .   .   .
    //      a b c d e f g h
    assert_eq!(
        all_paths(Russian, "W:WKa1:Bc3,f6"),
        vec![
            vec!["a1:d4:g7 [c3,f6]", "a1:e5:g7 [c3,f6]"],
            vec!["a1:d4:h8 [c3,f6]", "a1:e5:h8 [c3,f6]"],
        ]
    );
    // Turkish: a1 takes a3 (landing a4 or a5) then a6 (landing a7 or a8).
    //    8 . . . . . . . .
    //    7 . . . . . . . .
    //    6 b . . . . . . .
    //    5 . . . . . . . .
    //    4 . . . . . . . .
    //    3 b . . . . . . .
    //    2 . . . . . . . .
    //    1 W . . . . . . .
    //      a b c d e f g h
    assert_eq!(
        all_paths(Turkish, "W:WKa1:Ba3,a6"),
        vec![
            vec!["a1xa4xa7 [a3,a6]", "a1xa5xa7 [a3,a6]"],
            vec!["a1xa4xa8 [a3,a6]", "a1xa5xa8 [a3,a6]"],
        ]
    );
}

/// The side to move with no piece, or with every piece blocked, has no legal move.
#[test]
fn no_piece_or_no_move_means_no_legal_move() {
    // No white piece at all.
    assert_moves(English, "W:W:B1", &[]);
    assert_moves(International, "W:W:B1", &[]);
    assert_moves(Turkish, "W:W:Bh7", &[]);
    assert_moves(Russian, "B:Wc3:B", &[]);
    // English: a1 (29) is blocked by b2 (25), and c3 (22) behind it stops the jump.
    //    8   .   .   .   .
    //    7 .   .   .   .
    //    6   .   .   .   .
    //    5 .   .   .   .
    //    4   .   .   .   .
    //    3 .   b   .   .
    //    2   b   .   .   .
    //    1 w   .   .   .
    //      a b c d e f g h
    assert_moves(English, "W:W29:B25,22", &[]);
    // Turkish: a1 is boxed in by a2/a3 and the kings on b1/c1 (no jump: a3 and c1 are taken).
    //    8 . . . . . . . .
    //    7 . . . . . . . .
    //    6 . . . . . . . .
    //    5 . . . . . . . .
    //    4 . . . . . . . .
    //    3 b . . . . . . .
    //    2 b . . . . . . .
    //    1 w B B . . . . .
    //      a b c d e f g h
    assert_moves(Turkish, "W:Wa1:Ba2,a3,Kb1,Kc1", &[]);
    // International: the man on 46 (a1) is blocked by 41 (b2), with 37 (c3) behind it.
    assert_moves(International, "W:W46:B41,37", &[]);
}

// ---------------------------------------------------------------------------------------------
// English
// ---------------------------------------------------------------------------------------------

/// English men move and capture forward only; Black's forward is down.
#[test]
fn english_men_forward_only() {
    // d4 (18) with c3 (22) behind it and b2 (25) empty: no backward capture.
    //    8   .   .   .   b
    //    7 .   .   .   .
    //    6   .   .   .   .
    //    5 .   .   .   .
    //    4   .   w   .   .
    //    3 .   b   .   .
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(English, "W:W18:B22,4", &["18-14", "18-15"]);
    // A king does take backward.
    assert_moves(English, "W:WK18:B22,4", &["18x25 [22]"]);
    // Black's man on c7 (6) moves down to b6 (9) or d6 (10).
    //    8   .   .   .   .
    //    7 .   b   .   .
    //    6   .   .   .   .
    //    5 .   .   .   .
    //    4   .   .   .   .
    //    3 .   .   .   .
    //    2   .   .   .   .
    //    1 .   w   .   .
    //      a b c d e f g h
    assert_moves(English, "B:W30:B6", &["6-10", "6-9"]);
}

/// English kings move and capture one square at a time.
#[test]
fn english_short_kings() {
    // The king on d4 (18) steps to c5, e5, c3, e3; the man on f6 (11) is out of reach.
    //    8   .   .   .   .
    //    7 .   .   .   .
    //    6   .   .   b   .
    //    5 .   .   .   .
    //    4   .   W   .   .
    //    3 .   .   .   .
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(English, "W:WK18:B11", &["18-14", "18-15", "18-22", "18-23"]);
    // Taking e5 (15) it lands on f6 (11) only, not on g7 or h8.
    //    8   .   .   .   .
    //    7 .   .   .   .
    //    6   .   .   .   .
    //    5 .   .   b   .
    //    4   .   W   .   .
    //    3 .   .   .   .
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(English, "W:WK18:B15", &["18x11 [15]"]);
}

/// A man crowned mid-capture stops, even where it could go on as a king.
#[test]
fn english_crowning_ends_the_move() {
    // b6 (9) takes c7 (6) and is crowned on d8 (2); as a king it could take e7 (7), but the
    // move ends.
    //    8   .   .   .   .
    //    7 .   b   b   .
    //    6   w   .   .   .
    //    5 .   .   .   .
    //    4   .   .   .   .
    //    3 .   .   .   .
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(English, "W:W9:B6,7", &["9x2 [6] crowned"]);
    // A king on b6 goes on.
    assert_moves(English, "W:WK9:B6,7", &["9x2x11 [6,7]"]);
    // A quiet move to the last row crowns too: a7 (5) to b8 (1).
    assert_moves(English, "W:W5:B28", &["5-1 crowned"]);
}

/// Free choice: any capture may be chosen, not necessarily the longest.
#[test]
fn english_free_choice() {
    // c3 (22) may take two (d4, f6) or one (b4); a3 (21) may take b4.
    //    8   .   .   .   .
    //    7 .   .   .   .
    //    6   .   .   b   .
    //    5 .   .   .   .
    //    4   b   b   .   .
    //    3 w   w   .   .
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(
        English,
        "W:W21,22:B17,18,11",
        &["21x14 [17]", "22x13 [17]", "22x15x8 [18,11]"],
    );
}

// ---------------------------------------------------------------------------------------------
// Italian
// ---------------------------------------------------------------------------------------------

/// Italian precedence (1): the most pieces, even against a capture with a king.
#[test]
fn italian_most_pieces() {
    // The man d3 (22) takes e4 (19) and g6 (12); the king a2 (25) takes only b3 (21).
    //    8 .   .   .   .
    //    7   .   .   .   .
    //    6 .   .   .   b
    //    5   .   .   .   .
    //    4 .   .   b   .
    //    3   b   w   .   .
    //    2 W   .   .   .
    //    1   .   .   .   .
    //      a b c d e f g h
    assert_moves(Italian, "W:W22,K25:B19,12,21", &["22x15x8 [19,12]"]);
}

/// Italian precedence (2): with equal counts, capture with a king rather than a man.
#[test]
fn italian_king_captures_first() {
    // King b5 (13) takes c6 (10); man d3 (22) takes e4 (19). One piece each.
    //    8 .   .   .   .
    //    7   .   .   .   .
    //    6 .   b   .   .
    //    5   W   .   .   .
    //    4 .   .   b   .
    //    3   .   w   .   .
    //    2 .   .   .   .
    //    1   .   .   .   .
    //      a b c d e f g h
    assert_moves(Italian, "W:WK13,22:B19,10", &["13x6 [10]"]);
}

/// Italian precedence (3): most kings captured, before the king-met-earliest rule.
#[test]
fn italian_most_kings() {
    // One piece each: the king d3 (22) takes the king e4 (19) rather than the man c4 (18).
    //    8 .   .   .   .
    //    7   .   .   .   .
    //    6 .   .   .   .
    //    5   .   .   .   .
    //    4 .   b   B   .
    //    3   .   W   .   .
    //    2 .   .   .   .
    //    1   .   .   .   .
    //      a b c d e f g h
    assert_moves(Italian, "W:WK22:BK19,18", &["22x15 [19]"]);
    // Three pieces each, both by kings. b1 (29) takes man, king, king (c2, c4, c6); h1 (32)
    // takes king, man, man (g2, g4, g6): two kings beat one, though h1 meets a king first.
    //    8 .   .   .   .
    //    7   .   .   .   .
    //    6 .   B   .   b
    //    5   .   .   .   .
    //    4 .   B   .   b
    //    3   .   .   .   .
    //    2 .   b   .   B
    //    1   W   .   .   W
    //      a b c d e f g h
    assert_moves(
        Italian,
        "W:WK29,K32:B26,K18,K10,K28,20,12",
        &["29x22x13x6 [26,18,10]"],
    );
}

/// Italian precedence (4): the sequence that meets a king earliest; still equal: free.
#[test]
fn italian_king_met_earliest() {
    // Two pieces each, one king each: b1 (29) takes the king c2 first, h1 (32) takes the
    // king g4 second.
    //    8 .   .   .   .
    //    7   .   .   .   .
    //    6 .   .   .   .
    //    5   .   .   .   .
    //    4 .   b   .   B
    //    3   .   .   .   .
    //    2 .   B   .   b
    //    1   W   .   .   W
    //      a b c d e f g h
    assert_moves(Italian, "W:WK29,K32:BK26,18,28,K20", &["29x22x13 [26,18]"]);
    // Both meet the king first: free choice.
    //    8 .   .   .   .
    //    7   .   .   .   .
    //    6 .   .   .   .
    //    5   .   .   .   .
    //    4 .   b   .   b
    //    3   .   .   .   .
    //    2 .   B   .   B
    //    1   W   .   .   W
    //      a b c d e f g h
    assert_moves(
        Italian,
        "W:WK29,K32:BK26,18,K28,20",
        &["29x22x13 [26,18]", "32x23x16 [28,20]"],
    );
}

/// An Italian man crowned mid-capture stops, as in English.
#[test]
fn italian_crowning_ends_the_move() {
    // c6 (10) takes d7 (6) and is crowned on e8 (3); as a king it could take f7 (7) next.
    //    8 .   .   .   .
    //    7   .   b   b   .
    //    6 .   w   .   .
    //    5   .   .   .   .
    //    4 .   .   .   .
    //    3   .   .   .   .
    //    2 .   .   .   .
    //    1   .   .   .   .
    //      a b c d e f g h
    assert_moves(Italian, "W:W10:B6,7", &["10x3 [6] crowned"]);
}

/// Italian men never capture kings, not even in the middle of a sequence.
#[test]
fn italian_men_do_not_capture_kings() {
    // d3 (22) faces the king e4 (19) with f5 empty: no capture, the man steps to c4 (18).
    //    8 .   .   .   .
    //    7   .   .   .   .
    //    6 .   .   .   .
    //    5   .   .   .   .
    //    4 .   .   B   .
    //    3   .   w   .   .
    //    2 .   .   .   .
    //    1   .   .   .   .
    //      a b c d e f g h
    assert_moves(Italian, "W:W22:BK19", &["22-18"]);
    // d3 takes the man e4 and stops on f5 (15): the king g6 (12) is out of bounds for it.
    //    8 .   .   .   .
    //    7   .   .   .   .
    //    6 .   .   .   B
    //    5   .   .   .   .
    //    4 .   .   b   .
    //    3   .   w   .   .
    //    2 .   .   .   .
    //    1   .   .   .   .
    //      a b c d e f g h
    assert_moves(Italian, "W:W22:B19,K12", &["22x15 [19]"]);
    // A king takes a king.
    assert_moves(Italian, "W:WK22:BK19", &["22x15 [19]"]);
    // An English man takes a king: c3 (22) takes the king d4 (18).
    assert_moves(English, "W:W22:BK18", &["22x15 [18]"]);
}

// ---------------------------------------------------------------------------------------------
// Spanish
// ---------------------------------------------------------------------------------------------

/// Spanish kings fly: any distance, and any landing square beyond the piece taken.
#[test]
fn spanish_flying_kings() {
    // The king h1 (1) on the long diagonal h1-a8.
    //    8 .   .   .   .
    //    7   .   .   .   b
    //    6 .   .   .   .
    //    5   .   .   .   .
    //    4 .   .   .   .
    //    3   .   .   .   .
    //    2 .   .   .   .
    //    1   .   .   .   W
    //      a b c d e f g h
    assert_moves(
        Spanish,
        "W:WK1:B25",
        &["1-5", "1-10", "1-14", "1-19", "1-23", "1-28", "1-32"],
    );
    // It takes d5 (19) from afar and lands on c6 (23), b7 (28) or a8 (32).
    //    8 .   .   .   .
    //    7   .   .   .   .
    //    6 .   .   .   .
    //    5   .   b   .   .
    //    4 .   .   .   .
    //    3   .   .   .   .
    //    2 .   .   .   .
    //    1   .   .   .   W
    //      a b c d e f g h
    assert_moves(
        Spanish,
        "W:WK1:B19",
        &["1x23 [19]", "1x28 [19]", "1x32 [19]"],
    );
}

/// Spanish precedence: most pieces, then most kings, then free (a king is not preferred).
#[test]
fn spanish_most_pieces_then_most_kings() {
    // d3 (11) takes two men (e4, g6) rather than the king c4 (15).
    //    8 .   .   .   .
    //    7   .   .   .   .
    //    6 .   .   .   b
    //    5   .   .   .   .
    //    4 .   B   b   .
    //    3   .   w   .   .
    //    2 .   .   .   .
    //    1   .   .   .   .
    //      a b c d e f g h
    assert_moves(Spanish, "W:W11:B14,21,K15", &["11x18x25 [14,21]"]);
    // One piece either way: the king e4 (14) rather than the man c4 (15).
    //    8 .   .   .   .
    //    7   .   .   .   .
    //    6 .   .   .   .
    //    5   .   .   .   .
    //    4 .   b   B   .
    //    3   .   w   .   .
    //    2 .   .   .   .
    //    1   .   .   .   .
    //      a b c d e f g h
    assert_moves(Spanish, "W:W11:BK14,15", &["11x18 [14]"]);
    // One man either way, by a man (d3 takes e4) or by the king a4 (takes c6, lands d7 or
    // e8): all three are legal.
    //    8 .   .   .   .
    //    7   .   .   .   .
    //    6 .   b   .   .
    //    5   .   .   .   .
    //    4 W   .   b   .
    //    3   .   w   .   .
    //    2 .   .   .   .
    //    1   .   .   .   .
    //      a b c d e f g h
    assert_moves(
        Spanish,
        "W:W11,K16:B14,23",
        &["11x18 [14]", "16x27 [23]", "16x30 [23]"],
    );
}

// ---------------------------------------------------------------------------------------------
// Russian
// ---------------------------------------------------------------------------------------------

/// Russian men capture backward.
#[test]
fn russian_men_capture_backward() {
    //    8   .   .   .   .
    //    7 .   .   .   .
    //    6   .   .   .   .
    //    5 .   .   .   .
    //    4   .   w   .   .
    //    3 .   b   .   .
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(Russian, "W:Wd4:Bc3", &["d4:b2 [c3]"]);
}

/// A man crowned mid-capture goes on at once as a flying king, in the same move.
#[test]
fn russian_promotion_continues_as_king() {
    // b6 takes c7, is crowned on d8 and, flying, takes f6 two squares away: lands g5 or h4.
    //    8   .   .   .   .
    //    7 .   b   .   .
    //    6   w   .   b   .
    //    5 .   .   .   .
    //    4   .   .   .   .
    //    3 .   .   .   .
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(
        Russian,
        "W:Wb6:Bc7,f6",
        &["b6:d8:g5 [c7,f6] crowned", "b6:d8:h4 [c7,f6] crowned"],
    );
    // With the second man on e7, the new king lands anywhere beyond it.
    //    8   .   .   .   .
    //    7 .   b   b   .
    //    6   w   .   .   .
    //    5 .   .   .   .
    //    4   .   .   .   .
    //    3 .   .   .   .
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(
        Russian,
        "W:Wb6:Bc7,e7",
        &[
            "b6:d8:f6 [c7,e7] crowned",
            "b6:d8:g5 [c7,e7] crowned",
            "b6:d8:h4 [c7,e7] crowned",
        ],
    );
    // Crowned on d8, the king takes e7 and must land on f6 (not g5 or h4), the only square
    // from which it can take g7 (landing h8).
    //    8   .   .   .   .
    //    7 .   b   b   b
    //    6   w   .   .   .
    //    5 .   .   .   .
    //    4   .   .   .   .
    //    3 .   .   .   .
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(
        Russian,
        "W:Wb6:Bc7,e7,g7",
        &["b6:d8:f6:h8 [c7,e7,g7] crowned"],
    );
    // The new king obeys the landing rule: after f6 only h4 lets it go on (over g3, landing
    // f2 or e1), so g5 is not a legal stop.
    //    8   .   .   .   .
    //    7 .   b   .   .
    //    6   w   .   b   .
    //    5 .   .   .   .
    //    4   .   .   .   .
    //    3 .   .   .   b
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(
        Russian,
        "W:Wb6:Bc7,f6,g3",
        &[
            "b6:d8:h4:e1 [c7,f6,g3] crowned",
            "b6:d8:h4:f2 [c7,f6,g3] crowned",
        ],
    );
}

/// Free choice in Russian: a shorter capture may be chosen.
#[test]
fn russian_free_choice() {
    // c3 may take d4 and f6, or b4 alone.
    //    8   .   .   .   .
    //    7 .   .   .   .
    //    6   .   .   b   .
    //    5 .   .   .   .
    //    4   b   b   .   .
    //    3 .   w   .   .
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(
        Russian,
        "W:Wc3:Bd4,f6,b4",
        &["c3:a5 [b4]", "c3:e5:g7 [d4,f6]"],
    );
}

/// A flying king must land where it can capture again if any landing square allows it.
#[test]
fn russian_king_lands_where_it_can_continue() {
    // Alone, c3 can be taken with a landing on any of d4-h8.
    //    8   .   .   .   .
    //    7 .   .   .   .
    //    6   .   .   .   .
    //    5 .   .   .   .
    //    4   .   .   .   .
    //    3 .   b   .   .
    //    2   .   .   .   .
    //    1 W   .   .   .
    //      a b c d e f g h
    assert_moves(
        Russian,
        "W:WKa1:Bc3",
        &[
            "a1:d4 [c3]",
            "a1:e5 [c3]",
            "a1:f6 [c3]",
            "a1:g7 [c3]",
            "a1:h8 [c3]",
        ],
    );
    // With b6 and f4 added, only d4 (then b6, landing a7) and e5 (then f4, landing g3 or h2)
    // allow a second capture: the king must stop on one of them, not on f6, g7 or h8.
    //    8   .   .   .   .
    //    7 .   .   .   .
    //    6   b   .   .   .
    //    5 .   .   .   .
    //    4   .   .   b   .
    //    3 .   b   .   .
    //    2   .   .   .   .
    //    1 W   .   .   .
    //      a b c d e f g h
    assert_moves(
        Russian,
        "W:WKa1:Bc3,f4,b6",
        &["a1:d4:a7 [c3,b6]", "a1:e5:g3 [c3,f4]", "a1:e5:h2 [c3,f4]"],
    );
}

// ---------------------------------------------------------------------------------------------
// Brazilian
// ---------------------------------------------------------------------------------------------

/// A Brazilian man passing the crown row mid-capture stays a man and goes on as a man.
#[test]
fn brazilian_man_passes_the_crown_row() {
    // b6 takes c7 to d8, then as a man takes e7 backward and ends on f6: not crowned (a king
    // could also have landed on g5 or h4).
    //    8   .   .   .   .
    //    7 .   b   b   .
    //    6   w   .   .   .
    //    5 .   .   .   .
    //    4   .   .   .   .
    //    3 .   .   .   .
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(Brazilian, "W:Wb6:Bc7,e7", &["b6xd8xf6 [c7,e7]"]);
    // Going on as a man from f6 over g7, it ends on the crown row again (h8): crowned.
    //    8   .   .   .   .
    //    7 .   b   b   b
    //    6   w   .   .   .
    //    5 .   .   .   .
    //    4   .   .   .   .
    //    3 .   .   .   .
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(
        Brazilian,
        "W:Wb6:Bc7,e7,g7",
        &["b6xd8xf6xh8 [c7,e7,g7] crowned"],
    );
    // f6 is out of a man's reach from d8: the move ends on d8 and the man is crowned.
    //    8   .   .   .   .
    //    7 .   b   .   .
    //    6   w   .   b   .
    //    5 .   .   .   .
    //    4   .   .   .   .
    //    3 .   .   .   .
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(Brazilian, "W:Wb6:Bc7,f6", &["b6xd8 [c7] crowned"]);
}

/// Brazilian quantity rule: the most pieces, a king counting as one.
#[test]
fn brazilian_majority_capture() {
    // c3 takes d4 and f6 rather than the king b4.
    //    8   .   .   .   .
    //    7 .   .   .   .
    //    6   .   .   b   .
    //    5 .   .   .   .
    //    4   B   b   .   .
    //    3 .   w   .   .
    //    2   .   .   .   .
    //    1 .   .   .   .
    //      a b c d e f g h
    assert_moves(Brazilian, "W:Wc3:Bd4,f6,Kb4", &["c3xe5xg7 [d4,f6]"]);
    // A flying king: one capture, every landing square.
    assert_moves(
        Brazilian,
        "W:WKa1:Bc3",
        &[
            "a1xd4 [c3]",
            "a1xe5 [c3]",
            "a1xf6 [c3]",
            "a1xg7 [c3]",
            "a1xh8 [c3]",
        ],
    );
    // Two pieces on every continuing path.
    assert_moves(
        Brazilian,
        "W:WKa1:Bc3,f4,b6",
        &["a1xd4xa7 [c3,b6]", "a1xe5xg3 [c3,f4]", "a1xe5xh2 [c3,f4]"],
    );
}

// ---------------------------------------------------------------------------------------------
// International
// ---------------------------------------------------------------------------------------------

/// International majority capture: most pieces, a king counting as one piece, no preference
/// for kings taken nor for capturing with a king.
#[test]
fn international_majority_capture() {
    // c3 (37) takes two men (32, 23); g3 (39) takes only the king h4 (34).
    //   10   .   .   .   .   .
    //    9 .   .   .   .   .
    //    8   .   .   .   .   .
    //    7 .   .   .   .   .
    //    6   .   .   b   .   .
    //    5 .   .   .   .   .
    //    4   .   b   .   B   .
    //    3 .   w   .   w   .
    //    2   .   .   .   .   .
    //    1 .   .   .   .   .
    //      a b c d e f g h i j
    assert_moves(International, "W:W37,39:B32,23,K34", &["37x28x19 [32,23]"]);
    // One piece each, a man or a king: free choice.
    //   10   .   .   .   .   .
    //    9 .   .   .   .   .
    //    8   .   .   .   .   .
    //    7 .   .   .   .   .
    //    6   .   .   .   .   .
    //    5 .   .   .   .   .
    //    4   .   b   .   B   .
    //    3 .   w   .   w   .
    //    2   .   .   .   .   .
    //    1 .   .   .   .   .
    //      a b c d e f g h i j
    assert_moves(
        International,
        "W:W37,39:B32,K34",
        &["37x28 [32]", "39x30 [34]"],
    );
}

/// International flying kings: any landing square after the last capture.
#[test]
fn international_flying_king() {
    // The king a1 (46) takes d4 (32) and may land on any of e5..j10.
    //   10   .   .   .   .   .
    //    9 .   .   .   .   .
    //    8   .   .   .   .   .
    //    7 .   .   .   .   .
    //    6   .   .   .   .   .
    //    5 .   .   .   .   .
    //    4   .   b   .   .   .
    //    3 .   .   .   .   .
    //    2   .   .   .   .   .
    //    1 W   .   .   .   .
    //      a b c d e f g h i j
    assert_moves(
        International,
        "W:WK46:B32",
        &[
            "46x28 [32]",
            "46x23 [32]",
            "46x19 [32]",
            "46x14 [32]",
            "46x10 [32]",
            "46x5 [32]",
        ],
    );
    // With h4 (34) added, only f6 (23) lets it go on; after h4 it lands on i3 (40) or j2 (45).
    //   10   .   .   .   .   .
    //    9 .   .   .   .   .
    //    8   .   .   .   .   .
    //    7 .   .   .   .   .
    //    6   .   .   .   .   .
    //    5 .   .   .   .   .
    //    4   .   b   .   b   .
    //    3 .   .   .   .   .
    //    2   .   .   .   .   .
    //    1 W   .   .   .   .
    //      a b c d e f g h i j
    assert_moves(
        International,
        "W:WK46:B32,34",
        &["46x23x40 [32,34]", "46x23x45 [32,34]"],
    );
}

/// "Turkish strike": a captured piece stays on its square until the move ends, so it cannot
/// be jumped twice and it blocks the capturing piece.
#[test]
fn international_captured_pieces_block() {
    // The king c3 (37) takes e5 (28) and must land on f6 (23) (g7 is its own man). Turning
    // back toward b2 (41) it would meet e5 again: blocked. Taking b2 first (landing a1), it
    // meets b2 again on the way back to e5. So one piece either way.
    //   10   .   .   .   .   .
    //    9 .   .   .   .   .
    //    8   .   .   .   .   .
    //    7 .   .   .   w   .
    //    6   .   .   .   .   .
    //    5 .   .   b   .   .
    //    4   .   .   .   .   .
    //    3 .   W   .   .   .
    //    2   b   .   .   .   .
    //    1 .   .   .   .   .
    //      a b c d e f g h i j
    assert_moves(
        International,
        "W:WK37,19:B28,41",
        &["37x23 [28]", "37x46 [41]"],
    );
}

/// An International man passing the crown row mid-capture goes on as a man.
#[test]
fn international_man_passes_the_crown_row() {
    // b8 (11) takes c9 (7) to d10 (2), then e9 (8) backward to f8 (13): not crowned.
    //   10   .   .   .   .   .
    //    9 .   b   b   .   .
    //    8   w   .   .   .   .
    //    7 .   .   .   .   .
    //    6   .   .   .   .   .
    //    5 .   .   .   .   .
    //    4   .   .   .   .   .
    //    3 .   .   .   .   .
    //    2   .   .   .   .   .
    //    1 .   .   .   .   .
    //      a b c d e f g h i j
    assert_moves(International, "W:W11:B7,8", &["11x2x13 [7,8]"]);
    // Ending on d10 it is crowned.
    assert_moves(International, "W:W11:B7", &["11x2 [7] crowned"]);
}

// ---------------------------------------------------------------------------------------------
// Turkish
// ---------------------------------------------------------------------------------------------

/// Turkish men move one square forward or sideways; they capture forward or sideways only.
#[test]
fn turkish_men() {
    //    8 . . . . . . . .
    //    7 . . . . . . . b
    //    6 . . . . . . . .
    //    5 . . . . . . . .
    //    4 . . . w . . . .
    //    3 . . . . . . . .
    //    2 . . . . . . . .
    //    1 . . . . . . . .
    //      a b c d e f g h
    assert_moves(Turkish, "W:Wd4:Bh7", &["d4-c4", "d4-d5", "d4-e4"]);
    // d3 behind (d2 empty): no backward capture.
    assert_moves(Turkish, "W:Wd4:Bd3,h7", &["d4-c4", "d4-d5", "d4-e4"]);
    // e5 diagonal (f6 empty): no diagonal capture.
    assert_moves(Turkish, "W:Wd4:Be5,h7", &["d4-c4", "d4-d5", "d4-e4"]);
    // Sideways capture.
    assert_moves(Turkish, "W:Wd4:Bc4,h7", &["d4xb4 [c4]"]);
    // Forward capture.
    assert_moves(Turkish, "W:Wd4:Bd5,h7", &["d4xd6 [d5]"]);
    // Black's forward is down.
    assert_moves(Turkish, "B:Wa1:Bd5", &["d5-c5", "d5-d4", "d5-e5"]);
    // A quiet move to the last row crowns.
    assert_moves(Turkish, "W:Wd7:Ba2", &["d7-c7", "d7-d8 crowned", "d7-e7"]);
}

/// Turkish kings move and capture along rows and columns, any distance.
#[test]
fn turkish_flying_orthogonal_kings() {
    // The king d4: every square of its row and column; e5 (diagonal) cannot be taken.
    //    8 . . . . . . . .
    //    7 . . . . . . . .
    //    6 . . . . . . . .
    //    5 . . . . b . . .
    //    4 . . . W . . . .
    //    3 . . . . . . . .
    //    2 . . . . . . . .
    //    1 . . . . . . . .
    //      a b c d e f g h
    assert_moves(
        Turkish,
        "W:WKd4:Be5",
        &[
            "d4-a4", "d4-b4", "d4-c4", "d4-e4", "d4-f4", "d4-g4", "d4-h4", "d4-d1", "d4-d2",
            "d4-d3", "d4-d5", "d4-d6", "d4-d7", "d4-d8",
        ],
    );
    // a1 takes a5 from afar and lands on a6, a7 or a8.
    //    8 . . . . . . . .
    //    7 . . . . . . . .
    //    6 . . . . . . . .
    //    5 b . . . . . . .
    //    4 . . . . . . . .
    //    3 . . . . . . . .
    //    2 . . . . . . . .
    //    1 W . . . . . . .
    //      a b c d e f g h
    assert_moves(
        Turkish,
        "W:WKa1:Ba5",
        &["a1xa6 [a5]", "a1xa7 [a5]", "a1xa8 [a5]"],
    );
}

/// Turkish captured pieces leave the board at once: the king may cross the square again.
#[test]
fn turkish_immediate_removal() {
    // c1 takes c3 (landing c5), e5 (landing f5), f4 (landing f3), then along rank 3 crosses
    // c3, empty by now, to take b3 and land on a3. Four pieces; every other sequence takes at
    // most two (c1xc4 then f4 to g4/h4), so this is the only legal move.
    //    8 . . . . . . . .
    //    7 . . . . . . . .
    //    6 . . . . . . . .
    //    5 . . . . b . . .
    //    4 . . . . . b . .
    //    3 . b b . . . . .
    //    2 . . . . . . . .
    //    1 . . W . . . . .
    //      a b c d e f g h
    assert_moves(
        Turkish,
        "W:WKc1:Bc3,e5,f4,b3",
        &["c1xc5xf5xf3xa3 [c3,e5,f4,b3]"],
    );
    // The king's own starting square is empty too: d1 takes d3 (landing d4), f4 (landing g4),
    // g2 (landing g1), then along rank 1 crosses d1 to take the king b1 and land on a1. Taking
    // b1 at once (landing a1) is one piece; stopping on d5-d8 or h4 ends the sequence early.
    //    8 . . . . . . . .
    //    7 . . . . . . . .
    //    6 . . . . . . . .
    //    5 . . . . . . . .
    //    4 . . . . . b . .
    //    3 . . . b . . . .
    //    2 . . . . . . b .
    //    1 . B . W . . . .
    //      a b c d e f g h
    assert_moves(
        Turkish,
        "W:WKd1:Bd3,f4,g2,Kb1",
        &["d1xd4xg4xg1xa1 [d3,f4,g2,b1]"],
    );
}

/// A Turkish king may not turn 180 degrees between two jumps (90 degrees is allowed, above).
#[test]
fn turkish_no_reversal() {
    // d4 takes f4 (landing g4/h4) or b4 (landing a4). Turning back it could take the other
    // over the emptied squares, but that is a 180-degree turn.
    //    8 . . . . . . . .
    //    7 . . . . . . . .
    //    6 . . . . . . . .
    //    5 . . . . . . . .
    //    4 . b . W . b . .
    //    3 . . . . . . . .
    //    2 . . . . . . . .
    //    1 . . . . . . . .
    //      a b c d e f g h
    assert_moves(
        Turkish,
        "W:WKd4:Bf4,b4",
        &["d4xa4 [b4]", "d4xg4 [f4]", "d4xh4 [f4]"],
    );
}

/// Turkish maximum capture.
#[test]
fn turkish_maximum_capture() {
    // d4 takes c4 then b5 (two) rather than e4 (one).
    //    8 . . . . . . . .
    //    7 . . . . . . . .
    //    6 . . . . . . . .
    //    5 . b . . . . . .
    //    4 . . b w b . . .
    //    3 . . . . . . . .
    //    2 . . . . . . . .
    //    1 . . . . . . . .
    //      a b c d e f g h
    assert_moves(Turkish, "W:Wd4:Bc4,b5,e4", &["d4xb4xb6 [c4,b5]"]);
}

/// A Turkish man reaching the last row mid-capture goes on as a man, sideways, and is crowned
/// when the move ends.
#[test]
fn turkish_man_on_last_row_continues_as_man() {
    // c6 takes c7 to c8, then d8 sideways to e8, and is crowned there.
    //    8 . . . b . . . .
    //    7 . . b . . . . .
    //    6 . . w . . . . .
    //    5 . . . . . . . .
    //    4 . . . . . . . .
    //    3 . . . . . . . .
    //    2 . . . . . . . .
    //    1 . . . . . . . .
    //      a b c d e f g h
    assert_moves(Turkish, "W:Wc6:Bc7,d8", &["c6xc8xe8 [c7,d8] crowned"]);
    // e8 is two squares away: a king could take it, a man cannot. The move ends on c8.
    //    8 . . . . b . . .
    //    7 . . b . . . . .
    //    6 . . w . . . . .
    //    5 . . . . . . . .
    //    4 . . . . . . . .
    //    3 . . . . . . . .
    //    2 . . . . . . . .
    //    1 . . . . . . . .
    //      a b c d e f g h
    assert_moves(Turkish, "W:Wc6:Bc7,e8", &["c6xc8 [c7] crowned"]);
}

/// The capture pre-test (`may_capture`, exact since flying kings are tested ray by ray) says
/// yes exactly when there is a capture, and the moves counted without being listed
/// (`count_moves`; the kings' quiet moves of `generate_counting_king_quiets`, which lists
/// the others) are the legal moves, over random games of every variant, kings included.
#[test]
fn the_capture_pre_test_and_the_move_counts_are_exact() {
    fn check<R: Rules>() -> (usize, usize) {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let (mut positions, mut with_kings) = (0, 0);
        let mut scratch = MoveList::new();
        let key = |mv: &Move| (mv.from().bit(), mv.to().bit(), mv.captured().0);
        for _ in 0..60 {
            let mut pos = Position::<R>::initial();
            for _ in 0..300 {
                let moves = legal_moves(&pos);
                let has_capture = moves.first().is_some_and(|m| m.mv.is_capture());
                let fen = write_fen(&pos);
                let v = R::VARIANT;
                assert_eq!(damka::rules::may_capture(&pos), has_capture, "{v:?}: {fen}");
                assert_eq!(
                    count_moves(&pos, &mut scratch),
                    moves.len() as u64,
                    "{v:?}: {fen}"
                );
                let (king_quiets, mut others): (Vec<Move>, Vec<Move>) = moves
                    .iter()
                    .map(|m| m.mv)
                    .partition(|mv| !mv.is_capture() && pos.kings().contains(mv.from()));
                assert_eq!(
                    generate_counting_king_quiets(&pos, &mut scratch),
                    king_quiets.len() as u64,
                    "{v:?}: {fen}"
                );
                let mut listed = scratch.as_slice().to_vec();
                listed.sort_by_key(key);
                others.sort_by_key(key);
                assert_eq!(listed, others, "{v:?}: {fen}");
                positions += 1;
                with_kings += (pos.kings().0 != 0) as usize;
                if moves.is_empty() {
                    break;
                }
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                pos = pos.play(&moves[(seed >> 33) as usize % moves.len()].mv);
            }
        }
        (positions, with_kings)
    }
    for variant in Variant::ALL {
        let (positions, with_kings) = with_rules!(variant, R => check::<R>());
        assert!(
            with_kings > 300,
            "{variant}: {with_kings} of {positions} with kings"
        );
    }
}

/// `with_moves` lends each caller its own list: a search nested inside another's moves
/// leaves them as they were, and every list holds exactly `generate`'s moves.
#[test]
fn nested_move_lists_are_separate() {
    use damka::rules::English as E;
    let outer_pos = parse_fen::<E>("W:W21,22,K30:B9,10,K3").unwrap();
    let inner_pos = parse_fen::<E>("B:W21,22,K30:B9,10,K3").unwrap();
    let generated = |pos: &Position<E>| {
        let mut list = MoveList::new();
        generate(pos, &mut list);
        list.as_slice().to_vec()
    };
    let (outer_want, inner_want) = (generated(&outer_pos), generated(&inner_pos));
    // White: 21-17, 22-17, 22-18 and the king's 30-25, 30-26; Black: 9-13, 9-14, 10-14,
    // 10-15 and the king's 3-7, 3-8.
    assert_eq!(outer_want.len(), 5, "white's moves");
    assert_eq!(inner_want.len(), 6, "black's moves");
    let (outer, inners) = with_moves(&outer_pos, |outer| {
        let inners: Vec<Vec<Move>> = outer
            .iter()
            .map(|_| with_moves(&inner_pos, |inner| inner.to_vec()))
            .collect();
        (outer.to_vec(), inners)
    });
    assert_eq!(outer, outer_want);
    assert!(inners.iter().all(|i| *i == inner_want));
}
