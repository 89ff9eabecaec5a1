// Binding of the TFRecord core (framing, CRC-32C, tf.train.Example decoding):
// validates arguments, releases the GIL around every kernel and hands results
// to NumPy without copying.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../tfrecord/crc32c.h"
#include "../tfrecord/example.h"
#include "../tfrecord/records.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using Bytes = nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Ends = nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

template <typename T, typename A>
nb::object numpy(std::vector<T, A>&& values) {
  using Vector = std::vector<T, A>;
  auto* heap = new Vector(std::move(values));
  nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<Vector*>(p); });
  size_t shape[1] = {heap->size()};
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(heap->data(), 1, shape, owner).cast();
}

void require(bool ok, const std::string& message) {
  if (!ok) throw nb::value_error(message.c_str());
}

mb::tfrecord::Limits limits(int64_t max_records, int64_t max_bytes, bool verify, bool skip_bad) {
  return {max_records, max_bytes, verify, skip_bad};
}

void check_pos(const Bytes& data, int64_t pos) {
  require(pos >= 0 && uint64_t(pos) <= data.shape(0), "pos lies outside the buffer");
}

template <typename R>
void put_status(nb::dict& out, R& r) {
  out["next"] = r.next;
  out["status"] = int(r.status);
  out["status_offset"] = r.status_offset;
  out["bad"] = numpy(std::move(r.bad));
}

nb::dict scan(Bytes data, int64_t pos, int64_t max_records, bool verify, bool skip_bad) {
  check_pos(data, pos);
  mb::tfrecord::ScanResult r;
  {
    nb::gil_scoped_release release;
    r = mb::tfrecord::scan(data.data(), data.shape(0), pos, limits(max_records, -1, verify, skip_bad));
  }
  nb::dict out;
  out["frames"] = numpy(std::move(r.frames));
  out["lengths"] = numpy(std::move(r.lengths));
  put_status(out, r);
  return out;
}

nb::dict read_batch(Bytes data, int64_t pos, int64_t max_records, int64_t max_bytes, bool verify,
              bool skip_bad) {
  check_pos(data, pos);
  mb::tfrecord::ReadResult r;
  {
    nb::gil_scoped_release release;
    r = mb::tfrecord::read(data.data(), data.shape(0), pos,
                           limits(max_records, max_bytes, verify, skip_bad));
  }
  nb::dict out;
  out["data"] = numpy(std::move(r.data));
  out["ends"] = numpy(std::move(r.ends));
  out["frames"] = numpy(std::move(r.frames));
  put_status(out, r);
  return out;
}

// Like read(), but the records come back as a list of bytes objects (the
// one-record-at-a-time iterator hands them out as they are).
nb::dict read_list(Bytes data, int64_t pos, int64_t max_records, int64_t max_bytes, bool verify,
                   bool skip_bad) {
  check_pos(data, pos);
  mb::tfrecord::ScanResult r;
  {
    nb::gil_scoped_release release;
    r = mb::tfrecord::scan(data.data(), data.shape(0), pos,
                           limits(max_records, max_bytes, verify, skip_bad));
  }
  const size_t n = r.frames.size();
  PyObject* list = PyList_New(Py_ssize_t(n));
  if (list == nullptr) throw nb::python_error();
  nb::object records = nb::steal(list);
  const char* base = reinterpret_cast<const char*>(data.data());
  for (size_t i = 0; i < n; ++i) {
    PyObject* b = PyBytes_FromStringAndSize(base + r.frames[i] + mb::tfrecord::kHeaderBytes,
                                            Py_ssize_t(r.lengths[i]));
    if (b == nullptr) throw nb::python_error();
    PyList_SET_ITEM(list, Py_ssize_t(i), b);
  }
  nb::dict out;
  out["records"] = records;
  out["frames"] = numpy(std::move(r.frames));
  put_status(out, r);
  return out;
}

