"""CNTK text format (CTF): index, parser, index cache, error budget.

Example:
    >>> from minibatcher.formats.ctf import CTFDeserializer
    >>> CTFDeserializer.__name__
    'CTFDeserializer'
"""

from .deserializer import CTFDeserializer
from .diagnostics import CTFStats
from .index import CTFIndex, build_ctf_index, index_file

__all__ = ["CTFDeserializer", "CTFIndex", "CTFStats", "build_ctf_index", "index_file"]
