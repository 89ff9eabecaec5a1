"""A chunk parsed in pieces on idle cores (formats/ctf/pieces.py) gives the arrays,
issues and messages of a one-piece parse and of the Python reference."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from minibatcher import CTFDeserializer, StreamDef
from minibatcher.errors import FormatError
from minibatcher.formats.ctf import pieces
from minibatcher.formats.ctf.backend import _NativeParser, backend
from minibatcher.formats.ctf.pieces import PieceHelpers, piece_bounds

from .test_differential import configs, documents, same

NATIVE, PYTHON = backend("native"), backend("python")


def _parser(kernels, cfg: dict, first_sequence: int = 0):
    n = len(cfg["dims"])
    main = cfg["main"] if cfg["main"] < n else -1
    return kernels.parser(["a", "b", "c"][:n], cfg["dims"], cfg["sparse"][:n], main,
                          cfg["double"], cfg["error_limit"], 5,
                          skip_incomplete=cfg["skip_incomplete"], first_sequence=first_sequence)


def _feed(parser, data: bytes, spans: list[tuple], lo: int, hi: int) -> None:
    start, stop = spans[lo][0], spans[hi - 1][0] + spans[hi - 1][1]
    block = [(o - start, s, r, line) for o, s, r, line in spans[lo:hi]]
    parser.feed(np.frombuffer(data[start:stop], np.uint8), 1000 + start,
                *(np.array(v, dtype=np.int64) for v in zip(*block)))


def _whole(kernels, cfg: dict, data: bytes, spans: list[tuple]) -> dict:
    parser = _parser(kernels, cfg)
    _feed(parser, data, spans, 0, len(spans))
    return parser.finish()


def _value() -> st.SearchStrategy[str]:
    return st.one_of(st.integers(-99, 99).map(str), st.sampled_from(["0.5", "-2.25", "1e3", ".5"]),
                     st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr))


def _row() -> st.SearchStrategy[str]:
    """A row of a (dense, dim 3; a short one is a warning), b (sparse, dim 10) and c
    (dense, dim 1); now and then an unknown input or a comment."""
    dense = st.lists(_value(), min_size=1, max_size=3).map(lambda v: "|a " + " ".join(v))
    sparse = st.lists(st.tuples(st.integers(0, 9), _value()), max_size=3).map(
        lambda v: "|b " + " ".join(f"{i}:{x}" for i, x in v))
    extra = st.lists(st.sampled_from(["|u1 5", "|u2 x", "|u3", "|# note", "|u1 1 2", "|zz 0"]),
                     max_size=1)
    return st.tuples(dense, sparse, _value().map(lambda v: "|c " + v), extra).map(
        lambda t: " ".join([*t[:3], *t[3]]))


_BAD_ROWS = ["|a 1 2 3 4 |b 1:1 |c 1", "|a 1 |b 12:1 |c 1", "|a 1 |b |c 1x", "|a 1 |a 2 |b |c 1",
             "|a 1 |b 1:1", "|x"]
_bad = st.lists(st.tuples(st.integers(0, 29), st.sampled_from(_BAD_ROWS)), max_size=1)
_rows = st.tuples(st.lists(st.tuples(st.integers(0, 3), _row()), min_size=2, max_size=30),
                  _bad).map(  # at most one bad row, as sequence 9
    lambda t: t[0][:t[1][0][0]] + [(9, t[1][0][1])] + t[0][t[1][0][0]:] if t[1] else t[0])
_clean_configs = st.fixed_dictionaries({
    "dims": st.just([3, 10, 1]), "sparse": st.just([False, True, False]),
    "main": st.integers(-1, 2), "double": st.booleans(), "error_limit": st.integers(1, 40),
    "skip_ids": st.just(False), "skip_incomplete": st.booleans()})


def _document(rows: list) -> bytes:
    return "".join(f"{key} {row}\n" for key, row in rows).encode()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.one_of(_rows.map(_document), _rows.map(_document), documents),
       cfg=st.one_of(_clean_configs, _clean_configs, configs),
       cuts=st.lists(st.integers(1, 30), min_size=1, max_size=5), front=st.integers(1, 6))
def test_pieces_appended_equal_one_parse_and_the_reference(data, cfg, cuts, front):
    """The front parser takes pieces [0, front), separate parsers (issues counted
    from their first sequence) the rest; appends in order, and where one refuses
    the front parser parses the rest (what the deserializer does)."""
    ref = PYTHON.build_index(data, cfg["skip_ids"], "")
    if ref["status"] != 0 or len(ref["offsets"]) < 2:
        return
    spans = list(zip(*(ref[k].tolist() for k in ("offsets", "sizes", "rows", "lines"))))
    bounds = sorted({0, len(spans), *(c for c in cuts if c < len(spans))})
    front = min(front, len(bounds) - 2)
    main = _parser(NATIVE, cfg)
    for lo, hi in zip(bounds[:front], bounds[1:front + 1]):
        _feed(main, data, spans, lo, hi)
    later = []
    for lo, hi in zip(bounds[front:-1], bounds[front + 1:]):
        later.append(_parser(NATIVE, cfg, first_sequence=lo))
        _feed(later[-1], data, spans, lo, hi)
    for k, part in enumerate(later):
        if main.aborted:
            break
        if not main.append(part):
            event("an append refused")
            for lo, hi in zip(bounds[front + k:-1], bounds[front + k + 1:]):
                _feed(main, data, spans, lo, hi)
            break
        event("a piece appended")
    got = main.finish()
    assert same(got, _whole(NATIVE, cfg, data, spans))
    assert same(got, _whole(PYTHON, cfg, data, spans))


def test_append_refuses_after_errors_and_when_later_tracks_the_most_unknown_names():
    cfg = {"dims": [1], "sparse": [False] * 3, "main": -1, "double": False, "error_limit": 9,
           "skip_incomplete": False}
    data = b"".join(b"|a %d |u%d 1\n" % (i, i) for i in range(300)) + b"|a x\n|a 1\n"
    offsets = np.cumsum([0] + [len(line) + 1 for line in data.split(b"\n")[:-1]])
    spans = [(int(o), int(e - o), 1, i + 1) for i, (o, e) in enumerate(zip(offsets[:-1],
                                                                          offsets[1:]))]
    main, unknown = _parser(NATIVE, cfg), _parser(NATIVE, cfg, first_sequence=1)
    _feed(main, data, spans, 0, 1)
    _feed(unknown, data, spans, 1, 300)  # 299 distinct unknown names: more than it tracks
    assert not main.append(unknown) and main.next_sequence == 1
    bad = _parser(NATIVE, cfg, first_sequence=1)
    _feed(bad, data, spans, 1, 302)  # charges the error of "|a x"
    assert not main.append(bad)
    with pytest.raises(RuntimeError, match="begin where"):
        main.append(_parser(NATIVE, cfg, first_sequence=5))
    _feed(main, data, spans, 1, 302)
    assert same(main.finish(), _whole(PYTHON, cfg, data, spans))


# -- the deserializer ---------------------------------------------------------------------------


def _lines(rng: np.random.Generator, count: int, bad_rate: float = 0.01) -> bytes:
    """Sequences of 1-3 rows: dense x (dim 3, sometimes short: a warning), sparse y,
    unknown inputs, sometimes a bad number (an error charged to the budget)."""
    out = []
    for seq in range(count):
        for _ in range(int(rng.integers(1, 4))):
            x = " ".join(str(v) for v in rng.integers(0, 9, int(rng.choice([3, 3, 3, 2]))))
            y = " ".join(f"{i}:{v / 4}" for i, v in zip(rng.integers(0, 50, 2), range(2)))
            extra = f" |u{rng.integers(0, 5)} 7" if rng.random() < 0.2 else ""
            bad = "z" if rng.random() < bad_rate else ""
            out.append(f"{seq} |x {x}{bad} |y {y}{extra}\n")
    return "".join(out).encode()


STREAMS = {"x": StreamDef(shape=3), "y": StreamDef(shape=50, is_sparse=True)}


def _chunks(path, impl: str, cpus: int, **kw) -> tuple[list, list[str], object]:
    messages: list[str] = []
    d = CTFDeserializer(str(path), STREAMS, impl=impl, trace_level=0, on_error=messages.append,
                        **kw)
    d._helpers.cpus = cpus
    chunks = [d.load_chunk(c) for c in range(d.table().num_chunks)]
    return chunks, messages, d.stats


def _arrays(chunks: list) -> list:
    return [[[s.values, s.indices, s.indptr, s.sequence_offsets] for s in c.streams]
            + [list(c.skipped)] for c in chunks]


def _helpers_take_a_piece_first(monkeypatch) -> None:
    """The chunk's thread waits until a helper has taken a piece: on a busy machine the
    chunk's thread could parse every piece before a helper ran, and no append happened."""
    run = PieceHelpers.run

    def run_helped(self, count, front, back):
        took = threading.Event()

        def back_noted(j):
            took.set()
            return back(j)

        def front_after_a_helper(i):
            if i == 0 and count > 1 and self.cpus > 1:
                took.wait(10)
            return front(i)
        return run(self, count, front_after_a_helper, back_noted)
    monkeypatch.setattr(PieceHelpers, "run", run_helped)


