"""HTK features (SCP + archives) and MLF labels, CNTK-exact, on the common engine.

Example:
    >>> from minibatcher.formats.htk import HTKFeatureDeserializer, HTKMLFDeserializer
    >>> HTKMLFDeserializer.__name__
    'HTKMLFDeserializer'
"""

from .diagnostics import HTKStats
from .features import HTKFeatureDeserializer
from .htkfile import HTKInfo, read_htk, write_htk
from .labels import HTKMLFDeserializer, read_state_list

__all__ = ["HTKFeatureDeserializer", "HTKInfo", "HTKMLFDeserializer", "HTKStats", "read_htk",
           "read_state_list", "write_htk"]
