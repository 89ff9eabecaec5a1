"""Random access by sequence: Grain's ``RandomAccessDataSource`` protocol.

Grain samples record keys (shuffled, sharded, in worker processes) and asks a
data source for each: ``len(source)`` and ``source[i]``. Any deserializer
allows it through its index: sequence ``i`` (in file order) lives in chunk
``table.chunk_of(i)``. :class:`SequenceDataSource` loads that chunk (keeping
the last few) and slices the sequence; :func:`ctf_data_source` builds one over
a CTF file whose chunks are single sequences, so a random read parses exactly
the bytes of its sequence. Sources pickle without their open files (each
worker process opens its own).

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher import StreamDef
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
    >>> _ = p.write_text("0 |x 1\\n0 |x 2\\n1 |x 3\\n2 |x 4\\n")
    >>> source = ctf_data_source(str(p), {"x": StreamDef()})
    >>> len(source), source[0]["x"].ravel().tolist(), source[-1]["x"].ravel().tolist()
    (3, [1.0, 2.0], [4.0])
"""

from __future__ import annotations

import functools
import os
import threading
from collections import OrderedDict
from typing import Any, Callable, Mapping, SupportsIndex

from ..deserializer import ChunkData, Deserializer
from ..engine.gather import sequence_rows
from ..streams import StreamInformation


def _sequence(chunk: ChunkData, infos: list[StreamInformation], within: int) -> dict[str, Any]:
    """Every stream of sequence ``within`` of ``chunk``, as the engine gathers it (context
    windows expanded; dense rows a view where no window applies, sparse as CSR rows)."""
    return {info.name: sequence_rows(info, stream, [within])[0]
            for info, stream in zip(infos, chunk.streams)}


class SequenceDataSource:
    """``len()`` and ``[i]`` over the sequences of a deserializer (file order).

    ``source[i]`` is ``{stream: (samples, dim) array or CSRMatrix, "key": int}``.

    Example:
        >>> SequenceDataSource(lambda: None).cached_chunks
        2
    """

    def __init__(self, make_deserializer: Callable[[], Deserializer], cached_chunks: int = 2) -> None:
        self.make_deserializer, self.cached_chunks = make_deserializer, int(cached_chunks)
        self._state: tuple[int, Deserializer, Any] | None = None
        self._lock = threading.Lock()
        self._chunks: OrderedDict[int, ChunkData] = OrderedDict()

    def _open(self) -> tuple[Deserializer, Any]:
        if self._state is None or self._state[0] != os.getpid():
            deserializer = self.make_deserializer()
            self._state = (os.getpid(), deserializer, deserializer.table())
            self._chunks = OrderedDict()
        return self._state[1], self._state[2]

    def __len__(self) -> int:
        return self._open()[1].num_sequences

    def __getitem__(self, record_key: SupportsIndex) -> dict[str, Any]:
        deserializer, table = self._open()
        n, i = table.num_sequences, record_key.__index__()
        if not -n <= i < n:
            raise IndexError(f"record_key should be in [-{n}, {n}), but got record_key={i}")
        i %= n
        chunk_id = int(table.chunk_of(i))
        chunk = self._chunk(deserializer, chunk_id)
        record = _sequence(chunk, deserializer.streams, i - int(table.chunk_starts[chunk_id]))
        record["key"] = int(table.keys[i])
        return record

    def _chunk(self, deserializer: Deserializer, chunk_id: int) -> ChunkData:
        """Chunk ``chunk_id``, from the cache of the last ``cached_chunks`` or loaded."""
        with self._lock:
            chunk = self._chunks.pop(chunk_id, None)
        if chunk is None:
            chunk = deserializer.load_chunk(chunk_id)
        with self._lock:
            self._chunks[chunk_id] = chunk
            while len(self._chunks) > self.cached_chunks:
                self._chunks.popitem(last=False)
        return chunk

    def __getstate__(self) -> dict[str, Any]:
        return {"make_deserializer": self.make_deserializer, "cached_chunks": self.cached_chunks}

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        self.__init__(state["make_deserializer"], state["cached_chunks"])

    def __repr__(self) -> str:
        return f"SequenceDataSource({self.make_deserializer!r})"


def ctf_data_source(filename: str | os.PathLike, streams: Mapping[str, Any],
                    **options: Any) -> SequenceDataSource:
    """A :class:`SequenceDataSource` over a CTF file, one sequence per chunk
    (``options`` are ``CTFDeserializer``'s; ``cache_index=True`` is advisable
    for large files: every process builds or loads the index).

    Example:
        >>> import pathlib, pickle, tempfile
        >>> from minibatcher import StreamDef
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
        >>> _ = p.write_text("0 |x 1\\n0 |x 2\\n1 |x 3\\n2 |x 4\\n")
        >>> source = ctf_data_source(str(p), {"x": StreamDef()})
        >>> source.make_deserializer().table().num_chunks   # one chunk per sequence
        3
        >>> pickle.loads(pickle.dumps(source))[1]   # what a worker process reads
        {'x': array([[3.]], dtype=float32), 'key': 1}
    """
    from ..formats.ctf import CTFDeserializer

    options["chunk_size_in_bytes"] = 1
    return SequenceDataSource(functools.partial(CTFDeserializer, os.fspath(filename), dict(streams),
                                                **options))
