"""``ChunkRegistry.assemble`` (cpp/engine/assemble.cc): one call per minibatch that locates the
sequences, leaves out skipped ones, gathers every stream (dense, CSR, context windows) and lays
it out, against a NumPy reference of the per-stream path it replaced, on random chunks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minibatcher import _native

from .test_native_engine import first_fit_reference

DIM, LEFT, RIGHT = 2, 1, 2
WIDTH = 1 + LEFT + RIGHT


def make_chunk(rng: np.random.Generator, lengths: list[int]) -> dict:
    """A chunk of sequences of ``lengths`` samples: a dense float32 stream, a CSR float64 stream
    with int32 indices, and a dense stream with a context window (segments = the sequences)."""
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    samples = int(offsets[-1])
    dense = rng.standard_normal((samples, DIM)).astype(np.float32)
    nnz = rng.integers(0, 3, samples)
    indptr = np.concatenate([[0], np.cumsum(nnz)]).astype(np.int64)
    values = rng.standard_normal(int(indptr[-1]))
    indices = rng.integers(0, 50, int(indptr[-1])).astype(np.int32)
    context = rng.standard_normal((samples, DIM)).astype(np.float32)
    return {"offsets": offsets, "dense": dense, "csr": (values, indices, indptr),
            "context": context}


def register(registry: "_native.ChunkRegistry", chunk_id: int, c: dict, skipped: list[int]) -> None:
    o = c["offsets"]
    registry.add(chunk_id, [(o, c["dense"], None, None, None),
                            (o, c["csr"][0], c["csr"][1], c["csr"][2], None),
                            (o, c["context"], None, None, (LEFT, RIGHT, o))], skipped)


SPECS = [(DIM * 4, False, False, True, True), (8, True, False, True, True),
         (DIM * WIDTH * 4, False, False, True, True)]


def expand(rows: np.ndarray, first: int, count: int) -> np.ndarray:
    """Rows [first, first + count) of one sequence with their clamped neighbours."""
    idx = np.clip(np.arange(first, first + count)[:, None] + np.arange(-LEFT, RIGHT + 1), 0,
                  len(rows) - 1)
    return rows[idx].reshape(count, DIM * WIDTH)


def reference(chunks: list[dict], starts: np.ndarray, sequences: np.ndarray,
              skipped: list[list[int]], segments: tuple | None) -> tuple[list[int], list]:
    """The delivered picks and, per stream, (values, lengths) computed with NumPy."""
    kept, dense, csr_rows, context, lengths = [], [], [], [], []
    for i, s in enumerate(sequences.tolist()):
        c = int(np.searchsorted(starts, s, side="right")) - 1
        w = s - int(starts[c])
        if w in skipped[c]:
            continue
        kept.append(i)
        o = chunks[c]["offsets"]
        first, n = 0, int(o[w + 1] - o[w])
        if segments is not None:
            first, n = int(segments[0][i]), int(segments[1][i])
        lo = int(o[w]) + first
        dense.append(chunks[c]["dense"][lo:lo + n])
        values, indices, indptr = chunks[c]["csr"]
        csr_rows += [(values[indptr[r]:indptr[r + 1]], indices[indptr[r]:indptr[r + 1]])
                     for r in range(lo, lo + n)]
        context.append(expand(chunks[c]["context"][o[w]:o[w + 1]], first, n))
        lengths.append(n)
    empty = np.zeros((0, DIM), np.float32)
    return kept, [np.concatenate(dense) if dense else empty, csr_rows,
                  np.concatenate(context) if context else np.zeros((0, DIM * WIDTH), np.float32),
                  lengths]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.integers(0, 4), min_size=1, max_size=5), min_size=1, max_size=4),
       st.data())
def test_assemble_matches_the_numpy_reference(chunk_lengths, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    chunks = [make_chunk(rng, lengths) for lengths in chunk_lengths]
    starts = np.concatenate([[0], np.cumsum([len(x) for x in chunk_lengths])]).astype(np.int64)
    skipped = [sorted(data.draw(st.sets(st.integers(0, len(x) - 1), max_size=2)))
               for x in chunk_lengths]
    registry = _native.ChunkRegistry()
    for c, chunk in enumerate(chunks):
        register(registry, 10 + c, chunk, skipped[c])
    total = int(starts[-1])
    sequences = np.asarray(data.draw(st.lists(st.integers(0, total - 1), max_size=12)), np.int64)
    segments = None
    if data.draw(st.booleans()):  # truncated BPTT: a segment of each sequence
        lengths = [int(np.diff(chunks[int(np.searchsorted(starts, s, "right")) - 1]["offsets"])[
            s - int(starts[int(np.searchsorted(starts, s, "right")) - 1])]) for s in sequences]
        firsts = [data.draw(st.integers(0, n)) for n in lengths]
        segments = (np.asarray(firsts, np.int64),
                    np.asarray([data.draw(st.integers(0, n - f)) for n, f in zip(lengths, firsts)],
                               np.int64))
    if len(sequences):  # chunk c of the table is not registered yet (10 + c is): it is missing
        missing, ids, kept, streams = registry.assemble(starts, sequences, SPECS, segments)
        assert ids is None and missing == sorted(set(
            (np.searchsorted(starts, sequences, side="right") - 1).tolist()))
    for c, chunk in enumerate(chunks):
        register(registry, c, chunk, skipped[c])
    missing, ids, kept, streams = registry.assemble(starts, sequences, SPECS, segments)
    want_kept, (dense, csr_rows, context, lengths) = reference(chunks, starts, sequences, skipped,
                                                               segments)
    assert missing is None
    assert (kept.tolist() if kept is not None else list(range(len(sequences)))) == want_kept
    got = [decode(s, k, chunks, ids) for k, s in enumerate(streams)]
    assert np.array_equal(got[0], dense) and np.array_equal(got[2], context)
    assert got[1] == [(v.tolist(), i.tolist()) for v, i in csr_rows]
    for s in streams:
        assert s[4].tolist() == lengths
    if segments is None:
        check_layouts(streams, lengths)


def decode(stream: tuple, k: int, chunks: list[dict], ids: np.ndarray):
    """A stream tuple of assemble() as arrays (CSR as per-row (values, indices) lists)."""
    where, values, indices, indptr, lengths, at, nbytes, _ = stream
    if k == 1:
        v, i = values.view(np.float64), indices.view(np.int32)
        return [(v[indptr[r]:indptr[r + 1]].tolist(), i[indptr[r]:indptr[r + 1]].tolist())
                for r in range(len(indptr) - 1)]
    if where == 1:  # one contiguous run of the first chunk: the caller views it
        assert k == 0
        return chunks[int(ids[0])]["dense"][at:at + int(lengths.sum())]
    assert where == 0 and nbytes == 0
    return values.view(np.float32).reshape(-1, DIM * (WIDTH if k == 2 else 1))


def check_layouts(streams: list[tuple], lengths: list[int]) -> None:
    """Stream 0 has CNTK's first fit; the others share it (their lengths are equal)."""
    layout_of, num_rows, width, rows, starts, not_one = streams[0][7]
    count, want_rows, want_starts = first_fit_reference(lengths)
    assert layout_of == -1 and not_one == -1 and width == max(lengths, default=0)
    if rows is None:  # all lengths equal: one sequence per row
        assert len(set(lengths)) <= 1 and num_rows == len(lengths)
    else:
        assert (num_rows, rows.tolist(), starts.tolist()) == (count, want_rows, want_starts)
    assert [s[7][0] for s in streams[1:]] == [0, 0]


