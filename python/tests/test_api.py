"""The damka Python API: known results, errors, legal moves, perft, threads, stubs."""

import concurrent.futures
import pathlib
import random
import shutil
import struct
import subprocess
import sys
import threading
import time

import pytest

import damka
from conftest import ROOT, require
from helpers import random_positions

FIRST_POSITION = "W:WK19,K23:BK28,12"


def test_first_position_is_a_win_in_61(tb):
    assert tb.probe_wdl("english", FIRST_POSITION) == 1
    assert tb.probe_dtw("english", FIRST_POSITION) == 61
    assert tb.probe_dtc("english", FIRST_POSITION) == 17
    moves = tb.moves("english", FIRST_POSITION)
    assert moves[0][1:] == (1, 61)
    assert len(moves) == len(damka.legal_moves("english", FIRST_POSITION))


def test_moves_are_best_first(tb):
    def score(move):
        _, wdl, dtw = move
        return 0 if wdl == 0 else wdl * (100_000 - dtw)

    moves = tb.moves("english", FIRST_POSITION)
    assert [score(m) for m in moves] == sorted((score(m) for m in moves), reverse=True)
    for text, wdl, dtw in moves:
        assert isinstance(text, str) and wdl in (1, 0, -1)
        assert (dtw is None) == (wdl == 0)


def test_kings_alone_draw(tb):
    fen = "W:WK1:BK32"
    assert tb.probe_wdl("english", fen) == 0
    assert tb.probe_dtw("english", fen) is None
    assert tb.probe_dtc("english", fen) is None
    assert all(wdl == 0 and dtw is None for _, wdl, dtw in tb.moves("english", fen))


def test_no_move_is_a_loss_in_0(tb):
    # No piece left; a man blocked by the two men in front of it.
    for fen in ("W:W:BK1", "W:W29:B25,22"):
        assert damka.legal_moves("english", fen) == []
        assert tb.probe_wdl("english", fen) == -1
        assert tb.probe_dtw("english", fen) == 0
        assert tb.probe_dtc("english", fen) == 0
        assert tb.moves("english", fen) == []


def test_the_move_before_a_win_counts_one_more_ply(tb):
    # After the best move of First Position, Black is to move and loses in 60.
    moves = tb.moves("english", FIRST_POSITION)
    best = moves[0][0]
    after = {
        "23-18": "B:WK19,K18:BK28,12",
        "23-27": "B:WK19,K27:BK28,12",
        "23-26": "B:WK19,K26:BK28,12",
        "19-16": "B:WK16,K23:BK28,12",
        "19-15": "B:WK15,K23:BK28,12",
        "19-24": "B:WK24,K23:BK28,12",
    }
    assert set(after) == {m for m, _, _ in moves}
    for move, wdl, dtw in moves:
        fen = after[move]
        assert tb.probe_wdl("english", fen) == -wdl
        assert tb.probe_dtw("english", fen) == (None if dtw is None else dtw - 1)
    assert tb.probe_dtw("english", after[best]) == 60


def test_unknown_variant_is_a_value_error(tb):
    with pytest.raises(ValueError, match="unknown variant 'chess'"):
        tb.probe_wdl("chess", FIRST_POSITION)
    with pytest.raises(ValueError, match="expected one of: english"):
        damka.legal_moves("chess", FIRST_POSITION)
    with pytest.raises(ValueError, match="unknown variant"):
        damka.perft("", None, 1)


@pytest.mark.parametrize(
    "fen, message",
    [
        ("", "empty FEN"),
        ("X:W1:B2", "side to move must be W or B"),
        ("W:W1,1:B30", "listed twice"),
        ("W:W5:B5", "both a white and a black piece"),
        ("W:W1:B30", "white man on 1, its promotion row"),
        ("W:W99:B30", "99"),
    ],
)
def test_bad_fen_is_a_value_error_with_the_reason(tb, fen, message):
    for call in (
        lambda: tb.probe_wdl("english", fen),
        lambda: tb.probe_dtw("english", fen),
        lambda: tb.moves("english", fen),
        lambda: damka.legal_moves("english", fen),
        lambda: damka.perft("english", fen, 1),
    ):
        with pytest.raises(ValueError, match=message) as raised:
            call()
        assert str(raised.value).startswith(f"bad FEN '{fen}': ")


def test_missing_directory_is_a_tablebase_error(tmp_path):
    missing = tmp_path / "nothing here"
    with pytest.raises(damka.TablebaseError) as raised:
        damka.Tablebase(missing)
    assert str(raised.value) == f"{missing}: no such tables directory"
    a_file = tmp_path / "a file"
    a_file.write_text("not tables")
    with pytest.raises(damka.TablebaseError) as raised:
        damka.Tablebase(a_file)
    assert str(raised.value) == f"{a_file}: a file, not a tables directory"


@pytest.mark.parametrize("fen, idle", [("W:W:B", "black"), ("B:W:B", "white"),
                                       ("W:WK5:B", "black")])
