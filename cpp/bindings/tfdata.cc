// Binding of the tf.data kernels (shuffle positions).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <vector>

#include "../tfdata/shuffle.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

nb::object int64_array(std::vector<int64_t>&& values) {
  auto* heap = new std::vector<int64_t>(std::move(values));
  nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<std::vector<int64_t>*>(p); });
  size_t shape[1] = {heap->size()};
  return nb::ndarray<nb::numpy, int64_t, nb::ndim<1>>(heap->data(), 1, shape, owner).cast();
}

}  // namespace

void bind_tfdata(nb::module_& m) {
  using Order = mb::tfdata::ShuffleOrder;
  nb::class_<Order>(m, "ShuffleOrder")
      .def(nb::init<uint64_t, uint64_t, int64_t, int64_t>(), "seed"_a, "seed2"_a,
           "buffer_size"_a, "length"_a)
      .def("advance",
           [](Order& self, int64_t count) {
             if (count < 0) throw nb::value_error("count should not be negative");
             std::vector<int64_t> out(size_t(count), 0);
             int64_t done;
             {
               nb::gil_scoped_release release;
               done = self.advance(count, out.data());
             }
             out.resize(size_t(done));
             return int64_array(std::move(out));
           },
           "count"_a)
      .def("held", [](const Order& self) { return int64_array(self.held()); })
      .def_prop_ro("emitted", &Order::emitted)
      .def_prop_ro("end", &Order::end);
  m.def("philox4x32_10",
        [](uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1) {
          const auto r = mb::tfdata::philox4x32_10({c0, c1, c2, c3}, {k0, k1});
          return nb::make_tuple(r[0], r[1], r[2], r[3]);
        });
}
