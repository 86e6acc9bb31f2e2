"""What the tests of the damka Python package share: the repository, the `damka` binary and
the tables up to 4 pieces of every variant.

The binary is `$DAMKA_BIN`, else `target/release/damka` (`cargo build --release -p
damka-cli`). The tables are `$DAMKA_TEST_TABLES` as it stands (`.ci/run` builds them there),
else `target/python-tables`, built here with `damka generate` (a run that finds them built
only checks them). Without the binary the tests that need it are skipped, and fail under
`CI=true`.
"""

import os
import pathlib
import subprocess

import pytest

import damka

ROOT = pathlib.Path(__file__).resolve().parents[2]
PIECES = 4


def require(what, why):
    """Skips the calling test for a missing input, or fails it when running in CI."""
    message = f"{what} missing: {why}"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def damka_bin():
    """Path of the `damka` command-line binary."""
    path = pathlib.Path(os.environ.get("DAMKA_BIN", ROOT / "target" / "release" / "damka"))
    if not path.is_file():
        require(f"damka binary {path}", "cargo build --release -p damka-cli")
    return path


@pytest.fixture(scope="session")
def tables_dir(damka_bin):
    """A tables directory holding every variant up to 4 pieces."""
    given = os.environ.get("DAMKA_TEST_TABLES")
    if given:
        path = pathlib.Path(given)
        for variant in damka.VARIANTS:
            if not (path / variant).is_dir():
                pytest.fail(f"$DAMKA_TEST_TABLES={given} has no {variant} tables")
        return path
    path = ROOT / "target" / "python-tables"
    for variant in damka.VARIANTS:
        subprocess.run(
            [damka_bin, "generate", "--variant", variant, "--pieces", str(PIECES),
             "--tables", path, "--quiet", "--dtw"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return path


@pytest.fixture(scope="session")
def tb(tables_dir):
    """The tables up to 4 pieces, opened from Python."""
    return damka.Tablebase(tables_dir)


def probe_output(damka_bin, tables_dir, variant, fen):
    """`damka probe`'s stdout lines, or the exit code and stderr line when it fails."""
    run = subprocess.run(
        [damka_bin, "probe", "--variant", variant, "--fen", fen, "--tables", tables_dir],
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        return run.returncode, run.stderr.strip()
    return run.stdout.splitlines()


def cli_probe(damka_bin, tables_dir, variant, fen):
    """`damka probe`'s answer in the Python API's shape: (wdl, dtw, dtc, moves), or the exit
    code and stderr line when it fails (its rule results: `cli_rules`)."""
    lines = probe_output(damka_bin, tables_dir, variant, fen)
    if isinstance(lines, tuple):
        return lines
    numbers = {"win": 1, "draw": 0, "loss": -1}
    wdl = numbers[lines[0].removeprefix("result ")]
    dtw = dtc = None
    moves = []
    for line in lines[1:]:
        if line.startswith("dtw "):
            dtw = int(line.removeprefix("dtw "))
        elif line.startswith("dtc "):
            dtc = int(line.removeprefix("dtc "))
        elif not line.startswith("rules "):
            words = line.split()
            dist = int(words[2]) if words[1] != "draw" else None
            moves.append((words[0], numbers[words[1]], dist))
    return wdl, dtw, dtc, moves


def cli_rules(damka_bin, tables_dir, variant, fen):
    """`damka probe`'s rule results: (category, {move: category}), or None without them."""
    lines = probe_output(damka_bin, tables_dir, variant, fen)
    rules = [line.removeprefix("rules ") for line in lines if line.startswith("rules ")]
    if not rules:
        return None
    moves = {}
    for line in lines[1:]:
        if not line.startswith(("dtw ", "dtc ", "rules ")):
            words = line.split()
            moves[words[0]] = words[-1]
    return rules[0], moves
