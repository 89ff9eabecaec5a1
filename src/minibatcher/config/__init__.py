"""Reading CNTK config files (``.cntk``; legacy and BrainScript syntax) for reader sections.

Example:
    >>> from minibatcher.config import find_section, parse_config
    >>> root = parse_config("Simple = [ reader = { randomize = false } ]")
    >>> find_section(root, "simple")["reader"].get_bool("randomize")
    False
"""

from minibatcher.config.brainscript import (
    ConfigArray,
    ConfigKeyError,
    ConfigNode,
    ConfigValue,
    Location,
    PlainValue,
    as_bool,
    as_float,
    as_int,
    find_section,
    load_config,
    parse_config,
    render_config,
    to_dict,
)
from minibatcher.config.paths import ConfigFileNotFoundError, ConfigPaths

__all__ = [
    "ConfigArray",
    "ConfigFileNotFoundError",
    "ConfigPaths",
    "ConfigKeyError",
    "ConfigNode",
    "ConfigValue",
    "Location",
    "PlainValue",
    "as_bool",
    "as_float",
    "as_int",
    "find_section",
    "load_config",
    "parse_config",
    "render_config",
    "to_dict",
]
