"""Dense minibatch tensors from DataLoader workers through a shared-memory ring.

A DataLoader worker hands every tensor it yields to the main process through
a new shared-memory segment, and its file descriptor through a socket: about
1.5 ms per minibatch here, several times the cost of reading it. Instead, each
worker keeps one shared ring of ``slots`` slots. The reader gathers a
minibatch's dense values straight into the next slot (the ring lends itself
as the source's output arena; other tensors are copied there), and the
minibatch is sent as small references. The main process rebuilds them as
tensors *over the slot* (no copy); the slot is free again once every tensor
(and view) of that minibatch is gone there. The ring's storage itself crosses
once, with the first minibatch that uses it.

Nothing waits: when the next slot is still in use (the training loop keeps
old minibatches, say), or a minibatch does not fit, its tensors go the usual
way. The data delivered is the same either way; only the transport differs.
See docs/design/worker-ring.md.

Example:
    >>> import torch
    >>> ring = WorkerRing(slots=2)
    >>> batch = ring.pack({"x": torch.arange(6.).reshape(2, 3), "n": 5})
    >>> type(batch["x"]).__name__, batch["n"]
    ('RingTensor', 5)
"""

from __future__ import annotations

import itertools
import math
import os
from typing import Any

import numpy as np
import torch

from .. import _native
from .torch import map_leaves

_ALIGN = 64
_MAX_RING_BYTES = 256 << 20
_COUNTER = itertools.count()
# The main process's view of every ring it has heard of: key -> uint8 array over the ring.
_RINGS: dict[tuple[int, int], np.ndarray] = {}


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


