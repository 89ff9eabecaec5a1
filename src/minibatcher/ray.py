"""Ray Data integration: read any format of this project on a Ray cluster.

* :class:`DeserializerDatasource` -- ``ray.data.read_datasource`` over a
  picklable zero-argument callable returning a ``Deserializer`` (CTF, HTK, ...):
  one row per sequence, one read task per run of chunks.
* :func:`read_ctf` -- a CTF file as a Ray ``Dataset``.

Install with ``pip install 'minibatcher[ray]'``.

Example:
    >>> sorted(__all__)
    ['DeserializerDatasource', 'chunk_columns', 'read_ctf']
"""

from __future__ import annotations

from .adapters.ray_data import DeserializerDatasource, chunk_columns, read_ctf

__all__ = ["DeserializerDatasource", "chunk_columns", "read_ctf"]
