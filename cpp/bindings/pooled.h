// NumPy arrays over blocks of an mb::BufferPool (common/buffer_pool.h), shared by the binding
// files (buffer_pool.cc: a reader's chunk arrays; chunk_registry.cc: the engine's large
// per-minibatch outputs). The pool is shared (std::shared_ptr) by its owner and every array it
// lent, so an array outliving its owner still has a pool to go back to.
#pragma once

#include <nanobind/nanobind.h>

#include <cstddef>
#include <memory>

#include "../common/buffer_pool.h"

namespace mb::bindings {

// A 1-D uint8 array of the first `bytes` bytes of `block` (taken from `pool`): the block goes
// back to the pool (or is unmapped, the GIL released) when the array's last reference dies.
// The block is given back at once if the array cannot be made.
nanobind::object pooled_bytes(std::shared_ptr<mb::BufferPool> pool, mb::BufferPool::Block block,
                              size_t bytes);

}  // namespace mb::bindings
