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
from typing import Any, ClassVar

# the groups and the enums are re-exported: tfdata and tfdata.experimental import them from here
from .option_groups import (AutoShardPolicy, AutotuneAlgorithm, AutotuneOptions,  # noqa: F401
                            DistributeOptions, ExternalStatePolicy, OptimizationOptions,
                            OptionsBase, ServiceOptions, ThreadingOptions, _Option,
                            merge_options)


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
