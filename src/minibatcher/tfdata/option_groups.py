"""tf.data's option groups (``AutotuneOptions``, ``DistributeOptions``,
``OptimizationOptions``, ``ServiceOptions``, ``ThreadingOptions``) and their enums,
with what every options object shares (:class:`OptionsBase`: type-checked fields,
frozen once a dataset returns them; :func:`merge_options`: TF's merge rule).
:mod:`.options` holds ``Options`` itself and what the options change.

Example:
    >>> o = OptimizationOptions(); o.map_fusion = True
    >>> o.map_fusion, o.noop_elimination, o == OptimizationOptions()
    (True, None, False)
"""

from __future__ import annotations

import enum
import logging
from typing import Any, Callable, ClassVar

__all__ = ["AutoShardPolicy", "AutotuneAlgorithm", "AutotuneOptions", "DistributeOptions",
           "ExternalStatePolicy", "OptimizationOptions", "OptionsBase", "ServiceOptions",
           "ThreadingOptions", "merge_options"]

_log = logging.getLogger("minibatcher.tfdata")


class AutotuneAlgorithm(enum.Enum):
    """``tf.data.experimental.AutotuneAlgorithm`` (accepted; no autotuning here).

    Example:
        >>> AutotuneAlgorithm.HILL_CLIMB.value
        1
    """

    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class AutoShardPolicy(enum.IntEnum):
    """``tf.data.experimental.AutoShardPolicy`` (accepted; shard explicitly with
    ``shard`` or TFDS's ``input_context``).

    Example:
        >>> int(AutoShardPolicy.OFF), AutoShardPolicy(2).name
        (-1, 'DATA')
    """

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class ExternalStatePolicy(enum.Enum):
    """``tf.data.experimental.ExternalStatePolicy`` (accepted).

    Example:
        >>> ExternalStatePolicy.FAIL.value
        2
    """

    WARN = 0
    IGNORE = 1
    FAIL = 2


class _Option:
    """A type-checked option field; unset reads as its default."""

    def __init__(self, kind: type | tuple[type, ...], doc: str,
                 default: Callable[[], Any] = lambda: None) -> None:
        self.kind, self.__doc__, self.default = kind, doc, default
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        values = obj._values
        if self.name not in values:
            values[self.name] = self.default()
        return values[self.name]

    def __set__(self, obj: Any, value: Any) -> None:
        if not isinstance(value, self.kind):
            want = getattr(self.kind, "__name__", None) or \
                " or ".join(k.__name__ for k in self.kind)
            raise TypeError(f"option {self.name} should be a {want}, but got "
                            f"{self.name}={value!r} ({type(value).__name__})")
        obj._values[self.name] = value


class OptionsBase:
    """A group of options (``tf.data.experimental.OptionsBase``): assignable
    fields only, type-checked, frozen once a dataset returns them.

    Example:
        >>> o = ThreadingOptions(); o.private_threadpool_size = 4
        >>> o.private_threadpool_size, o == ThreadingOptions()
        (4, False)
    """

    _FROZEN_MESSAGE: ClassVar[str] = (
        "Mutating `tfdata.Options()` returned by `Dataset.options()` has no effect; use "
        "`Dataset.with_options(options)` to set or update dataset options")

    def __init__(self) -> None:
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_mutable", True)

    @classmethod
    def _fields(cls) -> list[str]:
        return [n for k in reversed(cls.__mro__) for n, v in vars(k).items()
                if isinstance(v, _Option)]

    def __setattr__(self, name: str, value: Any) -> None:
        if not self._mutable:
            raise ValueError(self._FROZEN_MESSAGE)
        if name not in self._fields():
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}; "
                                 f"its options are {', '.join(self._fields())}")
        object.__setattr__(self, name, value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, type(self)):
            return NotImplemented
        names = set(self._values) | set(other._values)
        return all(getattr(self, n) == getattr(other, n) for n in names)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        default = type(self)()
        parts = [f"{n}={getattr(self, n)!r}" for n in self._fields()
                 if getattr(self, n) != getattr(default, n)]
        return f"{type(self).__name__}({', '.join(parts)})"

    def _freeze(self) -> None:
        object.__setattr__(self, "_mutable", False)
        for name in self._fields():
            value = getattr(self, name)
            if isinstance(value, OptionsBase):
                value._freeze()


