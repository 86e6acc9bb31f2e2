//! The perfect-play line from a position, as the tables rate its moves: the one walk down
//! the best moves that the analyser, the engine and the web service follow.

use super::tables::{ProbeError, RatedMove, Tablebase};
use crate::rules::{Position, Rules};

/// One step of a [`Mainline`]: a position of the line and its moves, rated best first; the
/// line goes on with the first.
#[derive(Clone, Debug)]
pub struct Step<R: Rules> {
    /// The position before the move.
    pub position: Position<R>,
    /// Every legal move of `position` with its result, best first, never empty
    /// ([`Tablebase::rated_moves`]).
    pub rated: Vec<RatedMove>,
}

impl<R: Rules> Step<R> {
    /// The move the line plays: the first of [`Step::rated`].
    pub fn best(&self) -> &RatedMove {
        &self.rated[0]
    }
}

/// The perfect-play line from a position ([`Tablebase::mainline`]): a [`Step`] for each
/// position until the side to move has none; a probe's error is yielded once and ends it.
/// From a drawn position the line does not end: take as many steps as needed.
pub struct Mainline<'a, R: Rules> {
    tb: &'a Tablebase,
    next: Option<Position<R>>,
}

impl<R: Rules> Iterator for Mainline<'_, R> {
    type Item = Result<Step<R>, ProbeError>;

    fn next(&mut self) -> Option<Self::Item> {
        let position = self.next.take()?;
        let rated = match self.tb.rated_moves(&position) {
            Ok(rated) => rated,
            Err(e) => return Some(Err(e)),
        };
        self.next = Some(position.play(&rated.first()?.mv.mv));
        Some(Ok(Step { position, rated }))
    }
}

impl Tablebase {
    /// The perfect-play line from `pos`: each position with its moves rated best first
    /// ([`Tablebase::rated_moves`]), the best played each time (the fastest win, the
    /// slowest loss), until the game ends; endless from a drawn position.
    pub fn mainline<R: Rules>(&self, pos: &Position<R>) -> Mainline<'_, R> {
        Mainline {
            tb: self,
            next: Some(*pos),
        }
    }
}
