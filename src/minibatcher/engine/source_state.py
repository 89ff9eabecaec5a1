"""``MinibatchSource``'s checkpoints: taking the state, and restoring it after every
field was validated against the source's timeline (:mod:`.state` and
:mod:`.bptt_state` hold the checks of single fields; docs/design/state-format.md).

:class:`SourceCheckpoints` is a mixin of
:class:`~minibatcher.engine.source.MinibatchSource`: its methods read the source's
enumerator, packer, sequence table and options.

Example:
    >>> from minibatcher.engine.source import _example
    >>> a = _example(randomize=False); _ = a.next_minibatch(1)
    >>> b = _example(randomize=False); b.restore_from_checkpoint(a.get_checkpoint_state())
    >>> b.next_minibatch(1)["x"].values.ravel().tolist()
    [2.0]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..gate import gated
from ..state import SOURCE, Fields, Fingerprint, check_stamp, digest, stamp
from .bptt_state import EndedSweep, block_sweep_ends, check_queued
from .enumerator import MAX_EPOCH_SIZE, BlockEnumerator
from .options import legacy_rules
from .state import check_epoch, check_position, check_slots

__all__ = ["SourceCheckpoints"]


class SourceCheckpoints:
    """``get_checkpoint_state``, ``restore_from_checkpoint``, ``current_position`` and
    ``fingerprint`` of :class:`~minibatcher.engine.source.MinibatchSource` (see the
    module docstring).

    Example:
        >>> from minibatcher.engine.source import _example
        >>> state = _example().get_checkpoint_state()
        >>> _example(randomization_seed=1).restore_from_checkpoint(state)
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: cannot restore this checkpoint: it was taken with randomization_seed=0, but this source has randomization_seed=1; ...
    """

    @gated
    def get_checkpoint_state(self) -> dict[str, Any]:
        """A small JSON-able dict: the position after the last returned minibatch."""
        cfg = self._enumerator.config
        epoch = [cfg.epoch_index, cfg.epoch_size, self._explicit_epoch] if self._started else None
        return {**stamp(SOURCE), **self.fingerprint().as_dict(), "epoch": epoch,
                "enumerator": self._enumerator.get_state(), "packer": self._packer.get_state()}

    @gated
    def restore_from_checkpoint(self, state: Mapping[str, Any]) -> None:
        """Continues exactly where ``state`` was taken (any minibatch boundary).

        Every field is validated first; a damaged or edited state is a
        :class:`CheckpointError` naming the field, and leaves the source as it was."""
        check_stamp(state, SOURCE)
        self.fingerprint().check(state)
        fields = Fields(state)
        epoch = check_epoch(fields, MAX_EPOCH_SIZE)
        if epoch is None:
            self._started = False
            return
        enumerator, packer = self._checked_positions(fields, epoch)
        index, size, explicit = epoch
        self._explicit_epoch = explicit
        config = self._epoch_config(size, index) if explicit else self._v2_epoch()
        self._enumerator.config = config
        self._enumerator.set_state(enumerator)
        self._packer.set_state(packer)
        self._started, self._end = True, False
        self._schedules.clear()
        self._update_cache()

    @property
    def current_position(self) -> dict[str, Any]:
        """CNTK's ``current_position``: the checkpoint state."""
        return self.get_checkpoint_state()

    @current_position.setter
    def current_position(self, state: Mapping[str, Any]) -> None:
        self.restore_from_checkpoint(state)

    def fingerprint(self) -> Fingerprint:
        """What a checkpoint of this source must match."""
        if self._fingerprint is None:
            o = self.options
            parts = self._deserializer.fingerprint()
            data = [[self._deserializer.name, digest(parts)]]
            options = {"order": o.order().describe(), "randomization_seed": o.randomization_seed,
                       "frame_mode": o.frame_mode, "truncation_length": o.truncation_length,
                       "num_workers": self._workers[0], "worker_rank": self._workers[1],
                       "local_timeline": o.local_timeline,
                       "cross_sweep_boundaries": o.cross_sweep_boundaries, **legacy_rules(o)}
            self._fingerprint = Fingerprint(data, options)
        return self._fingerprint

    # -- the checks of a state -------------------------------------------------------------

    def _checked_positions(self, state: Fields,
                           epoch: tuple[int, int, bool]) -> tuple[dict[str, int], dict[str, Any]]:
        """The enumerator and packer parts of ``state``, validated against the
        timeline (positions at sequence starts, within the saved epoch)."""
        enumerator = state.record("enumerator", self._enumerator.get_state())
        position = check_position(enumerator, epoch, self._sequence_start)
        if enumerator.has("counter_sweep"):
            enumerator.int("counter_sweep", 0, position // self.sweep_size + 1)
        packer = state.record("packer", self._packer.get_state())
        if packer.has("slots"):
            slots = check_slots(packer, self._table.lengths)
            check_queued(slots, position, self._first_position(epoch), self.sweep_size,
                         self._sweep_ends())
        return dict(enumerator.raw), dict(packer.raw)

    def _first_position(self, epoch: tuple[int, int, bool]) -> int:
        """Where the epoch's reading starts (a worker without chunks: at its end)."""
        index, size, _ = epoch
        if isinstance(self._enumerator, BlockEnumerator) and \
                self._workers[1] >= self._table.num_chunks:
            return index * size + size
        return self._sequence_start(index * size)

    def _sweep_ends(self) -> EndedSweep | None:
        """Which sequence ended a sweep, for the BPTT check (block-randomized timelines)."""
        if not isinstance(self._enumerator, BlockEnumerator):
            return None
        return block_sweep_ends(self._table, self.options.order(), self.options.randomization_seed,
                                self._workers, self._packer._length)

    def _sequence_start(self, position: int) -> int:
        """The first sequence start at or after sample ``position`` of the timeline."""
        sweep, offset = divmod(position, self.sweep_size)
        plan = self._enumerator.plan(sweep)
        return sweep * self.sweep_size + plan.sample_at(plan.position_of_sample(offset))