def two_chunks() -> tuple["_native.ChunkRegistry", np.ndarray, list[dict]]:
    rng = np.random.default_rng(0)
    chunks = [make_chunk(rng, [2, 1, 3]), make_chunk(rng, [1, 1])]
    registry = _native.ChunkRegistry()
    for c, chunk in enumerate(chunks):
        register(registry, c, chunk, [])
    return registry, np.array([0, 3, 5], np.int64), chunks


def test_dense_values_go_to_the_callers_buffer_while_they_fit():
    registry, starts, chunks = two_chunks()
    out = np.full(4096, 255, np.uint8)
    seqs = np.array([3, 0, 4], np.int64)
    _, _, _, streams = registry.assemble(starts, seqs, SPECS, None, out)
    (w0, _, _, _, _, at0, n0, _), (w2, _, _, _, _, at2, n2, _) = streams[0], streams[2]
    assert (w0, at0, n0) == (2, 0, 4 * DIM * 4) and (w2, at2) == (2, 64)  # 64-byte aligned
    want = np.concatenate([chunks[1]["dense"][:1], chunks[0]["dense"][:2], chunks[1]["dense"][1:]])
    assert np.array_equal(out[:n0].view(np.float32).reshape(-1, DIM), want)
    assert n2 == 4 * DIM * WIDTH * 4 and out[at2 + n2:].tolist() == [255] * (4096 - at2 - n2)
    context = out[at2:at2 + n2].tobytes()
    _, _, _, small = registry.assemble(starts, seqs, SPECS, None, out[:40])  # room for stream 0
    assert small[0][0] == 2 and small[2][0] == 0 and small[2][1].tobytes() == context
    _, _, _, run = registry.assemble(starts, np.array([1, 2], np.int64), SPECS, None, out)
    assert run[0][:1] == (1,) and run[0][5] == 2  # one run of chunk 0 from row 2: a view


