//! One minimal example for each quirk of real PDN files the reader tolerates (each found in
//! the PDN corpus, `../shared/corpus/pdn`), and for each construct of the standard: what is
//! read, what is replayed, what is reported.

use damka::Variant;
use damka::pdn::{
    Game, MoveNumber, Node, ReadGame, Reader, Replay, Replayer, Ruleset, RulesetSource,
    WarningKind, write_game,
};

fn read(text: &str) -> Vec<ReadGame> {
    Reader::new("quirk.pdn", text.as_bytes())
        .map(|g| g.unwrap_or_else(|e| panic!("unreadable: {e}")))
        .collect()
}

/// Reads and replays the only game of `text`; returns it, its replay and every warning.
fn one(text: &str, rules: Option<&str>) -> (Game, Replay, Vec<WarningKind>) {
    let mut games = read(text);
    assert_eq!(games.len(), 1, "one game expected in {text:?}");
    let game = games.remove(0);
    let replay = Replayer::new(rules.map(|r| r.parse().expect("rules"))).replay(&game);
    let warnings = game
        .warnings
        .iter()
        .chain(&replay.warnings)
        .map(|w| w.kind.clone())
        .collect();
    (game.game, replay, warnings)
}

fn clean(text: &str, rules: Option<&str>, moves: usize) -> Vec<WarningKind> {
    let (_, replay, warnings) = one(text, rules);
    assert!(replay.errors.is_empty(), "{text}: {:?}", replay.errors);
    assert_eq!(replay.moves, moves, "{text}");
    warnings
}