class WorkerRing:
    """A worker's ring: the reader's output arena (``take``/``used``), and
    ``pack``, which sends a minibatch's dense CPU tensors from the current slot
    as :class:`RingTensor` references.

    Example:
        >>> ring = WorkerRing(slots=2)
        >>> ring.pack({"x": [1]})  # nothing dense: unchanged
        {'x': [1]}
        >>> ring.take() is None   # no ring before the first minibatch sized it
        True
    """

    def __init__(self, slots: int = 8) -> None:
        self.slots = int(slots)
        self.slot_bytes = 0
        self.sent = 0  # minibatches sent through the ring
        self._cursor = -1  # bytes used in the open slot; -1: no slot open

    # -- the reader's output arena ------------------------------------------------------------

    def take(self) -> np.ndarray | None:
        """The free bytes of the current slot (opened when it is free), or None."""
        if self._cursor < 0 and not self._open():
            return None
        start = self._slot_start() + self._cursor
        return self._array[start:self._slot_start() + self.slot_bytes]

    def used(self, nbytes: int) -> None:
        """The reader wrote ``nbytes`` at the start of what :meth:`take` returned."""
        self._cursor += _aligned(nbytes)

    # -- sending --------------------------------------------------------------------------------

    def pack(self, batch: Any) -> Any:
        """``batch`` with its dense CPU tensors as references into the current slot
        (those gathered there already, the others copied while room is left)."""
        if isinstance(batch, dict) and all(type(v) is torch.Tensor for v in batch.values()):
            leaves = [t for t in batch.values() if _movable(t)]  # the usual batch: no walk
        else:
            leaves = [t for t in _leaves(batch) if _movable(t)]
        need = sum(_aligned(t.nbytes) for t in leaves)
        if self._cursor < 0 and leaves:
            self._room(need)
            self._open()
        if self._cursor < 0:
            return batch
        lease = _Lease(self, self._slot, self.sent)
        moved = {id(t): ref for t in leaves if (ref := self._place(t, lease)) is not None}
        self._cursor = -1
        if moved:
            self._written[lease.slot] = lease.stamp
            self.sent += 1
        if len(moved) < len(leaves):
            self._room(need)  # the next minibatches fit (when the size limit allows)
        if not moved:
            return batch
        if isinstance(batch, dict) and all(type(v) is torch.Tensor for v in batch.values()):
            return {k: moved.get(id(v), v) for k, v in batch.items()}
        return map_leaves(batch, lambda v: moved.get(id(v), v))

    def _place(self, t: torch.Tensor, lease: "_Lease") -> "RingTensor | None":
        """``t`` as a reference into the open slot: in place when the reader
        gathered it there, else copied while room is left (None: no room)."""
        start = self._slot_start()
        offset = t.data_ptr() - self._base
        if not start <= offset < start + self._cursor:
            if self._cursor + t.nbytes > self.slot_bytes:
                return None
            offset = start + self._cursor
            self._array[offset:offset + t.nbytes] = t.reshape(-1).view(torch.uint8).numpy()
            self._cursor += _aligned(t.nbytes)
        return RingTensor(lease, offset, tuple(t.shape), t.dtype)

    def _slot_start(self) -> int:
        return self._header + self._slot * self.slot_bytes

    def _open(self) -> bool:
        """Opens a slot the main process is done with: the next one in turn, or
        the first free one after it (a slot held for good does not block the ring)."""
        for i in range(self.slots if self.slot_bytes else 0):
            slot = (self.sent + i) % self.slots
            if _native.atomic_load_i64(self._done, slot) == self._written[slot]:
                self._slot, self._cursor = slot, 0
                return True
        return False

    def _room(self, need: int) -> None:
        """A new ring when the slots are smaller than ``need`` bytes (and the
        ring stays under its size limit)."""
        if need <= self.slot_bytes:
            return
        slot_bytes = _aligned(max(need + need // 2, 1 << 16))
        if slot_bytes * self.slots > _MAX_RING_BYTES:
            return
        self._header = _aligned(8 * self.slots)
        self.storage = torch.empty(self._header + slot_bytes * self.slots,
                                   dtype=torch.uint8).share_memory_()
        self._array = self.storage.numpy()
        self._base = self._array.ctypes.data  # the ring's address (ctypes.data is slow)
        self._done = self._array[:8 * self.slots].view(np.int64)
        self._done[:] = -1
        self._written = [-1] * self.slots
        self.key, self.slot_bytes, self.shipped = (os.getpid(), next(_COUNTER)), slot_bytes, False
        self.sent = 0


class _Lease:
    """One minibatch's slot; pickled once per minibatch (its tensors share it).
    The first minibatch of a ring carries the ring's storage."""

    def __init__(self, ring: WorkerRing, slot: int, stamp: int) -> None:
        self.key, self.slots, self.slot, self.stamp = ring.key, ring.slots, slot, stamp
        self.storage = None if ring.shipped else ring.storage  # leases are sent in order
        ring.shipped = True

    def __reduce__(self) -> tuple:
        return _received_lease, (self.key, self.storage, self.slots, self.slot, self.stamp)


class _HeldSlot:
    """The main process's hold on a slot: frees it when garbage."""

    def __init__(self, array: np.ndarray, slots: int, slot: int, stamp: int) -> None:
        self.array, self.slot, self.stamp = array, slot, stamp
        self.address = array.ctypes.data
        self.done = array[:8 * slots].view(np.int64)

    def __del__(self) -> None:
        try:
            _native.atomic_store_i64(self.done, self.slot, self.stamp)
        except Exception:  # interpreter shutdown
            pass


def _received_lease(key: tuple[int, int], storage: torch.Tensor | None, slots: int, slot: int,
                    stamp: int) -> _HeldSlot:
    if storage is not None:
        _register(key, storage.numpy())
    array = _RINGS.get(key)
    if array is None:
        raise RuntimeError(f"minibatch data of DataLoader worker (pid {key[0]}) refers to a "
                           "shared ring this process never received")
    return _HeldSlot(array, slots, slot, stamp)


def _register(key: tuple[int, int], array: np.ndarray) -> None:
    """Remembers a ring; forgets the older rings of that worker and those of dead workers."""
    for old in [k for k in _RINGS if k[0] == key[0] or not _alive(k[0])]:
        del _RINGS[old]
    _RINGS[key] = array


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class RingTensor:
    """A reference to a tensor in a ring slot; unpickled as a ``torch.Tensor`` over it.

    Example:
        >>> import pickle, torch
        >>> ring = WorkerRing(slots=2)
        >>> ref = ring.pack({"x": torch.arange(3.0)})["x"]  # the first batch sizes the ring
        >>> type(ref).__name__, ref.shape
        ('RingTensor', (3,))
        >>> pickle.loads(pickle.dumps(ref)).tolist()  # what the main process receives
        [0.0, 1.0, 2.0]
    """

    def __init__(self, lease: _Lease, offset: int, shape: tuple[int, ...],
                 dtype: torch.dtype) -> None:
        self.lease, self.offset, self.shape, self.dtype = lease, offset, shape, dtype

    def __reduce__(self) -> tuple:
        return _received_tensor, (self.lease, self.offset, self.shape, self.dtype)


class _SlotMemory:
    """Part of a held slot for NumPy, typed and shaped; the array keeps it (and so
    the hold) alive."""

    __slots__ = ("held", "__array_interface__")

    def __init__(self, held: _HeldSlot, offset: int, shape: tuple[int, ...], typestr: str) -> None:
        self.held = held
        self.__array_interface__ = {"data": (held.address + offset, False), "shape": shape,
                                    "typestr": typestr, "version": 3}


def _typestr(dtype: torch.dtype) -> str | None:
    """NumPy's type string of a torch dtype (None: NumPy has no such type, e.g. bfloat16)."""
    found = _TYPESTR.get(dtype)
    if found is None and dtype not in _TYPESTR:
        try:
            found = torch.empty(0, dtype=dtype).numpy().dtype.str
        except TypeError:
            found = None
        _TYPESTR[dtype] = found
    return found


_TYPESTR: dict[torch.dtype, str | None] = {}


def _received_tensor(held: _HeldSlot, offset: int, shape: tuple[int, ...],
                     dtype: torch.dtype) -> torch.Tensor:
    typestr = _typestr(dtype)
    if typestr is not None:  # one typed array over the slot: no torch view calls
        return torch.from_numpy(np.asarray(_SlotMemory(held, offset, shape, typestr)))
    nbytes = math.prod(shape) * dtype.itemsize
    raw = torch.from_numpy(np.asarray(_SlotMemory(held, offset, (nbytes,), "|u1")))
    return raw.view(dtype).view(shape)


def _movable(t: Any) -> bool:
    return (isinstance(t, torch.Tensor) and t.layout == torch.strided and t.device.type == "cpu"
            and t.is_contiguous() and t.numel() > 0 and not t.requires_grad)


def _leaves(batch: Any) -> list[Any]:
    found: list[Any] = []
    map_leaves(batch, found.append)
    return found
