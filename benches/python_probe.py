#!/usr/bin/env python3
"""Probes a second from Python: `damka.Tablebase.probe_wdl`, `probe_dtw` and `moves` on
random English positions of 2 to 4 pieces, the tables' blocks already in the cache.

    python benches/python_probe.py TABLES [POSITIONS]

Needs the damka package (`pip install ./python`) and TABLES holding English up to 4 pieces.
Each call parses the FEN, probes (captures searched) and converts the answer; the positions
come from the random generator of the package's tests (python/tests/helpers.py).
"""

import os
import random
import sys
import time

import damka

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests"))
from helpers import random_positions  # noqa: E402


def rate(call, fens, rounds):
    """Calls a second over `rounds` passes over `fens`."""
    begin = time.perf_counter()
    for _ in range(rounds):
        for fen in fens:
            call("english", fen)
    return rounds * len(fens) / (time.perf_counter() - begin)


def main():
    tables = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
    fens, _ = random_positions("english", random.Random(1), count)
    tb = damka.Tablebase(tables)
    for fen in fens:  # fill the cache
        tb.moves("english", fen)
    for name, call, rounds in [
        ("probe_wdl", tb.probe_wdl, 5),
        ("probe_dtw", tb.probe_dtw, 5),
        ("moves", tb.moves, 1),
        ("legal_moves", damka.legal_moves, 5),
    ]:
        print(f"{name}: {rate(call, fens, rounds):,.0f} calls/s over {rounds * len(fens)} calls")


if __name__ == "__main__":
    main()
