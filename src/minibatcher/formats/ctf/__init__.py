"""CNTK text format (CTF): index, parser, index cache, error budget.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher import StreamDef
    >>> from minibatcher.formats.ctf import CTFDeserializer
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
    >>> _ = p.write_text("0 |x 1 2\\n0 |x 3 4\\n1 |x 5 6\\n")
    >>> d = CTFDeserializer(str(p), {"x": StreamDef(shape=2)})
    >>> d.table().lengths.tolist()  # two sequences, of 2 and 1 samples
    [2, 1]
"""

from .deserializer import CTFDeserializer
from .diagnostics import CTFStats
from .index import CTFIndex, build_ctf_index, index_file

__all__ = ["CTFDeserializer", "CTFIndex", "CTFStats", "build_ctf_index", "index_file"]
