//! Malformed input gives errors, never a panic or a hang: truncated tags, unclosed comments
//! and variations, binary garbage, a 10 MB line; a fuzz-style test feeds random bytes and
//! random mutations of corpus files for a few seconds. The reader streams: it reads an endless
//! input game by game.

use std::io::{BufReader, Read};
use std::time::{Duration, Instant};

use damka::pdn::{ErrorKind, PdnError, ReadGame, Reader, Replayer, write_game};

#[path = "common/corpus.rs"]
mod corpus;

fn read(bytes: &[u8]) -> Vec<Result<ReadGame, PdnError>> {
    Reader::new("bad.pdn", bytes).collect()
}

fn errors(bytes: &[u8]) -> Vec<ErrorKind> {
    read(bytes)
        .into_iter()
        .filter_map(|g| g.err().map(|e| e.kind))
        .collect()
}

#[test]
fn truncated_tag() {
    let e = errors(b"[Event \"Open");
    assert!(
        matches!(&e[..], [ErrorKind::BadTag { line: 1, .. }]),
        "{e:?}"
    );
    let e = errors(b"[Event \"a\"\n1. 32-28 *");
    assert!(matches!(&e[..], [ErrorKind::BadTag { .. }]), "{e:?}");
    let e = errors(b"[Event");
    assert!(matches!(&e[..], [ErrorKind::BadTag { .. }]), "{e:?}");
    // A bad tag inside a header rejects that game only.
    let games = read(b"[Event \"a\"]\n[Site \"x]\n[White \"b\"]\n1. 32-28 *\n[Event \"c\"] *");
    assert_eq!(games.len(), 2);
    assert_eq!(
        games[0].as_ref().err().and_then(|e| e.origin.white.clone()),
        Some("b".to_string())
    );
    assert!(games[1].is_ok());
    // The next game is read.
    let games = read(b"[Event \"a]\n1. 32-28 *\n[Event \"b\"] 1. 11-15 *");
    assert_eq!(games.len(), 2);
    assert!(games[0].is_err());
    let message = games[0]
        .as_ref()
        .err()
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(
        message.contains("bad.pdn, game 1") && message.contains("line 1"),
        "{message}"
    );
    assert_eq!(
        games[1].as_ref().ok().and_then(|g| g.game.tag("Event")),
        Some("b")
    );
}

#[test]
fn unclosed_comment_and_variation() {
    let e = errors(b"[Event \"x\"] 1. 32-28 { never closed\n 19-23 *\n[Event \"y\"] *");
    assert!(
        matches!(&e[..], [ErrorKind::UnclosedComment { opened: 1 }]),
        "{e:?}"
    );
    let games = read(b"[Event \"x\"] 1. 32-28 (19-23 *\n\n[Event \"y\"] 1. 11-15 *");
    assert_eq!(games.len(), 2);
    assert!(matches!(
        games[0].as_ref().map_err(|e| &e.kind),
        Err(ErrorKind::UnclosedVariation { opened: 1 })
    ));
    assert!(games[1].is_ok());
    let e = errors(b"1. 32-28 ) 19-23 *");
    assert!(
        matches!(&e[..], [ErrorKind::UnmatchedParenthesis { line: 1 }]),
        "{e:?}"
    );
    let e = errors(b"1. 32-28 /FEN \"W:W31:B1\" *");
    assert!(
        matches!(&e[..], [ErrorKind::UnclosedSetup { opened: 1 }]),
        "{e:?}"
    );
}

#[test]
fn deep_nesting_is_an_error() {
    let mut text = b"[GameType \"20\"] 1. 32-28".to_vec();
    text.extend(std::iter::repeat_n(b"(32-28 ".as_slice(), 10_000).flatten());
    text.extend(std::iter::repeat_n(b')', 10_000));
    text.extend(b" *");
    let e = errors(&text);
    assert!(matches!(&e[..], [ErrorKind::TooLarge { .. }]), "{e:?}");
}

#[test]
fn binary_garbage() {
    let mut garbage = Vec::new();
    let mut x: u32 = 12345;
    for _ in 0..100_000 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        garbage.push((x >> 16) as u8);
    }
    let games = read(&garbage);
    assert!(games.iter().any(Result::is_err));
    let e = errors(b"1. 32-28 \x00\x01\x02 19-23 *");
    assert!(
        matches!(&e[..], [ErrorKind::UnexpectedText { .. }]),
        "{e:?}"
    );
}

#[test]
fn ten_megabyte_line() {
    let start = Instant::now();
    let mut line = b"[Event \"long\"]\n1. 32-28 ".to_vec();
    line.extend(std::iter::repeat_n(b'a', 10 << 20));
    line.extend(b" *\n[Event \"after\"] 1. 32-28 *\n");
    let games = read(&line);
    assert!(matches!(
        games[0].as_ref().map_err(|e| &e.kind),
        Err(ErrorKind::TooLarge { line: 2, .. })
    ));
    assert_eq!(
        games
            .last()
            .and_then(|g| g.as_ref().ok())
            .and_then(|g| g.game.tag("Event")),
        Some("after")
    );
    // A 10 MB comment.
    let mut comment = b"1. 32-28 {".to_vec();
    for _ in 0..(10 << 20) / 64 {
        comment.extend([b'x'; 63]);
        comment.push(b'\n');
    }
    comment.extend(b"} *");
    let e = errors(&comment);
    assert!(matches!(&e[..], [ErrorKind::TooLarge { .. }]), "{e:?}");
    assert!(start.elapsed() < Duration::from_secs(30));
}

