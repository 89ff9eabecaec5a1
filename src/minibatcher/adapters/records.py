"""Any ``Deserializer`` as a tfdata *record source*: CTF and HTK data in tf.data pipelines.

:func:`from_deserializer` gives the sequences of a deserializer (CTF, HTK features, MLF labels,
a composite of them) in file order as a :class:`~minibatcher.tfdata.RecordSource`:
``tfdata.SourceDataset(from_deserializer(d))`` then shuffles, maps, batches, shards and
checkpoints like any tfdata dataset. Record ``i`` is ``{"key": uint64, stream: values}``, each
stream's rows gathered as the engine gathers them (:func:`minibatcher.engine.gather.sequence_rows`:
context windows expanded); a sparse stream is a ``tfdata.SparseTensor`` of shape
``(samples, dim)``. Random access loads the record's chunk (the last few stay cached); block
reads take a chunk's sequences in one gather. The fingerprint is the deserializer's own (file
sizes and digests, options), so a restore into other data is refused.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher import CTFDeserializer, StreamDef, tfdata
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
    >>> _ = p.write_text("0 |x 1\\n0 |x 2\\n1 |x 3\\n2 |x 4\\n")
    >>> ds = tfdata.SourceDataset(from_deserializer(CTFDeserializer(str(p), {"x": StreamDef()})))
    >>> [r["x"].ravel().tolist() for r in ds.skip(1)]
    [[3.0], [4.0]]
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..deserializer import ChunkData, Deserializer
from ..engine.gather import sequence_rows
from ..engine.layout import CSRMatrix
from ..streams import StreamInformation
from .grain import SequenceDataSource


def _value(values: Any) -> Any:
    """A gathered stream as a tfdata value (a CSR matrix becomes a SparseTensor)."""
    if not isinstance(values, CSRMatrix):
        return np.ascontiguousarray(values)
    from ..tfdata.sparse_tensor import SparseTensor

    rows = np.repeat(np.arange(values.shape[0], dtype=np.int64), np.diff(values.indptr))
    indices = np.stack([rows, np.asarray(values.indices, dtype=np.int64)], axis=1)
    return SparseTensor(indices.reshape(-1, 2), np.asarray(values.data), list(values.shape))


def _records(chunk: ChunkData, infos: list[StreamInformation], within: np.ndarray,
             keys: np.ndarray) -> list[dict[str, Any]]:
    """The records of sequences ``within`` of one chunk (one gather per stream)."""
    out: list[dict[str, Any]] = [{"key": np.uint64(k)} for k in keys.tolist()]
    for info, stream in zip(infos, chunk.streams):
        values, lengths = sequence_rows(info, stream, within)
        cuts = np.concatenate([[0], np.cumsum(lengths)]).tolist()
        for record, a, b in zip(out, cuts[:-1], cuts[1:]):
            part = values.row_slice(a, b) if isinstance(values, CSRMatrix) else values[a:b]
            record[info.name] = _value(part)
    return out


class DeserializerRecords(SequenceDataSource):
    """The sequences of a deserializer as a tfdata record source (see the module docstring).

    ``deserializer`` is a ``Deserializer``, or a zero-argument callable making one (each
    process then builds its own, as :class:`~minibatcher.adapters.grain.SequenceDataSource`).

    Example:
        >>> src = _example()
        >>> len(src), src[1]["x"].shape, src.fingerprint()["deserializer"]
        (2, (2, 6), 'HTKFeatureDeserializer')
    """

    def __init__(self, deserializer: Deserializer | Callable[[], Deserializer],
                 cached_chunks: int = 2) -> None:
        make = (lambda: deserializer) if isinstance(deserializer, Deserializer) else deserializer
        super().__init__(make, cached_chunks)
        self._given = deserializer

    def __getitem__(self, index: Any) -> dict[str, Any]:
        return self.read(int(index), int(index) + 1)[0]

    def read(self, start: int, stop: int) -> list[dict[str, Any]]:
        """Records ``start .. stop-1``, one gather per chunk and stream.

        Example:
            >>> [r["x"][:, 2].tolist() for r in _example().read(0, 2)]
            [[0.0, 2.0, 4.0], [6.0, 8.0]]
        """
        deserializer, table = self._open()
        n = table.num_sequences
        if not 0 <= start <= stop <= n:
            raise IndexError(f"records [{start}, {stop}) should lie in [0, {n}]")
        out: list[dict[str, Any]] = []
        at = start
        while at < stop:
            chunk_id = int(table.chunk_of(at))
            first = int(table.chunk_starts[chunk_id])
            end = min(stop, int(table.chunk_starts[chunk_id + 1]))
            chunk = self._chunk(deserializer, chunk_id)
            out += _records(chunk, deserializer.streams, np.arange(at - first, end - first),
                            np.asarray(table.keys[at:end]))
            at = end
        return out

    def fingerprint(self) -> dict[str, Any]:
        """The deserializer's fingerprint and class (what a checkpoint must match).

        Example:
            >>> fp = _example().fingerprint()
            >>> fp["format"], fp["utterances"]
            ('htk', 2)
        """
        deserializer = self._open()[0]
        return {"deserializer": type(deserializer).__name__, **deserializer.fingerprint()}

    def __getstate__(self) -> dict[str, Any]:
        return {"deserializer": self._given, "cached_chunks": self.cached_chunks}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["deserializer"], state["cached_chunks"])

    def __repr__(self) -> str:
        return f"DeserializerRecords({self._given!r})"


def from_deserializer(deserializer: Deserializer | Callable[[], Deserializer],
                      cached_chunks: int = 2) -> DeserializerRecords:
    """A tfdata record source over ``deserializer``'s sequences (file order).

    Example:
        >>> from minibatcher import tfdata
        >>> ds = tfdata.SourceDataset(from_deserializer(_example().make_deserializer()))
        >>> [r["x"].shape for r in ds.repeat(2).skip(1)]
        [(2, 6), (3, 6), (2, 6)]
    """
    return DeserializerRecords(deserializer, cached_chunks)


def _example() -> DeserializerRecords:
    """Two HTK utterances (3 and 2 frames of 2 values) with one frame of context each side."""
    from ..formats.htk.features import _example as htk_example

    return DeserializerRecords(htk_example())
