// Binding of the TFRecord core (framing, CRC-32C, tf.train.Example decoding):
// validates arguments, releases the GIL around every kernel and hands results
// to NumPy without copying.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "../tfrecord/crc32c.h"
#include "../tfrecord/example.h"
#include "../tfrecord/records.h"
#include "util.h"

namespace nb = nanobind;
using namespace nb::literals;
using mb::bindings::owned_numpy;

namespace {

using Bytes = nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Ends = nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

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
  out["bad"] = owned_numpy(std::move(r.bad));
}

nb::dict scan(Bytes data, int64_t pos, int64_t max_records, bool verify, bool skip_bad) {
  check_pos(data, pos);
  mb::tfrecord::ScanResult r;
  {
    nb::gil_scoped_release release;
    r = mb::tfrecord::scan(data.data(), data.shape(0), pos, limits(max_records, -1, verify, skip_bad));
  }
  nb::dict out;
  out["frames"] = owned_numpy(std::move(r.frames));
  out["lengths"] = owned_numpy(std::move(r.lengths));
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
  out["data"] = owned_numpy(std::move(r.data));
  out["ends"] = owned_numpy(std::move(r.ends));
  out["frames"] = owned_numpy(std::move(r.frames));
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
  out["frames"] = owned_numpy(std::move(r.frames));
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

// Read by position (mb::tfrecord::check_frames): checks records in a buffer of
// frames, to be used in place; returns (status, failed index).
nb::tuple check_frames(Bytes data, Ends frames, Ends lengths, bool verify) {
  const size_t n = frames.shape(0);
  require(lengths.shape(0) == n, "frames and lengths should have the same length");
  mb::tfrecord::CheckResult r;
  {
    nb::gil_scoped_release release;
    r = mb::tfrecord::check_frames(data.data(), data.shape(0), frames.data(), lengths.data(), n,
                                   verify);
  }
  return nb::make_tuple(int(r.status), r.failed);
}

// mb::tfrecord::frame_chunk: a chunk of a file read in order, framed (its
// records' data CRCs checked with `verify`) with their stored data CRCs.
nb::dict frame_chunk(Bytes data, bool verify) {
  mb::tfrecord::ChunkResult r;
  {
    nb::gil_scoped_release release;
    r = mb::tfrecord::frame_chunk(data.data(), data.shape(0), verify);
  }
  nb::dict out;
  out["frames"] = owned_numpy(std::move(r.frames));
  out["lengths"] = owned_numpy(std::move(r.lengths));
  out["crcs"] = owned_numpy(std::move(r.crcs));
  out["next"] = r.next;
  out["status"] = int(r.status);
  out["status_offset"] = r.status_offset;
  out["first_bad"] = r.first_bad;
  return out;
}

// mb::tfrecord::digest_rows: 12 bytes per record (length, stored data CRC) as bytes.
nb::bytes digest_rows(Bytes data, Ends frames, Ends lengths) {
  const size_t n = frames.shape(0);
  require(lengths.shape(0) == n, "frames and lengths should have the same length");
  for (size_t i = 0; i < n; ++i) {
    const int64_t pos = frames.data()[i], len = lengths.data()[i];
    require(pos >= 0 && len >= 0 && uint64_t(pos) <= data.shape(0) &&
                uint64_t(len) + uint64_t(mb::tfrecord::kFrameOverhead) <=
                    data.shape(0) - uint64_t(pos),
            "every frame should lie inside the buffer");
  }
  PyObject* b = PyBytes_FromStringAndSize(nullptr, Py_ssize_t(12 * n));
  if (b == nullptr) throw nb::python_error();
  nb::object owner = nb::steal(b);
  uint8_t* out = reinterpret_cast<uint8_t*>(PyBytes_AS_STRING(b));
  {
    nb::gil_scoped_release release;
    mb::tfrecord::digest_rows(data.data(), frames.data(), lengths.data(), n, out);
  }
  return nb::borrow<nb::bytes>(owner);
}

uint32_t crc(Bytes data, uint32_t initial, bool portable) {
  nb::gil_scoped_release release;
  return portable ? mb::tfrecord::crc32c_portable(initial, data.data(), data.shape(0))
                  : mb::tfrecord::crc32c_extend(initial, data.data(), data.shape(0));
}

std::vector<mb::tfrecord::FeatureSpec> feature_specs(const std::vector<std::string>& names,
                                                    const std::vector<int>& kinds) {
  require(names.size() == kinds.size(), "names and kinds should have the same length");
  std::vector<mb::tfrecord::FeatureSpec> specs;
  for (size_t k = 0; k < names.size(); ++k) {
    require(kinds[k] >= 1 && kinds[k] <= 3, "kinds should be 1 (bytes), 2 (float) or 3 (int64)");
    specs.push_back({names[k], mb::tfrecord::Kind(kinds[k])});
  }
  return specs;
}

std::vector<mb::tfrecord::RecordSpan> spans_of(const Bytes& data, const Ends& ends) {
  std::vector<mb::tfrecord::RecordSpan> spans(ends.shape(0));
  int64_t prev = 0;
  for (size_t i = 0; i < ends.shape(0); ++i) {
    require(ends.data()[i] >= prev && uint64_t(ends.data()[i]) <= data.shape(0),
            "ends should be non-decreasing offsets inside data");
    spans[i] = {data.data() + prev, size_t(ends.data()[i] - prev)};
    prev = ends.data()[i];
  }
  return spans;
}

// Spans over the bytes objects of a list or tuple; `keep` holds a reference to
// each, so the bytes stay alive while the GIL is released.
std::vector<mb::tfrecord::RecordSpan> spans_of(nb::handle records, std::vector<nb::object>* keep) {
  nb::object seq = nb::steal(PySequence_Fast(records.ptr(), "records should be a sequence"));
  if (!seq.is_valid()) throw nb::python_error();
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
  std::vector<mb::tfrecord::RecordSpan> spans(static_cast<size_t>(n));
  keep->reserve(size_t(n) + 1);
  keep->push_back(seq);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!PyBytes_Check(items[i])) throw nb::type_error("records should be bytes objects");
    keep->push_back(nb::borrow(items[i]));
    spans[size_t(i)] = {reinterpret_cast<const uint8_t*>(PyBytes_AS_STRING(items[i])),
                        size_t(PyBytes_GET_SIZE(items[i]))};
  }
  return spans;
}

