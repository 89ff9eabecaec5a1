// _native.BufferPool: NumPy arrays in mapped memory from a pool (common/buffer_pool.h), for a
// reader's chunk-sized arrays. A dropped array's block goes back to the pool, for the next
// chunk, or to the system: never into glibc's heap, where freed blocks stay resident under
// later small ones once its dynamic mmap threshold has risen.
//
// The pool is shared (std::shared_ptr) by its Python object and every array it handed out, so
// an array outliving its reader still has a pool to go back to. Arrays under
// mb::kMmapThreshold bytes come from numpy.empty: the heap reuses small blocks cheaply, and
// one never pins much. pooled_bytes (pooled.h) lends such blocks to the engine's outputs.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <memory>
#include <string>

#include "../common/buffer.h"
#include "../common/buffer_pool.h"
#include "pooled.h"
#include "util.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using Pool = std::shared_ptr<mb::BufferPool>;

struct PoolHandle {
  Pool pool;
};

struct PooledBlock {
  mb::BufferPool::Block block;
  Pool pool;  // the block goes back to it, also after the handle is gone
};

// An array's capsule destructor. A block the pool keeps costs no system call, so the GIL stays
// (handing it to a waiting thread would delay this one); one it lets go is unmapped without it.
void give_back(void* p) noexcept {
  std::unique_ptr<PooledBlock> held(static_cast<PooledBlock*>(p));
  const mb::BufferPool::Block freed = held->pool->give(held->block);
  if (freed.data == nullptr) return;
  if (mb::bindings::python_finalizing()) return mb::BufferPool::free(freed);
  nb::gil_scoped_release release;
  mb::BufferPool::free(freed);
}

template <typename T>
nb::object pooled_array(const Pool& pool, size_t count) {
  auto held = std::make_unique<PooledBlock>(PooledBlock{{}, pool});
  nb::capsule owner(held.get(), &give_back);
  PooledBlock* block = held.release();  // the capsule owns it (an empty block if take throws)
  {
    nb::gil_scoped_release release;  // mapping a large block takes a while
    block->block = pool->take(count * sizeof(T));
  }
  size_t shape[1] = {count};
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(static_cast<T*>(block->block.data), 1, shape,
                                                owner).cast();
}

size_t item_size(const std::string& dtype) {
  if (dtype == "float32" || dtype == "int32") return 4;
  if (dtype == "float64" || dtype == "int64") return 8;
  throw nb::value_error(("dtype should be one of 'float32', 'float64', 'int32', 'int64', but got "
                         "dtype='" + dtype + "'").c_str());
}

// An uninitialized array of `count` items of `dtype`.
nb::object empty(const PoolHandle& self, int64_t count, const std::string& dtype) {
  const size_t item = item_size(dtype);
  const int64_t most = int64_t(mb::BufferPool::kMaxBytes / item);
  mb::bindings::check(count >= 0 && count <= most,
                      "count should be in [0, " + std::to_string(most) + "] for dtype='" + dtype +
                          "', but got count=" + std::to_string(count));
  if (size_t(count) * item < mb::kMmapThreshold)
    return nb::module_::import_("numpy").attr("empty")(count, dtype);
  if (dtype == "float32") return pooled_array<float>(self.pool, size_t(count));
  if (dtype == "float64") return pooled_array<double>(self.pool, size_t(count));
  if (dtype == "int32") return pooled_array<int32_t>(self.pool, size_t(count));
  return pooled_array<int64_t>(self.pool, size_t(count));
}

}  // namespace

nb::object mb::bindings::pooled_bytes(Pool pool, mb::BufferPool::Block block, size_t bytes) {
  std::unique_ptr<PooledBlock> held;
  nb::capsule owner;
  try {
    held = std::make_unique<PooledBlock>(PooledBlock{block, pool});
    owner = nb::capsule(held.get(), &give_back);
  } catch (...) {
    mb::BufferPool::free(pool->give(block));
    throw;
  }
  held.release();  // the capsule owns it
  size_t shape[1] = {bytes};
  return nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>>(static_cast<uint8_t*>(block.data), 1, shape,
                                                      owner).cast();
}

void bind_buffer_pool(nb::module_& m) {
  nb::class_<PoolHandle>(m, "BufferPool")
      .def("__init__",
           [](PoolHandle* self, int64_t keep) {
             mb::bindings::check(keep >= 0 && keep <= int64_t(mb::BufferPool::kMaxKeep),
                                 "keep should be in [0, " +
                                     std::to_string(mb::BufferPool::kMaxKeep) +
                                     "], but got keep=" + std::to_string(keep));
             new (self) PoolHandle{std::make_shared<mb::BufferPool>(size_t(keep))};
           },
           "keep"_a)
      .def_prop_ro("keep", [](const PoolHandle& self) { return self.pool->keep(); })
      .def("empty", &empty, "count"_a, "dtype"_a);
}
