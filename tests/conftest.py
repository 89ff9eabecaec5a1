"""Shared fixtures: the parser implementation, CNTK's CTF suite (shipped), small files."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"  # larger optional data (tests skip without it)
DATA = REPO / "tests" / "data"  # shipped with the repository (see tests/data/cntk-ctf/README.md)
CTF_SUITE = DATA / "cntk-ctf" / "Tests" / "UnitTests" / "ReaderTests"


@pytest.fixture(params=["python", "native"])
def impl(request: pytest.FixtureRequest) -> str:
    """Every parser test runs against the reference and the native parser."""
    return request.param


@pytest.fixture
def ctf_suite() -> Path:
    """CNTK's CTF reader test suite, shipped in tests/data (never skipped)."""
    return CTF_SUITE


@pytest.fixture
def write(tmp_path: Path):
    """Writes bytes or text to a file in a temporary folder and returns its path."""

    def _write(content: bytes | str, name: str = "data.ctf") -> Path:
        path = tmp_path / name
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        return path

    return _write
