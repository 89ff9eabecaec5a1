"""Large dense minibatch values come from the chunk registry's pool of mapped blocks
(``ChunkRegistry(keep)``, cpp/bindings/chunk_registry.cc): a minibatch whose arrays the consumer
dropped lends its resident pages to the next one. Before, each ~7 MB sequence-mode minibatch was
a fresh mapping or trimmed heap, faulted in page by page (docs/design/engine-speed.md). A block
goes back only when the last reference to its array dies: held arrays are never written again."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from minibatcher import HTKFeatureDeserializer, MinibatchSource, StreamDef, _native
from minibatcher.formats.htk import write_htk

DIM, SEQ = 128, 1000  # float32 rows of 512 bytes; sequences of 1000 rows (512 KB)
SPECS = [(DIM * 4, False, False, True, True)]


def data_pointer(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def registry_of(keep: int) -> tuple["_native.ChunkRegistry", np.ndarray, np.ndarray]:
    """A registry with one chunk of 8 sequences of SEQ rows; its chunk starts and rows."""
    rows = np.random.default_rng(0).standard_normal((8 * SEQ, DIM)).astype(np.float32)
    offsets = np.arange(0, 8 * SEQ + 1, SEQ, dtype=np.int64)
    registry = _native.ChunkRegistry(keep=keep)
    registry.add(0, [(offsets, rows, None, None, None)])
    return registry, np.array([0, 8], np.int64), rows


def gathered(registry: "_native.ChunkRegistry", starts: np.ndarray,
             sequences: list[int]) -> np.ndarray:
    """The dense values of these sequences (not one run of the chunk: a new array)."""
    _, _, _, streams = registry.assemble(starts, np.array(sequences, np.int64), SPECS)
    where, values = streams[0][:2]
    assert where == 0
    return values.view(np.float32).reshape(-1, DIM)


def expected(rows: np.ndarray, sequences: list[int]) -> np.ndarray:
    return np.concatenate([rows[s * SEQ:(s + 1) * SEQ] for s in sequences])


def test_a_dropped_minibatchs_block_serves_the_next_one():
    registry, starts, rows = registry_of(keep=2)
    first = gathered(registry, starts, [3, 1, 5])  # 1.5 MB: pooled
    where = data_pointer(first)
    assert np.array_equal(first, expected(rows, [3, 1, 5]))
    del first
    second = gathered(registry, starts, [6, 0, 2])
    assert data_pointer(second) == where and np.array_equal(second, expected(rows, [6, 0, 2]))


def test_held_values_are_never_lent_again_nor_overwritten():
    registry, starts, rows = registry_of(keep=2)
    held = [gathered(registry, starts, s) for s in ([3, 1, 5], [0, 2, 4], [7, 6, 5], [1, 0, 3])]
    assert len({data_pointer(a) for a in held}) == 4
    del held[1]  # its block serves the next minibatch; the others stay as they were
    again = gathered(registry, starts, [5, 4, 2])
    assert np.array_equal(again, expected(rows, [5, 4, 2]))
    for a, s in zip(held, ([3, 1, 5], [7, 6, 5], [1, 0, 3])):
        assert np.array_equal(a, expected(rows, s))


def test_values_outlive_their_registry():
    registry, starts, rows = registry_of(keep=1)
    values = gathered(registry, starts, [4, 2])
    del registry  # the pool lives on until the last array it lent is dropped
    assert np.array_equal(values, expected(rows, [4, 2]))


def test_keep_is_checked():
    with pytest.raises(ValueError, match=r"keep should be in \[0, 8\], but got keep=9"):
        _native.ChunkRegistry(keep=9)
    registry, starts, rows = registry_of(keep=0)  # every block is unmapped when dropped
    assert np.array_equal(gathered(registry, starts, [2, 0]), expected(rows, [2, 0]))


def test_threads_sharing_a_registry_never_share_a_block():
    registry, starts, rows = registry_of(keep=3)
    wrong: list[list[int]] = []

    def work(seed: int) -> None:
        rng, held = np.random.default_rng(seed), []
        for _ in range(40):  # picks in decreasing order: never one run of the chunk (a view)
            picks = sorted(rng.choice(8, size=int(rng.integers(2, 6)), replace=False).tolist())[::-1]
            try:
                held.append((picks, gathered(registry, starts, picks)))
            except Exception:
                wrong.append(picks)
            if rng.random() < 0.6:
                held.pop(int(rng.integers(len(held))))
            wrong.extend(p for p, a in held if not np.array_equal(a, expected(rows, p)))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []


def htk_scp(folder, lengths: list[int]) -> str:
    """An archive of utterances of ``lengths`` 40-dim frames (frame i's values encode i)."""
    frames = np.arange(sum(lengths) * 40, dtype=np.float32).reshape(-1, 40) / 7
    write_htk(folder / "a.htk", frames)
    first = np.concatenate([[0], np.cumsum(lengths)]).tolist()
    (folder / "a.scp").write_text("".join(f"u{i}=.../a.htk[{first[i]},{first[i + 1] - 1}]\n"
                                          for i in range(len(lengths))))
    return str(folder / "a.scp")


def sequence_source(scp: str) -> MinibatchSource:
    """Sequence mode, 11-frame context: 4096-frame minibatches of ~7 MB, as benchmarks/htk.py."""
    d = HTKFeatureDeserializer({"x": StreamDef(scp=scp, shape=40, context=(5, 5))})
    return MinibatchSource(d, randomize=False, max_sweeps=1)


def test_held_minibatches_keep_their_values_and_dropped_ones_are_reused(tmp_path):
    scp = htk_scp(tmp_path, np.random.default_rng(1).integers(200, 801, 60).tolist())
    held = [mb["x"].values for mb in sequence_source(scp).minibatches(4096)]
    copies, pointers = [], []
    for mb in sequence_source(scp).minibatches(4096):  # each dropped before the next
        copies.append(mb["x"].values.copy())
        pointers.append(data_pointer(mb["x"].values))
    assert len(held) == len(copies) >= 8 and len({data_pointer(a) for a in held}) == len(held)
    assert all(np.array_equal(a, b) for a, b in zip(held, copies))
    assert len(set(pointers)) <= 3  # a few blocks, each serving minibatch after minibatch


CHILD = textwrap.dedent("""
    import json, resource, sys
    from minibatcher import HTKFeatureDeserializer, MinibatchSource, StreamDef
    d = HTKFeatureDeserializer({"x": StreamDef(scp=sys.argv[1], shape=40, context=(5, 5))})
    source = MinibatchSource(d, randomize=False, max_sweeps=1)
    faults, pages = [], []
    while True:  # a training loop: the last minibatch is held while the next one is read
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        mb = source.next_minibatch(4096)
        if not mb:
            break
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
        pages.append(mb["x"].values.nbytes // 4096)
    print(json.dumps({"faults": faults, "pages": pages}))
""")


def test_sequence_minibatches_reuse_resident_pages(tmp_path):
    """In a fresh process (glibc's thresholds as a reader of mapped chunks leaves them), after
    the first minibatches a minibatch faults in few of its pages: it reuses a dropped one's."""
    scp = htk_scp(tmp_path, np.random.default_rng(2).integers(200, 801, 100).tolist())
    done = subprocess.run([sys.executable, "-c", CHILD, scp], capture_output=True, text=True,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    later_faults, later_pages = sum(got["faults"][3:]), sum(got["pages"][3:])
    assert len(got["pages"]) >= 10 and later_faults < later_pages / 10, got
