"""Loads chunks on background threads ahead of use and releases them after.

The source tells the cache which chunks the reader will need (from the sweep
plan: chunks in use at the cursor plus the next few to start); everything
else is dropped, so memory stays bounded by the randomization window.
Parsing releases the GIL, so threads overlap parsing with consumption.
Finished chunks are also registered natively (:attr:`ChunkCache.registry`),
so that gathers name chunks by id; dropped chunks are freed on a release
thread (unmapping a large chunk takes milliseconds).

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
from typing import Any, Iterable

import numpy as np

from .. import _native, exit_guard
from ..deserializer import ChunkData, Deserializer, StreamChunk


def _release(box: list[cf.Future]) -> None:
    """Drops the last reference to a chunk's future (and so the chunk), on the
    release thread, before the task counts as done."""
    box.clear()


def _submit(pool: cf.ThreadPoolExecutor, fn: Any, arg: Any) -> cf.Future:
    """``pool.submit(fn, arg)``; at interpreter exit (executors refuse new work)
    a daemon thread waits for the end instead of dying with a traceback."""
    try:
        return pool.submit(fn, arg)
    except RuntimeError:
        exit_guard.stopped()
        raise


def _contiguous(a: np.ndarray | None, dtype: type | None = None) -> np.ndarray | None:
    return None if a is None else np.ascontiguousarray(a, dtype=dtype)


def _window(stream: StreamChunk) -> tuple[int, int, np.ndarray] | None:
    """The registry's form of a stream's context window: ``(left, right, bounds)``."""
    w = stream.context
    return None if w is None else (w.left, w.right, _contiguous(stream.context_bounds(), np.int64))


class ChunkCache:
    """Chunk futures keyed by chunk id, and the native registry of finished ones."""

    def __init__(self, deserializer: Deserializer, threads: int) -> None:
        self.deserializer = deserializer
        self.registry = _native.ChunkRegistry()
        self._pool = cf.ThreadPoolExecutor(max_workers=max(1, threads),
                                           thread_name_prefix="minibatcher-chunks")
        self._futures: dict[int, cf.Future[ChunkData]] = {}
        self._ready: dict[int, ChunkData] = {}  # finished and registered (no lock to take)
        self._wanted: list[int] | None = None  # the last want(), if nothing was loaded since
        self._releaser = cf.ThreadPoolExecutor(max_workers=1,
                                               thread_name_prefix="minibatcher-release")
        self._releasing: list[cf.Future] = []
        exit_guard.release_at_exit(self, ChunkCache._release_native)

    def _release_native(self) -> None:
        """At interpreter exit (a daemon thread may still hold this cache):
        drops the native registry, so that no native object outlives the
        interpreter (see :mod:`minibatcher.exit_guard`)."""
        self.registry = None
        self._ready.clear()

    def _load(self, chunk_id: int) -> ChunkData:
        try:
            return self.deserializer.load_chunk(chunk_id)
        except Exception as e:
            e.add_note(f"(raised while loading chunk {chunk_id} of {self.deserializer.name} "
                       "on a background thread)")
            raise

    def _submit(self, chunk_id: int) -> None:
        if chunk_id not in self._futures:
            self._settle()
            self._futures[chunk_id] = _submit(self._pool, self._load, chunk_id)
            self._wanted = None

    def _settle(self) -> None:
        """Waits until dropped chunks are freed: memory is returned before new
        chunks are loaded, so resident data stays within the window."""
        for future in self._releasing:
            future.result()
        self._releasing.clear()

    def want(self, chunk_ids: Iterable[int]) -> None:
        """Makes exactly ``chunk_ids`` resident or loading (in the given order);
        drops the rest (a deserializer that keeps chunks returns them again at once)."""
        if chunk_ids == self._wanted:
            return  # already exactly these (the usual case: a list of ints, as last time)
        wanted = list(dict.fromkeys(int(c) for c in chunk_ids))
        if wanted == self._wanted:
            return
        keep = set(wanted)
        for chunk_id in [c for c in self._futures if c not in keep]:
            self._drop(chunk_id)
        for chunk_id in wanted:
            self._submit(chunk_id)
        self._wanted = wanted

    def _drop(self, chunk_id: int) -> None:
        self.registry.remove(chunk_id)
        self._ready.pop(chunk_id, None)
        box = [self._futures.pop(chunk_id)]  # no other reference here: the release thread
        if not box[0].cancel():              # drops the last one, and the chunk with it
            self._releasing.append(_submit(self._releaser, _release, box))

    def get(self, chunk_id: int) -> ChunkData:
        """The chunk, waiting for its parse; errors are re-raised here."""
        return self.get_many([chunk_id])[0]

    def get_many(self, chunk_ids: list[int]) -> list[ChunkData]:
        """The chunks, in order, registered; every missing one is submitted
        before any is waited for (so they parse in parallel).

        Example:
            >>> import numpy as np
            >>> from minibatcher.deserializer import ChunkData, StreamChunk
            >>> class Fake:
            ...     name = "fake"
            ...     def load_chunk(self, c):
            ...         return ChunkData((StreamChunk.dense(np.full((1, 1), c), [0, 1]),))
            >>> cache = ChunkCache(Fake(), threads=2)
            >>> [int(c.streams[0].values[0, 0]) for c in cache.get_many([5, 2])], 2 in cache.registry
            ([5, 2], True)
            >>> cache.close()
        """
        ready = self._ready
        if all(c in ready for c in chunk_ids):
            return [ready[c] for c in chunk_ids]
        for chunk_id in chunk_ids:
            self._submit(chunk_id)
        for chunk_id in chunk_ids:
            if chunk_id not in ready:
                self._register(chunk_id, self._futures[chunk_id].result())
        return [ready[c] for c in chunk_ids]

    def _register(self, chunk_id: int, data: ChunkData) -> None:
        self.registry.add(chunk_id, [
            (_contiguous(s.sequence_offsets, np.int64), _contiguous(s.values),
             _contiguous(s.indices), _contiguous(s.indptr, np.int64), _window(s))
            for s in data.streams], list(data.skipped))
        self._ready[chunk_id] = data

    def ready(self, chunk_id: int) -> ChunkData:
        """A chunk already returned by :meth:`get_many` (registered, no waiting)."""
        return self._ready[chunk_id]

    def loaded(self) -> list[int]:
        """Chunk ids resident or loading."""
        return list(self._futures)

    def close(self) -> None:
        """Stops the threads and drops every chunk."""
        for chunk_id in list(self._futures):
            self._drop(chunk_id)
        self._wanted = None
        self._releasing.clear()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._releaser.shutdown(wait=True)
