"""``GlobalBatches``: per-process reading assembled into global ``jax.Array`` batches.

Every JAX process reads its share (``jax.process_index()`` of
``jax.process_count()``) of each epoch, pads its minibatch to a fixed number
of rows, and the processes' parts become one global array per stream with
``jax.make_array_from_process_local_data`` on a sharding (by default: the
batch axis split over all devices). Equal work per rank (the default) keeps
the processes in step: each gets the same number of minibatches per epoch.

Each stream ``s`` gives ``s`` (``(rows * processes, dim)``, zero padded) and
``s_segment_ids`` (``int32``: 1, 2, ... numbers the local minibatch's
sequences, 0 marks padding; ``> 0`` is the mask).

Example:
    >>> import numpy as np
    >>> from minibatcher.streams import StreamInformation
    >>> from minibatcher.engine.layout import SequenceLayout
    >>> from minibatcher.engine.minibatch import MinibatchData
    >>> info = StreamInformation("x", 0, 1, False, np.dtype("float32"))
    >>> mb = {"x": MinibatchData(info, np.ones((3, 1), np.float32), np.array([2, 1]),
    ...                          np.zeros(2, np.uint64), False, SequenceLayout.first_fit([2, 1]))}
    >>> local = pad_local(mb, {"x": 4}, densify_sparse=False)
    >>> local["x"].ravel().tolist(), local["x_segment_ids"].tolist()
    ([1.0, 1.0, 1.0, 0.0], [1, 1, 2, 0])
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping

import numpy as np

from ..args import bad_option, check_int
from ..engine.layout import CSRMatrix
from ..errors import ConfigError
from ..gate import SharedIterator
from .position import Layout
from .rank_reader import RankReader


def _jax() -> Any:
    try:
        import jax
    except ImportError as e:
        raise ImportError("this needs JAX: pip install 'minibatcher[jax]'") from e
    return jax


def _pad_stream(name: str, data: Any, rows: int, densify: bool) -> tuple[np.ndarray, np.ndarray]:
    values = getattr(data, "values", data)
    if isinstance(values, CSRMatrix):
        if not densify:
            raise ConfigError(f"stream {name!r} is sparse and a global jax.Array is dense; use "
                              "densify_sparse=True to densify it (or read it per process)")
        values = values.toarray()
    n = len(values)
    if n > rows:
        raise ConfigError(f"stream {name!r} has {n} samples in this minibatch, but rows["
                          f"{name!r}]={rows}; pass rows={{{name!r}: {n}}} or more (a sequence "
                          "longer than a rank's share of the minibatch comes whole)")
    out = np.zeros((rows,) + values.shape[1:], dtype=values.dtype)
    out[:n] = values
    lengths = np.asarray(getattr(data, "lengths", np.ones(n, np.int64)))
    segments = np.zeros(rows, dtype=np.int32)
    segments[:n] = np.repeat(np.arange(1, len(lengths) + 1, dtype=np.int32), lengths)
    return out, segments


def pad_local(minibatch: Mapping[str, Any], rows: Mapping[str, int],
              densify_sparse: bool) -> dict[str, np.ndarray]:
    """This process's part: every stream padded to ``rows[stream]``, with segment ids."""
    out = {}
    for name, data in minibatch.items():
        out[name], out[f"{name}_segment_ids"] = _pad_stream(name, data, rows[name], densify_sparse)
    return out


def default_sharding() -> Any:
    """The batch axis split over every device of every process.

    Example:
        >>> default_sharding().spec  # doctest: +SKIP
        PartitionSpec('data',)
    """
    jax = _jax()
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    return NamedSharding(Mesh(np.array(jax.devices()), ("data",)), PartitionSpec("data"))


