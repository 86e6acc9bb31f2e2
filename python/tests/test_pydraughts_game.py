"""pydraughts (PyPI) plays games; damka probes every position of them that the tables hold.

pydraughts' `Board.fen` is a FEN damka reads as it is (numbers for English, Italian and
International, algebraic squares for Russian, Brazilian and Turkish), and its moves number
the squares as damka's Hub does (`helpers.hub_number`). Two kinds of game:

- perfect play from a won position of 3 or 4 pieces (the longest win of a random sample):
  damka names the best move, pydraughts finds it among its legal moves and plays it; the
  loser's distance goes down by one each ply and the game ends, by pydraughts' own rules,
  with the loser to move and no move after exactly the distance announced at the start;
- seeded random play from the initial position and from set-up positions of 6 pieces:
  every position the tables hold (at most 4 pieces, or more when its captures lead there)
  gets a value that the values of its successors confirm, and equals `damka probe`'s; the
  others raise `TablebaseError` (no table).

Along both, damka's legal moves and pydraughts' go from and to the same squares.
"""

import random

import pytest

import damka
from conftest import PIECES, cli_probe, require
from helpers import PYDRAUGHTS, ends, hub_number, pieces, random_positions

try:
    import draughts
    from draughts import Board
except ImportError:
    draughts = None

VARIANTS = sorted(PYDRAUGHTS)


@pytest.fixture(scope="module", autouse=True)
def pydraughts_installed():
    if draughts is None:
        require("pydraughts", "pip install pydraughts")


def value(tb, variant, fen):
    """(wdl, dtw) of a position for its side to move."""
    return tb.probe_wdl(variant, fen), tb.probe_dtw(variant, fen)


def after_move(tb, variant, board, move):
    """The value for the side playing `move` on `board`, from the position it leads to."""
    board.push(move)
    wdl, dtw = value(tb, variant, board.fen)
    board.pop()
    return -wdl, None if dtw is None else dtw + 1


def pydraughts_ends(move):
    """The first and last squares of a pydraughts move."""
    return move.board_move[0][0], move.board_move[-1][1]


def slides_over_a_piece(variant, board, move):
    """Whether `move` is a Turkish king's quiet move over another piece, which pydraughts
    0.6.7 generates (the rules forbid it: a king slides over empty squares only)."""
    if variant != "turkish" or move.captures:
        return False
    occupied = {
        hub_number(variant, s.strip().lstrip("K"))
        for field in board.fen.split(":")[1:]
        for s in field[1:].split(",")
        if s.strip()
    }
    start, end = pydraughts_ends(move)
    step = 1 if (end - start) % 8 else 8
    step = step if end > start else -step
    return any(sq in occupied for sq in range(start + step, end, step))


def legal(variant, board):
    """pydraughts' legal moves, less those `slides_over_a_piece` finds."""
    return [m for m in board.legal_moves() if not slides_over_a_piece(variant, board, m)]


def check_moves_agree(tb, variant, board):
    """damka's moves and pydraughts' go between the same squares; returns damka's."""
    moves = tb.moves(variant, board.fen)
    mine = {ends(variant, text) for text, _, _ in moves}
    theirs = {pydraughts_ends(m) for m in legal(variant, board)}
    full = {ends(variant, text) for text in damka.legal_moves(variant, board.fen)}
    assert mine == theirs == full, (board.fen, moves, [m.pdn_move for m in legal(variant, board)])
    return moves


def longest_win(tb, variant):
    """The longest win among 200 random positions of 3 or 4 pieces."""
    rng = random.Random(f"pydraughts-{variant}")
    fens, _ = random_positions(variant, rng, 200)
    wins = []
    for fen in fens:
        try:
            if pieces(fen) >= 3 and tb.probe_wdl(variant, fen) == 1:
                wins.append((tb.probe_dtw(variant, fen), fen))
        except ValueError:
            continue  # no table holds it (a Turkish man on its own back rank)
    assert wins, f"no win among the {variant} sample"
    return max(wins)


@pytest.mark.parametrize("variant", VARIANTS)
def test_perfect_play_ends_when_the_tables_say(tb, variant):
    if variant == "english":
        start = "W:WK19,K23:BK28,12"  # First Position: a win in 61
        dtw = tb.probe_dtw(variant, start)
        assert dtw == 61
    else:
        dtw, start = longest_win(tb, variant)
    board = Board(PYDRAUGHTS[variant], fen=start)
    winner = board.turn
    for ply in range(dtw):
        fen = board.fen
        expected = (1, dtw - ply) if ply % 2 == 0 else (-1, dtw - ply)
        assert value(tb, variant, fen) == expected, (ply, fen)
        moves = check_moves_agree(tb, variant, board)
        assert moves[0][1:] == expected
        best = [m for m in legal(variant, board)
                if pydraughts_ends(m) == ends(variant, moves[0][0])
                and after_move(tb, variant, board, m) == expected]
        assert best, (fen, moves[0])
        board.push(best[0])
    assert value(tb, variant, board.fen) == (-1, 0)
    assert legal(variant, board) == []
    assert board.winner() == winner


def set_up_positions(tb, variant, rng, count):
    """`count` random positions of 6 pieces whose men all stand where a table can hold them."""
    starts = []
    while len(starts) < count:
        (fen,), _ = random_positions(variant, rng, 1, 6, 6)
        try:
            tb.probe_wdl(variant, fen)
        except damka.TablebaseError:
            pass
        except ValueError:
            continue  # a Turkish man on its own back rank
        starts.append(fen)
    return starts


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_table_position_of_random_games(tb, damka_bin, tables_dir, variant):
    rng = random.Random(f"game-{variant}")
    # The initial position, then set-up positions of 6 pieces, each played at random.
    games = [(None, 400)] + [(fen, 100) for fen in set_up_positions(tb, variant, rng, 10)]
    probed = missing = 0
    for start, plies in games:
        board = Board(PYDRAUGHTS[variant], fen=start or "startpos")
        for _ in range(plies):
            moves_here = legal(variant, board)
            fen = board.fen
            try:
                wdl, dtw = value(tb, variant, fen)
            except damka.TablebaseError as e:
                missing += 1
                assert pieces(fen) > PIECES and "table file missing" in str(e), (fen, e)
            else:
                # A position of more pieces is answered when its captures lead into the
                # tables.
                probed += 1
                moves = check_moves_agree(tb, variant, board)
                dtc = tb.probe_dtc(variant, fen)
                expected = (wdl, dtw, dtc, moves)
                assert cli_probe(damka_bin, tables_dir, variant, fen) == expected, fen
                if moves_here:
                    # The best successor, as pydraughts generates them, gives the value.
                    best = max((after_move(tb, variant, board, m) for m in moves_here),
                               key=lambda v: 0 if v[0] == 0 else v[0] * (100_000 - v[1]))
                    assert best == (wdl, dtw), fen
                else:
                    assert (wdl, dtw) == (-1, 0), fen
            if not moves_here:
                break
            board.push(rng.choice(moves_here))
    assert probed >= 40, f"random {variant} games reached only {probed} table positions"
    assert missing >= 20, f"random {variant} games had only {missing} positions outside"
