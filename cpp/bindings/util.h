// Helpers shared by the binding files: NumPy arrays that own a moved-in
// std::vector, argument checks.
//
// Large buffers (mmap-backed, see common/buffer.h) are freed without holding
// the GIL: unmapping a parsed chunk takes milliseconds, and the engine drops
// chunks on a background thread so that reading goes on meanwhile.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <string>
#include <utility>
#include <vector>

#include "../common/buffer.h"

namespace mb::bindings {

// Whether the interpreter is shutting down: a destructor then keeps the GIL (a thread that
// releases it may never get it back).
inline bool python_finalizing() noexcept {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing();
#else
  return _Py_IsFinalizing();
#endif
}

template <typename Vector>
void delete_vector(void* p) noexcept {
  auto* v = static_cast<Vector*>(p);
  const bool large = v->capacity() * sizeof(typename Vector::value_type) >= mb::kMmapThreshold;
  if (large && !python_finalizing()) {
    nanobind::gil_scoped_release release;
    delete v;
    return;
  }
  delete v;
}

// Moves a vector into a one-dimensional NumPy array that owns it.
template <typename T, typename A>
nanobind::object owned_numpy(std::vector<T, A>&& values) {
  using Vector = std::vector<T, A>;
  auto* heap = new Vector(std::move(values));
  nanobind::capsule owner(heap, &delete_vector<Vector>);
  size_t shape[1] = {heap->size()};
  return nanobind::ndarray<nanobind::numpy, T, nanobind::ndim<1>>(heap->data(), 1, shape, owner)
      .cast();
}

template <typename T>
using Vec1 = nanobind::ndarray<const T, nanobind::ndim<1>, nanobind::c_contig,
                               nanobind::device::cpu>;
using AnyArray = nanobind::ndarray<nanobind::ro, nanobind::c_contig, nanobind::device::cpu>;
using IntArray =
    nanobind::ndarray<nanobind::ro, nanobind::ndim<1>, nanobind::c_contig, nanobind::device::cpu>;

// Calls `f` with a typed pointer to the array's integers (any width and sign); anything else
// is a TypeError naming the argument.
template <typename F>
void with_integers(const IntArray& a, const char* name, F&& f) {
  const nanobind::dlpack::dtype t = a.dtype();
  const void* p = a.data();
  if (t == nanobind::dtype<int8_t>()) return f(static_cast<const int8_t*>(p));
  if (t == nanobind::dtype<int16_t>()) return f(static_cast<const int16_t*>(p));
  if (t == nanobind::dtype<int32_t>()) return f(static_cast<const int32_t*>(p));
  if (t == nanobind::dtype<int64_t>()) return f(static_cast<const int64_t*>(p));
  if (t == nanobind::dtype<uint8_t>()) return f(static_cast<const uint8_t*>(p));
  if (t == nanobind::dtype<uint16_t>()) return f(static_cast<const uint16_t*>(p));
  if (t == nanobind::dtype<uint32_t>()) return f(static_cast<const uint32_t*>(p));
  if (t == nanobind::dtype<uint64_t>()) return f(static_cast<const uint64_t*>(p));
  throw nanobind::type_error((std::string(name) + " should be an array of integers").c_str());
}

// Raises ValueError(message) unless ok.
inline void check(bool ok, const char* message) {
  if (!ok) throw nanobind::value_error(message);
}
inline void check(bool ok, const std::string& message) {
  if (!ok) throw nanobind::value_error(message.c_str());
}

}  // namespace mb::bindings