nb::dict column(mb::tfrecord::FeatureValues& f, mb::tfrecord::Kind kind, bool sequence) {
  nb::dict d;
  d["counts"] = owned_numpy(std::move(f.counts));
  if (sequence) d["steps"] = owned_numpy(std::move(f.steps));
  if (kind == mb::tfrecord::Kind::kInt64) d["values"] = owned_numpy(std::move(f.ints));
  if (kind == mb::tfrecord::Kind::kFloat) d["values"] = owned_numpy(std::move(f.floats));
  if (kind == mb::tfrecord::Kind::kBytes) {
    d["values"] = owned_numpy(std::move(f.bytes));
    d["byte_ends"] = owned_numpy(std::move(f.byte_ends));
  }
  return d;
}

nb::dict result_dict(mb::tfrecord::DecodeResult& r,
                     const std::vector<mb::tfrecord::FeatureSpec>& specs, size_t n_context) {
  nb::list features;
  for (size_t k = 0; k < r.features.size(); ++k) {
    features.append(column(r.features[k], specs[k].kind, k >= n_context));
  }
  nb::dict out;
  out["features"] = features;
  out["records"] = r.records;
  out["error"] = int(r.error);
  out["error_record"] = r.error_record;
  out["error_feature"] = r.error_feature;
  out["error_step"] = r.error_step;
  out["error_kind"] = int(r.error_kind);
  return out;
}

nb::dict decode_spans(const std::vector<mb::tfrecord::RecordSpan>& spans,
                      const std::vector<std::string>& names, const std::vector<int>& kinds,
                      bool strict) {
  const auto specs = feature_specs(names, kinds);
  mb::tfrecord::DecodeResult r;
  {
    nb::gil_scoped_release release;
    r = mb::tfrecord::decode_examples(spans.data(), spans.size(), specs, strict);
  }
  return result_dict(r, specs, specs.size());
}

