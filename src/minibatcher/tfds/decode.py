"""``tfds.decode``: per-feature decoding options of ``as_dataset``.

Example:
    >>> from minibatcher.tfds import decode
    >>> decode.SkipDecoding()
    SkipDecoding()
"""

from .builder import SkipDecoding

__all__ = ["SkipDecoding"]
