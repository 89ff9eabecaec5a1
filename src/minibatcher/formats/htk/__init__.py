"""HTK features (SCP + archives) and MLF labels, CNTK-exact, on the common engine.

Example:
    >>> import tempfile, pathlib
    >>> import numpy as np
    >>> from minibatcher.formats.htk import write_htk, read_htk
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.fea"
    >>> write_htk(str(p), np.arange(6, dtype=np.float32).reshape(3, 2))
    >>> frames, info = read_htk(str(p))
    >>> frames.tolist(), info.frames
    ([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], 3)
"""

from .diagnostics import HTKStats
from .features import HTKFeatureDeserializer
from .htkfile import HTKInfo, read_htk, write_htk
from .labels import HTKMLFDeserializer, read_state_list

__all__ = ["HTKFeatureDeserializer", "HTKInfo", "HTKMLFDeserializer", "HTKStats", "read_htk",
           "read_state_list", "write_htk"]
