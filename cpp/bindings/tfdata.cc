// Binding of the tf.data kernels (shuffle and interleave positions) and of the
// block helpers (bytes objects cut from a flat buffer in one call).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "../tfdata/interleave.h"
#include "../tfdata/shuffle.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

template <typename T>
nb::object array_of(std::vector<T>&& values) {
  auto* heap = new std::vector<T>(std::move(values));
  nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  size_t shape[1] = {heap->size()};
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(heap->data(), 1, shape, owner).cast();
}

nb::object int64_array(std::vector<int64_t>&& values) { return array_of(std::move(values)); }
nb::object uint8_array(std::vector<uint8_t>&& values) { return array_of(std::move(values)); }

using Bytes = nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Offsets = nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// Spans of several buffers: span i is buffers[seg[i]][starts[i]:ends[i]] (seg
// empty: buffer 0 for all). Checked once; the kernels then trust them.
struct Spans {
  std::vector<const char*> bases;
  const int64_t* seg;
  const int64_t* starts;
  const int64_t* ends;
  size_t n;

  const char* base(size_t i) const { return bases[seg != nullptr ? size_t(seg[i]) : 0]; }
};

Spans spans(const std::vector<Bytes>& buffers, const Offsets& seg, const Offsets& starts,
            const Offsets& ends) {
  const size_t n = ends.shape(0);
  if (starts.shape(0) != n || (seg.shape(0) != 0 && seg.shape(0) != n)) {
    throw nb::value_error("seg (or an empty array), starts and ends should have the same length");
  }
  if (buffers.empty() && n > 0) throw nb::value_error("spans need at least one buffer");
  Spans out{{}, seg.shape(0) ? seg.data() : nullptr, starts.data(), ends.data(), n};
  for (const auto& b : buffers) out.bases.push_back(reinterpret_cast<const char*>(b.data()));
  for (size_t i = 0; i < n; ++i) {
    const int64_t k = out.seg != nullptr ? out.seg[i] : 0, a = starts.data()[i], e = ends.data()[i];
    if (k < 0 || uint64_t(k) >= buffers.size() || a < 0 || e < a ||
        uint64_t(e) > buffers[size_t(k)].shape(0)) {
      throw nb::value_error("every span should lie inside its buffer (0 <= start <= end <= size)");
    }
  }
  return out;
}

// The spans as a list of bytes objects.
nb::list spans_to_bytes(const std::vector<Bytes>& buffers, Offsets seg, Offsets starts,
                        Offsets ends) {
  const Spans s = spans(buffers, seg, starts, ends);
  PyObject* list = PyList_New(Py_ssize_t(s.n));
  if (list == nullptr) throw nb::python_error();
  nb::list out = nb::steal<nb::list>(list);
  for (size_t i = 0; i < s.n; ++i) {
    PyObject* b = PyBytes_FromStringAndSize(s.base(i) + s.starts[i],
                                            Py_ssize_t(s.ends[i] - s.starts[i]));
    if (b == nullptr) throw nb::python_error();
    PyList_SET_ITEM(list, Py_ssize_t(i), b);
  }
  return out;
}

// The spans as a NumPy object array of bytes objects (Dataset.batch's value of
// records): filled in place, without the list and the per-element conversion
// np.fromiter would make.
nb::object spans_to_object_array(const std::vector<Bytes>& buffers, Offsets seg, Offsets starts,
                                 Offsets ends) {
  const Spans s = spans(buffers, seg, starts, ends);
  nb::object array = nb::module_::import_("numpy").attr("empty")(s.n, "dtype"_a = "O");
  nb::object data = array.attr("__array_interface__")["data"];
  PyObject** slots = reinterpret_cast<PyObject**>(nb::cast<uintptr_t>(data[0]));
  for (size_t i = 0; i < s.n; ++i) {  // contiguous, each slot holding None
    PyObject* b = PyBytes_FromStringAndSize(s.base(i) + s.starts[i],
                                            Py_ssize_t(s.ends[i] - s.starts[i]));
    if (b == nullptr) throw nb::python_error();
    PyObject* old = slots[i];
    slots[i] = b;
    Py_XDECREF(old);
  }
  return array;
}

// The spans copied back to back: (data, offsets), span i at data[offsets[i]:offsets[i+1]].
nb::tuple spans_concat(const std::vector<Bytes>& buffers, Offsets seg, Offsets starts,
                       Offsets ends) {
  const Spans s = spans(buffers, seg, starts, ends);
  std::vector<int64_t> offsets(s.n + 1, 0);
  for (size_t i = 0; i < s.n; ++i) offsets[i + 1] = offsets[i] + (s.ends[i] - s.starts[i]);
  std::vector<uint8_t> data(size_t(offsets[s.n]));
  {
    nb::gil_scoped_release release;
    for (size_t i = 0; i < s.n; ++i) {
      const int64_t len = s.ends[i] - s.starts[i];
      if (len > 0) std::memcpy(data.data() + offsets[i], s.base(i) + s.starts[i], size_t(len));
    }
  }
  return nb::make_tuple(uint8_array(std::move(data)), int64_array(std::move(offsets)));
}

void bind_interleave(nb::module_& m) {
  using Order = mb::tfdata::InterleaveOrder;
  nb::class_<Order>(m, "InterleaveOrder")
      .def(nb::init<int64_t, int64_t>(), "cycle"_a, "block"_a)
      .def("restore",
           [](Order& self, int64_t ci, int64_t bi, int64_t taken, bool exhausted,
              Offsets slot_input, Offsets slot_pos, Offsets slot_len) {
             const size_t n = slot_input.shape(0);
             if (slot_pos.shape(0) != n || slot_len.shape(0) != n ||
                 int64_t(n) != self.cycle()) {
               throw nb::value_error("slot_input, slot_pos and slot_len should have one entry "
                                     "per slot of the cycle");
             }
             return self.restore(ci, bi, taken, exhausted, slot_input.data(), slot_pos.data(),
                                 slot_len.data());
           },
           "ci"_a, "bi"_a, "taken"_a, "exhausted"_a, "slot_input"_a, "slot_pos"_a, "slot_len"_a)
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
  m.def("spans_to_bytes", &spans_to_bytes, "buffers"_a, "seg"_a, "starts"_a, "ends"_a);
  m.def("spans_to_object_array", &spans_to_object_array, "buffers"_a, "seg"_a, "starts"_a,
        "ends"_a);
  m.def("spans_concat", &spans_concat, "buffers"_a, "seg"_a, "starts"_a, "ends"_a);
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
