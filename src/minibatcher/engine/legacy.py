"""The legacy ``HTKMLFReader``'s minibatch rules, as packers the engine selects.

Three behaviours of CNTK's old HTK reader (``HTKMLFReader``; see
docs/htk-mlf.md and CNTK's ``Source/Readers/HTKMLFReader``) are options of
:class:`~minibatcher.engine.options.SourceOptions` (validated there by
:func:`~minibatcher.engine.options.legacy_rules`), and :func:`make_packer`
picks the packer that applies them:

* utterance mode (``utterances_per_minibatch``, CNTK's
  ``nbruttsineachrecurrentiter`` with ``frameMode=false``, not truncated):
  every minibatch holds that many whole utterances (split over the workers),
  whatever minibatch size is asked for (:class:`UtterancePacker`);
* truncated BPTT without ``truncationLength`` (``truncated_by_minibatch``):
  the truncation length is the minibatch size asked for and a minibatch holds
  ``utterances_per_minibatch`` parallel utterance streams of that many frames
  (:class:`MinibatchTruncationPacker`);
* ``miniBatchMode=full`` in frame mode (``full_minibatches``): a minibatch
  shorter than the size asked for (at a sweep or epoch end) is not returned
  (:class:`FullFramePacker`).

``utterances_per_minibatch`` is CNTK's per-epoch array: epoch ``e`` uses
value ``e``, and epochs past its end use the last value (CNTK's ``argvector``).
The order, epochs and checkpoints are the engine's own.

Example:
    >>> [per_epoch([1, 2, 4], e) for e in range(5)]
    [1, 2, 4, 4, 4]
    >>> from minibatcher import MinibatchSource
    >>> source = MinibatchSource(_utterances(), randomize=False, max_sweeps=1,
    ...                          utterances_per_minibatch=2)
    >>> [mb["x"].num_sequences for mb in source.minibatches(1)]   # the size 1 is ignored
    [2, 1]
"""

from __future__ import annotations

from typing import Sequence

from ..deserializer import Deserializer
from ..errors import ConfigError
from .bptt import TruncatedBpttPacker
from .enumerator import UNLIMITED, Selection
from .minibatch import Minibatch
from .options import SourceOptions, legacy_rules
from .packers import FramePacker, Packer, PackerInput, SequencePacker


def per_epoch(values: Sequence[int], epoch: int) -> int:
    """Value ``epoch`` of a per-epoch array; later epochs repeat the last value (as CNTK).

    Example:
        >>> per_epoch([3], 7)
        3
    """
    return int(values[min(epoch, len(values) - 1)])


def make_packer(reader: PackerInput, options: SourceOptions) -> Packer:
    """The packer ``options`` select: a legacy rule's (this module) or the engine's own.

    Example:
        >>> from minibatcher import MinibatchSource
        >>> reader = MinibatchSource(_utterances(frames=True))._packer.reader
        >>> [type(make_packer(reader, SourceOptions(**o))).__name__
        ...  for o in ({}, {"frame_mode": True}, {"truncation_length": 2},
        ...            {"utterances_per_minibatch": 2},
        ...            {"full_minibatches": True, "frame_mode": True})]
        ['SequencePacker', 'FramePacker', 'TruncatedBpttPacker', 'UtterancePacker', 'FullFramePacker']
    """
    rules = legacy_rules(options)
    counts = rules.get("utterances_per_minibatch", [0])
    if rules.get("truncated_by_minibatch"):
        return MinibatchTruncationPacker(reader, counts)
    if counts[0]:
        return UtterancePacker(reader, counts)
    if rules.get("full_minibatches"):
        return FullFramePacker(reader)
    if options.truncation_length:
        return TruncatedBpttPacker(reader, options.truncation_length)
    return (FramePacker if options.frame_mode else SequencePacker)(reader)


def _epoch_count(reader: PackerInput, counts: Sequence[int]) -> int:
    return per_epoch(counts, reader.enumerator.config.epoch_index)