def test_a_position_no_game_reaches_is_a_value_error(tb, fen, idle):
    # The side not to move has no pieces: refused by every probe, in the words of every
    # other front end (`damka probe`, the C library, the web service, the Hub).
    message = (f"illegal position: {idle}, not to move, has no pieces (no game reaches it: "
               f"the capture of {idle}'s last piece ends the game with {idle} to move, a loss)")
    for call in (
        lambda: tb.probe_wdl("english", fen),
        lambda: tb.probe_dtw("english", fen),
        lambda: tb.probe_dtc("english", fen),
        lambda: tb.probe_rules("english", fen),
        lambda: tb.rule_moves("english", fen),
        lambda: tb.moves("english", fen),
    ):
        with pytest.raises(ValueError) as raised:
            call()
        assert str(raised.value) == message


def test_counts_at_their_limits_answer_or_name_the_argument(tb):
    # Every count past the 40 moves each of the default rules gives the same answer, up to
    # the largest (2**32 - 1): First Position is a win the counts draw.
    assert tb.probe_rules("english", FIRST_POSITION) == "win"
    for plies in (1000, 2**31, 2**32 - 1):
        assert tb.probe_rules("english", FIRST_POSITION, plies) == "cursed-win", plies
        category, moves = tb.rule_moves("english", FIRST_POSITION, plies, plies)
        assert category == "cursed-win"
        assert "cursed-win" in {c for _, c in moves} and "win" not in {c for _, c in moves}
    for name, args in (("quiet_plies", (-1, 0)), ("material_plies", (0, -1)),
                       ("quiet_plies", (2**32, 0)), ("material_plies", (0, 2**100))):
        given = args[0] if name == "quiet_plies" else args[1]
        for call in (tb.probe_rules, tb.rule_moves):
            with pytest.raises(ValueError) as raised:
                call("english", FIRST_POSITION, *args)
            assert str(raised.value) == (
                f"{name} must be a count of plies from 0 to 4294967295, not {given}")
    with pytest.raises(TypeError):
        tb.probe_rules("english", FIRST_POSITION, "3")
    assert tb.probe_rules("english", FIRST_POSITION, quiet_plies=0, material_plies=0) == "win"


def test_missing_table_is_a_tablebase_error(tb):
    # Five pieces: no table was built.
    fen = "W:WK19,K23,K30:BK28,12"
    with pytest.raises(damka.TablebaseError, match="0311.wdl: table file missing"):
        tb.probe_wdl("english", fen)
    with pytest.raises(damka.TablebaseError, match="table file missing"):
        tb.moves("english", fen)
    assert issubclass(damka.TablebaseError, Exception)
    assert not issubclass(damka.TablebaseError, ValueError)


def copy_english(tables_dir, tmp_path):
    """A copy of the English tables to damage."""
    copy = tmp_path / "tables"
    shutil.copytree(tables_dir / "english", copy / "english")
    return copy


def test_damaged_blocks_are_a_tablebase_error(tables_dir, tmp_path):
    copy = copy_english(tables_dir, tmp_path)
    for path in (copy / "english").iterdir():
        data = bytearray(path.read_bytes())
        (blocks,) = struct.unpack_from("<I", data, 32)
        for i in range(128 + 8 * (blocks + 1) + 4 * blocks, len(data)):
            data[i] ^= 0xFF
        path.write_bytes(bytes(data))
    tb = damka.Tablebase(copy)
    with pytest.raises(damka.TablebaseError, match=r"0211\.wdl: block \d+ damaged"):
        tb.probe_wdl("english", FIRST_POSITION)
    with pytest.raises(damka.TablebaseError, match="damaged"):
        tb.moves("english", FIRST_POSITION)


def test_damaged_header_and_truncated_file_are_tablebase_errors(tables_dir, tmp_path):
    copy = copy_english(tables_dir, tmp_path)
    wdl = copy / "english" / "0211.wdl"
    data = bytearray(wdl.read_bytes())
    data[20] ^= 0x01
    wdl.write_bytes(bytes(data))
    with pytest.raises(damka.TablebaseError, match="header checksum mismatch"):
        damka.Tablebase(copy).probe_wdl("english", FIRST_POSITION)
    dtw = copy / "english" / "0211.dtw"
    dtw.write_bytes(dtw.read_bytes()[: 200])
    wdl.write_bytes((tables_dir / "english" / "0211.wdl").read_bytes())
    fresh = damka.Tablebase(copy)
    assert fresh.probe_wdl("english", FIRST_POSITION) == 1
    with pytest.raises(damka.TablebaseError, match="0211.dtw: file truncated"):
        fresh.probe_dtw("english", FIRST_POSITION)


def test_legal_moves_as_damka_moves(damka_bin):
    assert damka.legal_moves("english", "B:W21-32:B1-12") == [
        "9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16",
    ]
    assert damka.legal_moves("russian", "W:Wc3:Bd4,f6") == ["c3:e5:g7"]
    for variant, fen in [
        ("international", "W:W27,28,K47:B7,8,13,22,23,32,33"),
        ("turkish", "W:WKd4:Bd6,d7,b4,f4"),
        ("spanish", "W:W1-12:B21-32"),
    ]:
        run = subprocess.run(
            [damka_bin, "moves", "--variant", variant, "--fen", fen],
            capture_output=True, text=True, check=True,
        )
        assert damka.legal_moves(variant, fen) == run.stdout.split()


