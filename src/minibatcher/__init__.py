"""minibatcher: deterministic, resumable minibatches from CNTK/HTK/TensorFlow-era formats.

Example:
    >>> import minibatcher
    >>> sorted(n for n in minibatcher.__all__ if n.startswith("Stream"))
    ['StreamDef', 'StreamDefs', 'StreamInformation']
"""

from .errors import (CheckpointError, ConfigError, ErrorBudgetExceeded, FileChangedError,
                     FormatError, MinibatcherError, NotARegularFileError, NotSupportedError,
                     WorkerDied, WorkerError)
from .engine.composite import CompositeDeserializer
from .engine.minibatch import Minibatch, MinibatchData
from .engine.options import (DEFAULT_RANDOMIZATION_WINDOW_IN_CHUNKS, FULL_DATA_SWEEP,
                             INFINITELY_REPEAT)
from .engine.source import MinibatchSource
from .formats.ctf import CTFDeserializer
from .formats.detect import detect_format
from .formats.htk import HTKFeatureDeserializer, HTKMLFDeserializer
from .log import TraceLevel
from .opener import open
from .streams import StreamDef, StreamDefs, StreamInformation
from .user_deserializer import UserDeserializer

__version__ = "0.1.0"

__all__ = [
    "CTFDeserializer",
    "CompositeDeserializer",
    "DEFAULT_RANDOMIZATION_WINDOW_IN_CHUNKS",
    "FULL_DATA_SWEEP",
    "INFINITELY_REPEAT",
    "Minibatch",
    "MinibatchData",
    "MinibatchSource",
    "CheckpointError",
    "ConfigError",
    "ErrorBudgetExceeded",
    "FileChangedError",
    "FormatError",
    "HTKFeatureDeserializer",
    "HTKMLFDeserializer",
    "MinibatcherError",
    "NotARegularFileError",
    "NotSupportedError",
    "StreamDef",
    "StreamDefs",
    "StreamInformation",
    "TraceLevel",
    "UserDeserializer",
    "WorkerDied",
    "WorkerError",
    "detect_format",
    "open",
]
