"""HTK/MLF reader sections: the legacy ``HTKMLFReader``, ``HTKDeserializers``
and the composite ``HTKFeatureDeserializer`` / ``HTKMLFDeserializer`` entries.

Keys (docs/htk-mlf.md, "Configs"; CNTK's ``Source/Readers/HTKMLFReader/HTKMLFReader.cpp``
and ``Source/Readers/HTKDeserializers/ConfigHelper.cpp``): feature blocks have ``scpFile``,
``dim`` (the expanded size unless ``contextWindow`` is given),
``contextWindow`` (``N`` odd, or ``L:R``), ``prefixPathInSCP``, ``type``
(``real``); label blocks have ``mlfFile`` or ``mlfFileList``, ``labelDim``
(or ``dim``), ``labelMappingFile``, ``labelType`` (``category``),
``phoneBoundaries``. The reader has ``readMethod`` (``blockRandomize``,
``rollingWindow``, ``none``), ``randomize`` (``auto``, ``none`` or a window in
frames), ``miniBatchMode``, ``frameMode``, ``nbruttsineachrecurrentiter``,
``truncated``/``truncationLength``, ``precision``, ``maxErrors``,
``verbosity``/``traceLevel``. Relative paths (also inside SCP files and
``mlfFileList`` files) resolve against ``base_dir`` (:mod:`.paths`).

Example:
    >>> is_htk_reader("HTKMLFReader"), is_htk_reader("CNTKTextFormatReader")
    (True, False)
"""

from __future__ import annotations

from typing import Any

from ..deserializer import Deserializer
from ..errors import ConfigError
from ..formats.guarded_file import decode_text, read_small_file
from ..formats.htk import HTKFeatureDeserializer, HTKMLFDeserializer
from ..formats.htk.window import FeatureDimError, check_context
from ..streams import StreamDef
from .nodes import ConfigArray, ConfigNode
from .paths import ConfigPaths, _key_and_location

_LEGACY = "htkmlfreader"
_NEW = ("htkdeserializers", "experimentalhtkmlfreader")
_AUTO_WINDOW = (2**64 - 1) >> 2  # CNTK's randomizeAuto: the whole corpus


def is_htk_reader(reader_type: str) -> bool:
    """Whether ``readerType`` names one of CNTK's HTK readers."""
    return reader_type.lower() in (_LEGACY, *_NEW)


def is_htk_entry(entry_type: str) -> bool:
    """Whether a composite entry ``type`` is an HTK deserializer.

    Example:
        >>> is_htk_entry("HTKFeatureDeserializer")
        True
    """
    return entry_type.lower() in ("htkfeaturedeserializer", "htkmlfdeserializer")


def _values(node: ConfigNode, key: str) -> list[str]:
    value = node.get(key, inherit=False)
    if isinstance(value, ConfigArray):
        return [str(v) for v in value]
    return [v for v in str(value).split(":")]


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ConfigError(f"{what} should be an integer, but got {text!r}") from None


def _per_epoch(node: ConfigNode, key: str) -> list[int]:
    """A per-epoch int array (CNTK's ``argvector``): ``1:2:4``; ``N*k`` repeats N for k epochs.

    Example:
        >>> from minibatcher.config import parse_config
        >>> _per_epoch(parse_config("r = [ n = 2*3:4 ]")["r"], "n")
        [2, 2, 2, 4]
    """
    out: list[int] = []
    for item in _values(node, key):
        value, star, times = item.partition("*")
        counts = (_int(value.strip(), f"{node.location}: {key}"),
                  _int(times.strip(), f"{node.location}: {key}") if star else 1)
        if min(counts) < 1:
            raise ConfigError(f"{node.location}: option {key} should be positive integers, one per "
                              f"epoch (N*k repeats N for k epochs), but got {key}={item}")
        out += [counts[0]] * counts[1]
    return out


