"""Options shared by the HTK deserializers: their one stream (the output
precision is :func:`minibatcher.args.precision_of`).

Example:
    >>> single_stream({"x": StreamDef(scp="a.scp"), "y": StreamDef(scp="b.scp")}, "scp", "HTK")
    Traceback (most recent call last):
    ...
    minibatcher.errors.ConfigError: HTK reads one stream per deserializer, but got 2 streams (x, y); create one HTK per stream and pass them all to MinibatchSource
"""

from __future__ import annotations

from typing import Mapping

from ...errors import ConfigError
from ...streams import StreamDef, as_stream_defs

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
