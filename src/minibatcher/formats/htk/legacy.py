"""The legacy ``HTKMLFReader``'s minibatch rules on the common engine.

Three behaviours of the old reader have no counterpart in ``MinibatchSource``:

* utterance mode (``frameMode=false``, not truncated): every minibatch holds
  ``nbruttsineachrecurrentiter`` whole utterances (split over the workers),
  whatever minibatch size is asked for;
* truncated BPTT without ``truncationLength``: the truncation length is the
  minibatch size asked for and a minibatch holds ``nbruttsineachrecurrentiter``
  parallel utterance streams of that many frames (``nbrutts x mbSize`` frames;
  cntk-htk-mlf-and-randomizer.md §6);
* ``miniBatchMode=full`` in frame mode: a minibatch shorter than the size
  asked for (at a sweep or epoch end) is not returned.

``nbruttsineachrecurrentiter`` is CNTK's per-epoch array: epoch ``e`` uses
value ``e``, and epochs past its end use the last value (CNTK's ``argvector``).
The order, epochs and checkpoints are the engine's own.

Example:
    >>> UtterancePacker.__mro__[1].__name__
    'SequencePacker'
    >>> [per_epoch([1, 2, 4], e) for e in range(5)]
    [1, 2, 4, 4, 4]
"""

from __future__ import annotations

from typing import Any, Sequence

from ...engine.bptt import TruncatedBpttPacker
from ...engine.enumerator import UNLIMITED, Selection
from ...engine.minibatch import Minibatch
from ...engine.packers import Reader, SequencePacker
from ...engine.source import MinibatchSource
from ...state import Fingerprint
from ...errors import ConfigError
from ...gate import gated


def per_epoch(values: Sequence[int], epoch: int) -> int:
    """Value ``epoch`` of a per-epoch array; later epochs repeat the last value (as CNTK).

    Example:
        >>> per_epoch([3], 7)
        3
    """
    return int(values[min(epoch, len(values) - 1)])


class UtterancePacker(SequencePacker):
    """``count`` whole utterances per minibatch (this worker's share)."""

    def __init__(self, reader: Reader, count: int) -> None:
        super().__init__(reader)
        self.count = count

    def read(self, size: int, local_timeline: bool) -> tuple[Minibatch | None, bool]:
        """The next ``count`` utterances (this worker's share), whatever ``size`` is, and
        whether the epoch ended.

        Example:
            >>> source = _example_legacy(truncated_by_minibatch=False)  # 2 utterances per batch
            >>> source.start_epoch(0, 6)
            >>> source.next_minibatch(1)["x"].num_sequences   # size 1 is ignored
            2
        """
        cfg = self.reader.enumerator.config
        local = self.count // cfg.num_workers + (1 if cfg.worker_rank < self.count % cfg.num_workers
                                                 else 0)
        if local == 0:
            raise ConfigError(f"option nbruttsineachrecurrentiter should be at least the number of "
                              f"workers ({cfg.num_workers}), but got nbruttsineachrecurrentiter="
                              f"{self.count}; use at least one utterance per worker")
        taken = Selection()
        for _ in range(local):
            one = self.reader.enumerator.next_sequences(UNLIMITED, 1)
            taken.sequences += one.sequences
            taken.end_of_sweep |= one.end_of_sweep
            taken.end_of_epoch |= one.end_of_epoch
            if one.end_of_epoch or one.end_of_sweep or not one.sequences:
                break
        if not taken.sequences:
            return None, taken.end_of_epoch
        return self.pack(taken), taken.end_of_epoch


def _counts(value: int | Sequence[int]) -> list[int]:
    counts = [int(value)] if isinstance(value, int) else [int(v) for v in value]
    if not counts or min(counts) < 0:
        raise ConfigError("option nbruttsineachrecurrentiter should be one or more positive "
                          f"integers (one per epoch), but got nbruttsineachrecurrentiter={value!r}")
    return counts


