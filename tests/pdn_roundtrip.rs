//! Round trip on the whole corpus: read, normalize, write, read again gives the same games
//! (tags, moves, comments, NAGs, variations), writing again gives the same text, and the
//! written text is strict (lines of at most 79 characters outside long single words). The
//! same for self-played games of every variant.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use damka::notation::{full_path_text, move_text};
use damka::pdn::{
    Game, LINE_WIDTH, Line, MoveNode, Node, Reader, Replayer, Ruleset, Tag, write_game,
};
use damka::rules::{Position, Rules, legal_moves};
use damka::{Variant, with_rules};

#[path = "common/corpus.rs"]
mod corpus;

fn corpus_files() -> Vec<PathBuf> {
    let dir = corpus::corpus_path("");
    let mut files = Vec::new();
    for sub in ["checkerboard", "wiegerw-pdn/succeed", "wiegerw-pdn/fail"] {
        for entry in std::fs::read_dir(dir.join(sub)).expect("corpus directory") {
            files.push(entry.expect("entry").path());
        }
    }
    files.sort();
    files
}

/// Czech files carry no GameType: read them as Czech, as the corpus test does.
fn rules_for(path: &Path) -> Option<Ruleset> {
    let name = path.file_name()?.to_string_lossy();
    name.starts_with("mr")
        .then(|| "czech".parse().expect("czech"))
}

/// The structure of a line: node kinds, comments, marks, NAGs, nested the same way.
fn same_structure(a: &Line, b: &Line) -> bool {
    a.nodes.len() == b.nodes.len()
        && a.nodes.iter().zip(&b.nodes).all(|(x, y)| match (x, y) {
            (Node::Move(m), Node::Move(n)) => m.strength == n.strength && m.nags == n.nags,
            (Node::Comment(c), Node::Comment(d)) => c == d,
            (Node::Variation(v), Node::Variation(w)) => same_structure(v, w),
            (Node::Setup(s), Node::Setup(t)) => s == t,
            (Node::UnknownMove, Node::UnknownMove) => true,
            _ => false,
        })
}

/// Every tag of the original with a value is kept with that value (GameType, FEN and SetUp
/// are rewritten in standard form).
fn tags_kept(original: &Game, written: &Game) -> bool {
    original
        .tags
        .iter()
        .filter(|t| !t.value.is_empty() && !matches!(t.name.as_str(), "GameType" | "FEN" | "SetUp"))
        .all(|t| written.tag(&t.name) == Some(t.value.as_str()))
}

#[test]
fn corpus_round_trips() {
    let mut games = 0;
    for path in corpus_files() {
        let name = path.display().to_string();
        let input = BufReader::new(File::open(&path).expect("readable"));
        let mut replayer = Replayer::new(rules_for(&path));
        let mut rereader = Replayer::new(rules_for(&path));
        for item in Reader::new(name.clone(), input) {
            let Ok(mut read) = item else { continue };
            let original = read.game.clone();
            let first = replayer.normalize(&mut read);
            let text = write_game(&read.game);
            for line in text.lines() {
                assert!(
                    line.chars().count() <= LINE_WIDTH
                        || !line.trim().contains(' ')
                        || line.starts_with('['),
                    "{name}: line too long: {line}"
                );
            }
            let mut again: Vec<_> = Reader::new("written", text.as_bytes()).collect();
            assert_eq!(again.len(), 1, "{name}: {text}");
            let mut reread = again.pop().and_then(Result::ok).unwrap_or_else(|| {
                panic!(
                    "{name} game {}: written text unreadable:\n{text}",
                    read.origin.game
                )
            });
            let second = rereader.normalize(&mut reread);
            assert_eq!(
                reread.game, read.game,
                "{name} game {}:\n{text}",
                read.origin.game
            );
            assert_eq!(write_game(&reread.game), text, "{name}: not a fixpoint");
            assert_eq!(
                first.moves, second.moves,
                "{name} game {}",
                read.origin.game
            );
            assert_eq!(first.errors.len(), second.errors.len(), "{name}");
            assert!(same_structure(&original.moves, &read.game.moves), "{name}");
            assert!(
                tags_kept(&original, &read.game),
                "{name} game {}",
                read.origin.game
            );
            games += 1;
        }
    }
    println!("{games} games round-tripped");
}

/// xorshift64*: a small seeded generator.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1) as u64) as usize
    }
}

/// A random game of variant `R` with some one-move variations; moves written in full paths
/// (`full`) or in minimal notation. Returns the game and the minimal texts of its moves in
/// tree order.
fn random_game<R: Rules>(rng: &mut Rng, full: bool) -> (Game, Vec<String>) {
    let variant = R::VARIANT;
    let mut pos = Position::<R>::initial();
    let mut game = Game::default();
    game.tags.push(Tag {
        name: "GameType".into(),
        value: variant.game_type().to_string(),
    });
    let mut minimal = Vec::new();
    for _ in 0..rng.below(120) {
        let legal = legal_moves(&pos);
        if legal.is_empty() {
            break;
        }
        let text = |i: usize| {
            if full {
                full_path_text(variant, &legal[i])
            } else {
                move_text(variant, &legal, i)
            }
        };
        let i = rng.below(legal.len());
        game.moves.nodes.push(Node::Move(MoveNode::new(text(i))));
        minimal.push(move_text(variant, &legal, i));
        if legal.len() > 1 && rng.below(6) == 0 {
            let j = (i + 1 + rng.below(legal.len() - 1)) % legal.len();
            game.moves.nodes.push(Node::Variation(Line {
                nodes: vec![Node::Move(MoveNode::new(text(j)))],
            }));
            minimal.push(move_text(variant, &legal, j));
        }
        pos = pos.play(&legal[i].mv);
    }
    (game, minimal)
}

fn texts(line: &Line, out: &mut Vec<String>) {
    for node in &line.nodes {
        match node {
            Node::Move(m) => out.push(m.text.clone()),
            Node::Variation(v) => texts(v, out),
            _ => {}
        }
    }
}

/// Self-played games of every variant (the corpus has no Spanish, Brazilian or Turkish
/// games): written, read back and replayed, every move resolves, in minimal notation.
#[test]
fn self_played_games_round_trip_in_every_variant() {
    let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
    for variant in Variant::ALL {
        for round in 0..30 {
            let full = round % 2 == 1;
            let (game, minimal) = with_rules!(variant, R => random_game::<R>(&mut rng, full));
            let text = write_game(&game);
            let mut read = Reader::new("self-play", text.as_bytes())
                .next()
                .and_then(Result::ok)
                .unwrap_or_else(|| panic!("{variant}: unreadable\n{text}"));
            let replay = Replayer::new(None).normalize(&mut read);
            assert!(
                replay.errors.is_empty(),
                "{variant}: {:?}\n{text}",
                replay.errors
            );
            assert_eq!(replay.moves, minimal.len(), "{variant}\n{text}");
            let mut out = Vec::new();
            texts(&read.game.moves, &mut out);
            assert_eq!(out, minimal, "{variant}");
            let written = write_game(&read.game);
            let mut again = Reader::new("again", written.as_bytes())
                .next()
                .and_then(Result::ok)
                .expect("readable");
            Replayer::new(None).normalize(&mut again);
            assert_eq!(again.game, read.game, "{variant}\n{written}");
        }
    }
}