/// An input that repeats a game forever.
struct Endless {
    game: &'static [u8],
    at: usize,
}

impl Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.game.len() - self.at);
        buf[..n].copy_from_slice(&self.game[self.at..self.at + n]);
        self.at = (self.at + n) % self.game.len();
        Ok(n)
    }
}

#[test]
fn streams_game_by_game() {
    let input = BufReader::new(Endless {
        game: b"[Event \"again\"]\n[GameType \"20\"]\n1. 32-28 19-23 2. 28x19 14x23 1-0\n\n",
        at: 0,
    });
    let mut replayer = Replayer::new(None);
    let mut moves = 0;
    for (i, game) in Reader::new("endless", input).take(20_000).enumerate() {
        let game = game.expect("readable");
        assert_eq!(game.origin.game, i + 1);
        moves += replayer.replay(&game).moves;
    }
    assert_eq!(moves, 80_000);
}

/// xorshift64*: a small seeded generator, so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Bytes PDN gives meaning to, and some it does not.
const ALPHABET: &[u8] = b"0123456789-x:.[]{}()\"/$!?*%abcdehKWB \n\r\t,\\\xEF\xBB\xBF\x00\xff";

/// Reads, replays, normalizes and writes every game; a game written must read back as the
/// same game.
fn exercise(bytes: &[u8]) {
    let mut replayer = Replayer::new(None);
    for item in Reader::new("fuzz", bytes) {
        let Ok(mut game) = item else { continue };
        replayer.normalize(&mut game);
        let text = write_game(&game.game);
        let again: Vec<_> = Reader::new("again", text.as_bytes()).collect();
        assert_eq!(
            again.len(),
            1,
            "input {:?}\nwritten {text}",
            String::from_utf8_lossy(bytes)
        );
        let Some(Ok(mut reread)) = again.into_iter().next() else {
            panic!("written text unreadable: {text}");
        };
        Replayer::new(None).normalize(&mut reread);
        assert_eq!(reread.game, game.game, "written {text}");
    }
}

fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(8) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(6) {
            0 if at < bytes.len() => bytes[at] = ALPHABET[rng.below(ALPHABET.len())],
            1 => bytes.insert(at, ALPHABET[rng.below(ALPHABET.len())]),
            2 if at < bytes.len() => {
                let end = (at + rng.below(40)).min(bytes.len());
                bytes.drain(at..end);
            }
            3 if at < bytes.len() => {
                let end = (at + rng.below(200)).min(bytes.len());
                let copy = bytes[at..end].to_vec();
                let to = rng.below(bytes.len() + 1);
                bytes.splice(to..to, copy);
            }
            4 => bytes.truncate(at),
            _ => {
                let b = rng.next() as u8;
                bytes.insert(at, b);
            }
        }
    }
}

#[test]
fn fuzz_random_bytes_and_mutations() {
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    for name in [
        "wiegerw-pdn/succeed/nk ronde 01.pdn",
        "wiegerw-pdn/succeed/Tricks traps and shots.pdn",
        "wiegerw-pdn/succeed/ussr1947.pdn",
        "wiegerw-pdn/succeed/windragon.pdn",
        "wiegerw-pdn/succeed/fen.pdn",
        "wiegerw-pdn/fail/delfts.pdn",
    ] {
        let path = corpus::corpus_path(name);
        let b = std::fs::read(&path).expect("corpus file readable");
        // Pieces of a few games keep each input small.
        seeds.push(b[..b.len().min(6000)].to_vec());
    }
    seeds.push(
        b"[Event \"e\"]\n[FEN \"W:W31,K50:B1-5\"]\n1. 31-26 (1. 50-45 {c} 1... 5-10) 1-6 $1 2. - - *\n"
            .to_vec(),
    );
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let deadline = Instant::now() + Duration::from_secs(3);
    let mut runs = 0;
    while Instant::now() < deadline {
        let input = if rng.below(4) == 0 {
            let len = rng.below(400);
            (0..len)
                .map(|_| {
                    if rng.below(4) == 0 {
                        rng.next() as u8
                    } else {
                        ALPHABET[rng.below(ALPHABET.len())]
                    }
                })
                .collect()
        } else {
            let mut bytes = seeds[rng.below(seeds.len())].clone();
            mutate(&mut rng, &mut bytes);
            bytes
        };
        exercise(&input);
        runs += 1;
    }
    println!("{runs} fuzz inputs");
    assert!(runs > 10);
}
