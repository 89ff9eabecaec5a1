"""Shared helpers of the nmt tests: small vocabularies, both iterator paths."""

from __future__ import annotations

from typing import Any

import pytest

from minibatcher.nmt import VocabTable, get_infer_iterator, get_iterator, reference
from minibatcher.tfdata import Dataset

# ids: <unk>=0 <s>=1 </s>=2 a=3 b=4 c=5 d=6
WORDS = [b"<unk>", b"<s>", b"</s>", b"a", b"b", b"c", b"d"]


@pytest.fixture
def table() -> VocabTable:
    return VocabTable(WORDS)


@pytest.fixture(params=["fast", "reference"])
def path(request: pytest.FixtureRequest) -> str:
    """Every rule is checked on the fast path and on the tfdata port."""
    return request.param


def lines(values: list[str]) -> Dataset:
    return Dataset.from_tensor_slices(values)


def train(path: str, src: Any, tgt: Any, src_table: VocabTable, tgt_table: VocabTable | None = None,
          **kw: Any) -> Any:
    src = lines(src) if isinstance(src, list) else src
    tgt = lines(tgt) if isinstance(tgt, list) else tgt
    kw.setdefault("batch_size", 4)
    kw.setdefault("num_buckets", 1)
    kw.setdefault("random_seed", 1)
    kw.setdefault("output_buffer_size", 1)  # shuffle(1) keeps the order (spec §6)
    kw.setdefault("sos", "<s>")
    kw.setdefault("eos", "</s>")
    build = get_iterator if path == "fast" else reference.get_iterator
    ds = build(src, tgt, src_table, tgt_table or src_table, **kw)
    if path == "fast":
        assert type(ds).__name__ == "NmtBatchDataset"
    return ds


def infer(path: str, src: Any, table: VocabTable, **kw: Any) -> Any:
    src = lines(src) if isinstance(src, list) else src
    build = get_infer_iterator if path == "fast" else reference.get_infer_iterator
    return build(src, table, eos=kw.pop("eos", "</s>"), **kw)


def rows(ds: Any) -> list[tuple]:
    """Every batch as plain lists (None for absent fields)."""
    out = []
    for b in ds:
        out.append(tuple(None if x is None else x.tolist() for x in b[1:]))
    return out
