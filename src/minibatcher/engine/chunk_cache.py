"""Loads chunks on background threads ahead of use and releases them after.

The source tells the cache which chunks the reader will need (from the sweep
plan: chunks in use at the cursor plus the next few to start); everything
else is dropped, so memory stays bounded by the randomization window.
Parsing releases the GIL, so threads overlap parsing with consumption.

Example:
    >>> import numpy as np
    >>> from minibatcher.deserializer import ChunkData, StreamChunk
    >>> class Fake:
    ...     keeps_chunks = False
    ...     name = "fake"
    ...     def load_chunk(self, c):
    ...         return ChunkData((StreamChunk.dense(np.full((1, 1), c), [0, 1]),))
    >>> cache = ChunkCache(Fake(), threads=1)
    >>> cache.want([3, 4]); cache.get(4).streams[0].values.tolist(), sorted(cache.loaded())
    ([[4]], [3, 4])
    >>> cache.want([4]); sorted(cache.loaded())
    [4]
    >>> cache.close()
"""

from __future__ import annotations

import concurrent.futures as cf
from typing import Iterable

from ..deserializer import ChunkData, Deserializer


def _release(future: cf.Future) -> None:
    """Nothing: the chunk is freed when this task's arguments are, on the release thread."""


class ChunkCache:
    """Chunk futures keyed by chunk id."""

    def __init__(self, deserializer: Deserializer, threads: int) -> None:
        self.deserializer = deserializer
        self._pool = cf.ThreadPoolExecutor(max_workers=max(1, threads),
                                           thread_name_prefix="minibatcher-chunks")
        self._futures: dict[int, cf.Future[ChunkData]] = {}
        self._ready: dict[int, ChunkData] = {}  # results of finished futures (no lock to take)
        # Dropped chunks are freed on this thread: unmapping a large chunk takes
        # milliseconds (the native buffers are freed without holding the GIL).
        self._releaser = cf.ThreadPoolExecutor(max_workers=1,
                                               thread_name_prefix="minibatcher-release")

    def _load(self, chunk_id: int) -> ChunkData:
        try:
            return self.deserializer.load_chunk(chunk_id)
        except Exception as e:
            e.add_note(f"(raised while loading chunk {chunk_id} of {self.deserializer.name} "
                       "on a background thread)")
            raise

    def want(self, chunk_ids: Iterable[int]) -> None:
        """Makes exactly ``chunk_ids`` resident or loading (in the given order);
        drops the rest unless the deserializer keeps chunks itself."""
        wanted = list(dict.fromkeys(int(c) for c in chunk_ids))
        if len(wanted) == len(self._futures) and all(c in self._futures for c in wanted):
            return  # already exactly these
        keep = set(wanted)
        for chunk_id in [c for c in self._futures if c not in keep]:
            self._ready.pop(chunk_id, None)
            future = self._futures.pop(chunk_id)
            if not future.cancel():  # the last reference goes with the task, on that thread
                self._releaser.submit(_release, future)
        for chunk_id in wanted:
            if chunk_id not in self._futures:
                self._futures[chunk_id] = self._pool.submit(self._load, chunk_id)

    def get(self, chunk_id: int) -> ChunkData:
        """The chunk, waiting for its parse; errors are re-raised here."""
        future = self._futures.get(chunk_id)
        if future is None:
            future = self._futures[chunk_id] = self._pool.submit(self._load, chunk_id)
        return future.result()

    def get_many(self, chunk_ids: list[int]) -> list[ChunkData]:
        """The chunks, in order; every missing one is submitted before any is
        waited for (so they parse in parallel).

        Example:
            >>> from minibatcher.engine.chunk_cache import ChunkCache
            >>> ChunkCache.get_many.__name__
            'get_many'
        """
        ready = self._ready
        if all(c in ready for c in chunk_ids):
            return [ready[c] for c in chunk_ids]
        for chunk_id in chunk_ids:
            if chunk_id not in self._futures:
                self._futures[chunk_id] = self._pool.submit(self._load, chunk_id)
        for chunk_id in chunk_ids:
            if chunk_id not in ready:
                ready[chunk_id] = self._futures[chunk_id].result()
        return [ready[c] for c in chunk_ids]

    def loaded(self) -> list[int]:
        """Chunk ids resident or loading."""
        return list(self._futures)

    def close(self) -> None:
        """Stops the threads and drops every chunk."""
        for future in self._futures.values():
            future.cancel()
        self._futures.clear()
        self._ready.clear()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._releaser.shutdown(wait=True)
