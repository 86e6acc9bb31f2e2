#!/usr/bin/env python3
"""pydraughts' DXPEngine (PyPI) plays International games against `damka dxp`: one from the
start position and two from set-up endgame positions (GAMEREQ with `B`), damka with the
tables given.

Run with a Python that has pydraughts installed (`.ci/run` makes a virtual environment):

    python cli/tests/dxp_pydraughts.py path/to/damka TABLES_DIR

damka listens as the follower on a free loopback port; pydraughts connects as the
initiator, sends GAMEREQ (always with the position, `B`, as pydraughts does), and plays
the other side with the first of its legal moves; every move damka sends is checked
against pydraughts' own move generator. From the endgame positions, won for the side to
move by the tables, damka must win within the tables' distance. The script prints one
PASS line and exits 0, or says what went wrong and exits 1.

What pydraughts sends, and damka reads (draughts/engines/dxp_communication):
- `R01<name:32><follower colour><minutes:3><moves:3>B<side to move><50 squares>`;
- `M<time:4><from:2><to:2><count:2><captured:2 each>`, captured squares sorted;
- `E01` when it quits (reason unknown, stop), which damka acknowledges.
"""

import os
import signal
import socket
import subprocess
import sys

import draughts
from draughts import Board
from draughts.engine import DXPEngine

WATCHDOG_SECONDS = 300


def fail(message):
    print(f"FAIL: {message}", flush=True)
    # pydraughts' receiving thread is not a daemon: leave without waiting for it.
    os._exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def probe(binary, tables, fen):
    """The tables' result and distance for the side to move: ("win", 13)."""
    out = subprocess.run(
        [binary, "probe", "--variant", "international", "--fen", fen, "--tables", tables],
        capture_output=True, text=True, check=True,
    ).stdout.split("\n")
    result = out[0].split()[1]
    dtw = int(out[1].split()[1]) if out[1].startswith("dtw") else 0
    return result, dtw


def play_game(port, fen, plies):
    """damka plays the side to move of `fen`, pydraughts the other; returns the board."""
    engine = DXPEngine(None, {"engine-opened": True, "ip": "127.0.0.1", "port": port})
    board = Board("standard", fen) if fen else Board("standard")
    damka_side = board.turn
    try:
        while not board.is_over() and len(board.move_stack) < plies:
            legal = [m.board_move for m in board.legal_moves()]
            if board.turn == damka_side:
                move = engine.play(board).move
                if move is None or move.board_move not in legal:
                    fail(f"{fen or 'start'} ply {len(board.move_stack) + 1}: damka's move "
                         f"{move and move.pdn_move} is not legal")
            else:
                move = board.legal_moves()[0]
            board.push(move)
    finally:
        engine.quit()
    return board, damka_side


def main():
    if len(sys.argv) != 3:
        fail("usage: dxp_pydraughts.py path/to/damka TABLES_DIR")
    binary, tables = sys.argv[1], sys.argv[2]
    signal.signal(signal.SIGALRM, lambda *_: fail(f"no answer within {WATCHDOG_SECONDS} s"))
    signal.alarm(WATCHDOG_SECONDS)
    port = free_port()
    follower = subprocess.Popen(
        [binary, "dxp", "--listen", f"127.0.0.1:{port}", "--tables", tables,
         "--move-time", "0.1"],
        stderr=subprocess.PIPE, text=True,
    )
    try:
        first = follower.stderr.readline()
        if not first.startswith("dxp: listening on"):
            fail(f"damka dxp did not start: {first!r}")
        report = []
        board, _ = play_game(port, None, 20)
        if len(board.move_stack) < 20:
            fail(f"the game from the start ended after {len(board.move_stack)} plies")
        report.append(f"start: {' '.join(m.pdn_move for m in board.move_stack)}")
        # Set-up endgames of 4 pieces, won for the side to move (damka).
        for fen in ["W:WK46,38:B12,13", "B:W33,44:BK5,K46"]:
            result, dtw = probe(binary, tables, fen)
            if result != "win":
                fail(f"{fen}: the tables say {result}, a win was expected")
            board, side = play_game(port, fen, 200)
            if not board.is_over() or board.winner() != side:
                fail(f"{fen}: damka did not win within the tables' {dtw} plies: "
                     f"{' '.join(m.pdn_move for m in board.move_stack)}")
            if len(board.move_stack) > dtw:
                fail(f"{fen}: won in {len(board.move_stack)} plies, the tables say {dtw}")
            report.append(f"{fen}: won in {len(board.move_stack)} plies (tables: {dtw})")
        print(
            f"PASS: pydraughts {draughts.__version__} DXPEngine played 3 games against "
            f"damka dxp; " + "; ".join(report),
            flush=True,
        )
    finally:
        follower.kill()
        follower.wait()
        follower.stderr.close()


if __name__ == "__main__":
    main()