class GlobalBatches:
    """Global batches of one epoch at a time, for multi-process JAX.

    Args:
        make_source: a zero-argument callable returning a ``MinibatchSource``
            (or a ``PartitionedReader``), called once per process.
        minibatch_size_in_samples: the global minibatch size; divisible by the
            process count (each process reads ``size // processes`` samples).
        sharding: of the global arrays (default :func:`default_sharding`).
        equal_batches: the same number of minibatches on every process
            (docs/design/equal-work.md); ``False`` reads CNTK's exact split.
        rows: padded rows per process for streams whose samples are not
            bounded by the minibatch size (default: ``size // processes``).
        densify_sparse: densify sparse streams (otherwise they are an error).
        process_index, process_count: override ``jax.process_index()`` / ``jax.process_count()``.

    ``set_epoch(e)`` selects the epoch (sweep); ``get_state()`` / ``set_state()``
    (Grain's names) restore exactly.

    Example (iterating gives ``jax.Array`` batches: tests/adapters/test_jax.py):
        >>> import pathlib, tempfile
        >>> from minibatcher import CTFDeserializer, MinibatchSource, StreamDef
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
        >>> _ = p.write_text("".join(f"|x {i}\\n" for i in range(6)))
        >>> make = lambda: MinibatchSource(CTFDeserializer(str(p), {"x": StreamDef(shape=1)}),
        ...                                randomize=False)
        >>> batches = GlobalBatches(make, 4, process_index=1, process_count=2)  # rank 1 of 2
        >>> len(batches), batches.get_state()["layout"]   # 6 samples: 2 minibatches an epoch
        (2, {'world': 2, 'rank': 1, 'minibatch_size': 4, 'equal_batches': True})
        >>> GlobalBatches(make, 3, process_index=0, process_count=2)
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: option minibatch_size_in_samples should be a positive multiple of the process count 2, but got minibatch_size_in_samples=3
    """

    def __init__(self, make_source: Callable[[], Any], minibatch_size_in_samples: int, *,
                 sharding: Any = None, equal_batches: bool = True,
                 rows: Mapping[str, int] | None = None, densify_sparse: bool = False,
                 process_index: int | None = None, process_count: int | None = None) -> None:
        jax = _jax()
        world = jax.process_count() if process_count is None else process_count
        rank = jax.process_index() if process_index is None else process_index
        expected = f"a positive multiple of the process count {world}"
        size = check_int("minibatch_size_in_samples", minibatch_size_in_samples, 1,
                         expected=expected)
        if size % world:
            raise bad_option("minibatch_size_in_samples", size, expected)
        self._rank_reader = RankReader(make_source, Layout(world, rank, size, bool(equal_batches)))
        self.sharding = sharding
        self.rows = dict(rows or {})
        self.densify_sparse = bool(densify_sparse)

    @staticmethod
    def from_pipeline(make_pipeline: Callable[[], Any], *, num_workers: int = 0,
                      sharding: Any = None, process_count: int | None = None) -> Any:
        """Global batches of a ``tfdata`` pipeline built per process (a TFDS read of
        ``tfds.split_for_jax_process(...)``, batched): each element is this
        process's part of a batch; ``num_workers`` worker processes may read it
        (the reader behind ``PipelineDataset``), the state stays exact
        (:class:`~minibatcher.adapters.jax_pipeline.PipelineGlobalBatches`).

        Example:
            >>> import functools
            >>> from minibatcher import tfdata
            >>> b = GlobalBatches.from_pipeline(functools.partial(  # doctest: +SKIP
            ...     lambda: tfdata.Dataset.range(4).batch(2)), process_count=1)
            >>> [np.asarray(x).tolist() for x in b], b.get_state()["epoch"]  # doctest: +SKIP
            ([[0, 1], [2, 3]], 0)
        """
        from .jax_pipeline import PipelineGlobalBatches

        return PipelineGlobalBatches(make_pipeline, num_workers=num_workers, sharding=sharding,
                                     process_count=process_count)

    def set_epoch(self, epoch: int) -> None:
        """The next iteration reads epoch (sweep) ``epoch``."""
        self._rank_reader.set_epoch(epoch)

    def get_state(self) -> dict[str, Any]:
        """A small JSON-able state (this process's position)."""
        return self._rank_reader.state()

    def set_state(self, state: Mapping[str, Any]) -> None:
        """The next iteration continues exactly after ``state``."""
        self._rank_reader.load(state)

    def __len__(self) -> int:
        return len(self._rank_reader)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        """One epoch's global batches (an iterator that threads may share)."""
        return SharedIterator(self._iterate(), "this GlobalBatches iterator")

    def _iterate(self) -> Iterator[dict[str, Any]]:
        jax = _jax()
        sharding = self.sharding if self.sharding is not None else default_sharding()
        layout = self._rank_reader.layout
        share = layout.minibatch_size // layout.world
        for minibatch in self._rank_reader.minibatches():
            rows = {name: self.rows.get(name, share) for name in minibatch}
            local = pad_local(minibatch, rows, self.densify_sparse)
            yield {name: jax.make_array_from_process_local_data(
                sharding, array, (array.shape[0] * layout.world,) + array.shape[1:])
                for name, array in local.items()}

    def close(self) -> None:
        """Closes this process's reader."""
        self._rank_reader.close()