def _context(node: ConfigNode) -> tuple[int, int] | None:
    if not node.has("contextWindow"):
        return None
    values = [_int(v, f"{node.location}: contextWindow") for v in _values(node, "contextWindow")]
    if len(values) == 1:
        if values[0] % 2 == 0 or values[0] < 1:
            raise ConfigError(f"{node.location}: contextWindow={values[0]} is not symmetrical; "
                              "expected an odd number of frames, or left:right")
        left = right = values[0] // 2
    elif len(values) == 2 and min(values) >= 0:
        left, right = values
    else:
        raise ConfigError(f"{node.location}: contextWindow should be N (odd) or left:right, "
                          f"but got {values}")
    check_context(left, right, "contextWindow", node.location)
    return None if (left, right) == (0, 0) else (left, right)


def _check_type(node: ConfigNode, keys: tuple[str, ...], expected: str) -> None:
    for key in keys:
        if node.has(key):
            value = node.get_str(key, inherit=False)
            if value.lower() != expected:
                raise ConfigError(f"{node.location}: {key} should be {expected!r}, but got "
                                  f"{value!r}")
            return


def _features(name: str, node: ConfigNode, paths: ConfigPaths,
              common: dict[str, Any]) -> Deserializer:
    _check_type(node, ("type",), "real")
    if node.get_bool("expandToUtterance", False, inherit=False):
        raise ConfigError(f"{node.location}: expandToUtterance (i-vector broadcast) is not "
                          "supported")
    sd = StreamDef(scp=str(paths.file(node, "scpFile", inherit=False)), shape=node.get_int("dim"),
                   context=_context(node), defines_mb_size=node.get_bool("definesMBSize", False))
    prefix = node.get_str("prefixPathInSCP", "", inherit=True) or None
    try:
        return HTKFeatureDeserializer({name: sd}, base_dir=paths, prefix_path=prefix,
                                      **common)
    except FeatureDimError as e:  # name the config key, not the Python API's ``shape``
        key, location = _key_and_location(node, "dim", inherit=True)
        raise e.for_option("dim", f"{key} at {location}") from None


def _mlf_files(node: ConfigNode, paths: ConfigPaths) -> list[str]:
    if node.has("mlfFile"):
        return [str(paths.file(node, "mlfFile", inherit=False))]
    if not node.has("mlfFileList"):
        raise ConfigError(f"{node.location}: expected mlfFile or mlfFileList")
    value = node.get("mlfFileList", inherit=False)
    if isinstance(value, ConfigArray) or ":" in str(value):
        items = _values(node, "mlfFileList")
    else:
        listing = paths.file(node, "mlfFileList", inherit=False)
        text = decode_text(read_small_file(listing, "MLF list file"), listing,
                           "MLF list file").removeprefix("\ufeff")
        items = [line.strip() for line in text.splitlines() if line.strip()]
    return [str(paths.resolve(item, f"{node.path}.mlfFileList")) for item in items]


def _labels(name: str, node: ConfigNode, paths: ConfigPaths,
            common: dict[str, Any]) -> Deserializer:
    _check_type(node, ("labelType", "type"), "category")
    dim_key = "labelDim" if node.has("labelDim") else "dim"
    if not node.has(dim_key):
        raise ConfigError(f"{node.location}: labels need labelDim (or dim)")
    mapping = (str(paths.file(node, "labelMappingFile", inherit=False))
               if node.has("labelMappingFile") else None)
    sd = StreamDef(mlf=_mlf_files(node, paths), shape=node.get_int(dim_key, inherit=False),
                   defines_mb_size=node.get_bool("definesMBSize", False))
    options = {k: v for k, v in common.items() if k not in ("verify_crc",)}
    return HTKMLFDeserializer(mapping, {name: sd}, node.get_bool("phoneBoundaries", False),
                              **options)


def _streams(block: ConfigNode, paths: ConfigPaths, common: dict[str, Any]) -> list[Deserializer]:
    """Feature blocks first (the first is primary), then label blocks, each in order."""
    features, labels = [], []
    for name in block.keys():
        node = block.get(name, inherit=False)
        if not isinstance(node, ConfigNode):
            continue
        if node.has("scpFile"):
            features.append(_features(name, node, paths, common))
        elif node.has("mlfFile") or node.has("mlfFileList"):
            labels.append(_labels(name, node, paths, common))
    if not features:
        raise ConfigError(f"{block.location}: expected a feature block with scpFile")
    return features + labels