class LegacyHTKSource(MinibatchSource):
    """A ``MinibatchSource`` with the legacy reader's utterance mode, minibatch-size
    truncation and full minibatches.

    ``utterances_per_minibatch`` (an int, or one int per epoch; > 0) selects
    utterance mode, or with ``truncated_by_minibatch=True`` the number of
    parallel BPTT streams whose truncation length is the minibatch size asked
    for; ``full_minibatches`` drops short frame-mode minibatches.

    Example:
        >>> LegacyHTKSource.next_minibatch.__doc__.split(".")[0]
        'The next minibatch under the legacy rules (see the class)'
    """

    def __init__(self, deserializers: Any, *, utterances_per_minibatch: int | Sequence[int] = 0,
                 truncated_by_minibatch: bool = False, full_minibatches: bool = False,
                 **options: Any) -> None:
        super().__init__(deserializers, **options)
        self.utterances = _counts(utterances_per_minibatch)
        self.utterances_per_minibatch = self.utterances[0]
        self.truncated_by_minibatch = bool(truncated_by_minibatch)
        self.full_minibatches = bool(full_minibatches) and self.options.frame_mode
        if self.truncated_by_minibatch:
            if self.options.frame_mode or self.options.truncation_length:
                raise ConfigError("option truncated_by_minibatch needs frame_mode=False and no "
                                  f"truncation_length, but got frame_mode={self.options.frame_mode}"
                                  f", truncation_length={self.options.truncation_length}")
            self.utterances = [max(1, n) for n in self.utterances]
            self._packer = TruncatedBpttPacker(self._packer.reader, 1)
        elif self.utterances_per_minibatch:
            if self.options.frame_mode or self.options.truncation_length:
                raise ConfigError("utterance mode (nbruttsineachrecurrentiter) needs "
                                  "frameMode=false and no truncation")
            self._packer = UtterancePacker(self._packer.reader, self.utterances_per_minibatch)

    def fingerprint(self) -> Fingerprint:
        """What a checkpoint must match: the engine's fingerprint plus the legacy rules.

        Example:
            >>> options = _example_legacy().fingerprint().options
            >>> options["utterances_per_minibatch"], options["truncated_by_minibatch"]
            ([2], True)
        """
        base = super().fingerprint()
        extra = {"utterances_per_minibatch": self.utterances,
                 "truncated_by_minibatch": self.truncated_by_minibatch,
                 "full_minibatches": self.full_minibatches}
        return Fingerprint(base.data, {**base.options, **extra})

    def _epoch_index(self) -> int:
        return self._enumerator.config.epoch_index if self._started else 0

    def _prepare(self, size: int) -> int:
        """Sets this epoch's per-epoch counts on the packer; the engine's request size."""
        count = per_epoch(self.utterances, self._epoch_index())
        if self.truncated_by_minibatch:
            self._packer.truncation_length = size
            return size * count
        if isinstance(self._packer, UtterancePacker):
            self._packer.count = count
        return size

    @gated  # the legacy rules' counts and the engine's read, as one step
    def next_minibatch(self, minibatch_size_in_samples: int, *args: Any, **kwargs: Any) -> Any:
        """The next minibatch under the legacy rules (see the class). In truncated mode it
        holds ``nbruttsineachrecurrentiter`` rows of ``minibatch_size_in_samples`` frames.

        Example:
            >>> source = _example_legacy()
            >>> source.start_epoch(0, 6)
            >>> mb = source.next_minibatch(2)   # 2 streams x 2 frames; stream 0 holds u0 then u1
            >>> mb["x"].values.ravel().tolist(), mb["x"].layout.rows.tolist()
            ([0.0, 1.0, 4.0, 5.0], [0, 1])
        """
        while True:
            if isinstance(minibatch_size_in_samples, int) and minibatch_size_in_samples > 0:
                request = self._prepare(minibatch_size_in_samples)
            else:
                request = minibatch_size_in_samples  # the engine explains the error
            minibatch = super().next_minibatch(request, *args, **kwargs)
            full = self.full_minibatches and minibatch_size_in_samples < self.sweep_size
            if not (full and minibatch):
                return minibatch
            first = next(iter(minibatch.values()))
            if first.num_samples >= minibatch_size_in_samples:
                return minibatch

    @gated
    def skip_minibatch(self, minibatch_size_in_samples: int, num_data_partitions: int | None = None,
                       partition_index: int | None = None) -> bool:
        """Moves past the next minibatch exactly as :meth:`next_minibatch` would.

        Example:
            >>> source = _example_legacy()
            >>> source.start_epoch(0, 6)
            >>> source.skip_minibatch(2), source.skip_minibatch(2), source.skip_minibatch(2)
            (True, True, False)
        """
        if self.truncated_by_minibatch or self.full_minibatches or isinstance(
                self._packer, UtterancePacker):
            return bool(self.next_minibatch(minibatch_size_in_samples, None, None,
                                            num_data_partitions, partition_index))
        return super().skip_minibatch(minibatch_size_in_samples, num_data_partitions,
                                      partition_index)


def _example_legacy(truncated_by_minibatch: bool = True) -> LegacyHTKSource:
    """Three 2-frame utterances (values 0..5), read as legacy truncated BPTT with 2 streams."""
    import pathlib
    import tempfile

    import numpy as np

    from ...streams import StreamDef
    from .features import HTKFeatureDeserializer
    from .htkfile import write_htk

    d = pathlib.Path(tempfile.mkdtemp())
    write_htk(d / "a.htk", np.arange(6, dtype=np.float32).reshape(6, 1))
    (d / "a.scp").write_text("u0=a.htk[0,1]\nu1=a.htk[2,3]\nu2=a.htk[4,5]\n")
    features = HTKFeatureDeserializer({"x": StreamDef(scp=str(d / "a.scp"), shape=1)},
                                      base_dir=d, trace_level=0)
    return LegacyHTKSource(features, utterances_per_minibatch=[2], randomize=False,
                           truncated_by_minibatch=truncated_by_minibatch, local_timeline=False)
