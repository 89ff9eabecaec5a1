"""What a checkpoint must match: ``Fingerprint``, ``digest`` and the one wording
of a mismatch (``it was taken with X=..., but this <thing> has X=...``).

Example:
    >>> fp = Fingerprint(data=[["d.ctf", "ab12"]], options={"randomization_seed": 0})
    >>> fp.check(fp.as_dict())
    >>> Fingerprint(data=[["d.ctf", "ab12"]], options={"randomization_seed": 1}).check(fp.as_dict())
    Traceback (most recent call last):
    ...
    minibatcher.errors.CheckpointError: cannot restore this checkpoint: it was taken with randomization_seed=0, but this source has randomization_seed=1; create the source with the same data and options as the one that wrote the checkpoint
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Mapping

from ..errors import CheckpointError
from .fields import Fields


def digest(obj: Any) -> str:
    """Short stable digest of a JSON-able object (16 hex digits).

    Example:
        >>> digest({"a": 1}) == digest({"a": 1}), len(digest([1, 2]))
        (True, 16)
    """
    return hashlib.blake2b(json.dumps(obj, sort_keys=True).encode(), digest_size=8).hexdigest()


def taken_with(name: str, saved: Any, mine: Any, thing: str = "source") -> str:
    """The one wording of a difference between a checkpoint and the object restoring it.

    Example:
        >>> taken_with("world_size", 2, 4, "reader")
        'it was taken with world_size=2, but this reader has world_size=4'
    """
    return f"it was taken with {name}={saved!r}, but this {thing} has {name}={mine!r}"


def refuse(problems: list[str], advice: str, what: str = "checkpoint") -> None:
    """Raises one :class:`CheckpointError` listing ``problems`` (nothing when empty).

    Example:
        >>> refuse([taken_with("seed", 1, 2)], "use the same seed")
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: cannot restore this checkpoint: it was taken with seed=1, but this source has seed=2; use the same seed
    """
    if problems:
        raise CheckpointError(f"cannot restore this {what}: " + "; ".join(problems) + "; " +
                              advice)


@dataclass(frozen=True)
class Fingerprint:
    """Identity of a source: ``data`` = ``[[name, digest], ...]`` per
    deserializer, ``options`` = everything that changes which samples come in
    which order.

    Example:
        >>> Fingerprint([["a", "1"]], {}).as_dict()
        {'data': [['a', '1']], 'options': {}}
    """

    data: list[list[str]]
    options: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        """The fingerprint fields of a state."""
        return {"data": [list(d) for d in self.data], "options": dict(self.options)}

    def check(self, state: "Fields | Mapping[str, Any]", thing: str = "source") -> None:
        """Raises :class:`CheckpointError` naming every difference between this
        fingerprint and the ``data`` and ``options`` fields of ``state``."""
        fields = state if isinstance(state, Fields) else Fields(state)
        options, data = fields.value("options"), fields.value("data")
        if not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options):
            raise fields.bad("options", "a dict of option names to values")
        if not isinstance(data, list) or not all(
                isinstance(d, list) and len(d) == 2 and all(isinstance(x, str) for x in d)
                for d in data):
            raise fields.bad("data", "a list of [name, digest] pairs of strings")
        problems = self._option_differences(options, thing)
        problems += self._data_differences(data, thing)
        refuse(problems, f"create the {thing} with the same data and options as the one that "
                         "wrote the checkpoint")

    def _option_differences(self, saved: Mapping[str, Any], thing: str) -> list[str]:
        keys = sorted(set(saved) | set(self.options))
        return [taken_with(k, saved.get(k), self.options.get(k), thing)
                for k in keys if saved.get(k) != self.options.get(k)]

    def _data_differences(self, saved: list[list[str]], thing: str) -> list[str]:
        if len(saved) != len(self.data):
            return [f"it was taken with {len(saved)} deserializer(s), but this {thing} has "
                    f"{len(self.data)}"]
        return [f"deserializer {i} ({mine[0]}) holds other data or other stream definitions than "
                f"when the checkpoint was taken ({theirs[0]})"
                for i, (theirs, mine) in enumerate(zip(saved, self.data)) if theirs[1] != mine[1]]
