"""Relative paths in config files: one rule for every reader front end.

A relative path written in a config (``file``, ``scpFile``, ``mlfFile``, ...)
resolves against ``base_dir``. Its default is the folder of the config file,
so a config and its data move together and work from any working directory;
a config given as text (not a file) has no folder, so its default is the
current working directory. Absolute paths are used as written. A missing
file raises :class:`ConfigFileNotFoundError` (a ``FileNotFoundError`` and a
``ConfigError``) naming the config key, the path tried and ``base_dir``.

Every reader front end (CTF now, HTK and others next) resolves its paths with
:meth:`ConfigPaths.file` (a key of a config block) or :meth:`ConfigPaths.resolve`
(a value found elsewhere, e.g. a line of a list file).

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.config import parse_config
    >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "train.ctf").write_text("|x 1\\n")
    >>> paths = ConfigPaths.for_config(d / "reader.cntk")
    >>> paths.base_dir == d, paths.origin
    (True, "the config file's folder")
    >>> reader = parse_config('reader = [ file = "train.ctf" ]')["reader"]
    >>> paths.file(reader, "file") == d / "train.ctf"
    True
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError
from .nodes import ConfigNode

__all__ = ["ConfigFileNotFoundError", "ConfigPaths", "resolution"]


class ConfigFileNotFoundError(ConfigError, FileNotFoundError):
    """A file named in a config does not exist (a ``FileNotFoundError`` too).

    ``key`` is the config key (``reader.file``), ``path`` the path tried and
    ``base_dir`` the folder relative paths were resolved against.

    Example:
        >>> e = ConfigFileNotFoundError("msg", key="reader.file", path="/d/x", base_dir="/d")
        >>> isinstance(e, FileNotFoundError), e.errno, e.filename
        (True, 2, '/d/x')
    """

    __module__ = "minibatcher.config"

    def __init__(self, message: str, *, key: str, path: str, base_dir: str) -> None:
        super().__init__(message)
        self.errno, self.strerror, self.filename = errno.ENOENT, message, path
        self.key, self.path, self.base_dir = key, path, base_dir

    def __str__(self) -> str:
        return self.strerror


def resolution(base_dir: str | os.PathLike, origin: str, what: str = "relative paths") -> str:
    """How ``what`` resolve, in the Python API's words (the command line names ``--base-dir``
    instead of ``base_dir=``). ``origin`` is ``"base_dir"`` when the caller gave it, else
    where the default came from.

    Example:
        >>> print(resolution("/d", "the config file's folder"))
        relative paths resolve against /d (the config file's folder); pass base_dir=DIR to change it
        >>> resolution("/d", "base_dir", "relative archive paths")
        'relative archive paths resolve against base_dir=/d; pass another base_dir=DIR to change it'
    """
    if origin == "base_dir":
        return (f"{what} resolve against base_dir={os.fspath(base_dir)}; pass another "
                "base_dir=DIR to change it")
    return (f"{what} resolve against {os.fspath(base_dir)} ({origin}); pass base_dir=DIR to "
            "change it")


def _key_and_location(node: ConfigNode, key: str, inherit: bool) -> tuple[str, str]:
    """The dotted key that holds ``key`` (walking up if ``inherit``) and where it was written."""
    holder: ConfigNode | None = node
    while holder is not None:
        location = holder.location_of(key)
        if location is not None:
            spelled = next(k for k in holder.keys() if k.lower() == key.lower())
            dotted = f"{holder.path}.{spelled}" if holder.path else spelled
            return dotted, str(location)
        holder = holder.parent if inherit else None
    dotted = f"{node.path}.{key}" if node.path else key
    return dotted, str(node.location)


@dataclass(frozen=True)
class ConfigPaths:
    """Resolves the relative paths of one config against ``base_dir``.

    ``origin`` says where ``base_dir`` came from (for messages): ``"base_dir"``
    when given, else the config file's folder or the working directory.

    Example:
        >>> p = ConfigPaths(Path("/data"), "base_dir")
        >>> p.resolve("a/b.ctf", "reader.file", must_exist=False).as_posix()
        '/data/a/b.ctf'
        >>> p.resolve("/abs/c.ctf", "reader.file", must_exist=False).as_posix()
        '/abs/c.ctf'
    """

    base_dir: Path
    origin: str

    def __fspath__(self) -> str:
        """``base_dir``: a reader given these paths resolves against it and names
        ``origin`` in its messages.

        Example:
            >>> os.fspath(ConfigPaths(Path("/data"), "the config file's folder"))
            '/data'
        """
        return os.fspath(self.base_dir)

    @classmethod
    def for_config(cls, config_file: str | os.PathLike | None,
                   base_dir: str | os.PathLike | None = None) -> "ConfigPaths":
        """The rule for a config read from ``config_file`` (``None``: config text).

        Example:
            >>> ConfigPaths.for_config("/etc/x/r.cntk").base_dir.as_posix()
            '/etc/x'
            >>> ConfigPaths.for_config(None).origin
            'the working directory (the config was given as text)'
            >>> ConfigPaths.for_config("/etc/x/r.cntk", base_dir="/d").origin
            'base_dir'
        """
        if base_dir is not None:
            return cls(Path(base_dir), "base_dir")
        if config_file is not None:
            return cls(Path(os.path.abspath(config_file)).parent, "the config file's folder")
        return cls(Path.cwd(), "the working directory (the config was given as text)")

    def resolve(self, value: str | os.PathLike, key: str, where: str | None = None, *,
                must_exist: bool = True) -> Path:
        """``value`` as a path: relative ones joined to ``base_dir``.

        ``key`` names the config key in messages (``reader.file``) and
        ``where`` the place it was written (``train.cntk:12:5``); with
        ``must_exist`` a missing path raises :class:`ConfigFileNotFoundError`.

        Example:
            >>> ConfigPaths(Path("/no/such/dir"), "base_dir").resolve("x.ctf", "reader.file")
            Traceback (most recent call last):
            ...
            minibatcher.config.ConfigFileNotFoundError: reader.file = 'x.ctf': no such file; tried /no/such/dir/x.ctf (relative paths resolve against base_dir=/no/such/dir; pass another base_dir=DIR to change it)
        """
        path = Path(value)
        resolved = path if path.is_absolute() else self.base_dir / path
        if must_exist and not resolved.exists():
            prefix = f"{where}: " if where else ""
            how = ("absolute path" if path.is_absolute() else
                   resolution(self.base_dir, self.origin))
            raise ConfigFileNotFoundError(
                f"{prefix}{key} = {os.fspath(value)!r}: no such file; tried {resolved} ({how})",
                key=key, path=str(resolved), base_dir=str(self.base_dir))
        return resolved

    def file(self, node: ConfigNode, key: str, *, inherit: bool = True,
             must_exist: bool = True) -> Path:
        """The path under ``key`` of ``node`` (``inherit``: or an enclosing block,
        as :meth:`ConfigNode.get_str`).

        Example:
            >>> from minibatcher.config import parse_config
            >>> node = parse_config('r = [ file = "d.ctf" ]')["r"]
            >>> ConfigPaths(Path("/no"), "base_dir").file(node, "file")
            Traceback (most recent call last):
            ...
            minibatcher.config.ConfigFileNotFoundError: <config>:1:7: r.file = 'd.ctf': no such file; tried /no/d.ctf (relative paths resolve against base_dir=/no; pass another base_dir=DIR to change it)
        """
        value = node.get_str(key, inherit=inherit)
        dotted, where = _key_and_location(node, key, inherit)
        return self.resolve(value, dotted, where, must_exist=must_exist)