@pytest.mark.parametrize("max_errors, bad_rate", [(0, 0.0), (0, 0.01), (1000, 0.01)])
def test_chunks_parsed_in_pieces_equal_one_piece_and_the_reference(tmp_path, monkeypatch,
                                                                   max_errors, bad_rate):
    monkeypatch.setattr(pieces, "MIN_PIECE_BYTES", 512)
    path = tmp_path / "d.ctf"
    path.write_bytes(_lines(np.random.default_rng(5), 600, bad_rate))
    appends = []
    append = _NativeParser.append
    monkeypatch.setattr(_NativeParser, "append", lambda self, later: appends.append(
        append(self, later)) or appends[-1])
    _helpers_take_a_piece_first(monkeypatch)
    results = {}
    for impl, cpus in (("native", 4), ("native", 1), ("python", 4)):
        kw = {"chunk_size_in_bytes": 8 << 10, "max_errors": max_errors,
              "skip_incomplete_sequences": True}
        try:
            chunks, messages, stats = _chunks(path, impl, cpus, **kw)
            results[impl, cpus] = [_arrays(chunks), messages, vars(stats)]
        except FormatError as e:
            results[impl, cpus] = str(e)
    if bad_rate == 0:
        assert True in appends and False not in appends
    elif max_errors > 0:  # refused after an error, taken in chunks without one
        assert True in appends and False in appends
    else:
        assert isinstance(results["native", 4], str)
    assert same(results["native", 4], results["native", 1])
    assert same(results["native", 4], results["python", 4])


