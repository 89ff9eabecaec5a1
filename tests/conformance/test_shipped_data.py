"""The shipped copy of CNTK's CTF suite is byte-exact, licensed and complete."""

from __future__ import annotations

import csv
import hashlib
import re

from .harness import CONFIGS, SHIPPED, SUITE


def _manifest() -> list[dict[str, str]]:
    with open(SHIPPED / "MANIFEST.tsv", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def test_every_shipped_file_matches_cntk_s_git_blob_and_checksum():
    rows = _manifest()
    assert len(rows) == 58
    for row in rows:
        raw = (SHIPPED / row["path"]).read_bytes()
        assert len(raw) == int(row["bytes"]), row["path"]
        assert hashlib.sha256(raw).hexdigest() == row["sha256"], row["path"]
        blob = hashlib.sha1(b"blob %d\0" % len(raw) + raw).hexdigest()
        assert blob == row["git_blob_sha1"], row["path"]


def test_nothing_unlisted_is_shipped_and_the_licence_is_kept():
    listed = {row["path"] for row in _manifest()}
    present = {str(p.relative_to(SHIPPED)) for p in SUITE.rglob("*") if p.is_file()}
    assert present == listed
    licence = (SHIPPED / "LICENSE.md").read_text()
    assert "MIT License" in licence and "Copyright (c) Microsoft Corporation" in licence
    assert "e9396480025b9ca457d26b6f33dd07c474c6aa04" in (SHIPPED / "README.md").read_text()


def test_every_data_file_the_configs_name_is_shipped_or_known_to_be_unavailable():
    unavailable = {"100x100x3_jagged_sequences_dense.txt", "200x200x2_seq2seq_dense.txt"}
    for config in CONFIGS.glob("*.cntk"):
        for name in re.findall(r'file\s*=\s*"([^"]+)"', config.read_text()):
            assert name in unavailable or (SUITE / "Data" / "CNTKTextFormatReader" / name).is_file()