fn comments(game: &Game) -> Vec<String> {
    game.moves
        .nodes
        .iter()
        .filter_map(|n| match n {
            Node::Comment(c) => Some(c.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn capture_mark_on_quiet_move() {
    let w = clean("1. 11-15 23-18 2. 10x14 *", Some("english"), 3);
    assert!(w.contains(&WarningKind::CaptureMarkOnQuietMove {
        text: "10x14".into()
    }));
}

#[test]
fn spaces_inside_moves() {
    let w = clean(
        "[GameType \"20\"][FEN \"W:W28,15:B23,1\"] 1. 28 x 19 1- 6 *",
        None,
        2,
    );
    assert!(w.contains(&WarningKind::SpacesInMove {
        text: "28x19".into()
    }));
    clean(
        "[GameType \"20\"][FEN \"W:W28,15:B23,1\"] 1. 28x 19 1 -6 *",
        None,
        2,
    );
}

#[test]
fn leading_zeros() {
    let w = clean(
        "[GameType \"20\"][FEN \"W:W15:B2\"] 01. 15-10 02-07 *",
        None,
        2,
    );
    assert!(w.contains(&WarningKind::LeadingZeros {
        text: "02-07".into()
    }));
}

#[test]
fn missing_move_numbers() {
    clean("[GameType \"21\"] 11-15 23-19 8-11 22-17 *", None, 4);
    clean(
        "[GameType \"21\"] 1. 11-15 23-19 8-11 22-17 3. 9-13 *",
        None,
        5,
    );
}

#[test]
fn spaced_ellipsis() {
    let (game, replay, w) = one(
        "[GameType \"20\"][FEN \"B:W8,25,30:B7,15,18.\"] 1. ... 7-12 2. 8x17 *",
        None,
    );
    assert!(replay.errors.is_empty());
    assert_eq!(replay.moves, 2);
    assert!(
        w.iter()
            .any(|w| matches!(w, WarningKind::SpacedEllipsis { line: 1 }))
    );
    assert_eq!(
        game.start,
        MoveNumber {
            number: 1,
            second: true
        }
    );
}

#[test]
fn unknown_move_stops_the_line() {
    let (game, replay, w) = one(
        "[GameType \"20\"] 1. 32-28 19-23 2. - - (2. 28x19 14x23) 14-19 *",
        None,
    );
    assert!(replay.errors.is_empty());
    // 32-28 19-23, then the variation replacing the unknown move: 28x19 14x23.
    assert_eq!(replay.moves, 4);
    assert!(
        w.iter()
            .any(|w| matches!(w, WarningKind::UnknownMove { number } if number.number == 2))
    );
    assert!(w.contains(&WarningKind::NotReplayed { moves: 1 }));
    assert!(game.moves.nodes.contains(&Node::UnknownMove));
}

#[test]
fn arbitrary_results_kept_verbatim() {
    let text =
        "[Result \"4-6\"][GameType \"20\"] 1. 34-29 18-22 4-6\n\n[Result \"1-9\"] 1. 33-29 *";
    let games = read(text);
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].game.result.as_deref(), Some("4-6"));
    assert_eq!(games[0].game.moves.move_count(), 2);
    assert!(
        games[0]
            .warnings
            .iter()
            .any(|w| w.kind == WarningKind::NonStandardResult { text: "4-6".into() })
    );
    assert_eq!(games[1].game.result_text(), Some("1-9"));
    // Written strictly: the tag keeps the score, the terminator is `*`.
    let mut first = games[0].clone();
    Replayer::new(None).normalize(&mut first);
    let out = write_game(&first.game);
    assert!(
        out.contains("[Result \"4-6\"]") && out.trim_end().ends_with('*'),
        "{out}"
    );
}

#[test]
fn results_of_both_conventions() {
    for r in ["1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "0-0", "*"] {
        let (game, _, _) = one(&format!("[GameType \"20\"] 1. 32-28 {r}"), None);
        assert_eq!(game.result.as_deref(), Some(r));
    }
}

#[test]
fn italian_tag_names() {
    let (game, _, w) = one(
        "[Bianco \"Rossi\"]\n[Nero \"Verdi\"]\n[Risultato \"1-0\"]\n[GameType \"22\"]\n1. 21-17 *",
        None,
    );
    assert_eq!(game.tag("White"), Some("Rossi"));
    assert_eq!(game.tag("Black"), Some("Verdi"));
    assert_eq!(game.tag("Result"), Some("1-0"));
    assert!(w.contains(&WarningKind::RenamedTag {
        name: "Bianco".into(),
        standard: "White"
    }));
}

#[test]
fn bom_crlf_and_mixed_line_ends() {
    let text = "\u{feff}[Event \"a\"]\r\n[GameType \"21\"]\r1. 11-15\n23-19\r\n2. 8-11 *\r\n\r\n[Event \"b\"]\n1. 9-13 *";
    let games = read(text);
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].game.tag("Event"), Some("a"));
    assert_eq!(games[0].game.moves.move_count(), 3);
    assert_eq!(games[1].origin.line, 7);
}

#[test]
fn one_line_fen_games() {
    let games = read("[FEN \"B:W19,23:B4,3\"] *\r\n[FEN \"W:W24,23:B4,15\"] *\r\n");
    assert_eq!(games.len(), 2);
    assert_eq!(games[1].game.tag("FEN"), Some("W:W24,23:B4,15"));
    assert_eq!(games[1].game.result.as_deref(), Some("*"));
}

#[test]
fn prose_in_parentheses_becomes_a_comment() {
    let (game, replay, w) = one(
        "[GameType \"21\"] 1. 11-15 (see the notes below) 23-19 *",
        None,
    );
    assert_eq!(replay.moves, 2);
    assert_eq!(comments(&game), vec!["see the notes below".to_string()]);
    assert!(
        w.iter()
            .any(|w| matches!(w, WarningKind::ProseInParentheses { .. }))
    );
}

#[test]
fn prose_glued_to_a_move_becomes_a_comment() {
    let (game, replay, w) = one(
        "[GameType \"21\"] 1. 11-15 23-19 2. 8-11Redoverstepped the time. 0-1",
        None,
    );
    assert!(replay.errors.is_empty());
    assert_eq!(replay.moves, 3);
    assert_eq!(
        comments(&game),
        vec!["Redoverstepped the time.".to_string()]
    );
    assert!(
        w.iter()
            .any(|w| matches!(w, WarningKind::ProseInMoves { .. }))
    );
}

