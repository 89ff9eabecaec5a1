"""Read CNTK config files (legacy ``[ ]`` and BrainScript ``{ }`` syntax) for reader sections.

Parse with :func:`parse_config` or :func:`load_config`, pick a top-level
section with :func:`find_section`, then read values from the returned
:class:`~minibatcher.config.nodes.ConfigNode` tree. Scalars are strings;
convert them with :func:`as_bool`, :func:`as_int`, :func:`as_float` or the
``get_bool``/``get_int``/``get_float`` methods of a block.

Example:
    >>> root = parse_config('''
    ... defMBSize = false
    ... MNIST = [
    ...     precision = "double"
    ...     reader = [ input = [ labels = [ definesMbSize = $defMBSize$; dim = 10 ] ] ]
    ... ]''', overrides={"defmbsize": "true"})
    >>> labels = find_section(root, "mnist")["reader"]["input"]["labels"]
    >>> labels.path, labels["definesMBSize"], labels.get_int("dim"), labels.get("precision")
    ('MNIST.reader.input.labels', 'true', 10, 'double')
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TypeAlias

from minibatcher.config._parser import parse_into
from minibatcher.config._tree import ConfigArray, ConfigKeyError, Location, is_valid_key
from minibatcher.config._values import as_bool, as_float, as_int
from minibatcher.config.nodes import ConfigNode, ConfigValue
from minibatcher.errors import ConfigError
from minibatcher.formats.guarded_file import read_small_file

__all__ = [
    "ConfigArray",
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

PlainValue: TypeAlias = str | list["PlainValue"] | dict[str, "PlainValue"]
"""A config value as plain Python data: str, list (array) or dict (block)."""

_OVERRIDES_SOURCE = "<overrides>"
_RAW_UNSAFE = frozenset("\n;#=[]{}()")


def parse_config(
    text: str, *, source: str = "<config>", overrides: Mapping[str, str] | None = None
) -> ConfigNode:
    """Parse CNTK config text into a tree of blocks.

    ``source`` names the text in locations and error messages. ``overrides``
    replace or add top-level assignments, like ``key=value`` on CNTK's command
    line; ``$name$`` references see them because substitution happens when a
    value is read. Any syntax problem raises ConfigError ("source:line:col: ...").

    Example:
        >>> root = parse_config("a = 1; b = $a$", overrides={"A": "2"})
        >>> root["b"], root.keys()
        ('2', ['b', 'A'])
        >>> parse_config("r = [\\n x = 1\\n", source="r.cntk")
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: r.cntk:3:1: expected ']' to close the block opened at \
line 1, but found end of file
    """
    if not isinstance(text, str):
        raise ConfigError(f"{source}: expected the config text as str, got {type(text).__name__}")
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    root = ConfigNode("", path="", location=Location(source, 1, 1))
    parse_into(root, text)
    _apply_overrides(root, overrides)
    return root


def _apply_overrides(root: ConfigNode, overrides: Mapping[str, str] | None) -> None:
    """Assign each override at the top level of ``root``, after checking it."""
    if overrides is None:
        return
    if not isinstance(overrides, Mapping):
        raise ConfigError(
            f"{_OVERRIDES_SOURCE}: expected a mapping such as {{'defMBSize': 'true'}},"
            f" but got {type(overrides).__name__}"
        )
    for key, value in overrides.items():
        if not isinstance(key, str) or not is_valid_key(key):
            raise ConfigError(
                f"{_OVERRIDES_SOURCE}: invalid key {key!r}; expected a top-level name such as"
                " 'defMBSize' (no spaces or =[]{}()\"';:#$,)"
            )
        if not isinstance(value, str):
            raise ConfigError(
                f"{_OVERRIDES_SOURCE}: expected a string value for {key!r} such as 'true',"
                f" but got {type(value).__name__}"
            )
        root.assign(key, value, location=Location(_OVERRIDES_SOURCE, 0, 0))


def load_config(
    path: str | os.PathLike[str], *, overrides: Mapping[str, str] | None = None
) -> ConfigNode:
    """Read and parse a UTF-8 config file (a byte-order mark is allowed).

    The path, as given, is the source name in messages. A missing file raises
    FileNotFoundError; text that is not UTF-8 raises ConfigError.

    Example:
        >>> import pathlib, tempfile
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     file = pathlib.Path(tmp, "a.cntk")
        ...     _ = file.write_text("reader = [ randomize = false ]")
        ...     load_config(file)["reader"].get_bool("randomize")
        False
    """
    source = os.fspath(path)
    data = read_small_file(source, "config file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{source}: expected UTF-8 text, but byte {exc.start} is"
            f" {data[exc.start : exc.start + 1]!r}"
        ) from exc
    return parse_config(text, source=source, overrides=overrides)


def find_section(root: ConfigNode, name: str) -> ConfigNode:
    """The block assigned to ``name`` in ``root`` (case-insensitive, no inheritance).

    The error lists the block names that ``root`` does have.

    Example:
        >>> root = parse_config("deviceId = -1\\nMNIST = [ precision = float ]\\nSimple = [ ]")
        >>> find_section(root, "mnist").path
        'MNIST'
        >>> find_section(root, "CIFAR")
        Traceback (most recent call last):
        ...
        minibatcher.config.ConfigKeyError: <config>: no section 'CIFAR' at the top level; \
