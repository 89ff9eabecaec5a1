"""The feature dimension and context window of an HTK stream (docs/htk-mlf.md;
CNTK's ``HTKDeserializer::InitializeAugmentationWindow`` in
``Source/Readers/HTKDeserializers/HTKDeserializer.cpp``).

With ``context=(L, R)`` (config: ``contextWindow``), ``shape``/``dim`` is the file's dimension
and the stream delivers ``dim x (1 + L + R)`` values. Without it, ``shape`` may be the file's
dimension or the expanded size of an odd number of frames (CNTK's old configs: ``363 = 33 x 11``
gives 5 frames each side). Anything else is a :class:`FeatureDimError` naming the archive and the
SCP line, what was expected and what was found.

Example:
    >>> from minibatcher import StreamDef
    >>> feature_window("x", StreamDef(scp="a.scp", shape=363), 33, "a.htk", "a.scp:1")
    (363, 5, 5)
    >>> sd = StreamDef(scp="a.scp", shape=33, context=(2, 0))
    >>> feature_window("x", sd, 33, "a.htk", "a.scp:1")
    (99, 2, 0)
"""

from __future__ import annotations

from typing import Any

from ...errors import ConfigError


MAX_CONTEXT = 10000
"""The widest context on each side: CNTK's default ``maxUtteranceLength`` (10,000 frames); a
wider window only repeats an utterance's edge frames, and a typo like ``99999999999`` would ask
for petabytes at the first minibatch."""


def check_context(left: int, right: int, option: str = "context", origin: str = "",
                  given: str = "") -> None:
    """Refuses a context wider than :data:`MAX_CONTEXT` frames on a side.

    Example:
        >>> check_context(5, 5)
        >>> check_context(0, 99999999999, "contextWindow", "c.cntk:3")
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: option contextWindow (c.cntk:3) should be at most 10000 ...
        >>> try: check_context(0, 99999999999, "contextWindow")
        ... except ConfigError as e: print(str(e).split("but got ")[1])
        contextWindow=0:99999999999; a wider window only repeats the utterance's edge frames
    """
    if max(left, right) > MAX_CONTEXT:
        given = given or (f"{option}=({left}, {right})" if option == "context"
                          else f"{option}={left}:{right}")
        named = f"option {option}" + (f" ({origin})" if origin else "")
        raise ConfigError(f"{named} should be at most {MAX_CONTEXT} frames on each side, but got "
                          f"{given}; a wider window only repeats the utterance's edge frames")


class FeatureDimError(ConfigError):
    """A feature dimension (``shape``, or a config's ``dim``) that does not fit the HTK files.

    The message names the stream, the archive and the SCP line that first uses it, what was
    expected and what was found; :meth:`for_option` rewords it for a config's key
    (``dim``, ``contextWindow``).

    Example:
        >>> e = FeatureDimError("f", 364, 33, None, "a.htk", "a.scp:1")
        >>> str(e).split(", but got ")[1]
        'shape=364; use shape=33 with context=(left, right) to add neighbour frames explicitly'
        >>> "should be 33 (the values per frame of archive 'a.htk', used at a.scp:1)" in str(e)
        True
        >>> c = e.for_option("dim", "reader.features.dim at c.cntk:3")
        >>> str(c).split(": ", 1)[1][:51]
        'option dim (reader.features.dim at c.cntk:3) should'
    """

    def __init__(self, stream: str, dim: int, file_dim: int, context: tuple[int, int] | None,
                 archive: str, where: str, option: str = "shape", origin: str = "",
                 config: bool = False) -> None:
        self.stream, self.dim, self.file_dim, self.context = stream, dim, file_dim, context
        self.archive, self.where = archive, where
        fd, window = file_dim, "contextWindow" if config else "context"
        found = f"the values per frame of archive {archive!r}, used at {where}"
        named = f"option {option}" + (f" ({origin})" if origin else "")
        if context is None:
            expected = (f"{fd} ({found}) or {fd} x an odd number of frames (e.g. {fd * 11} for 5 "
                        "frames each side)")
            explicit = "contextWindow=left:right" if config else "context=(left, right)"
            fix = f"use {option}={fd} with {explicit} to add neighbour frames explicitly"
        else:
            given = (f"contextWindow={context[0]}:{context[1]}" if config
                     else f"context={tuple(context)}")
            expected = (f"{fd} ({found}) when {given} is given (the stream then delivers "
                        f"{fd} x {1 + sum(context)} values)")
            fix = (f"use {option}={fd}, or leave out {window} and give the expanded size "
                   f"({fd} x an odd number of frames)")
        super().__init__(f"stream {stream!r}: {named} should be {expected}, but got "
                         f"{option}={dim}; {fix}")

    def for_option(self, option: str, origin: str) -> "FeatureDimError":
        """The same error for a config's ``option`` written at ``origin``."""
        return FeatureDimError(self.stream, self.dim, self.file_dim, self.context, self.archive,
                               self.where, option, origin, config=True)


def feature_window(stream: str, sd: Any, file_dim: int, archive: str,
                   where: str) -> tuple[int, int, int]:
    """``(delivered dim, left, right)`` of stream ``sd`` over files of ``file_dim`` values per
    frame (``archive``, first used at ``where``, is named in errors).

    Example:
        >>> from minibatcher import StreamDef
        >>> feature_window("x", StreamDef(scp="a.scp", shape=34), 33, "a.htk", "a.scp:1")
        Traceback (most recent call last):
        ...
        minibatcher.formats.htk.window.FeatureDimError: stream 'x': option shape should be 33 ...
    """
    context = getattr(sd, "context", None)
    dim = None if getattr(sd, "shape", None) is None else sd.dim
    context = None if context is None or tuple(context) == (0, 0) else tuple(
        int(v) for v in context)
    if context is not None:
        check_context(*context)
        if dim is not None and dim != file_dim:
            raise FeatureDimError(stream, dim, file_dim, context, archive, where)
        return file_dim * (1 + sum(context)), context[0], context[1]
    if dim is None or dim == file_dim:
        return file_dim, 0, 0
    frames, rest = divmod(dim, file_dim)
    if rest or frames % 2 == 0:
        raise FeatureDimError(stream, dim, file_dim, None, archive, where)
    check_context(frames // 2, frames // 2, "shape",
                  given=f"shape={dim} ({frames} frames of {file_dim} values)")
    return dim, frames // 2, frames // 2
