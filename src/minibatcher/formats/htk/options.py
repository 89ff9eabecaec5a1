"""Options shared by the HTK deserializers: the output precision and their one stream.

Example:
    >>> precision_of("float").__name__
    'float32'
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ...errors import ConfigError
from ...streams import StreamDef, as_stream_defs

_PRECISIONS = {"float": np.float32, "float32": np.float32, "double": np.float64,
               "float64": np.float64}


def precision_of(precision: Any) -> type:
    """``np.float32`` or ``np.float64`` for ``"float"``/``"double"`` (or a dtype).

    Example:
        >>> precision_of("double").__name__
        'float64'
    """
    if isinstance(precision, str) and precision.lower() in _PRECISIONS:
        return _PRECISIONS[precision.lower()]
    try:
        dtype = np.dtype(precision) if not isinstance(precision, str) else None
    except TypeError:
        dtype = None
    if dtype in (np.float32, np.float64):
        return dtype.type
    raise ConfigError(f"precision should be 'float' or 'double', but got precision={precision!r}")


def single_stream(streams: Mapping[str, StreamDef], field: str, who: str) -> tuple[str, StreamDef]:
    """The one stream of an HTK/MLF deserializer, which must set ``field``.

    Example:
        >>> name, sd = single_stream({"x": StreamDef(scp="a.scp")}, "scp", "who")
        >>> name, sd.scp
        ('x', ('a.scp',))
    """
    defs = as_stream_defs(streams)
    if len(defs) != 1:
        raise ConfigError(f"{who} reads one stream per deserializer, but got {len(defs)} streams "
                          f"({', '.join(defs)}); create one {who} per stream and pass them all "
                          "to MinibatchSource")
    name, sd = next(iter(defs.items()))
    if not getattr(sd, field, None):
        raise ConfigError(f"{who} stream {name!r} should set StreamDef({field}=...), but got "
                          f"{field}={getattr(sd, field, None)!r}")
    return name, sd