#[test]
fn comments_nags_marks_and_embedded_commands() {
    let text = "[GameType \"20\"] {before} 1. 32-28!? {[%clock w0:49:11 B0:50:02] [%eval 0.17]} 19-23(?) $2 $14 2. 28x19 ?? 14x23 *";
    let (game, replay, _) = one(text, None);
    assert_eq!(replay.moves, 4);
    let moves: Vec<_> = game.moves.moves().collect();
    assert_eq!(moves[0].strength.as_deref(), Some("!?"));
    assert_eq!(moves[1].strength.as_deref(), Some("?"));
    assert_eq!(moves[1].nags, vec![2, 14]);
    assert_eq!(moves[2].strength.as_deref(), Some("??"));
    assert_eq!(
        comments(&game),
        vec!["before", "[%clock w0:49:11 B0:50:02] [%eval 0.17]"]
    );
}

#[test]
fn nested_variations_and_black_numbers() {
    let text = "[GameType \"20\"] 1. 32-28 19-23 ({a} 1... 18-23 2. 38-32 (2. 37-32? 23-29! {b}) 2... 12-18) 2. 28x19 14x23 *";
    let (game, replay, _) = one(text, None);
    assert!(replay.errors.is_empty());
    assert_eq!(replay.moves, 9);
    let mut normalized = Reader::new("q", text.as_bytes()).next().unwrap().unwrap();
    Replayer::new(None).normalize(&mut normalized);
    let out = write_game(&normalized.game).replace('\n', " ");
    assert!(
        out.contains("1. 32-28 19-23 ({a} 1... 18-23 2. 38-32 (2. 37-32? 23-29! {b}) 2... 12-18) 2. 28x19 14x23 *"),
        "{out}"
    );
    assert_eq!(game.moves.move_count(), 9);
}

#[test]
fn setup_command_between_moves() {
    let (_, replay, _) = one(
        "[GameType \"20\"] 1. 32-28 /FEN \"B:W28,24:B12\"/ 12-17 *",
        None,
    );
    assert!(replay.errors.is_empty());
    assert_eq!(replay.moves, 2);
}

#[test]
fn line_comment_and_result_only_game() {
    let games = read("% made by hand\n1.32-28 1/2-1/2\n");
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].game.result.as_deref(), Some("1/2-1/2"));
    assert!(games[0].game.tags.is_empty());
}

#[test]
fn double_result_and_comment_after_result() {
    let games =
        read("[GameType \"21\"] 1. 11-15 0-1 {White won on time} 0-1\n\n[Event \"next\"] *");
    assert_eq!(games.len(), 2);
    assert_eq!(comments(&games[0].game), vec!["White won on time"]);
    assert!(
        games[0]
            .warnings
            .iter()
            .any(|w| w.kind == WarningKind::DuplicateResult { text: "0-1".into() })
    );
}

#[test]
fn game_without_terminator_before_next_tags() {
    let games = read("[Event \"a\"]\n1. 11-15 23-19\n[Event \"b\"]\n[Event \"c\"]\n");
    assert_eq!(games.len(), 3);
    assert!(
        games[0]
            .warnings
            .iter()
            .any(|w| w.kind == WarningKind::MissingTerminator)
    );
    assert_eq!(games[2].game.tag("Event"), Some("c"));
}

