"""``minibatcher.io``: a drop-in for ``cntk.io`` (CNTK 2.7's reader API).

Ported code changes only its import::

    import cntk.io as io                        ->  import minibatcher.io as io
    from cntk.io import MinibatchSource, ...    ->  from minibatcher.io import MinibatchSource, ...
    import cntk.io.transforms as xforms         ->  import minibatcher.io.transforms as xforms
    from cntk.logging import TraceLevel         ->  from minibatcher.io import TraceLevel

Everything here is the library's own object (``minibatcher.io.MinibatchSource``
is ``minibatcher.MinibatchSource``), so the extensions (checkpoints in every
mode, ``num_workers``, framework adapters) are one attribute away. CNTK
features that minibatcher does not provide (image readers and transforms,
CBF, lattices) exist under their names and raise ``NotSupportedError`` saying
so when used.

Example:
    >>> import tempfile, pathlib
    >>> import minibatcher.io as io
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
    >>> _ = p.write_text("|x 1 2 |y 1\\n|x 3 4 |y 0\\n")
    >>> source = io.MinibatchSource(io.CTFDeserializer(str(p), io.StreamDefs(
    ...     features=io.StreamDef(field="x", shape=2), labels=io.StreamDef(field="y", shape=1))),
    ...     randomize=False, max_sweeps=1)
    >>> mb = source.next_minibatch(2)
    >>> mb[source["features"]].shape, mb[source.streams.labels].as_sequences()[1].tolist()
    ((2, 1, 2), [[0.0]])
"""

from ..engine.minibatch import MinibatchValue
from ..engine.options import (DEFAULT_RANDOMIZATION_WINDOW_IN_CHUNKS, FULL_DATA_SWEEP,
                              INFINITELY_REPEAT)
from ..engine.source import MinibatchSource
from ..errors import NotSupportedError
from ..formats.ctf import CTFDeserializer
from ..log import TraceLevel
from ..streams import StreamDef, StreamDefs, StreamInformation
from ..user_deserializer import UserDeserializer
from . import transforms
from .sources import MinibatchSourceFromData, UserMinibatchSource
from .text_format import sequence_to_cntk_text_format
from .value import MinibatchData, Value
from .unsupported import (Base64ImageDeserializer, CBFDeserializer, HTKFeatureDeserializer,
                          HTKMLFDeserializer, ImageDeserializer, LatticeDeserializer)

__all__ = [
    "Base64ImageDeserializer",
    "CBFDeserializer",
    "CTFDeserializer",
    "DEFAULT_RANDOMIZATION_WINDOW_IN_CHUNKS",
    "FULL_DATA_SWEEP",
    "HTKFeatureDeserializer",
    "HTKMLFDeserializer",
    "INFINITELY_REPEAT",
    "ImageDeserializer",
    "LatticeDeserializer",
    "MinibatchData",
    "MinibatchSource",
    "MinibatchSourceFromData",
    "MinibatchValue",
    "NotSupportedError",
    "StreamDef",
    "StreamDefs",
    "StreamInformation",
    "TraceLevel",
    "UserDeserializer",
    "UserMinibatchSource",
    "Value",
    "sequence_to_cntk_text_format",
    "transforms",
]
