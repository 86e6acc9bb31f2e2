"""On random positions of every variant up to 4 pieces, the Python answers are `damka
probe`'s, on the same tables; FENs the library refuses, the command line refuses too."""

import random

import pytest

import damka
from conftest import cli_probe, cli_rules
from helpers import random_positions

POSITIONS = 30


@pytest.mark.parametrize("variant", damka.VARIANTS)
def test_python_answers_equal_damka_probe(tb, damka_bin, tables_dir, variant):
    rng = random.Random(f"cli-{variant}")
    fens, refused = random_positions(variant, rng, POSITIONS)
    results = set()
    for fen in fens:
        try:
            wdl = tb.probe_wdl(variant, fen)
        except ValueError as e:
            # No table holds it (a Turkish man on its own back rank): the command line says
            # the same, with exit code 1.
            assert str(e).startswith("position not in the tables: "), (fen, e)
            assert cli_probe(damka_bin, tables_dir, variant, fen) == (1, f"error: {e}")
            results.add(None)
            continue
        dtw = tb.probe_dtw(variant, fen)
        dtc = tb.probe_dtc(variant, fen)
        moves = tb.moves(variant, fen)
        assert cli_probe(damka_bin, tables_dir, variant, fen) == (wdl, dtw, dtc, moves), fen
        # Every position has a rule result (Russian kings on both sides with a man too).
        category, ruled = tb.rule_moves(variant, fen)
        assert tb.probe_rules(variant, fen) == category, fen
        assert cli_rules(damka_bin, tables_dir, variant, fen) == (category, dict(ruled)), fen
        assert (dtc is None) == (dtw is None) and (dtc is None or dtc <= dtw), fen
        if moves:
            assert moves[0][1:] == (wdl, dtw), fen
        results.add(wdl)
    # The sample holds more than one kind of result, so the comparison means something.
    assert len(results - {None}) >= 2, results
    for fen in refused[:5]:
        with pytest.raises(ValueError) as raised:
            tb.probe_wdl(variant, fen)
        code, line = cli_probe(damka_bin, tables_dir, variant, fen)
        assert code == 2 and str(raised.value).split(": ", 1)[1] in line, (fen, line)