nb::dict decode(Bytes data, Ends ends, const std::vector<std::string>& names,
                const std::vector<int>& kinds, bool strict) {
  return decode_spans(spans_of(data, ends), names, kinds, strict);
}

nb::dict decode_records(nb::handle records, const std::vector<std::string>& names,
                        const std::vector<int>& kinds, bool strict) {
  std::vector<nb::object> keep;
  return decode_spans(spans_of(records, &keep), names, kinds, strict);
}

nb::dict decode_sequence_spans(const std::vector<mb::tfrecord::RecordSpan>& spans,
                               const std::vector<std::string>& cnames,
                               const std::vector<int>& ckinds,
                               const std::vector<std::string>& snames,
                               const std::vector<int>& skinds) {
  const auto context = feature_specs(cnames, ckinds);
  const auto sequence = feature_specs(snames, skinds);
  mb::tfrecord::DecodeResult r;
  {
    nb::gil_scoped_release release;
    r = mb::tfrecord::decode_sequence_examples(spans.data(), spans.size(), context, sequence);
  }
  auto all = context;
  all.insert(all.end(), sequence.begin(), sequence.end());
  return result_dict(r, all, context.size());
}

nb::dict decode_sequence(Bytes data, Ends ends, const std::vector<std::string>& cnames,
                         const std::vector<int>& ckinds, const std::vector<std::string>& snames,
                         const std::vector<int>& skinds) {
  return decode_sequence_spans(spans_of(data, ends), cnames, ckinds, snames, skinds);
}

nb::dict decode_sequence_records(nb::handle records, const std::vector<std::string>& cnames,
                                 const std::vector<int>& ckinds,
                                 const std::vector<std::string>& snames,
                                 const std::vector<int>& skinds) {
  std::vector<nb::object> keep;
  return decode_sequence_spans(spans_of(records, &keep), cnames, ckinds, snames, skinds);
}

// One Example, for parse_single_example's fast path: per feature None (absent),
// a list of bytes, or an int64/float32 array; None for the whole result when the
// record has an error (the caller then takes the general path for TF's message).
nb::object decode_one(nb::bytes record, const std::vector<std::string>& names,
                      const std::vector<int>& kinds) {
  const auto specs = feature_specs(names, kinds);
  const mb::tfrecord::RecordSpan span{reinterpret_cast<const uint8_t*>(record.c_str()),
                                      record.size()};
  mb::tfrecord::DecodeResult r;
  {
    nb::gil_scoped_release release;
    r = mb::tfrecord::decode_examples(&span, 1, specs, true);
  }
  if (r.error != mb::tfrecord::DecodeError::kNone) return nb::none();
  nb::list out;
  for (size_t k = 0; k < specs.size(); ++k) {
    auto& f = r.features[k];
    if (f.counts[0] < 0) {
      out.append(nb::none());
    } else if (specs[k].kind == mb::tfrecord::Kind::kBytes) {
      nb::list values;
      int64_t start = 0;
      for (int64_t end : f.byte_ends) {
        values.append(nb::bytes(reinterpret_cast<const char*>(f.bytes.data()) + start,
                                size_t(end - start)));
        start = end;
      }
      out.append(values);
    } else if (specs[k].kind == mb::tfrecord::Kind::kInt64) {
      out.append(owned_numpy(std::move(f.ints)));
    } else {
      out.append(owned_numpy(std::move(f.floats)));
    }
  }
  return out;
}

