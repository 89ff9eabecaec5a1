"""The framework adapters' checkpoint state: an epoch and a step, with what they mean.

``{"format", "version", "epoch", "step", "anchor", "layout", "source"}``: ``step``
items of epoch ``epoch`` of this rank's stream were delivered; DataLoader
workers deal items round robin starting at ``anchor`` (the item worker 0
delivers first: ``step`` for a fresh iteration, kept by torchdata's
``StatefulDataLoader``, which resumes its round robin where it was); ``layout`` holds the world
size, the rank, the minibatch size and ``equal_batches`` (a state of one
layout is refused by another, naming the difference); ``source`` is the
reader's fingerprint (data digests and order options), checked when the reader
exists. The state does not depend on the number of DataLoader workers.

Example:
    >>> layout = Layout(world=2, rank=1, minibatch_size=64, equal_batches=True)
    >>> state = make_state(3, 10, layout, None)
    >>> read_state(state, layout)
    (3, 10, 10)
    >>> read_state(state, Layout(4, 1, 64, True))
    Traceback (most recent call last):
    ...
    minibatcher.errors.CheckpointError: cannot restore this state: it was taken with world_size=2, but this reader has world_size=4; restore each rank's own state into a job of the same layout
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping

from ..errors import CheckpointError
from ..state import ADAPTER, Fields, Fingerprint, check_stamp, refuse, stamp, taken_with

_NAMES = {"world": "world_size", "rank": "rank", "minibatch_size": "minibatch_size_in_samples",
          "equal_batches": "equal_batches"}


@dataclass(frozen=True)
class Layout:
    """Who reads what: world size, rank, (global) minibatch size, equal work.

    Example:
        >>> Layout(1, 0, 8, False).world
        1
    """

    world: int
    rank: int
    minibatch_size: int
    equal_batches: bool


def make_state(epoch: int, step: int, layout: Layout, source: Mapping[str, Any] | None,
               anchor: int | None = None) -> dict:
    """A JSON-able state (``anchor`` defaults to ``step``).

    Example:
        >>> sorted(make_state(0, 0, Layout(1, 0, 8, True), None))
        ['anchor', 'epoch', 'format', 'layout', 'source', 'step', 'version']
    """
    return {**stamp(ADAPTER), "epoch": int(epoch), "step": int(step),
            "anchor": int(step if anchor is None else anchor), "layout": asdict(layout),
            "source": None if source is None else dict(source)}


def read_state(state: Mapping[str, Any], layout: Layout) -> tuple[int, int, int]:
    """``(epoch, step, anchor)`` of a state, after checking its version and layout."""
    check_stamp(state, ADAPTER)
    fields = Fields(state)
    saved = fields.value("layout") if fields.has("layout") else {}
    saved = saved if isinstance(saved, Mapping) else {}
    refuse([taken_with(_NAMES[k], saved.get(k), v, "reader")
            for k, v in asdict(layout).items() if saved.get(k) != v],
           "restore each rank's own state into a job of the same layout", "state")
    return fields.int("epoch", 0), fields.int("step", 0), fields.int("anchor", 0)


def check_source(state_source: Mapping[str, Any] | None, fingerprint: Mapping[str, Any]) -> None:
    """Refuses a state taken with other data or order options, naming each difference.

    Example:
        >>> check_source({"data": [["a", "1"]], "options": {}}, {"data": [["a", "2"]], "options": {}})
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: cannot restore this checkpoint: deserializer 0 (a) holds other data or other stream definitions than when the checkpoint was taken (a); create the source with the same data and options as the one that wrote the checkpoint
    """
    if state_source is None:
        return
    if "data" in fingerprint and "options" in fingerprint:
        Fingerprint(fingerprint["data"], fingerprint["options"]).check(Fields(state_source,
                                                                              "source"))
    elif dict(state_source) != dict(fingerprint):
        raise CheckpointError("cannot restore this state: it was taken with a reader of other "
                              f"data or options ({dict(state_source)!r}, but this reader has "
                              f"{dict(fingerprint)!r})")
