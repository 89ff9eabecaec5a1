"""``minibatcher convert LIST.scp OUT.ctf --mlf LABELS.mlf``: HTK features and
MLF labels to CNTK text format.

One CTF sequence per utterance, in SCP order, with the utterance's index as
its sequence id: ``|features`` holds the frame's values (with ``--context
L:R``, the frame and its neighbours, edges repeated, as the HTK reader gives
them), ``|labels`` the class id as ``id:1`` (sparse one-hot). The first line
of every sequence ends with a comment naming the utterance (``|# name``).
Utterances the readers would skip are skipped the same way (``--max-errors``).

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.formats.htk import write_htk
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> write_htk(d / "a.htk", np.array([[1, 2], [3, 4], [5, 6]], np.float32))
    >>> _ = (d / "a.scp").write_text("u1.mfc=a.htk[0,1]\\nu2.mfc=a.htk[2,2]\\n")
    >>> _ = (d / "a.mlf").write_text('#!MLF!#\\n"u1.lab"\\n0 2 x 1\\n.\\n"u2.lab"\\n0 1 y 0\\n.\\n')
    >>> main = __import__("minibatcher.cli", fromlist=["main"]).main
    >>> main(["convert", str(d / "a.scp"), str(d / "o.ctf"), "--mlf", str(d / "a.mlf"),
    ...       "--label-dim", "2", "--base-dir", str(d)])
    converted 2 sequences: scp -> ctf
    0
    >>> print((d / "o.ctf").read_text(), end="")
    0 |features 1 2 |labels 1:1 |# u1
    0 |features 3 4 |labels 1:1
    1 |features 5 6 |labels 0:1 |# u2
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from ..engine.source import MinibatchSource
from ..formats.htk import HTKFeatureDeserializer, HTKMLFDeserializer
from ..streams import StreamDef
from . import common


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the SCP -> CTF conversion."""
    group = parser.add_argument_group("HTK features + MLF labels (INPUT is an SCP list)")
    group.add_argument("--mlf", action="append", default=[], metavar="FILE",
                       help="an MLF with the utterances' labels (repeatable)")
    group.add_argument("--labels", metavar="FILE", default=None,
                       help="the state list (label mapping file); without it, MLF lines have the "
                            "class id in column 4")
    group.add_argument("--label-dim", type=int, default=None, metavar="N",
                       help="the number of classes (default: the state list's length)")
    group.add_argument("--context", default="0:0", metavar="L:R",
                       help="frames of context added left and right (default: 0:0)")
    group.add_argument("--base-dir", default=None, metavar="DIR",
                       help="relative archive paths in the SCP resolve against DIR (default: the "
                            "working directory, as the Python API and CNTK; '.../NAME' lines name "
                            "files next to the SCP)")



def context_of(text: str) -> tuple[int, int]:
    """``--context L:R`` as ``(left, right)``.

    Example:
        >>> context_of("5:5")
        (5, 5)
    """
    try:
        left, right = (int(v) for v in text.split(":"))
    except ValueError:
        raise common.UsageError(f"--context should be L:R (two non-negative ints), but got "
                                f"--context={text!r}") from None
    if left < 0 or right < 0:
        raise common.UsageError(f"--context should be non-negative, but got --context={text!r}")
    return left, right


def _number(v: float) -> str:
    return np.format_float_positional(np.float32(v), trim="-")


def scp_to_ctf(args: argparse.Namespace) -> int:
    """Writes the CTF file; returns the number of utterances written."""
    scp = common.existing_file(args.input, "INPUT")
    if not args.mlf:
        raise common.UsageError("--mlf is needed to convert an SCP list (HTK features + labels)")
    left, right = context_of(args.context)
    base = Path(args.base_dir) if args.base_dir else None  # None: the working directory
    features = HTKFeatureDeserializer(
        {"features": StreamDef(scp=str(scp), context=(left, right) if left or right else None)},
        base_dir=base, max_errors=args.max_errors, verify_crc=getattr(args, "verify_crc", True))
    dim = args.label_dim
    if dim is None:
        if args.labels is None:
            raise common.UsageError("--label-dim is needed without --labels")
        from ..formats.htk import read_state_list
        dim = len(read_state_list(args.labels))
    labels = HTKMLFDeserializer(args.labels, {"labels": StreamDef(
        mlf=[str(common.existing_file(m, "--mlf")) for m in args.mlf], shape=dim)},
        max_errors=args.max_errors)
    names = {int(k): features.key_name(i) for i, k in enumerate(features.table().keys.tolist())}
    source = MinibatchSource([features, labels], randomize=False, max_sweeps=1)
    count, total = 0, source.deserializer.table().num_sequences
    with open(args.output, "w", encoding="utf-8") as out, \
            common.progress_bar(total, "convert", unit="ex") as update:
        while mb := source.next_minibatch(1 << 20):
            x, y = mb["features"], mb["labels"]
            classes = y.values.indices
            for key, a, b in zip(x.keys.tolist(), x.offsets[:-1].tolist(), x.offsets[1:].tolist()):
                for t in range(a, b):
                    line = " ".join(_number(v) for v in x.values[t])
                    tail = f" |# {names[key]}" if t == a else ""
                    out.write(f"{count} |features {line} |labels {int(classes[t])}:1{tail}\n")
                count += 1
            update(count)
    return count