// bytes objects for values [lo, hi) of a bytes column (data, ends).
nb::list split_bytes(Bytes data, Ends ends, int64_t lo, int64_t hi) {
  require(0 <= lo && lo <= hi && uint64_t(hi) <= ends.shape(0), "lo/hi lie outside ends");
  nb::list out;
  PyObject* list = PyList_New(Py_ssize_t(hi - lo));
  if (list == nullptr) throw nb::python_error();
  out = nb::steal<nb::list>(list);
  int64_t start = lo ? ends.data()[lo - 1] : 0;
  for (int64_t j = lo; j < hi; ++j) {
    const int64_t stop = ends.data()[j];
    require(start <= stop && uint64_t(stop) <= data.shape(0), "ends should be offsets in data");
    PyObject* b = PyBytes_FromStringAndSize(reinterpret_cast<const char*>(data.data()) + start,
                                            Py_ssize_t(stop - start));
    if (b == nullptr) throw nb::python_error();
    PyList_SET_ITEM(list, Py_ssize_t(j - lo), b);
    start = stop;
  }
  return out;
}

// The inverse of split_bytes: a sequence of bytes objects copied back to back into
// one writable array, with their end offsets (a TypeError names the first element
// that is not bytes). One C pass where Python checks types and lengths per element.
nb::tuple join_bytes(nb::handle records) {
  nb::object seq = nb::steal(PySequence_Fast(records.ptr(), "records should be a sequence"));
  if (!seq.is_valid()) throw nb::python_error();
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
  mb::Buffer<int64_t> ends(static_cast<size_t>(n));
  int64_t total = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!PyBytes_Check(items[i])) {
      throw nb::type_error(("element " + std::to_string(i) + " should be bytes").c_str());
    }
    total += PyBytes_GET_SIZE(items[i]);
    ends[size_t(i)] = total;
  }
  mb::HeapBuffer<uint8_t> data(static_cast<size_t>(total));  // as np.empty: heap memory
  uint8_t* out = data.data();
  for (Py_ssize_t i = 0; i < n; ++i) {  // the GIL held: the sequence cannot change meanwhile
    const Py_ssize_t size = PyBytes_GET_SIZE(items[i]);
    if (size) std::memcpy(out, PyBytes_AS_STRING(items[i]), size_t(size));
    out += size;
  }
  return nb::make_tuple(owned_numpy(std::move(data)), owned_numpy(std::move(ends)));
}

}  // namespace

void bind_tfrecord(nb::module_& m) {
  m.def("tfrecord_scan", &scan, "data"_a, "pos"_a, "max_records"_a, "verify"_a, "skip_bad"_a);
  m.def("tfrecord_read", &read_batch, "data"_a, "pos"_a, "max_records"_a, "max_bytes"_a, "verify"_a,
        "skip_bad"_a);
  m.def("tfrecord_read_list", &read_list, "data"_a, "pos"_a, "max_records"_a, "max_bytes"_a,
        "verify"_a, "skip_bad"_a);
  m.def("tfrecord_check_frames", &check_frames, "data"_a, "frames"_a, "lengths"_a, "verify"_a);
  m.def("tfrecord_frame_many", &frame_many, "data"_a, "ends"_a);
  m.def("tfrecord_digest_rows", &digest_rows, "data"_a, "frames"_a, "lengths"_a);
  m.def("tfrecord_frame_chunk", &frame_chunk, "data"_a, "verify"_a);
  m.def("crc32c", &crc, "data"_a, "initial"_a = 0, "portable"_a = false);
  m.def("crc32c_hardware", &mb::tfrecord::crc32c_hardware);
  m.def("example_decode", &decode, "data"_a, "ends"_a, "names"_a, "kinds"_a, "strict"_a = false);
  m.def("example_decode_records", &decode_records, "records"_a, "names"_a, "kinds"_a,
        "strict"_a = false);
  m.def("sequence_example_decode", &decode_sequence, "data"_a, "ends"_a, "context_names"_a,
        "context_kinds"_a, "sequence_names"_a, "sequence_kinds"_a);
  m.def("sequence_example_decode_records", &decode_sequence_records, "records"_a,
        "context_names"_a, "context_kinds"_a, "sequence_names"_a, "sequence_kinds"_a);
  m.def("split_bytes", &split_bytes, "data"_a, "ends"_a, "lo"_a, "hi"_a);
  m.def("join_bytes", &join_bytes, "records"_a);
  m.def("example_decode_one", &decode_one, "record"_a, "names"_a, "kinds"_a);
}