#[test]
fn game_type_short_long_and_unsupported() {
    let (_, r, w) = one("[GameType \"20,W,10,10,N1,0\"] 1. 32-28 *", None);
    assert_eq!(r.ruleset, Ruleset::Supported(Variant::International));
    assert_eq!(r.source, RulesetSource::GameType);
    assert!(
        w.iter()
            .any(|w| matches!(w, WarningKind::NonStandardGameType { .. }))
    );
    let (_, r, w) = one("[GameType \"25,W,8,8,A0,0\"] 1. c3-d4 *", None);
    assert_eq!(r.ruleset, Ruleset::Supported(Variant::Russian));
    assert!(w.is_empty(), "{w:?}");
    let (_, r, w) = one("[GameType \"29\"] 1. c3-d4 f6-g5 *", None);
    assert_eq!(r.ruleset, Ruleset::Unsupported(29));
    assert_eq!(r.moves, 0);
    assert!(r.errors.is_empty());
    assert!(w.contains(&WarningKind::UnsupportedRules {
        number: 29,
        name: Some("Czech draughts")
    }));
    let message = r.warnings[0].to_string();
    assert!(
        message.contains("Czech draughts): rules not supported"),
        "{message}"
    );
}

#[test]
fn variant_given_overrides_game_type() {
    let (_, r, w) = one("[GameType \"25\"] 1. 11-15 *", Some("english"));
    assert_eq!(r.ruleset, Ruleset::Supported(Variant::English));
    assert_eq!(r.moves, 1);
    assert!(
        w.iter()
            .any(|w| matches!(w, WarningKind::GameTypeOverridden { .. }))
    );
    let mut game = read("[GameType \"25\"] 1. c3-d4 *").remove(0);
    Replayer::new(Some(Ruleset::Unsupported(29))).normalize(&mut game);
    assert_eq!(game.game.tag("GameType"), Some("29"));
    let mut game = read("[GameType \"29,W,8,8,A0,0\"] 1. c3-d4 *").remove(0);
    Replayer::new(None).normalize(&mut game);
    assert_eq!(game.game.tag("GameType"), Some("29,W,8,8,A0,0"));
}

#[test]
fn variant_guessed_and_said() {
    let guessed = |text: &str| {
        let (_, r, w) = one(text, None);
        assert!(r.errors.is_empty(), "{text}: {:?}", r.errors);
        assert!(matches!(r.source, RulesetSource::Guessed(_)));
        assert!(
            w.iter()
                .any(|w| matches!(w, WarningKind::GuessedVariant { .. }))
        );
        r.ruleset
    };
    assert_eq!(
        guessed("1. 11-15 23-19 *"),
        Ruleset::Supported(Variant::English)
    );
    assert_eq!(
        guessed("1. 33-28 18-23 *"),
        Ruleset::Supported(Variant::International)
    );
    // Squares up to 32, but only the 10x10 start allows 32-28 first.
    assert_eq!(
        guessed("1. 32-28 19-23 *"),
        Ruleset::Supported(Variant::International)
    );
    assert_eq!(
        guessed("1. c3-d4 f6-g5 *"),
        Ruleset::Supported(Variant::Russian)
    );
    assert_eq!(guessed("1.a3b4 *"), Ruleset::Supported(Variant::Russian));
}

#[test]
fn a_guess_that_does_not_fit_is_said() {
    let (_, r, w) = one("1. c3-d4 c3-b4 *", None);
    assert_eq!(r.errors.len(), 1);
    assert!(w.contains(&WarningKind::GuessMisfits {
        variant: Variant::Russian
    }));
}

#[test]
fn fen_quirks() {
    // Trailing dot, squares in any order, ranges.
    clean(
        "[FEN \"W:W32,27,24,22:B20,15,10,7.\"] 1. 27-23 *",
        Some("english"),
        1,
    );
    clean(
        "[FEN \"W:W31-50:B1-20\"] 1. 32-28 *",
        Some("international"),
        1,
    );
    // An empty side.
    clean("[FEN \"W::.\"] *", Some("english"), 0);
    // Numeric squares in an algebraic variant (English numbering: 21 = a3).
    clean("[GameType \"25\"][FEN \"W:W21:B4.\"] 1. a3-b4 *", None, 1);
    // lidraughts suffix.
    clean("[FEN \"B:W31:B10:H0:F12\"] 10-14 *", Some("english"), 1);
    // A man on its promotion row is read as a king.
    let w = clean("[FEN \"W:W18,K15,1:BK30,K26,2.\"] *", Some("english"), 0);
    assert!(w.contains(&WarningKind::ManOnPromotionRow { square: "1".into() }));
}

