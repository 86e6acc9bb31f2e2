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
             "--tables", path, "--quiet"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return path


@pytest.fixture(scope="session")
def tb(tables_dir):
    """The tables up to 4 pieces, opened from Python."""
    return damka.Tablebase(tables_dir)


def cli_probe(damka_bin, tables_dir, variant, fen):
    """`damka probe`'s answer in the Python API's shape: (wdl, dtw, dtc, moves), or the exit
    code and stderr line when it fails."""
    run = subprocess.run(
        [damka_bin, "probe", "--variant", variant, "--fen", fen, "--tables", tables_dir],
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        return run.returncode, run.stderr.strip()
    numbers = {"win": 1, "draw": 0, "loss": -1}
    lines = run.stdout.splitlines()
    wdl = numbers[lines[0].removeprefix("result ")]
    rest = lines[1:]
    dtw = dtc = None
    if wdl != 0:
        dtw = int(rest[0].removeprefix("dtw "))
        dtc = int(rest[1].removeprefix("dtc "))
        rest = rest[2:]
    moves = []
    for line in rest:
        words = line.split()
        moves.append((words[0], numbers[words[1]], int(words[2]) if len(words) > 2 else None))
    return wdl, dtw, dtc, moves
