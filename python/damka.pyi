"""Probe damka's draughts endgame tables, list legal moves and count perft, for English,
Italian, Spanish, Russian, Brazilian, International and Turkish draughts.

Variants are named as on damka's command line; positions are FEN strings
(``W:WK19,K23:BK28,12``); moves are written in the variant's notation, as ``damka probe``
and ``damka moves`` print them.
"""

import os
import pathlib
from typing import List, Optional, Tuple, Union, final

__all__ = ["Tablebase", "TablebaseError", "VARIANTS", "__version__", "legal_moves", "perft"]

__version__: str

VARIANTS: Tuple[str, ...]
"""The variant names: english, italian, spanish, russian, brazilian, international,
turkish."""

class TablebaseError(Exception):
    """A table the probe needs is missing or damaged (or the tables directory does not
    exist)."""

@final
class Tablebase:
    """A directory of damka endgame tables (as ``damka generate`` writes them), probed from
    any thread.

    Tables are opened on first use and decoded blocks are cached (256 MiB at most). Results
    are for the side to move and are the theoretical ones: no move-count draw rules.
    Probes run without the GIL.
    """

    def __new__(cls, dir: Union[str, "os.PathLike[str]"]) -> "Tablebase":
        """Opens the tables under ``dir``; raises :class:`TablebaseError` when it does not
        exist or is not a directory."""

    @property
    def dir(self) -> pathlib.Path:
        """The tables directory."""

    def probe_wdl(self, variant: str, fen: str) -> int:
        """Win (1), draw (0) or loss (-1) for the side to move.

        Raises ``ValueError`` for an unknown variant, a bad FEN or a position no table can
        hold: one no game reaches, whose side not to move has no pieces (``W:W:B``,
        ``W:WK5:B``), or a Turkish man on its own back rank. A side to move without pieces
        or moves has lost: -1 (distance 0). Raises :class:`TablebaseError` when a table the
        position needs is missing or damaged.
        """

    def probe_dtw(self, variant: str, fen: str) -> Optional[int]:
        """Plies to the end of the game with perfect play for a win or a loss (0 for a lost
        position without a move), ``None`` for a draw. Raises like :meth:`probe_wdl`, and
        :class:`TablebaseError` naming the missing ``.dtw`` file for tables built without
        distances to the end (``damka generate`` without ``--dtw``)."""

    def probe_dtc(self, variant: str, fen: str) -> Optional[int]:
        """Plies to the next capture or man's move (or the end of the game) for a win or a
        loss, the winner hastening to one that keeps the win and the loser delaying it
        (Kingsrow's moves to conversion, in plies): 1 with a capture, 0 for a lost position
        without a move, ``None`` for a draw. Raises like :meth:`probe_wdl`."""

    def probe_rules(
        self, variant: str, fen: str, quiet_plies: int = 0, material_plies: int = 0
    ) -> str:
        """The result under the variant's default draw rules with these counters:
        ``"win"``, ``"cursed-win"``, ``"draw"``, ``"blessed-loss"`` or ``"loss"``. Counts past
        the rules' limits give the same answer, up to 2**32 - 1; a count outside 0 to
        2**32 - 1 raises ``ValueError`` naming it. Raises :class:`TablebaseError` for tables
        without rule results."""

    def rule_moves(
        self, variant: str, fen: str, quiet_plies: int = 0, material_plies: int = 0
    ) -> Tuple[str, List[Tuple[str, str]]]:
        """The result under the default draw rules and every legal move with its category,
        best under the rules first: ``("win", [(move, category), ...])``. Counts are
        checked as :meth:`probe_rules` checks them."""

    def moves(self, variant: str, fen: str) -> List[Tuple[str, int, Optional[int]]]:
        """Every legal move with its result, best first: ``[(move, wdl, dtw), ...]``.

        ``wdl`` (1, 0, -1) is the result for the side playing the move, ``dtw`` the plies to
        the end counted from before the move (``None`` for a draw, and for tables built
        without distances to the end, whose moves are ordered by their distances to
        conversion). Raises like :meth:`probe_wdl`.
        """

def legal_moves(variant: str, fen: str) -> List[str]:
    """The legal moves in notation order, each with its full path (``47x38x24``,
    ``c3:e5:g3``). Raises ``ValueError`` for an unknown variant or a bad FEN."""

def perft(variant: str, fen: Optional[str], depth: int) -> int:
    """The leaves of the move tree ``depth`` plies deep from ``fen`` (the initial position
    when ``None``). Raises ``ValueError`` for an unknown variant or a bad FEN."""
