#!/usr/bin/env python3
"""pydraughts (PyPI) drives `damka hub` through an International game and an English one,
then short Italian, Russian, Brazilian and Turkish games.

Run with a Python that has pydraughts installed (`.ci/run` makes a virtual environment):

    python cli/tests/hub_pydraughts.py [path/to/damka]

Every move damka answers is checked against pydraughts' own move generator; the script
prints one PASS line and exits 0, or says what went wrong and exits 1.

What pydraughts sends, and damka reads (see src/hub/notation.rs):
- `set-param name=variant value=V` only when the engine declared a `variant` parameter, with
  whatever name the caller passes (here pydraughts' own: `standard`, `english`).
- `pos pos=<start> moves="<every move so far>"`: the start in pydraughts' internal layout
  (for English: seen from Black's side, Black written as white), moves in the variant's
  numbers, captures as from x to x captured squares.
- `level move-time=S`, `level time=S inc=S`, `level depth=N` or `level nodes=N`, then
  `go think`; it reads `info` lines and `done move=M [ponder=M]`.
"""

import os
import signal
import sys

import draughts
from draughts import Board
from draughts.engine import HubEngine, Limit

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WATCHDOG_SECONDS = 300


def fail(message):
    print(f"FAIL: {message}", flush=True)
    sys.exit(1)


def play_game(binary, variant, hub_variant, plies, limits):
    """Lets damka play both sides for `plies` plies; returns the moves played."""
    engine = HubEngine([binary, "hub"])
    try:
        if engine.id.get("name") != "damka":
            fail(f"hub handshake: id {engine.id}")
        if "variant" not in engine.options or hub_variant not in engine.variants | {
            "standard"
        }:
            fail(f"hub handshake: params {engine.options}, variants {engine.variants}")
        engine.setoption("variant", hub_variant)
        engine.init()
        engine.ping()
        board = Board(variant)
        played = []
        for ply in range(plies):
            if board.is_over():
                break
            legal = [m.board_move for m in board.legal_moves()]
            limit = limits[ply % len(limits)]
            try:
                result = engine.play(board, limit, ponder=False)
            except KeyError as e:
                fail(f"{variant} ply {ply + 1}: damka's move is not legal here ({e})")
            move = result.move
            if move is None or move.board_move not in legal:
                fail(f"{variant} ply {ply + 1}: illegal move {move and move.hub_move}")
            info = result.info or {}
            if "depth" not in info or "score" not in info:
                fail(f"{variant} ply {ply + 1}: no depth/score in info {info}")
            board.push(move)
            played.append(move.pdn_move)
        return played
    finally:
        engine.quit()
        try:
            engine.p.wait(timeout=30)
        except Exception:
            engine.kill_process()
            fail(f"{variant}: damka hub did not exit after quit")
        engine.p.stdin.close()
        engine.p.stdout.close()
        if engine.p.returncode != 0:
            fail(f"{variant}: damka hub exited with status {engine.p.returncode}")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release", "damka")
    if not os.path.isfile(binary):
        fail(f"no damka binary at {binary} (cargo build --release)")
    signal.signal(signal.SIGALRM, lambda *_: fail(f"no answer within {WATCHDOG_SECONDS} s"))
    signal.alarm(WATCHDOG_SECONDS)
    # (pydraughts variant, name sent with set-param, plies, limits cycled through)
    games = [
        ("standard", "standard", 12,
         [Limit(movetime=0.05), Limit(time=3, inc=0.05), Limit(depth=3)]),
        ("english", "english", 12,
         [Limit(depth=4), Limit(movetime=0.05), Limit(nodes=2000)]),
        # The other variants pydraughts knows: their positions and moves differ again.
        ("italian", "italian", 8, [Limit(movetime=0.02)]),
        ("russian", "russian", 8, [Limit(movetime=0.02)]),
        ("brazilian", "brazilian", 8, [Limit(movetime=0.02)]),
        ("turkish", "turkish", 8, [Limit(movetime=0.02)]),
    ]
    report = []
    for variant, hub_variant, plies, limits in games:
        moves = play_game(binary, variant, hub_variant, plies, limits)
        if len(moves) < plies:
            fail(f"{variant} game ended after {len(moves)} plies: {' '.join(moves)}")
        report.append(f"{variant}: {' '.join(moves)}")
    print(
        f"PASS: pydraughts {draughts.__version__} drove damka hub through "
        f"{len(games)} games; " + "; ".join(report),
        flush=True,
    )


if __name__ == "__main__":
    main()