def perft_cases():
    """(variant, fen, depth, nodes) of every published count up to 2 million nodes."""
    cases = []
    for path in sorted((ROOT / "tests" / "data" / "perft").glob("*.perft")):
        fen = None
        for line in path.read_text().splitlines():
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            if words[0] == "fen":
                fen = None if words[1] == "start" else " ".join(words[1:])
            elif words[0] == "depth" and int(words[3]) <= 2_000_000:
                cases.append((path.stem, fen, int(words[1]), int(words[3])))
    return cases


def test_perft_matches_published_counts():
    cases = perft_cases()
    assert {variant for variant, _, _, _ in cases} == set(damka.VARIANTS)
    for variant, fen, depth, nodes in cases:
        assert damka.perft(variant, fen, depth) == nodes, (variant, fen, depth)


def test_perft_of_a_position():
    assert damka.perft("english", "B:W21-32:B1-12", 4) == damka.perft("english", None, 4) == 1469
    assert damka.perft("english", FIRST_POSITION, 0) == 1
    assert damka.perft("english", FIRST_POSITION, 1) == 6


def test_perft_releases_the_gil():
    # While perft counts in another thread, this one keeps running Python code: it notes
    # the time at every turn of its loop. Were the GIL held, no turn would come while perft
    # runs, and two notes would lie at least perft's time apart.
    span = []

    def count():
        begin = time.perf_counter()
        span.append(damka.perft("english", None, 10))
        span.append(time.perf_counter() - begin)

    notes = [time.perf_counter()]
    worker = threading.Thread(target=count)
    worker.start()
    while worker.is_alive():
        notes.append(time.perf_counter())
    notes.append(time.perf_counter())
    nodes, seconds = span
    assert nodes == 18391564
    longest_wait = max(b - a for a, b in zip(notes, notes[1:]))
    assert longest_wait < seconds / 2, (longest_wait, seconds)


def test_threads_probe_one_tablebase(tables_dir):
    rng = random.Random(12)
    fens, _ = random_positions("english", rng, 200)
    tb = damka.Tablebase(tables_dir)
    alone = [(tb.probe_wdl("english", f), tb.moves("english", f)) for f in fens]
    shared = damka.Tablebase(tables_dir)
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        together = list(
            pool.map(lambda f: (shared.probe_wdl("english", f), shared.moves("english", f)), fens)
        )
    assert together == alone


def test_module_surface(tables_dir):
    assert damka.VARIANTS == (
        "english", "italian", "spanish", "russian", "brazilian", "international", "turkish",
    )
    assert damka.__version__ == "0.1.0"
    tb = damka.Tablebase(str(tables_dir))
    assert tb.dir == pathlib.Path(tables_dir)
    assert repr(tb) == f"damka.Tablebase({str(tables_dir)!r})"
    for item in (damka, damka.Tablebase, damka.Tablebase.probe_wdl, damka.Tablebase.probe_dtw,
                 damka.Tablebase.probe_dtc, damka.Tablebase.moves, damka.legal_moves, damka.perft, damka.TablebaseError):
        assert item.__doc__ and len(item.__doc__) > 40, item


def test_stubs_are_installed_and_match_the_module():
    package = pathlib.Path(damka.__file__).parent
    assert (package / "py.typed").is_file()
    assert (package / "__init__.pyi").read_text() == (ROOT / "python" / "damka.pyi").read_text()
    try:
        import mypy.stubtest  # noqa: F401
    except ImportError:
        require("mypy", "pip install mypy")
    # mypy's stubtest: every name, signature and type of the stub against the module.
    run = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "damka",
         "--allowlist", pathlib.Path(__file__).with_name("stubtest-allowlist.txt")],
        capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_tables_without_distances_to_the_end_answer(damka_bin, tmp_path):
    """`damka generate` without `--dtw`: results, distances to conversion and moves (by
    their distances to conversion) are answered; the distance to the end is an error that
    names its missing file, and every move's is None."""
    subprocess.run(
        [damka_bin, "generate", "--variant", "english", "--pieces", "4",
         "--tables", tmp_path, "--quiet"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    assert not list((tmp_path / "english").glob("*.dtw"))
    lean = damka.Tablebase(str(tmp_path))
    assert lean.probe_wdl("english", FIRST_POSITION) == 1
    assert lean.probe_dtc("english", FIRST_POSITION) == 17
    with pytest.raises(damka.TablebaseError, match=r"\.dtw"):
        lean.probe_dtw("english", FIRST_POSITION)
    moves = lean.moves("english", FIRST_POSITION)
    assert [m[1] for m in moves] == [1, 1, 1, 1, -1, -1]
    assert all(dtw is None for _, _, dtw in moves)
    assert moves[0][0] == "23-27"