def merge_options(*options_list: OptionsBase) -> OptionsBase:
    """TF's merge: a later non-default value wins (a warning when it changes an
    earlier non-default one); groups merge field by field; ``framework_type``
    lists are concatenated.

    Example:
        >>> from minibatcher.tfdata import Options
        >>> a, b = Options(), Options()
        >>> a.deterministic = False; b.experimental_slack = True
        >>> m = merge_options(a, b); m.deterministic, m.experimental_slack
        (False, True)
    """
    if not options_list:
        raise ValueError("merge_options needs at least one options object")
    kind = type(options_list[0])
    if not isinstance(options_list[0], OptionsBase) or \
            any(not isinstance(o, kind) for o in options_list):
        raise TypeError(f"cannot merge options of types "
                        f"{sorted({type(o).__name__ for o in options_list})}")
    default, result = kind(), kind()
    for options in options_list:
        for name in list(options._values):
            _merge_field(result, name, getattr(options, name), getattr(default, name))
    return result


def _merge_field(result: OptionsBase, name: str, that: Any, default: Any) -> None:
    this = getattr(result, name)
    if that == default:
        return
    if this == default:
        setattr(result, name, that)
    elif isinstance(this, OptionsBase):
        setattr(result, name, merge_options(this, that))
    elif name == "framework_type":
        setattr(result, name, this + that)
    elif this != that:
        _log.warning("Changing the value of option %s from %r to %r.", name, this, that)
        setattr(result, name, that)


class AutotuneOptions(OptionsBase):
    """``tf.data.experimental.AutotuneOptions`` (accepted; nothing is autotuned).

    Example:
        >>> o = AutotuneOptions(); o.enabled = False; o.enabled
        False
    """

    enabled = _Option(bool, "Whether to autotune performance knobs (None: True).")
    cpu_budget = _Option(int, "The CPU budget of autotuning (None: the schedulable cores).")
    ram_budget = _Option(int, "The RAM budget of autotuning in bytes (None: half the RAM).")
    autotune_algorithm = _Option(AutotuneAlgorithm, "The autotuning algorithm.")
    initial_parallelism = _Option(int, "Parallelism before autotuning runs (None: 16).")
    min_parallelism = _Option(int, "The least parallelism of AUTOTUNE map and batch.")


class DistributeOptions(OptionsBase):
    """``tf.data.experimental.DistributeOptions`` (accepted; shard explicitly).

    Example:
        >>> DistributeOptions().auto_shard_policy
        <AutoShardPolicy.AUTO: 0>
    """

    auto_shard_policy = _Option(AutoShardPolicy, "How tf.distribute shards the input.",
                                lambda: AutoShardPolicy.AUTO)
    num_devices = _Option(int, "The number of devices attached to the pipeline.")


class OptimizationOptions(OptionsBase):
    """``tf.data.experimental.OptimizationOptions``: TF's graph rewrites (accepted;
    none changes elements, and only ``shuffle_and_repeat_fusion`` and
    ``noop_elimination`` (with ``apply_default_optimizations``) change an order: they
    decide when shuffles under a ``repeat`` start their iterations, :func:`static_rewrites`).

    Example:
        >>> o = OptimizationOptions(); o.map_fusion = True; o.map_fusion, o.noop_elimination
        (True, None)
    """

    apply_default_optimizations = _Option(bool, "Whether to apply TF's default rewrites.")
    filter_fusion = _Option(bool, "Fuse consecutive filters.")
    filter_parallelization = _Option(bool, "Run filters in parallel.")
    inject_prefetch = _Option(bool, "Add a prefetch at the end of the pipeline.")
    seq_interleave_prefetch = _Option(bool, "Prefetch inside sequential interleaves.")
    map_and_batch_fusion = _Option(bool, "Fuse map and batch.")
    map_and_filter_fusion = _Option(bool, "Fuse map and filter.")
    map_fusion = _Option(bool, "Fuse consecutive maps.")
    map_parallelization = _Option(bool, "Run maps in parallel.")
    noop_elimination = _Option(bool, "Remove ops that change nothing.")
    parallel_batch = _Option(bool, "Copy batch elements in parallel.")
    shuffle_and_repeat_fusion = _Option(bool, "Fuse shuffle and repeat.")


class ServiceOptions(OptionsBase):
    """``tf.data.experimental.ServiceOptions`` (accepted; there is no tf.data service).

    Example:
        >>> ServiceOptions().pinned is None
        True
    """

    pinned = _Option(bool, "Pinned memory for the tf.data service client.")


class ThreadingOptions(OptionsBase):
    """``tf.data.ThreadingOptions``: thread-pool sizes (accepted).

    Example:
        >>> o = ThreadingOptions(); o.max_intra_op_parallelism = 1; o.max_intra_op_parallelism
        1
    """

    max_intra_op_parallelism = _Option(int, "The maximum intra-op parallelism.")
    private_threadpool_size = _Option(int, "The size of a private thread pool.")
