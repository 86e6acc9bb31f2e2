//! Square names, FEN and move text in each variant's PDN conventions, and the Hub protocol's
//! positions and moves ([`hub`]).

pub mod diagram;
pub mod fen;
pub mod hub;
pub mod movetext;
pub mod squares;

pub use fen::{FenError, parse_fen, write_fen};
pub use movetext::{MoveTextError, full_path_text, move_text, parse_move};
pub use squares::{SquareError, parse_square, square_name};