def _common(reader: ConfigNode, max_errors: int | None = None) -> dict[str, Any]:
    trace = (reader.get_int("traceLevel") if reader.has("traceLevel", inherit=True) else
             reader.get_int("verbosity", 1))
    errors = reader.get_int("maxErrors", 0) if max_errors is None else max_errors
    return {"max_errors": errors, "trace_level": min(max(trace, 0), 2),
            "precision": reader.get_str("precision", "float")}


def _randomization(reader: ConfigNode) -> dict[str, Any]:
    method = reader.get_str("readMethod", "blockRandomize").lower()
    text = reader.get_str("randomize", "auto").strip().lower()
    window = 0 if text == "none" else _AUTO_WINDOW if text == "auto" else _int(
        text, f"{reader.location}: randomize")
    if method not in ("blockrandomize", "rollingwindow", "none"):
        raise ConfigError(f"{reader.location}: readMethod should be blockRandomize, "
                          f"rollingWindow or none, but got {method!r}")
    if method == "blockrandomize" and window == 0:
        raise ConfigError(f"{reader.location}: 'randomize' cannot be 'none' when 'readMethod' is "
                          "'blockRandomize' (use readMethod=none to read in order)")
    if method == "rollingwindow" and window:
        raise ConfigError(f"{reader.location}: readMethod=rollingWindow with randomization is not "
                          "reproduced (its shuffle is not CNTK's block randomizer); use "
                          "readMethod=blockRandomize, or randomize=none to read in order")
    if method != "blockrandomize":
        return {"randomize": False}
    return {"randomization_window_in_samples": window, "randomization_window_in_chunks": 0}


def legacy_htk(reader: ConfigNode, paths: ConfigPaths,
               max_errors: int | None = None) -> tuple[list[Deserializer], dict[str, Any]]:
    """Deserializers and source options of a legacy ``HTKMLFReader`` / ``HTKDeserializers`` block
    (``max_errors``, when given, replaces ``maxErrors``)."""
    kind = reader.get_str("readerType", inherit=False).lower()
    deserializers = _streams(reader, paths, _common(reader, max_errors))
    frame_mode = reader.get_bool("frameMode", True)
    truncated = reader.get_bool("truncated", False)
    options: dict[str, Any] = {
        **_randomization(reader), "frame_mode": frame_mode,
        "trace_level": _common(reader)["trace_level"], "local_timeline": False,
        "cross_sweep_boundaries": False}
    utterances = (_per_epoch(reader, "nbruttsineachrecurrentiter")
                  if reader.has("nbruttsineachrecurrentiter") else [1])
    if truncated:
        if frame_mode:
            raise ConfigError(f"{reader.location}: frameMode=true and truncated=true are mutually "
                              "exclusive")
        length = reader.get_int("truncationLength", 0)
        if length:
            options["truncation_length"] = length
        else:  # CNTK: truncation = mbSize, nbrutts[epoch] parallel utterances per minibatch
            options["truncated_by_minibatch"] = True
            options["utterances_per_minibatch"] = utterances
    elif kind == _LEGACY:
        options["full_minibatches"] = reader.get_str("miniBatchMode", "partial").lower() == "full"
        if not frame_mode:
            options["utterances_per_minibatch"] = utterances
    return deserializers, options


def composite_htk(entry: ConfigNode, paths: ConfigPaths, precision: str, trace: int,
                  max_errors: int | None = None) -> list[Deserializer]:
    """The deserializers of a composite ``HTKFeatureDeserializer``/``HTKMLFDeserializer`` entry."""
    block = entry.get_node("input")
    errors = entry.get_int("maxErrors", 0, inherit=False) if max_errors is None else max_errors
    common = {"max_errors": errors, "trace_level": trace,
              "precision": entry.get_str("precision", precision, inherit=False)}
    out = []
    for name in block.keys():
        node = block.get(name, inherit=False)
        if not isinstance(node, ConfigNode):
            continue
        if entry.get_str("type", inherit=False).lower() == "htkfeaturedeserializer":
            out.append(_features(name, node, paths, common))
        else:
            out.append(_labels(name, node, paths, common))
    if not out:
        raise ConfigError(f"{block.location}: expected at least one stream block")
    return out


__all__ = ["composite_htk", "is_htk_entry", "is_htk_reader", "legacy_htk"]
