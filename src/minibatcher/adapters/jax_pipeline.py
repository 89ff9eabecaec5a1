"""Global ``jax.Array`` batches from a ``tfdata`` pipeline per JAX process (a TFDS
read of ``tfds.split_for_jax_process(...)``, a TFRecord or text pipeline):
:meth:`GlobalBatches.from_pipeline <minibatcher.jax.GlobalBatches.from_pipeline>`.

Each process iterates its own pipeline (in the process, or on ``num_workers``
worker processes: :class:`~minibatcher.adapters.pipeline_stream.PipelineStream`,
the reader behind ``PipelineDataset``); every element is that process's part
of a batch (arrays with a leading batch axis, in any structure: dicts, tuples,
named tuples), and each leaf becomes one global array of
``process_count`` times the rows with ``jax.make_array_from_process_local_data``
on the sharding (by default the batch axis split over every device). The
processes must hand out the same number of batches of the same shapes (TFDS:
``split_for_jax_process(split, drop_remainder=True)`` and
``batch(..., drop_remainder=True)``). ``get_state()`` is the pipeline's state
after the last batch (exact with any ``num_workers``), ``set_state()`` restores it.
Worker processes are not JAX processes: with ``num_workers`` > 0 the pipeline
must not ask JAX which process it is (pass ``process_index``/``process_count``
to ``split_for_jax_process``); a pipeline that differs there is an error.

Example:
    >>> import functools
    >>> from minibatcher import tfdata
    >>> make = functools.partial(lambda: tfdata.Dataset.range(6).batch(2))
    >>> batches = PipelineGlobalBatches(make, process_count=1)  # doctest: +SKIP
    >>> [b.tolist() for b in batches]  # doctest: +SKIP
    [[0, 1], [2, 3], [4, 5]]
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping

import numpy as np

from ..errors import ConfigError
from .pipeline_stream import PipelineStream


def _jax() -> Any:
    try:
        import jax
    except ImportError as e:
        raise ImportError("this needs JAX: pip install 'minibatcher[jax]'") from e
    return jax


def _leaf(jax: Any, sharding: Any, world: int, path: Any, value: Any) -> Any:
    array = np.asarray(value)
    if array.dtype == object or array.dtype.kind in "SU":
        raise ConfigError(f"the pipeline's element at {jax.tree_util.keystr(path) or 'its root'} "
                          f"holds strings (dtype {array.dtype}), which a jax.Array cannot hold; "
                          "drop or encode them in the pipeline (e.g. with map)")
    if array.ndim == 0:
        raise ConfigError(f"the pipeline's element at {jax.tree_util.keystr(path) or 'its root'} "
                          "is a scalar; global batches need a leading batch axis (batch the "
                          "pipeline)")
    return jax.make_array_from_process_local_data(
        sharding, array, (array.shape[0] * world,) + array.shape[1:])


class PipelineGlobalBatches:
    """Global batches of a per-process ``tfdata`` pipeline (see the module).

    Args:
        make_pipeline: a zero-argument callable returning this process's
            pipeline (picklable when ``num_workers`` > 0).
        num_workers: worker processes reading the pipeline (0: this process).
        sharding: of the global arrays (default: the batch axis over every device).
        process_count: override ``jax.process_count()``.
    """

    def __init__(self, make_pipeline: Callable[[], Any], *, num_workers: int = 0,
                 sharding: Any = None, process_count: int | None = None,
                 start_method: str = "forkserver") -> None:
        jax = _jax()
        self.world = jax.process_count() if process_count is None else int(process_count)
        self.sharding = sharding
        self._stream = PipelineStream(make_pipeline, num_workers, start_method=start_method)
        self._plan: Any = None  # this process's plan of the pipeline, to check the workers'

    def set_epoch(self, epoch: int) -> None:
        """The next iteration reads epoch ``epoch`` (its shuffles' ``epoch``-th orders)."""
        self._stream.set_epoch(epoch)

    def get_state(self) -> dict[str, Any]:
        """A small JSON-able state: the epoch and this process's pipeline position."""
        return self._stream.state()

    def set_state(self, state: Mapping[str, Any]) -> None:
        """The next iteration continues exactly after ``state``."""
        self._stream.load(state)

    def __iter__(self) -> Iterator[Any]:
        jax = _jax()
        from .jax_batches import default_sharding

        sharding = self.sharding if self.sharding is not None else default_sharding()
        for k, local in enumerate(self._stream):
            if k == 0 and self._stream.num_workers:
                self._check_workers_plan()
            yield jax.tree_util.tree_map_with_path(
                lambda path, value: _leaf(jax, sharding, self.world, path, value), local)

    def _check_workers_plan(self) -> None:
        """The worker processes are not JAX processes: a pipeline that asks JAX
        which process it is (``split_for_jax_process`` without arguments) reads
        another split there. Their pipeline must be this process's."""
        if self._plan is None:
            self._plan = iter(self._stream.make_pipeline()).get_state()["plan"]
        theirs = (self._stream.state()["iterator"] or {}).get("plan")
        if theirs is not None and theirs != self._plan:
            raise ConfigError(
                "make_pipeline builds another pipeline in the worker processes than in this "
                "JAX process (they are not JAX processes: jax.process_index() is 0 there); "
                "with num_workers > 0 give split_for_jax_process(split, process_index="
                "jax.process_index(), process_count=jax.process_count()) explicitly, e.g. "
                "through functools.partial")

    def worker_pids(self) -> list[int]:
        """The worker processes' ids (``num_workers`` > 0, after the first read)."""
        return self._stream.worker_pids()

    def close(self) -> None:
        """Stops the worker processes, if any."""
        self._stream.close()
