"""The README's "From Python" example prints what the README says it prints."""

import os
import re
import subprocess
import sys

from conftest import ROOT


def test_readme_example_prints_its_output(tables_dir, tmp_path):
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## From Python\n", 1)[1].split("\n## ", 1)[0]
    code, output = re.findall(r"```(?:python|text)\n(.*?)```", section, re.S)[:2]
    (tmp_path / "tables").symlink_to(os.path.abspath(tables_dir))
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert run.stdout == output