// Frames records [ends[i-1], ends[i]) of `data` back to back.
nb::bytes frame_many(Bytes data, Ends ends) {
  const size_t n = ends.shape(0);
  int64_t prev = 0;
  for (size_t i = 0; i < n; ++i) {
    require(ends.data()[i] >= prev && uint64_t(ends.data()[i]) <= data.shape(0),
            "ends should be non-decreasing offsets inside data");
    prev = ends.data()[i];
  }
  const size_t total = size_t(prev) + n * size_t(mb::tfrecord::kFrameOverhead);
  PyObject* b = PyBytes_FromStringAndSize(nullptr, Py_ssize_t(total));
  if (b == nullptr) throw nb::python_error();
  nb::object owner = nb::steal(b);
  uint8_t* out = reinterpret_cast<uint8_t*>(PyBytes_AS_STRING(b));
  {
    nb::gil_scoped_release release;
    int64_t start = 0;
    for (size_t i = 0; i < n; ++i) {
      const int64_t len = ends.data()[i] - start;
      mb::tfrecord::frame(data.data() + start, size_t(len), out);
      out += len + mb::tfrecord::kFrameOverhead;
      start = ends.data()[i];
    }
  }
  return nb::borrow<nb::bytes>(owner);
}

uint32_t crc(Bytes data, uint32_t initial, bool portable) {
  nb::gil_scoped_release release;
  return portable ? mb::tfrecord::crc32c_portable(initial, data.data(), data.shape(0))
                  : mb::tfrecord::crc32c_extend(initial, data.data(), data.shape(0));
}

nb::dict decode(Bytes data, Ends ends, const std::vector<std::string>& names,
                const std::vector<int>& kinds) {
  require(names.size() == kinds.size(), "names and kinds should have the same length");
  std::vector<mb::tfrecord::FeatureSpec> specs;
  for (size_t k = 0; k < names.size(); ++k) {
    require(kinds[k] >= 1 && kinds[k] <= 3, "kinds should be 1 (bytes), 2 (float) or 3 (int64)");
    specs.push_back({names[k], mb::tfrecord::Kind(kinds[k])});
  }
  int64_t prev = 0;
  for (size_t i = 0; i < ends.shape(0); ++i) {
    require(ends.data()[i] >= prev && uint64_t(ends.data()[i]) <= data.shape(0),
            "ends should be non-decreasing offsets inside data");
    prev = ends.data()[i];
  }
  mb::tfrecord::DecodeResult r;
  {
    nb::gil_scoped_release release;
    r = mb::tfrecord::decode_examples(data.data(), ends.data(), ends.shape(0), specs);
  }
  nb::list features;
  for (size_t k = 0; k < r.features.size(); ++k) {
    auto& f = r.features[k];
    nb::dict d;
    d["counts"] = numpy(std::move(f.counts));
    if (specs[k].kind == mb::tfrecord::Kind::kInt64) d["values"] = numpy(std::move(f.ints));
    if (specs[k].kind == mb::tfrecord::Kind::kFloat) d["values"] = numpy(std::move(f.floats));
    if (specs[k].kind == mb::tfrecord::Kind::kBytes) {
      d["values"] = numpy(std::move(f.bytes));
      d["byte_ends"] = numpy(std::move(f.byte_ends));
    }
    features.append(d);
  }
  nb::dict out;
  out["features"] = features;
  out["records"] = r.records;
  out["error"] = int(r.error);
  out["error_record"] = r.error_record;
  out["error_feature"] = r.error_feature;
  out["error_kind"] = int(r.error_kind);
  return out;
}

}  // namespace

void bind_tfrecord(nb::module_& m) {
  m.def("tfrecord_scan", &scan, "data"_a, "pos"_a, "max_records"_a, "verify"_a, "skip_bad"_a);
  m.def("tfrecord_read", &read_batch, "data"_a, "pos"_a, "max_records"_a, "max_bytes"_a, "verify"_a,
        "skip_bad"_a);
  m.def("tfrecord_read_list", &read_list, "data"_a, "pos"_a, "max_records"_a, "max_bytes"_a,
        "verify"_a, "skip_bad"_a);
  m.def("tfrecord_frame_many", &frame_many, "data"_a, "ends"_a);
  m.def("crc32c", &crc, "data"_a, "initial"_a = 0, "portable"_a = false);
  m.def("crc32c_hardware", &mb::tfrecord::crc32c_hardware);
  m.def("example_decode", &decode, "data"_a, "ends"_a, "names"_a, "kinds"_a);
}