def test_frame_mode_reports_the_first_sequence_without_one_sample():
    registry, starts, _ = two_chunks()
    frames = [(b, s, True, True, True) for b, s, _, _, _ in SPECS]
    _, _, _, streams = registry.assemble(starts, np.array([3, 4, 0], np.int64), frames)
    assert [s[7][5] for s in streams] == [2, -1, -1]  # shared layouts are checked once
    _, _, _, ones = registry.assemble(starts, np.array([4, 1, 3], np.int64), frames)
    assert ones[0][7][5] == -1 and ones[0][7][3] is None and ones[0][7][1] == 3


def test_lengths_only_gathers_nothing():
    registry, starts, _ = two_chunks()
    specs = [(b, s, f, False, False) for b, s, f, _, _ in SPECS]
    _, _, _, streams = registry.assemble(starts, np.array([2], np.int64), specs)
    assert [s[4].tolist() for s in streams] == [[3]] * 3 and streams[0][1].size == 0


def test_bad_requests_are_errors_not_reads_out_of_bounds():
    registry, starts, chunks = two_chunks()
    with pytest.raises(ValueError, match="no chunk"):
        registry.assemble(starts, np.array([5], np.int64), SPECS)
    with pytest.raises(ValueError, match="outside its chunk"):
        registry.assemble(starts, np.array([0], np.int64), SPECS,
                          (np.array([1], np.int64), np.array([2], np.int64)))
    with pytest.raises(ValueError, match="row size"):  # 3 floats a row: not the stored 2
        registry.assemble(starts, np.array([0], np.int64), [(20, False, False, True, True)] * 3)
    with pytest.raises(ValueError, match="not sparse"):
        registry.assemble(starts, np.array([0], np.int64), [(8, True, False, True, True)] * 3)
    o, (values, indices, indptr) = chunks[0]["offsets"], chunks[0]["csr"]
    registry.add(1, [(o, chunks[0]["dense"], None, None, None), (o, values, indices, indptr, None),
                     (o, chunks[0]["context"], None, None, (2, 0, o))])
    with pytest.raises(ValueError, match="context window"):  # chunks 0 and 1 differ
        registry.assemble(starts, np.array([0, 3], np.int64), SPECS)
    with pytest.raises(ValueError, match="context bounds"):
        registry.add(2, [(o, chunks[0]["context"], None, None, (1, 1, o[:-1]))])
    with pytest.raises(ValueError, match="should not decrease"):
        registry.add(2, [(o[::-1].copy(), chunks[0]["dense"], None, None, None)])


@pytest.mark.parametrize("dim", [784, 1000, 1023, 1025, 3000])
def test_large_rows_crossing_pages_at_every_alignment_are_gathered_whole(dim):
    """Rows of 3-12 KiB (the gather also touches the first line of a row's next page ahead of
    the copy) at random positions of chunks whose rows start at every offset within a page."""
    rng = np.random.default_rng(dim)
    chunks, starts = [], [0]
    for shift in (0, 1, 7):  # rows start 4, 28 bytes after a page-aligned start, or aligned
        rows = rng.standard_normal((300 + shift, dim)).astype(np.float32)
        chunks.append(rows[shift:])  # a view: its rows start `shift * dim * 4` bytes in
        starts.append(starts[-1] + len(rows) - shift)
    registry = _native.ChunkRegistry()
    for c, rows in enumerate(chunks):
        offsets = np.arange(len(rows) + 1, dtype=np.int64)  # one sample per sequence
        registry.add(c, [(offsets, rows, None, None, None)], [])
    sequences = rng.permutation(starts[-1])[:257].astype(np.int64)
    _, ids, _, streams = registry.assemble(np.asarray(starts, np.int64), sequences,
                                           [(dim * 4, False, False, True, True)], None)
    where, values = streams[0][:2]
    want = np.concatenate(chunks)[sequences]
    assert where == 0 and np.array_equal(values.view(np.float32).reshape(-1, dim), want)