class UtterancePacker(SequencePacker):
    """``counts[epoch]`` whole utterances per minibatch (this worker's share)."""

    skips_by_reading = True

    def __init__(self, reader: PackerInput, counts: Sequence[int]) -> None:
        super().__init__(reader)
        self.counts = list(counts)

    def read(self, size: int, local_timeline: bool) -> tuple[Minibatch | None, bool]:
        """The next utterances of this epoch's count (this worker's share), whatever
        ``size`` is, and whether the epoch ended.

        Example:
            >>> from minibatcher import MinibatchSource
            >>> source = MinibatchSource(_utterances(), randomize=False,
            ...                          utterances_per_minibatch=[1, 2])
            >>> source.start_epoch(1, 6)   # epoch 1: 2 utterances per minibatch
            >>> source.next_minibatch(100)["x"].num_sequences
            2
        """
        count = _epoch_count(self.reader, self.counts)
        cfg = self.reader.enumerator.config
        local = count // cfg.num_workers + (1 if cfg.worker_rank < count % cfg.num_workers else 0)
        if local == 0:
            raise ConfigError(f"option nbruttsineachrecurrentiter should be at least the number of "
                              f"workers ({cfg.num_workers}), but got nbruttsineachrecurrentiter="
                              f"{count}; use at least one utterance per worker")
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


class MinibatchTruncationPacker(TruncatedBpttPacker):
    """Truncated BPTT whose truncation length is the minibatch size asked for:
    ``counts[epoch]`` parallel utterance streams of ``size`` frames."""

    skips_by_reading = True

    def __init__(self, reader: PackerInput, counts: Sequence[int]) -> None:
        super().__init__(reader, 1)
        self.counts = list(counts)

    def read(self, size: int, local_timeline: bool) -> tuple[Minibatch | None, bool]:
        """``size`` frames of each of this epoch's parallel streams.

        Example:
            >>> from minibatcher import MinibatchSource
            >>> source = MinibatchSource(_utterances(), randomize=False, local_timeline=False,
            ...                          utterances_per_minibatch=[2], truncated_by_minibatch=True)
            >>> mb = source.next_minibatch(2)   # 2 streams x 2 frames; stream 0 holds u0 then u1
            >>> mb["x"].values.ravel().tolist(), mb["x"].layout.rows.tolist()
            ([0.0, 1.0, 4.0, 5.0], [0, 1])
        """
        self.truncation_length = size
        return super().read(size * _epoch_count(self.reader, self.counts), local_timeline)


class FullFramePacker(FramePacker):
    """Frame mode without the short minibatches (at a sweep or epoch end) of a
    size below one sweep: they are read and dropped, as CNTK's ``miniBatchMode=full``."""

    skips_by_reading = True

    def read(self, size: int, local_timeline: bool) -> tuple[Minibatch | None, bool]:
        """The next minibatch of ``size`` frames (``None`` for a dropped short one).

        Example:
            >>> from minibatcher import MinibatchSource
            >>> source = MinibatchSource(_utterances(frames=True), randomize=False, max_sweeps=1,
            ...                          frame_mode=True, full_minibatches=True)
            >>> [mb["x"].num_samples for mb in source.minibatches(4)]   # 4 + 2 frames: 2 dropped
            [4]
        """
        minibatch, end = super().read(size, local_timeline)
        if minibatch is not None and size < self.reader.enumerator.sweep_size:
            if next(iter(minibatch.values())).num_samples < size:
                return None, end
        return minibatch, end


def _utterances(frames: bool = False) -> Deserializer:
    """Six samples (values 0..5): three 2-sample sequences, or six frames."""
    import pathlib
    import tempfile

    from ..formats.ctf import CTFDeserializer
    from ..streams import StreamDef

    path = pathlib.Path(tempfile.mkdtemp()) / "u.ctf"
    path.write_text("".join(f"{i if frames else i // 2} |x {i}\n" for i in range(6)))
    return CTFDeserializer(str(path), {"x": StreamDef(shape=1)})
