"""BrainScript ``reader`` sections -> a ``MinibatchSource``'s deserializers and options,
with CNTK's defaults.

Two front ends (docs/ctf-format.md for the files; CNTK's
``Source/Readers/CNTKTextFormatReader/TextConfigHelper.cpp`` and
``Source/Readers/CompositeDataReader/CompositeDataReader.cpp`` for the keys):

* legacy ``reader = [ readerType = "CNTKTextFormatReader" ... ]``: keys are
  looked up with inheritance from enclosing sections; the window counts
  chunks (default ``4 GB / chunkSizeInBytes``); one global timeline; no
  minibatch crosses a sweep end;
* composite ``reader = { deserializers = ( {type = "CNTKTextFormatDeserializer" ...} ) }``:
  deserializer entries inherit nothing (only ``precision``, ``traceLevel``
  and ``frameMode`` are copied in); the window counts samples unless
  ``sampleBasedRandomizationWindow = false``; local timelines; no sweep crossing.

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "t.ctf").write_text("|x 1\\n|x 2\\n")
    >>> cfg = 'reader = [ readerType = "CNTKTextFormatReader"; file = "t.ctf"; randomize = false; input = [ x = [ dim = 1; format = "dense" ] ] ]'
    >>> deserializers, options = source_arguments(cfg, base_dir=d)
    >>> [type(x).__name__ for x in deserializers], options["randomize"]
    (['CTFDeserializer'], False)
    >>> from minibatcher import MinibatchSource   # what MinibatchSource.from_config does
    >>> MinibatchSource(deserializers, **options).next_minibatch(5)["x"].values.ravel().tolist()
    [1.0, 2.0]
"""

from __future__ import annotations

import errno
import os
from typing import Any, Mapping

from ..deserializer import Deserializer
from ..errors import ConfigError
from ..formats.ctf import CTFDeserializer
from ..streams import StreamDef, StreamDefs
from .brainscript import find_section, load_config, parse_config
from .htk_reader import composite_htk, is_htk_entry, is_htk_reader, legacy_htk
from .nodes import ConfigArray, ConfigNode
from .paths import ConfigPaths

_4GB = 1 << 32
_CTF_READER, _CTF_DESERIALIZER = "cntktextformatreader", "cntktextformatdeserializer"
_DEFAULT_CHUNK = 32 << 20


def _looks_like_a_path(text: str) -> bool:
    return "\n" not in text and "=" not in text and "[" not in text and "{" not in text


def _root(config: str | os.PathLike,
          overrides: Mapping[str, str] | None) -> tuple[ConfigNode, str | None]:
    """The parsed config and the file it came from (``None`` for config text)."""
    text = os.fspath(config)
    # anything at the path (a FIFO, a directory too) is read as a file: load_config's rule
    # refuses what is not a regular file (NotARegularFileError), never "no such file"
    if isinstance(config, os.PathLike) or ("\n" not in text and os.path.lexists(text)):
        return load_config(text, overrides=overrides), text
    if _looks_like_a_path(text):
        raise FileNotFoundError(errno.ENOENT, "config should be an existing config file or config "
                                f"text, but got config={text!r} (no such file)", text)
    return parse_config(text, overrides=overrides), None


def _streams(node: ConfigNode) -> StreamDefs:
    inputs = node.get_node("input")
    if len(inputs) == 0:
        raise ConfigError(f"{inputs.location}: the 'input' section is empty; expected one block per "
                          "input with 'dim' and 'format'")
    defs = {}
    for name in inputs.keys():
        spec = inputs.get_node(name)
        fmt = spec.get_str("format", inherit=False).lower()
        if fmt not in ("dense", "sparse"):
            raise ConfigError(f"{spec.location}: format should be 'dense' or 'sparse', but got "
                              f"format={fmt!r}")
        alias = spec.get_str("alias", name, inherit=False)
        if not alias:
            raise ConfigError(f"{spec.location}: alias of input {name!r} is empty")
        defs[name] = StreamDef(field=alias, shape=spec.get_int("dim", inherit=False),
                               is_sparse=fmt == "sparse",
                               defines_mb_size=spec.get_bool("definesMBSize", False))
    return StreamDefs(**defs)


def _ctf(node: ConfigNode, paths: ConfigPaths, precision: str, trace_level: int,
         max_errors: int | None) -> CTFDeserializer:
    return CTFDeserializer(
        paths.file(node, "file"), _streams(node),
        skip_sequence_ids=node.get_bool("skipSequenceIds", False),
        max_errors=node.get_int("maxErrors", 0) if max_errors is None else max_errors,
        trace_level=trace_level,
        chunk_size_in_bytes=node.get_int("chunkSizeInBytes", _DEFAULT_CHUNK),
        cache_index=node.get_bool("cacheIndex", False), precision=precision,
        keep_data_in_memory=node.get_bool("keepDataInMemory", False),
        skip_incomplete_sequences=node.get_bool("skipIncompleteSequences", False))


