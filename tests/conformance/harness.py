"""CNTK's reader test harness (ReaderTestHelper.h), reimplemented for comparisons.

Prints the first 10 minibatches of every epoch: per minibatch every
``features*`` stream then every ``labels*`` stream, one line per sample in
CNTK's time-major column order (gaps skipped), values formatted like C++
stream output of the element type (``%g``). Controls are compared token by token.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np

SHIPPED = Path(__file__).resolve().parents[1] / "data" / "cntk-ctf"  # tests/data/cntk-ctf
SUITE = SHIPPED / "Tests" / "UnitTests" / "ReaderTests"
CONFIGS = SUITE / "Config" / "CNTKTextFormatReader"
DATA = SUITE / "Data" / "CNTKTextFormatReader"
CONTROLS = SUITE / "Control" / "CNTKTextFormatReader"

MAX_MINIBATCHES_PER_EPOCH = 10


def print_minibatch(minibatch, names: list[str]) -> list[str]:
    """Lines for one minibatch, in the harness's stream and column order."""
    lines = []
    for name in names:
        data = minibatch[name]
        values = data.dense_values()
        for sample in data.layout.column_samples().tolist():
            if sample >= 0:
                lines.append(" ".join("%g" % float(v) for v in values[sample]))
    return lines


def harness_names(source) -> list[str]:
    """``features*`` streams then ``labels*`` streams, as the harness prints them."""
    names = sorted(source.streams)
    return [n for n in names if n.startswith("features")] + [n for n in names if n.startswith("labels")]


def run_epochs(source, epoch_size: int, minibatch_size: int, epochs: int,
               start_epoch: Callable | None = None, partitions: tuple[int, int] | None = None) -> list[str]:
    """The harness's epoch loop; returns the printed lines."""
    names, lines = harness_names(source), []
    for epoch in range(epochs):
        (start_epoch or source.start_epoch)(epoch, epoch_size)
        printed = 0
        while True:
            if partitions:
                mb = source.next_minibatch(minibatch_size, num_data_partitions=partitions[0],
                                           partition_index=partitions[1])
            else:
                mb = source.next_minibatch(minibatch_size)
            if not mb or printed >= MAX_MINIBATCHES_PER_EPOCH:
                break
            lines += print_minibatch(mb, names)
            printed += 1
    return lines


def tokens(lines: list[str]) -> list[str]:
    """Whitespace-separated tokens (CheckFilesEquivalent compares these as strings)."""
    return " ".join(lines).split()


def control_tokens(name: str) -> list[str]:
    """Tokens of a stored Control file."""
    return (CONTROLS / name).read_text().split()
