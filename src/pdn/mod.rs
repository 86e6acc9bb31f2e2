//! PDN (Portable Draughts Notation): read game files liberally, replay every move against the
//! rules, write them strictly (PDN 3.0).
//!
//! - [`Reader`] streams the games of any [`BufRead`](std::io::BufRead) one at a time, tolerating
//!   the quirks of real files and saying what it tolerated.
//! - [`Replayer`] matches each move of the main line and of every variation against the legal
//!   moves of the variant (from the caller, the GameType tag, or a guess from the squares).
//! - [`Cursor`] walks a game's moves in tree order with their ids, numbers and sides; every
//!   walker of the tree uses it.
//! - [`Replayer::normalize`] and [`write_game`] produce strict PDN: read, normalize, write and
//!   read again gives the same games.
//!
//! ```
//! use damka::pdn::{Reader, Replayer, write_game};
//! let text = "[White \"A\"][Black \"B\"]\n1. 11-15 23-19 2. 8-11 22-17 1/2-1/2\n";
//! let mut replayer = Replayer::new(None);
//! for game in Reader::new("example.pdn", text.as_bytes()) {
//!     let mut game = game.expect("a readable game");
//!     let replay = replayer.normalize(&mut game);
//!     assert_eq!(replay.moves, 4);
//!     assert!(replay.errors.is_empty());
//!     assert!(write_game(&game.game).contains("[GameType \"21,B,8,8,N1,0\"]"));
//! }
//! ```

pub mod cursor;
pub mod diagnostic;
pub mod game;
pub mod gametype;
mod lexer;
mod normalize;
pub mod reader;
pub mod replay;
pub mod writer;

pub use cursor::{Cursor, MoveAt, Step};
pub use diagnostic::{Diagnostic, ErrorKind, Origin, PdnError, PdnWarning, WarningKind};
pub use game::{
    Game, Line, MoveNode, MoveNumber, Node, Tag, fen_side, is_standard_result, setup_fen,
};
pub use gametype::{Ruleset, RulesetSource};
pub use normalize::SEVEN_TAG_ROSTER;
pub use reader::{ReadGame, Reader};
pub use replay::{Replay, Replayer};
pub use writer::{LINE_WIDTH, write_game};
