"""``WorkerNotice``: what the main process tells DataLoader workers between iterations.

A dataset's ``set_epoch`` / ``load_state_dict`` run in the main process, but
persistent DataLoader workers keep their own copy of the dataset. The notice
lives in shared memory made before the workers start: the main process
publishes a few integers (and optionally a small blob, such as a JSON state)
with a new generation number; a worker that sees a generation it has not seen
takes them at its next iteration.

Example:
    >>> notice = WorkerNotice(fields=2, blob_bytes=16)
    >>> notice.publish([3, 4], b"{}")
    >>> notice.news() is None  # the publishing process has seen its own news
    True
"""

from __future__ import annotations

from typing import Sequence

import torch
from torch.utils.data import get_worker_info

from ..errors import CheckpointError


class WorkerNotice:
    """``fields`` integers and up to ``blob_bytes`` bytes, published by the main process.

    Example:
        >>> notice = WorkerNotice(fields=1)
        >>> notice._seen = -1  # as a worker that has not seen the latest publication
        >>> notice.publish([7]); notice._seen = 0
        >>> notice.news(), notice.news()
        (([7], b''), None)
    """

    def __init__(self, fields: int, blob_bytes: int = 0) -> None:
        self._ints = torch.zeros(2 + fields, dtype=torch.int64).share_memory_()  # generation, len
        self._blob = torch.zeros(max(blob_bytes, 1), dtype=torch.uint8).share_memory_()
        self._seen = 0

    def publish(self, values: Sequence[int], blob: bytes = b"") -> None:
        """In the main process (a no-op in a worker): the next iteration of every
        worker starts from ``values`` (and ``blob``)."""
        if get_worker_info() is not None:
            return
        if len(blob) > self._blob.numel():
            raise CheckpointError(f"a state of {len(blob)} bytes is larger than the "
                                  f"{self._blob.numel()} bytes handed to DataLoader workers")
        if blob:
            self._blob[:len(blob)] = torch.frombuffer(bytearray(blob), dtype=torch.uint8)
        generation = int(self._ints[0]) + 1
        self._ints[1:] = torch.tensor([len(blob), *values])
        self._ints[0] = self._seen = generation

    def news(self) -> tuple[list[int], bytes] | None:
        """``(values, blob)`` published since this process last looked, or None."""
        generation = int(self._ints[0])
        if generation == self._seen:
            return None
        self._seen = generation
        length = int(self._ints[1])
        return self._ints[2:].tolist(), self._blob[:length].numpy().tobytes()
