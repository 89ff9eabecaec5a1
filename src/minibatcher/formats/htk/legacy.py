"""The legacy ``HTKMLFReader``'s minibatch rules on the common engine.

Two behaviours of the old reader have no counterpart in ``MinibatchSource``:

* utterance mode (``frameMode=false``, not truncated): every minibatch holds
  ``nbruttsineachrecurrentiter`` whole utterances (split over the workers),
  whatever minibatch size is asked for;
* ``miniBatchMode=full`` in frame mode: a minibatch shorter than the size
  asked for (at a sweep or epoch end) is not returned.

The order, epochs and checkpoints are the engine's own.

Example:
    >>> UtterancePacker.__mro__[1].__name__
    'SequencePacker'
"""

from __future__ import annotations

from typing import Any

from ...engine.enumerator import UNLIMITED, Selection
from ...engine.minibatch import Minibatch
from ...engine.packers import Reader, SequencePacker
from ...engine.source import MinibatchSource
from ...engine.state import Fingerprint
from ...errors import ConfigError


class UtterancePacker(SequencePacker):
    """``count`` whole utterances per minibatch (this worker's share)."""

    def __init__(self, reader: Reader, count: int) -> None:
        super().__init__(reader)
        self.count = count

    def read(self, size: int, local_timeline: bool) -> tuple[Minibatch | None, bool]:
        cfg = self.reader.enumerator.config
        local = self.count // cfg.num_workers + (1 if cfg.worker_rank < self.count % cfg.num_workers
                                                 else 0)
        if local == 0:
            raise ConfigError(f"nbruttsineachrecurrentiter={self.count} utterances cannot be split "
                              f"over {cfg.num_workers} workers; expected at least one per worker")
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


class LegacyHTKSource(MinibatchSource):
    """A ``MinibatchSource`` with the legacy reader's utterance mode and full minibatches.

    ``utterances_per_minibatch`` (> 0) selects utterance mode; ``full_minibatches``
    drops short frame-mode minibatches.
    """

    def __init__(self, deserializers: Any, *, utterances_per_minibatch: int = 0,
                 full_minibatches: bool = False, **options: Any) -> None:
        super().__init__(deserializers, **options)
        self.utterances_per_minibatch = int(utterances_per_minibatch)
        self.full_minibatches = bool(full_minibatches) and self.options.frame_mode
        if self.utterances_per_minibatch:
            if self.options.frame_mode or self.options.truncation_length:
                raise ConfigError("utterance mode (nbruttsineachrecurrentiter) needs "
                                  "frameMode=false and no truncation")
            self._packer = UtterancePacker(self._packer.reader, self.utterances_per_minibatch)

    def fingerprint(self) -> Fingerprint:
        base = super().fingerprint()
        extra = {"utterances_per_minibatch": self.utterances_per_minibatch,
                 "full_minibatches": self.full_minibatches}
        return Fingerprint(base.data, {**base.options, **extra})

    def next_minibatch(self, minibatch_size_in_samples: int, *args: Any, **kwargs: Any) -> Any:
        while True:
            minibatch = super().next_minibatch(minibatch_size_in_samples, *args, **kwargs)
            full = self.full_minibatches and minibatch_size_in_samples < self.sweep_size
            if not (full and minibatch):
                return minibatch
            first = next(iter(minibatch.values()))
            if first.num_samples >= minibatch_size_in_samples:
                return minibatch
