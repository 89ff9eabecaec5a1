"""One version scheme for every top-level checkpoint state.

Every state a public object returns (``get_checkpoint_state``, ``get_state``,
``state_dict``) starts with ``{"format": name, "version": n}``; this table is
the one place that lists the formats and their versions. A state written
before the formats were named (``MinibatchSource`` and the framework adapters
wrote only ``"version": 1``) is still accepted by the reader of its kind.

Example:
    >>> stamp(TFDATA)
    {'format': 'minibatcher.tfdata', 'version': 1}
    >>> check_stamp({"format": "minibatcher.tfdata", "version": 1}, TFDATA)
    >>> check_stamp({"version": 1}, SOURCE)  # a checkpoint written before formats were named
    >>> check_stamp({"format": "minibatcher.tfdata", "version": 1}, SOURCE)
    Traceback (most recent call last):
    ...
    minibatcher.errors.CheckpointError: checkpoint state format should be 'minibatcher.MinibatchSource', but got format='minibatcher.tfdata'; pass the state that MinibatchSource.get_checkpoint_state() returned
"""

from __future__ import annotations

from typing import Any, Mapping

from ..errors import CheckpointError

SOURCE = "minibatcher.MinibatchSource"
TFDATA = "minibatcher.tfdata"
ADAPTER = "minibatcher.adapter"
PIPELINE = "minibatcher.torch.PipelineDataset"

#: format -> (current version, the method that writes it, whether states without "format" exist)
FORMATS: dict[str, tuple[int, str, bool]] = {
    SOURCE: (1, "MinibatchSource.get_checkpoint_state()", True),
    TFDATA: (1, "a tfdata iterator's get_state()", False),
    ADAPTER: (1, "state_dict() / get_state() of a framework adapter", True),
    PIPELINE: (1, "PipelineDataset.state_dict()", False),
}


def version_of(format: str) -> int:
    """The current version of ``format``.

    Example:
        >>> version_of(SOURCE)
        1
    """
    return FORMATS[format][0]


def stamp(format: str) -> dict[str, Any]:
    """The ``format`` and ``version`` fields a new state of ``format`` starts with.

    Example:
        >>> stamp(ADAPTER)["version"]
        1
    """
    return {"format": format, "version": FORMATS[format][0]}


def check_stamp(state: Any, format: str) -> None:
    """Refuses a state that is not a dict of ``format`` at its current version.

    Example:
        >>> check_stamp({"format": "minibatcher.adapter", "version": 7}, ADAPTER)
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: checkpoint state version should be 1, but got version=7; it was written by another minibatcher release or is not a minibatcher.adapter checkpoint
    """
    version, writer, legacy = FORMATS[format]
    if not isinstance(state, Mapping):
        raise CheckpointError(f"a checkpoint state should be a dict, but got "
                              f"{type(state).__name__}; pass the state that {writer} returned")
    if "format" in state or not legacy:
        got = state.get("format", "<missing>")
        if got != format:
            raise CheckpointError(f"checkpoint state format should be {format!r}, but got "
                                  f"format={got!r}; pass the state that {writer} returned")
    got_version = state.get("version", "<missing>")
    if type(got_version) is not int or got_version != version:
        raise CheckpointError(f"checkpoint state version should be {version}, but got "
                              f"version={got_version!r}; it was written by another minibatcher "
                              f"release or is not a {format} checkpoint")