def _legacy_randomization(reader: ConfigNode) -> dict[str, Any]:
    text = reader.get_str("randomize", "true").strip().lower()
    if text in ("none", "false", "0"):
        return {"randomize": False}
    if text not in ("true", "1", "auto"):
        raise ConfigError(f"{reader.location}: randomize should be true, false or none, but got {text!r}")
    sample_based = reader.get_bool("sampleBasedRandomizationWindow", False)
    chunk = reader.get_int("chunkSizeInBytes", _DEFAULT_CHUNK)
    default = (2**64 - 1) >> 2 if sample_based else _4GB // chunk
    window = reader.get_int("randomizationWindow", default)
    if window == 0:
        return {"randomize": False}
    key = "randomization_window_in_samples" if sample_based else "randomization_window_in_chunks"
    other = "randomization_window_in_chunks" if sample_based else "randomization_window_in_samples"
    return {key: window, other: 0}


def _composite_randomization(reader: ConfigNode) -> dict[str, Any]:
    if not reader.get_bool("randomize", True, inherit=False):
        return {"randomize": False}
    sample_based = reader.get_bool("sampleBasedRandomizationWindow", True, inherit=False)
    if not reader.has("randomizationWindow"):
        if reader.has("sampleBasedRandomizationWindow") and sample_based:
            raise ConfigError(f"{reader.location}: sampleBasedRandomizationWindow=true requires "
                              "randomizationWindow to be set explicitly")
        chunk = reader.get_int("chunkSizeInBytes", _DEFAULT_CHUNK, inherit=False)
        return {"randomization_window_in_chunks": _4GB // chunk, "randomization_window_in_samples": 0}
    window = reader.get_int("randomizationWindow", inherit=False)
    if window == 0:
        return {"randomize": False}
    if sample_based:
        return {"randomization_window_in_samples": window, "randomization_window_in_chunks": 0}
    return {"randomization_window_in_chunks": window, "randomization_window_in_samples": 0}


def _legacy(reader: ConfigNode, paths: ConfigPaths,
            max_errors: int | None) -> tuple[list[CTFDeserializer], dict[str, Any]]:
    kind = reader.get_str("readerType", "", inherit=False).lower()
    if is_htk_reader(kind):
        return legacy_htk(reader, paths, max_errors)
    if kind != _CTF_READER:
        raise ConfigError(f"{reader.location}: readerType should be 'CNTKTextFormatReader' (or use "
                          f"'deserializers'), but got readerType={kind or None!r}")
    trace = reader.get_int("traceLevel", 1)
    deserializer = _ctf(reader, paths, reader.get_str("precision", "float"), trace, max_errors)
    options = {**_legacy_randomization(reader), "frame_mode": reader.get_bool("frameMode", False),
               "randomization_seed": reader.get_int("randomizationSeed", 0), "trace_level": trace,
               "local_timeline": False, "cross_sweep_boundaries": False}
    return [deserializer], options


def _composite(reader: ConfigNode, paths: ConfigPaths,
               max_errors: int | None) -> tuple[list[CTFDeserializer], dict[str, Any]]:
    entries = reader.get_array("deserializers")
    precision, trace = reader.get_str("precision", "float"), reader.get_int("traceLevel", 1)
    deserializers = []
    for entry in entries:
        if not isinstance(entry, ConfigNode):
            raise ConfigError(f"{entries.location}: deserializers should hold blocks, but got {entry!r}")
        kind = entry.get_str("type", "", inherit=False)
        if is_htk_entry(kind):
            deserializers += composite_htk(entry, paths, entry.get_str("precision", precision),
                                           entry.get_int("traceLevel", trace), max_errors)
            continue
        if kind.lower() != _CTF_DESERIALIZER:
            raise ConfigError(f"{entry.location}: deserializer type should be "
                              f"'CNTKTextFormatDeserializer' (the one supported now), but got {kind!r}")
        deserializers.append(_ctf(entry, paths, entry.get_str("precision", precision),
                                  entry.get_int("traceLevel", trace), max_errors))
    truncated = reader.get_bool("truncated", False, inherit=False)
    options = {**_composite_randomization(reader), "trace_level": trace,
               "frame_mode": reader.get_bool("frameMode", False),
               "randomization_seed": reader.get_int("randomizationSeed", 0, inherit=False),
               "truncation_length": reader.get_int("truncationLength", 0) if truncated else 0,
               "local_timeline": reader.get_bool("localTimeline", True, inherit=False),
               "cross_sweep_boundaries": False}
    return deserializers, options


def source_arguments(config: str | os.PathLike, section: str | None = None, *,
                     overrides: Mapping[str, str] | None = None,
                     base_dir: str | os.PathLike | None = None, max_errors: int | None = None,
                     **options: Any) -> tuple[list[Deserializer], dict[str, Any]]:
    """The deserializers and ``MinibatchSource`` options of ``section``'s ``reader``
    block (``None``: a top-level ``reader``); ``MinibatchSource.from_config`` builds the source.

    ``overrides`` are top-level assignments applied like CNTK's command line;
    relative ``file`` paths resolve against ``base_dir``, whose default is the
    config file's folder (the working directory for config text; see
    :mod:`minibatcher.config.paths`); ``max_errors`` (when given) replaces
    every deserializer's ``maxErrors``; ``options`` override ``MinibatchSource``
    options.
    """

    root, config_file = _root(config, overrides)
    scope = root if section is None else find_section(root, section)
    reader = scope.get_node("reader")
    paths = ConfigPaths.for_config(config_file, base_dir)
    if reader.has("deserializers"):
        deserializers, derived = _composite(reader, paths, max_errors)
    else:
        deserializers, derived = _legacy(reader, paths, max_errors)
    return deserializers, {**derived, **options}


__all__ = ["source_arguments", "ConfigArray"]