available sections: MNIST, Simple
    """
    items = root.raw_items()
    sections = [key for key, value, _ in items if isinstance(value, ConfigNode)]
    available = ", ".join(sections) or "(none)"
    for key, value, location in items:
        if key.lower() == name.lower():
            if isinstance(value, ConfigNode):
                return value
            kind = "an array" if isinstance(value, ConfigArray) else "a value"
            raise ConfigError(
                f"{location}: {key!r} is {kind}, not a section [ ... ];"
                f" available sections: {available}"
            )
    where = f"in block '{root.path}'" if root.path else "at the top level"
    raise ConfigKeyError(
        f"{root.source}: no section {name!r} {where}; available sections: {available}"
    )


def to_dict(node: ConfigNode, *, resolve: bool = True) -> dict[str, PlainValue]:
    """The block as nested dicts, lists and strings, keys as spelled.

    With ``resolve=False`` the ``$name$`` references are left as written.

    Example:
        >>> root = parse_config("x = 1; r = [ y = $x$; d = (a : [ z = 2 ]) ]")
        >>> to_dict(root)
        {'x': '1', 'r': {'y': '1', 'd': ['a', {'z': '2'}]}}
        >>> to_dict(root, resolve=False)["r"]["y"]
        '$x$'
    """
    pairs = node.items() if resolve else [(k, v) for k, v, _ in node.raw_items()]
    return {key: _plain(value, resolve) for key, value in pairs}


def _plain(value: ConfigValue, resolve: bool) -> PlainValue:
    """Convert one value for :func:`to_dict`."""
    if isinstance(value, ConfigNode):
        return to_dict(value, resolve=resolve)
    if isinstance(value, ConfigArray):
        elements = list(value) if resolve else [v for v, _ in value.raw_items()]
        return [_plain(element, resolve) for element in elements]
    return value


def render_config(node: ConfigNode) -> str:
    """Write a block's assignments back as config text (legacy ``[ ]`` syntax).

    Parsing the result gives the same tree, with ``$name$`` left as written.

    Example:
        >>> root = parse_config('r = { f = "c:\\\\d#1"; d = (1 : [ a = b ]) }')
        >>> print(render_config(root), end="")
        r = [
            f = "c:\\d#1"
            d = (
                1 :
                [
                    a = b
                ]
            )
        ]
    """
    return "".join(line + "\n" for line in _render_body(node, 0))


def _render_body(node: ConfigNode, depth: int) -> list[str]:
    """Lines of the assignments of ``node``, indented ``depth`` levels."""
    lines: list[str] = []
    for key, value, _ in node.raw_items():
        if not is_valid_key(key):
            raise ConfigError(f"{node.location}: cannot write the invalid key {key!r}")
        rendered = _render_value(value, depth, in_array=False)
        lines.append(f"{'    ' * depth}{key} = {rendered[0]}")
        lines.extend(rendered[1:])
    return lines


def _render_value(value: ConfigValue, depth: int, *, in_array: bool) -> list[str]:
    """Lines of one value; the first line has no indentation (it follows ``key =``)."""
    pad = "    " * depth
    if isinstance(value, ConfigNode):
        return ["[", *_render_body(value, depth + 1), f"{pad}]"]
    if isinstance(value, ConfigArray):
        items = [v for v, _ in value.raw_items()]
        lines = ["("]
        for index, item in enumerate(items):
            rendered = _render_value(item, depth + 1, in_array=True)
            rendered[0] = f"{pad}    {rendered[0]}"
            if index < len(items) - 1:
                rendered[-1] += " :"
            lines.extend(rendered)
        return [*lines, f"{pad})"]
    return [_render_scalar(value, in_array)]


def _render_scalar(value: str, in_array: bool) -> str:
    """A string as an unquoted value if that parses back unchanged, else quoted."""
    unsafe = any(c in _RAW_UNSAFE or (in_array and c == ":") for c in value)
    if value and value == value.strip() and value[0] not in "\"'" and not unsafe:
        return value
    if "\n" in value:
        raise ConfigError(f"cannot write {value!r}: config strings cannot span lines")
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    raise ConfigError(f"cannot write {value!r}: it contains both kinds of quote")
