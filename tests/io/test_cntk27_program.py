"""A CNTK 2.7 program (tests/io/cntk27_program.py) runs with only its import changed."""

from __future__ import annotations

import difflib
import subprocess
import sys
from pathlib import Path

PROGRAM = Path(__file__).with_name("cntk27_program.py")
PORTED_IMPORTS = {"from cntk.io import": "from minibatcher.io import",
                  "from cntk.logging import": "from minibatcher.io import"}


def ported(source: str) -> str:
    for old, new in PORTED_IMPORTS.items():
        source = source.replace(old, new)
    return source


def test_only_the_import_lines_change():
    original = PROGRAM.read_text()
    diff = list(difflib.unified_diff(original.splitlines(), ported(original).splitlines(),
                                     lineterm="", n=0))[2:]
    removed = [line[1:] for line in diff if line.startswith("-")]
    added = [line[1:] for line in diff if line.startswith("+")]
    assert removed == ["from cntk.io import (CTFDeserializer, FULL_DATA_SWEEP, INFINITELY_REPEAT, "
                       "MinibatchSource,", "from cntk.logging import TraceLevel"]
    assert added == ["from minibatcher.io import (CTFDeserializer, FULL_DATA_SWEEP, "
                     "INFINITELY_REPEAT, MinibatchSource,", "from minibatcher.io import TraceLevel"]
    code = [line for line in original.splitlines() if not line.startswith("#")]
    assert not any("minibatcher" in line for line in code)


def test_the_ported_program_runs(tmp_path: Path):
    script = tmp_path / "program.py"
    script.write_text(ported(PROGRAM.read_text()))
    done = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "ok: 40 sequences, 100 words"
