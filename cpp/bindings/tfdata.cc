// Binding of the tf.data kernels (shuffle and interleave positions) and of the
// block helpers (bytes objects cut from a flat buffer in one call).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <vector>

#include "../tfdata/interleave.h"
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

using Bytes = nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Offsets = nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// bytes objects data[starts[i]:ends[i]], as a list.
nb::list bytes_list(Bytes data, Offsets starts, Offsets ends) {
  const size_t n = ends.shape(0);
  if (starts.shape(0) != n) throw nb::value_error("starts and ends should have the same length");
  for (size_t i = 0; i < n; ++i) {
    const int64_t a = starts.data()[i], b = ends.data()[i];
    if (a < 0 || b < a || uint64_t(b) > data.shape(0)) {
      throw nb::value_error("every slice should lie inside data (0 <= start <= end <= size)");
    }
  }
  PyObject* list = PyList_New(Py_ssize_t(n));
  if (list == nullptr) throw nb::python_error();
  nb::list out = nb::steal<nb::list>(list);
  const char* base = reinterpret_cast<const char*>(data.data());
  for (size_t i = 0; i < n; ++i) {
    const int64_t a = starts.data()[i];
    PyObject* b = PyBytes_FromStringAndSize(base + a, Py_ssize_t(ends.data()[i] - a));
    if (b == nullptr) throw nb::python_error();
    PyList_SET_ITEM(list, Py_ssize_t(i), b);
  }
  return out;
}

void bind_interleave(nb::module_& m) {
  using Order = mb::tfdata::InterleaveOrder;
  nb::class_<Order>(m, "InterleaveOrder")
      .def(nb::init<int64_t, int64_t>(), "cycle"_a, "block"_a)
      .def("add_input", &Order::add_input, "length"_a)
      .def("end_inputs", &Order::end_inputs)
      .def("advance",
           [](Order& self, int64_t count) {
             if (count < 0) throw nb::value_error("count should not be negative");
             std::vector<int64_t> inputs(size_t(count), 0), positions(size_t(count), 0);
             int64_t done;
             {
               nb::gil_scoped_release release;
               done = self.advance(count, inputs.data(), positions.data());
             }
             inputs.resize(size_t(done));
             positions.resize(size_t(done));
             return nb::make_tuple(int64_array(std::move(inputs)),
                                   int64_array(std::move(positions)));
           },
           "count"_a)
      .def("skip",
           [](Order& self, int64_t count) {
             if (count < 0) throw nb::value_error("count should not be negative");
             nb::gil_scoped_release release;
             return self.advance(count, nullptr, nullptr);
           },
           "count"_a)
      .def_prop_ro("needs_input", &Order::needs_input)
      .def_prop_ro("done", &Order::done)
      .def_prop_ro("known_inputs", &Order::known_inputs)
      .def_prop_ro("emitted", &Order::emitted)
      .def_prop_ro("ci", &Order::ci)
      .def_prop_ro("bi", &Order::bi)
      .def_prop_ro("taken", &Order::taken)
      .def_prop_ro("exhausted", &Order::exhausted)
      .def_prop_ro("slot_inputs", [](const Order& self) {
        return int64_array(std::vector<int64_t>(self.slot_inputs()));
      })
      .def_prop_ro("slot_positions", [](const Order& self) {
        return int64_array(std::vector<int64_t>(self.slot_positions()));
      });
}

}  // namespace

void bind_tfdata(nb::module_& m) {
  bind_interleave(m);
  m.def("bytes_list", &bytes_list, "data"_a, "starts"_a, "ends"_a);
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
