"""Checkpoint states: one field reader, one fingerprint, one version scheme.

Every reader of the project (the engine, tfdata, tfds, nmt, the framework
adapters) reads its checkpoint states through :class:`Fields` (every field
validated, every error naming its path), stamps them with :func:`stamp` and
checks them with :func:`check_stamp`, and words a mismatch with
:func:`taken_with`. See docs/design/state-format.md.

Example:
    >>> from minibatcher.state import Fields, stamp, check_stamp, TFDATA
    >>> state = {**stamp(TFDATA), "iterator": {"pos": 2, "pins": None}}
    >>> check_stamp(state, TFDATA)
    >>> Fields(state).child("iterator").int("pos", 0, 5)
    2
"""

from .fields import Fields, as_fields, damaged, int_value
from .fingerprint import Fingerprint, digest, refuse, taken_with
from .stamp import ADAPTER, FORMATS, PIPELINE, SOURCE, TFDATA, check_stamp, stamp, version_of

__all__ = ["ADAPTER", "FORMATS", "Fields", "Fingerprint", "PIPELINE", "SOURCE", "TFDATA",
           "as_fields", "check_stamp", "damaged", "digest", "int_value", "refuse", "stamp",
           "taken_with", "version_of"]