def test_a_helper_that_fails_leaves_its_piece_to_the_chunk_thread(tmp_path, monkeypatch):
    monkeypatch.setattr(pieces, "MIN_PIECE_BYTES", 512)
    path = tmp_path / "d.ctf"
    path.write_bytes(_lines(np.random.default_rng(6), 200).replace(b"z", b""))
    expected, _, _ = _chunks(path, "native", 1)
    failed = []

    def flaky(j):
        if threading.current_thread() is not threading.main_thread() and not failed:
            failed.append(j)
            raise OSError("a read that failed once")
    run = PieceHelpers.run
    monkeypatch.setattr(PieceHelpers, "run", lambda self, count, front, back: run(
        self, count, front, lambda j: flaky(j) or back(j)))
    got, _, _ = _chunks(path, "native", 4)
    assert failed and same(_arrays(got), _arrays(expected))


# -- the helpers --------------------------------------------------------------------------------


def test_helpers_only_help_while_cores_are_idle():
    one = PieceHelpers(cpus=1)
    assert one.run(5, lambda i: True, lambda j: j) == []  # nothing offered
    busy = PieceHelpers(cpus=2)
    busy._busy = 1  # another chunk's thread parses: both cores are in use
    taken = []
    assert busy.run(6, lambda i: taken.append(i) or True, lambda j: j) == []
    assert taken == list(range(6))
    busy.close()


def test_helpers_stop_when_the_front_stops():
    helpers = PieceHelpers(cpus=3)
    gate = threading.Event()  # helpers finish their first piece only after the front stopped
    helped = helpers.run(50, lambda i: not (i == 2 and gate.set() is None),
                         lambda j: gate.wait(5) and j)
    assert len(helped) <= 2 and all(r == j for j, r in helped)  # one piece each at most
    helpers.close()


def test_a_forked_child_gets_new_helper_threads():
    helpers = PieceHelpers(cpus=2)
    first = helpers._executor()
    assert helpers._executor() is first
    helpers._pid = -1  # what a child of fork() sees: the threads belong to its parent
    assert helpers._executor() is not first
    helpers.close()


def test_piece_bounds_cut_at_sequences_and_never_below_the_minimum():
    offsets = np.arange(0, 100 << 20, 1 << 20)
    bounds = piece_bounds(offsets, offsets + (1 << 20), 2)
    assert bounds[0] == 0 and bounds[-1] == 100 and bounds == sorted(set(bounds))
    assert len(bounds) == 5
    assert piece_bounds(offsets[:3], offsets[:3] + (1 << 20), 8) == [0, 3]  # 3 MB: one piece
    assert piece_bounds(offsets, offsets + (1 << 20), 1) == [0, 100]
