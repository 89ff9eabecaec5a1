"""``tfdata.Options``: tf.data's dataset options, merged through the plan as TF does.

``Options`` has TF 2.21's fields and groups (``deterministic``, ``autotune``,
``experimental_optimization``, ``experimental_distribute``, ``threading``, ...)
with TF's type checks, defaults (None: "TF's default") and merge rule. A
dataset's ``options()`` are its inputs' options merged in order, then those of
its own ``with_options`` (the later one wins; a group merges field by field).
The options returned by ``options()`` are frozen, as TF's.

What they change here: ``deterministic`` is the default of the
``deterministic`` argument of parallel ops (:func:`deterministic`; unset
means True, as in TF) and is part of the checkpoint's plan; the static rewrites
``shuffle_and_repeat_fusion`` and ``noop_elimination`` decide, as in TF, when
shuffles under a ``repeat`` start their iterations (:func:`static_rewrites`). The
other options steer TF's runtime (autotuning, other graph rewrites, thread pools,
distribution): they are accepted, kept and merged, and change no element, order or
state.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> opts = Options(); opts.deterministic = False
    >>> ds = Dataset.range(3).with_options(opts).map(lambda x: x + 1)
    >>> ds.options().deterministic, Dataset.range(3).options().deterministic
    (False, None)
"""

from __future__ import annotations

import contextvars
import enum
import logging
from typing import Any, Callable, ClassVar

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


class Options(OptionsBase):
    """``tf.data.Options``: TF 2.21's fields, types, defaults and merge rule.

    ``experimental_deterministic`` and ``experimental_threading`` are TF's
    deprecated aliases of ``deterministic`` and ``threading``.

    Example:
        >>> o = Options(); o.experimental_optimization.map_fusion = True
        >>> o.experimental_deterministic = False
        >>> o.deterministic, o.experimental_optimization.map_fusion
        (False, True)
        >>> o.deterministic = 1
        Traceback (most recent call last):
        ...
        TypeError: option deterministic should be a bool, but got deterministic=1 (int)
    """

    autotune = _Option(AutotuneOptions, "Autotuning options.", AutotuneOptions)
    deterministic = _Option(bool, "Whether parallel ops keep the input order (None: True).")
    experimental_distribute = _Option(DistributeOptions, "Distribution options.",
                                      DistributeOptions)
    experimental_external_state_policy = _Option(ExternalStatePolicy,
                                                 "How to treat external state when saving.")
    experimental_optimization = _Option(OptimizationOptions, "Graph rewrite options.",
                                        OptimizationOptions)
    experimental_slack = _Option(bool, "Whether to add slack to the final prefetch.")
    experimental_symbolic_checkpoint = _Option(bool, "Whether to checkpoint symbolically.")
    experimental_service = _Option(ServiceOptions, "tf.data service options.", ServiceOptions)
    experimental_warm_start = _Option(bool, "Whether to start prefetching at once.")
    dataset_name = _Option(str, "A name for the dataset (metadata).")
    framework_type = _Option(list, "Frameworks using the dataset (metadata; lists concatenate).")
    threading = _Option(ThreadingOptions, "Thread-pool options.", ThreadingOptions)

    _ALIASES: ClassVar[dict[str, str]] = {"experimental_deterministic": "deterministic",
                                          "experimental_threading": "threading"}

    def __getattr__(self, name: str) -> Any:  # only reached for names not found normally
        if name in Options._ALIASES:
            return getattr(self, Options._ALIASES[name])
        raise AttributeError(f"'Options' object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(self._ALIASES.get(name, name), value)

    def merge(self, options: "Options") -> "Options":
        """``merge_options(self, options)`` (``options`` wins where both are set).

        Example:
            >>> a = Options(); a.deterministic = True
            >>> b = Options(); b.deterministic = False
            >>> a.merge(b).deterministic
            False
        """
        return merge_options(self, options)  # type: ignore[return-value]


_DEFAULT = Options()
_DEFAULT._freeze()

# the options of the pipeline whose iterator runs now (None: all defaults)
ACTIVE: contextvars.ContextVar[Options | None] = contextvars.ContextVar(
    "minibatcher_tfdata_pipeline_options", default=None)


def pipeline_options() -> Options:
    """The options of the pipeline whose iterator is being built or advanced in
    this thread (TF applies the iterated dataset's options to the whole
    pipeline); frozen defaults outside any iteration.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> o = Options(); o.deterministic = False
        >>> seen = Dataset.range(1).map(lambda x: str(pipeline_options().deterministic))
        >>> list(seen.with_options(o)), list(seen), pipeline_options().deterministic
        (['False'], ['None'], None)
    """
    active = ACTIVE.get()
    return _DEFAULT if active is None else active


# True while get_single_element runs its dataset: TF runs it without the static rewrites
UNOPTIMIZED: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "minibatcher_tfdata_unoptimized", default=False)


def static_rewrites() -> tuple[bool, bool]:
    """``(shuffle_and_repeat_fusion, noop_elimination)``: whether TF applies these two
    static rewrites to the pipeline being iterated (the only ones that show in elements:
    they decide when shuffles start their iterations). Both are default optimizations: on
    unless set False, or set True under ``apply_default_optimizations=False``; both off
    inside ``get_single_element`` (TF runs that dataset unoptimized).

    Example:
        >>> static_rewrites()
        (True, True)
    """
    if UNOPTIMIZED.get():
        return False, False
    opt = pipeline_options().experimental_optimization
    default = opt.apply_default_optimizations is not False

    def on(value: bool | None) -> bool:
        return value is True or (default and value is not False)
    return on(opt.shuffle_and_repeat_fusion), on(opt.noop_elimination)


def deterministic(argument: bool | None) -> bool:
    """Whether a parallel op must keep its order: its ``deterministic``
    argument when given, else the pipeline's ``Options().deterministic``
    (unset: True), as TF decides.

    Example:
        >>> deterministic(False), deterministic(None)
        (False, True)
    """
    if argument is not None:
        return bool(argument)
    option = pipeline_options().deterministic
    return True if option is None else option


def dataset_options(dataset: Any) -> Options:
    """``dataset.options()``: its inputs' options merged in order, then its own
    (cached on the node, frozen).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> dataset_options(Dataset.range(2)) == Options()
        True
    """
    pending = [dataset]  # depth-first without recursion (a chain of 1000 concatenates is fine)
    while pending:
        node = pending[-1]
        if "_options_cache" in node.__dict__:
            pending.pop()
            continue
        missing = [c for c in node._inputs() if "_options_cache" not in c.__dict__]
        if missing:
            pending.extend(missing)
            continue
        pending.pop()
        node.__dict__["_options_cache"] = _merged_options(node)
    return dataset.__dict__["_options_cache"]


def _merged_options(node: Any) -> Options:
    merged = Options()
    for child in node._inputs():
        merged = merged.merge(child.__dict__["_options_cache"])
    own = getattr(node, "_own_options", None)
    if own is not None:
        merged = merged.merge(own)
    merged._freeze()
    return merged
