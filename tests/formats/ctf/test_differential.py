"""The native parser and indexer against the pure-Python reference, on random CTF text."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from minibatcher.formats.ctf.backend import backend

NATIVE, PYTHON = backend("native"), backend("python")

TOKENS = [b"|", b"|#", b" ", b"\t", b"\n", b"\r\n", b":", b".", b"e", b"E", b"-", b"+", b"a", b"b",
          b"c", b"ab", b"inf", b"NaN", b"0", b"1", b"7", b"42", b"3.25", b"-0.5", b"1e5", b".5",
          b"5.", b"1e", b"x", b"#", b"\x80", b"\xff", b"\x00", b"\x0b", b"99999999999999999999"]


def line() -> st.SearchStrategy[bytes]:
    number = st.one_of(st.integers(-10**6, 10**6).map(lambda i: str(i).encode()),
                       st.floats(allow_nan=False, allow_infinity=False, width=32).map(
                           lambda f: repr(f).encode()),
                       st.sampled_from([b"1e39", b"1e-46", b".5", b"5.e3", b"-inf", b"nan", b"1e+"]))
    sample = st.tuples(st.sampled_from([b"|a", b"|b", b"|c", b"|zz", b"|#", b"| ", b"||a"]),
                       st.lists(st.one_of(number, st.tuples(st.integers(0, 12).map(
                           lambda i: str(i).encode()), number).map(lambda t: t[0] + b":" + t[1])),
                           max_size=5)).map(lambda t: t[0] + b" " + b" ".join(t[1]))
    ident = st.sampled_from([b"", b"", b"1 ", b"1 ", b"2 ", b"3\t", b"12|"])
    return st.tuples(ident, st.lists(sample, max_size=4)).map(lambda t: t[0] + b" ".join(t[1]))


structured = st.lists(line(), min_size=1, max_size=12).map(
    lambda lines: b"\n".join(lines) + b"\n")
noise = st.lists(st.sampled_from(TOKENS), max_size=60).map(b"".join)
documents = st.one_of(structured, noise, st.tuples(structured, noise).map(b"".join))

configs = st.fixed_dictionaries({
    "dims": st.lists(st.integers(1, 4), min_size=1, max_size=3),
    "sparse": st.lists(st.booleans(), min_size=3, max_size=3),
    "main": st.integers(-1, 2),
    "double": st.booleans(),
    "error_limit": st.integers(1, 40),
    "skip_ids": st.booleans(),
    "skip_incomplete": st.booleans(),
})


def same(a: object, b: object) -> bool:
    if isinstance(a, np.ndarray):
        b = np.asarray(b)
        if a.dtype.kind == "f":
            return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
        return a.shape == b.shape and np.array_equal(a, b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def parse(kernels, data: bytes, spans: list[tuple[int, int, int, int]], cfg: dict) -> dict:
    n = len(cfg["dims"])
    aliases = ["a", "b", "c"][:n]
    main = cfg["main"] if cfg["main"] < n else -1
    offsets, sizes, rows, lines = (np.array(v, dtype=np.int64) for v in zip(*spans)) if spans else \
        [np.zeros(0, np.int64)] * 4
    return kernels.parse(np.frombuffer(data, np.uint8), 1000, offsets, sizes, rows, lines, aliases,
                         cfg["dims"], [bool(s) for s in cfg["sparse"][:n]], main, cfg["double"],
                         cfg["error_limit"], 5, skip_incomplete=cfg["skip_incomplete"])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=documents, cfg=configs)
def test_native_index_and_parse_equal_the_reference(data, cfg):
    main_alias = ["a", "b", "c"][cfg["main"]] if cfg["main"] >= 0 else ""
    ref = PYTHON.build_index(data, cfg["skip_ids"], main_alias)
    nat = NATIVE.build_index(np.frombuffer(data, np.uint8), cfg["skip_ids"], main_alias)
    assert (ref["status"], ref["status_offset"], ref["status_line"]) == \
           (nat["status"], nat["status_offset"], nat["status_line"])
    if ref["status"] != 0:
        return
    assert same(ref, nat)
    spans = list(zip(ref["offsets"].tolist(), ref["sizes"].tolist(), ref["rows"].tolist(),
                     ref["lines"].tolist()))
    assert same(parse(PYTHON, data, spans, cfg), parse(NATIVE, data, spans, cfg))


@settings(max_examples=300, deadline=None)
@given(data=documents, cfg=configs, cuts=st.lists(st.integers(0, 200), min_size=2, max_size=8),
       rows=st.integers(0, 5))
def test_arbitrary_spans_parse_the_same(data, cfg, cuts, rows):
    bounds = sorted({min(c, len(data)) for c in cuts})
    spans = [(lo, hi - lo, rows, 1) for lo, hi in zip(bounds[:-1], bounds[1:])]
    assert same(parse(PYTHON, data, spans, cfg), parse(NATIVE, data, spans, cfg))


@settings(max_examples=200, deadline=None)
@given(data=documents, cfg=configs, cuts=st.lists(st.integers(0, 12), max_size=4))
def test_feeding_blocks_equals_one_request(data, cfg, cuts):
    ref = PYTHON.build_index(data, cfg["skip_ids"], "")
    if ref["status"] != 0 or not len(ref["offsets"]):
        return
    spans = list(zip(ref["offsets"].tolist(), ref["sizes"].tolist(), ref["rows"].tolist(),
                     ref["lines"].tolist()))
    whole = parse(NATIVE, data, spans, cfg)
    bounds = sorted({0, len(spans), *(min(c, len(spans)) for c in cuts)})
    n = len(cfg["dims"])
    main = cfg["main"] if cfg["main"] < n else -1
    for kernels in (NATIVE, PYTHON):
        parser = kernels.parser(["a", "b", "c"][:n], cfg["dims"], cfg["sparse"][:n], main,
                                cfg["double"], cfg["error_limit"], 5,
                                skip_incomplete=cfg["skip_incomplete"])
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            start, stop = spans[lo][0], spans[hi - 1][0] + spans[hi - 1][1]
            block = [(o - start, s, r, l) for o, s, r, l in spans[lo:hi]]
            parser.feed(np.frombuffer(data[start:stop], np.uint8), 1000 + start,
                        *(np.array(v, dtype=np.int64) for v in zip(*block)))
            if parser.aborted:
                break
        assert same(parser.finish(), whole)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=documents, skip_ids=st.booleans(), main=st.sampled_from(["", "a", "b"]),
       block=st.integers(1, 64))
def test_the_streaming_indexer_over_file_blocks_equals_the_reference(tmp_path_factory, data,
                                                                     skip_ids, main, block):
    """index_file reads blocks of whole lines with pread and feeds the native
    streaming indexer; the result must equal the one-shot reference index."""
    from minibatcher.errors import FormatError
    from minibatcher.formats.ctf.index import build_ctf_index, index_file
    from minibatcher.formats.guarded_file import GuardedFile

    path = tmp_path_factory.mktemp("idx") / "d.ctf"
    path.write_bytes(data)
    try:
        expected = build_ctf_index(str(path), data, skip_sequence_ids=skip_ids, main_alias=main,
                                   impl="python")
    except FormatError as e:
        with GuardedFile(path) as f, pytest.raises(FormatError) as got:
            index_file(f, skip_sequence_ids=skip_ids, main_alias=main, impl="native",
                       block_size=block)
        assert str(got.value) == str(e)
        return
    with GuardedFile(path) as f:
        got = index_file(f, skip_sequence_ids=skip_ids, main_alias=main, impl="native",
                         block_size=block)
    assert same(got.arrays(), expected.arrays()) and got.scalars() == expected.scalars()
