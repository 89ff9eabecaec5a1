"""The native core and the pure-Python reference agree on arbitrary input (hypothesis)."""

from __future__ import annotations

import os

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from minibatcher.formats.htk.backend import backend

SCP_PIECES = st.sampled_from(["a", "b.mfc", "=", "[", "]", ",", "0", "12", "9", "-", "...", " ",
                              "\t", "\r", "\n", "\r\n", "x.htk", "-ubyte", "/", "\\"])
MLF_PIECES = st.sampled_from(["#!MLF!#", '"', "u.lab", "*/", ".", "\n", "\r\n", " ", "\t", "0",
                              "100000", "200000", "3", "5.5", "1e5", "-1", "s0", "s1", "zz", "x",
                              "7", "99999"])


def same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(a[k], np.ndarray):
            assert a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]), k
        else:
            assert a[k] == b[k], k


@settings(max_examples=300, deadline=None)
@given(st.lists(SCP_PIECES, max_size=40), st.sampled_from(["", "/p\\"]))
def test_scp(pieces, prefix):
    data = "".join(pieces).encode()
    same(backend("native").parse_scp(data, prefix, "/d"), backend("python").parse_scp(data, prefix, "/d"))


@settings(max_examples=300, deadline=None)
@given(st.lists(MLF_PIECES, max_size=60), st.booleans(), st.integers(0, 4))
def test_mlf(pieces, with_states, dim):
    data = ("#!MLF!#\n" + "".join(pieces)).encode()
    states = ["s0", "s1"] if with_states else None
    same(backend("native").parse_mlf(data, states, dim), backend("python").parse_mlf(data, states, dim))


HEADERS = st.builds(
    lambda n, period, size, kind, big, body: np.array(
        [(n, period, size, kind)], dtype=[("n", ">i4" if big else "<i4"), ("p", ">i4" if big else "<i4"),
                                          ("s", ">u2" if big else "<u2"), ("k", ">u2" if big else "<u2")]
    ).tobytes() + body,
    st.integers(-2, 8), st.sampled_from([0, 1, 100000, 2**31 - 1]), st.sampled_from([0, 3, 4, 8, 12]),
    st.sampled_from([6, 7, 9, 11, 12, 10, 1, 9 | 0o2000, 6 | 0o10000, 7 | 0o12000, 9 | 0o40000,
                     11 | 0o100000 | 0o100, 12 | 0o2000]),
    st.booleans(), st.binary(min_size=40, max_size=200))


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.binary(min_size=0, max_size=120), HEADERS), st.booleans())
def test_headers_and_frames(tmp_path_factory, raw, verify):
    path = tmp_path_factory.mktemp("h") / "f"
    path.write_bytes(raw)
    fd = os.open(path, os.O_RDONLY)
    try:
        args = (np.array([fd]), np.array([len(raw)]), verify)
        a, b = backend("native").read_headers(*args), backend("python").read_headers(*args)
        for k in a:
            if isinstance(a[k], list):
                assert all(x == y if isinstance(x, bytes) else np.array_equal(x, y, equal_nan=True)
                           for x, y in zip(a[k], b[k])), k
            else:
                assert np.array_equal(a[k], b[k]) and a[k].dtype == b[k].dtype, k
        if a["issue"][0] in (0, 6) and a["available"][0] > 0:
            n, dim = int(a["available"][0]), int(a["dim"][0])
            frames = [k.read_frames(np.array([fd]), np.array([0]), np.array([0]), np.array([n]),
                                    *(a[f] for f in ("data_start", "available", "sample_size",
                                                     "kind", "swap")), a["a"], a["b"], dim, False)
                      for k in (backend("native"), backend("python"))]
            assert np.array_equal(frames[0], frames[1], equal_nan=True)
    finally:
        os.close(fd)