#[test]
fn full_paths_and_ambiguous_captures() {
    // A full path is always accepted.
    clean(
        "[FEN \"B:W14,15,18,21,22,23,30:B6,7,8,10,12,13\"] 10x17x26 *",
        Some("english"),
        1,
    );
    clean(
        "[FEN \"W:WK36:B27,14,34\"] 36x9x25x48 *",
        Some("international"),
        1,
    );
    // A short capture matching two captures, with nothing after it to tell them apart, is
    // read as the first and a warning names both.
    let (_, r, _) = one(
        "[Event \"E\"][White \"W\"][Black \"B\"][FEN \"B:W14,15,18,21,22,23,30:B6,7,8,10,12,13\"] 10x26 *",
        Some("english"),
    );
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(r.moves, 1);
    let warning = r
        .warnings
        .iter()
        .find(|w| matches!(w.kind, WarningKind::AmbiguousMove { .. }))
        .expect("a warning");
    let message = warning.to_string();
    for part in [
        "quirk.pdn, game 1",
        "White \"W\"",
        "Black \"B\"",
        "Event \"E\"",
        "move 1.",
        "'10x26' could be 10x17x26 or 10x19x26",
        "read as 10x17x26",
    ] {
        assert!(message.contains(part), "{part} missing from: {message}");
    }
}

#[test]
fn illegal_move_names_the_legal_moves_and_ends_the_game_only() {
    let text = "[White \"x\"] 1. 11-15 24-19 2. 15x24 23-19 *\n[White \"y\"] 1. 9-13 *";
    let mut replayer = Replayer::new(Some(Ruleset::Supported(Variant::English)));
    let replays: Vec<_> = read(text).iter().map(|g| replayer.replay(g)).collect();
    assert_eq!(replays[0].moves, 3);
    let message = replays[0].errors[0].to_string();
    assert!(
        message.contains("move 2... illegal move '23-19'"),
        "{message}"
    );
    assert!(message.contains("(legal: 27x20 28x19)"), "{message}");
    assert!(replays[1].errors.is_empty());
    assert_eq!(replays[1].moves, 1);
}

#[test]
fn fen_side_unknown() {
    let w = clean("[FEN \"?:W29,13,11:B22,4,2\"] *", Some("international"), 0);
    assert!(w.contains(&WarningKind::FenSideUnknown {
        chosen: damka::Color::White
    }));
}

#[test]
fn strict_output_of_a_quirky_game() {
    let text = "\u{feff}[Setup \"1\"]\r\n[FEN \"W:W32,27,24,22:B20,15,10,7.\"]\r\n[Black \"Red\"]\r\n01. 27 - 23 {guileless} 20x27 2. 23-18 27-31 3. 18x2 10-14 0-1\r\n";
    let mut game = Reader::new("q", text.as_bytes()).next().unwrap().unwrap();
    let replay = Replayer::new(None).normalize(&mut game);
    assert!(replay.errors.is_empty());
    let out = write_game(&game.game);
    let expected = "[Event \"?\"]\n[Site \"?\"]\n[Date \"?\"]\n[Round \"?\"]\n[White \"?\"]\n\
                    [Black \"Red\"]\n[Result \"0-1\"]\n[GameType \"21,B,8,8,N1,0\"]\n[SetUp \"1\"]\n\
                    [FEN \"W:W22,24,27,32:B7,10,15,20\"]\n\n\
                    1. 27-23 {guileless} 1... 20x27 2. 23-18 27-31 3. 18x2 10-14 0-1\n";
    assert_eq!(out, expected);
}
