// Thin nanobind binding of the pure C++ core: validates arguments, releases
// the GIL around every kernel and hands results to NumPy without copying.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "../ctf/indexer.h"
#include "../ctf/parser.h"
#include "../ctf/survey.h"
#include "../engine/block_randomizer.h"
#include "../engine/gather.h"
#include "util.h"

namespace nb = nanobind;
using namespace nb::literals;
using mb::bindings::IntArray;
using mb::bindings::owned_numpy;
using mb::bindings::with_integers;

void bind_buffer_pool(nb::module_& m);  // cpp/bindings/buffer_pool.cc
void bind_htk(nb::module_& m);  // cpp/bindings/htk.cc
void bind_image(nb::module_& m);  // cpp/bindings/image.cc
void bind_engine(nb::module_& m);  // cpp/bindings/engine.cc
void bind_randomizer(nb::module_& m);  // cpp/bindings/randomizer.cc
void bind_text(nb::module_& m);    // cpp/bindings/text.cc
void bind_tfdata(nb::module_& m);  // cpp/bindings/tfdata.cc
void bind_tfrecord(nb::module_& m);  // cpp/bindings/tfrecord.cc

namespace {

template <typename T>
using Vec1 = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

void require(bool ok, const std::string& message) {
  if (!ok) throw nb::value_error(message.c_str());
}

nb::dict index_result(mb::ctf::IndexResult&& result) {
  nb::dict out;
  out["status"] = int(result.status);
  out["status_offset"] = result.status_offset;
  out["status_line"] = result.status_line;
  out["line_mode"] = result.line_mode;
  out["keys"] = owned_numpy(std::move(result.keys));
  out["offsets"] = owned_numpy(std::move(result.offsets));
  out["sizes"] = owned_numpy(std::move(result.sizes));
  out["rows"] = owned_numpy(std::move(result.rows));
  out["lines"] = owned_numpy(std::move(result.lines));
  out["total_lines"] = result.total_lines;
  out["ignored_lines"] = result.ignored_lines;
  out["dropped_offsets"] = owned_numpy(std::move(result.dropped_offsets));
  out["dropped_lines"] = owned_numpy(std::move(result.dropped_lines));
  return out;
}

nb::dict build_index(Vec1<uint8_t> data, bool skip_sequence_ids, const std::string& main_alias,
                     nb::object progress) {
  mb::ctf::IndexOptions options{skip_sequence_ids, main_alias};
  std::function<bool(int64_t)> report = [&progress](int64_t done) {
    nb::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) throw nb::python_error();
    if (!progress.is_none()) progress(done);
    return true;
  };
  mb::ctf::IndexResult result;
  {
    nb::gil_scoped_release release;
    result = mb::ctf::build_index(data.data(), data.shape(0), options, report);
  }
  return index_result(std::move(result));
}

// The streaming indexer: blocks read with pread are fed one after another.
void bind_streaming_indexer(nb::module_& m) {
  using Indexer = mb::ctf::StreamingIndexer;
  nb::class_<Indexer>(m, "CtfIndexer")
      .def("__init__",
           [](Indexer* self, bool skip_sequence_ids, const std::string& main_alias) {
             new (self) Indexer(mb::ctf::IndexOptions{skip_sequence_ids, main_alias});
           },
           "skip_sequence_ids"_a, "main_alias"_a)
      .def("feed",
           [](Indexer& self, Vec1<uint8_t> data, int64_t base_offset, bool final) {
             require(base_offset == self.consumed(),
                     "base_offset should be where the previous block was consumed");
             nb::gil_scoped_release release;
             return self.feed(data.data(), data.shape(0), base_offset, final);
           },
           "data"_a, "base_offset"_a, "final"_a)
      .def_prop_ro("status", [](const Indexer& self) { return int(self.status()); })
      .def_prop_ro("consumed", [](const Indexer& self) { return self.consumed(); })
      .def("finish", [](Indexer& self) {
        mb::ctf::IndexResult result;
        {
          nb::gil_scoped_release release;
          result = self.finish();
        }
        return index_result(std::move(result));
      });
}

nb::object chunk_starts(IntArray offsets, IntArray sizes, int64_t max_chunk) {
  require(offsets.shape(0) == sizes.shape(0), "offsets and sizes should have the same length");
  require(max_chunk > 0, "max_chunk should be positive");
  std::vector<int64_t> starts;
  with_integers(offsets, "offsets", [&](const auto* o) {
    with_integers(sizes, "sizes", [&](const auto* s) {
      nb::gil_scoped_release release;
      starts = mb::ctf::chunk_starts(o, s, offsets.shape(0), max_chunk);
    });
  });
  return owned_numpy(std::move(starts));
}

template <typename T>
nb::dict parse_result(mb::ctf::ParseResult<T>&& result) {
  nb::list streams;
  for (auto& s : result.streams) {
    nb::dict d;
    d["values"] = owned_numpy(std::move(s.values));
    d["indices"] = s.indices64.empty() ? owned_numpy(std::move(s.indices32))
                                       : owned_numpy(std::move(s.indices64));
    d["indptr"] = owned_numpy(std::move(s.indptr));
    d["sequence_samples"] = owned_numpy(std::move(s.sequence_samples));
    d["samples"] = s.samples;
    streams.append(d);
  }
  std::vector<int64_t> issues;
  issues.reserve(result.issues.size() * 7);
  for (const auto& i : result.issues) {
    issues.insert(issues.end(), {int64_t(i.code), int64_t(i.stream), i.offset, i.line,
                                 i.sequence, i.a, i.b});
  }
  nb::dict out;
  out["streams"] = streams;
  out["issues"] = owned_numpy(std::move(issues));
  out["errors"] = result.errors;
  out["dense_short"] = result.dense_short;
  out["unknown_inputs"] = result.unknown_inputs;
  out["aborted"] = result.aborted;
  return out;
}

struct SpanArrays {
  Vec1<int64_t> offsets, sizes, rows, lines;
};

std::vector<mb::ctf::SequenceSpan> spans(const SpanArrays& a, size_t buffer_size) {
  const size_t n = a.offsets.shape(0);
  require(a.sizes.shape(0) == n && a.rows.shape(0) == n && a.lines.shape(0) == n,
          "sequence offsets, sizes, rows and lines should have the same length");
  std::vector<mb::ctf::SequenceSpan> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t off = a.offsets.data()[i], size = a.sizes.data()[i];
    require(off >= 0 && size >= 0 && uint64_t(off) + uint64_t(size) <= buffer_size,
            "sequence span " + std::to_string(i) + " lies outside the buffer");
    require(a.rows.data()[i] >= 0, "sequence rows should be non-negative");
    out[i] = {off, size, a.rows.data()[i], a.lines.data()[i]};
  }
  return out;
}

std::vector<mb::ctf::StreamSpec> stream_specs(const std::vector<std::string>& aliases,
                                              const std::vector<int64_t>& dims,
                                              const std::vector<bool>& sparse, int32_t main_stream,
                                              int64_t error_limit) {
  require(aliases.size() == dims.size() && dims.size() == sparse.size(),
          "aliases, dims and sparse should have the same length");
  require(main_stream >= -1 && main_stream < int32_t(aliases.size()), "main_stream out of range");
  require(error_limit >= 1, "error_limit should be at least 1");
  std::vector<mb::ctf::StreamSpec> specs;
  for (size_t k = 0; k < aliases.size(); ++k) {
    require(dims[k] > 0, "dims should be positive");
    specs.push_back({aliases[k], dims[k], bool(sparse[k])});
  }
  return specs;
}

nb::dict parse(Vec1<uint8_t> data, int64_t base_offset, Vec1<int64_t> offsets, Vec1<int64_t> sizes,
               Vec1<int64_t> rows, Vec1<int64_t> lines, const std::vector<std::string>& aliases,
               const std::vector<int64_t>& dims, const std::vector<bool>& sparse,
               int32_t main_stream, bool is_double, int64_t error_limit, int64_t warning_limit,
               bool skip_incomplete) {
  const auto specs = stream_specs(aliases, dims, sparse, main_stream, error_limit);
  const auto seqs = spans({offsets, sizes, rows, lines}, data.shape(0));
  mb::ctf::ParseRequest request;
  request.data = data.data();
  request.size = data.shape(0);
  request.base_offset = base_offset;
  request.sequences = seqs.data();
  request.count = seqs.size();
  request.main_stream = main_stream;
  request.error_limit = error_limit;
  request.warning_limit = warning_limit;
  request.skip_incomplete = skip_incomplete;
  if (is_double) {
    mb::ctf::ParseResult<double> result;
    {
      nb::gil_scoped_release release;
      result = mb::ctf::parse_chunk<double>(request, specs);
    }
    return parse_result(std::move(result));
  }
  mb::ctf::ParseResult<float> result;
  {
    nb::gil_scoped_release release;
    result = mb::ctf::parse_chunk<float>(request, specs);
  }
  return parse_result(std::move(result));
}

// A chunk parser fed block by block (see mb::ctf::StreamingParser).
template <typename T>
void bind_streaming_parser(nb::module_& m, const char* name) {
  using Parser = mb::ctf::StreamingParser<T>;
  nb::class_<Parser>(m, name)
      .def("__init__",
           [](Parser* self, const std::vector<std::string>& aliases, const std::vector<int64_t>& dims,
              const std::vector<bool>& sparse, int32_t main_stream, int64_t error_limit,
              int64_t warning_limit, uint64_t rows_hint, uint64_t bytes_hint,
              uint64_t sequences_hint, bool skip_incomplete, int64_t first_sequence) {
             require(first_sequence >= 0, "first_sequence should be non-negative");
             mb::ctf::ParseSettings settings;
             settings.first_sequence = first_sequence;
             settings.main_stream = main_stream;
             settings.error_limit = error_limit;
             settings.warning_limit = warning_limit;
             settings.rows_hint = rows_hint;
             settings.bytes_hint = bytes_hint;
             settings.sequences_hint = sequences_hint;
             settings.skip_incomplete = skip_incomplete;
             new (self) Parser(stream_specs(aliases, dims, sparse, main_stream, error_limit), settings);
           },
           "aliases"_a, "dims"_a, "sparse"_a, "main_stream"_a, "error_limit"_a, "warning_limit"_a,
           "rows_hint"_a, "bytes_hint"_a, "sequences_hint"_a, "skip_incomplete"_a = false,
           "first_sequence"_a = 0)
      .def("feed",
           [](Parser& self, Vec1<uint8_t> data, int64_t base_offset, Vec1<int64_t> offsets,
              Vec1<int64_t> sizes, Vec1<int64_t> rows, Vec1<int64_t> lines) {
             const auto seqs = spans({offsets, sizes, rows, lines}, data.shape(0));
             nb::gil_scoped_release release;
             self.feed(data.data(), data.shape(0), base_offset, seqs.data(), seqs.size());
           },
           "data"_a, "base_offset"_a, "offsets"_a, "sizes"_a, "rows"_a, "lines"_a)
      .def("finish",
           [](Parser& self) {
             mb::ctf::ParseResult<T> result;
             {
               nb::gil_scoped_release release;
               result = self.finish();
             }
             return parse_result(std::move(result));
           })
      .def("append",
           [](Parser& self, Parser& later) {
             require(&self != &later, "a parser cannot append itself");
             nb::gil_scoped_release release;
             return self.append(later);
           },
           "later"_a)
      .def_prop_ro("next_sequence", [](const Parser& self) { return self.next_sequence(); })
      .def_prop_ro("aborted", [](const Parser& self) { return self.aborted(); });
}

nb::list survey(Vec1<uint8_t> data) {
  std::vector<mb::ctf::NameSurvey> result;
  {
    nb::gil_scoped_release release;
    result = mb::ctf::survey(data.data(), data.shape(0));
  }
  nb::list out;
  for (const auto& s : result) {
    nb::dict d;
    d["name"] = s.name;
    d["samples"] = s.samples;
    d["tokens"] = s.tokens;
    d["sparse_tokens"] = s.sparse_tokens;
    d["max_index"] = s.has_index ? nb::cast(s.max_index) : nb::none();
    d["min_tokens"] = s.min_tokens;
    d["max_tokens"] = s.max_tokens;
    out.append(d);
  }
  return out;
}

nb::dict block_randomize(Vec1<int64_t> chunk_sequences, Vec1<int64_t> chunk_samples,
                         uint64_t window, bool sample_based, uint64_t seed) {
  require(chunk_sequences.shape(0) == chunk_samples.shape(0),
          "chunk_sequences and chunk_samples should have the same length");
  for (size_t i = 0; i < chunk_sequences.shape(0); ++i) {
    require(chunk_sequences.data()[i] > 0, "every chunk should hold at least one sequence");
  }
  mb::engine::SweepOrder order;
  {
    nb::gil_scoped_release release;
    order = mb::engine::randomize_sweep(chunk_sequences.data(), chunk_samples.data(),
                                        chunk_sequences.shape(0), window, sample_based, seed);
  }
  nb::dict out;
  out["chunk_order"] = owned_numpy(std::move(order.chunk_order));
  out["window_begin"] = owned_numpy(std::move(order.window_begin));
  out["window_end"] = owned_numpy(std::move(order.window_end));
  out["sequences"] = owned_numpy(std::move(order.sequences));
  out["source_chunk"] = owned_numpy(std::move(order.source_chunk));
  return out;
}

using AnyArray = nb::ndarray<nb::c_contig, nb::device::cpu>;

mb::engine::Pieces pieces(Vec1<int32_t> source, Vec1<int64_t> start, Vec1<int64_t> length) {
  require(source.shape(0) == start.shape(0) && start.shape(0) == length.shape(0),
          "source, start and length should have the same length");
  return {source.data(), start.data(), length.data(), source.shape(0)};
}

nb::object gather_dense(const std::vector<AnyArray>& values, size_t row_bytes,
                        Vec1<int32_t> source, Vec1<int64_t> start, Vec1<int64_t> length) {
  require(row_bytes > 0, "row_bytes should be positive");
  std::vector<mb::engine::DenseSource> sources;
  for (const auto& v : values) {
    require(v.nbytes() % row_bytes == 0, "a source's size is not a multiple of row_bytes");
    sources.push_back({static_cast<const uint8_t*>(v.data()), int64_t(v.nbytes() / row_bytes)});
  }
  const auto p = pieces(source, start, length);
  mb::HeapBuffer<uint8_t> out;
  bool ok;
  {
    nb::gil_scoped_release release;
    ok = mb::engine::gather_dense(sources.data(), sources.size(), row_bytes, p, &out);
  }
  require(ok, "a gathered range lies outside its source");
  return owned_numpy(std::move(out));
}

nb::tuple gather_csr(const std::vector<AnyArray>& values, const std::vector<AnyArray>& indices,
                     const std::vector<Vec1<int64_t>>& indptr, size_t value_bytes,
                     size_t index_bytes, Vec1<int32_t> source, Vec1<int64_t> start,
                     Vec1<int64_t> length) {
  require(values.size() == indices.size() && values.size() == indptr.size(),
          "values, indices and indptr should list the same sources");
  require(value_bytes > 0 && index_bytes > 0, "value_bytes and index_bytes should be positive");
  std::vector<mb::engine::CsrSource> sources;
  for (size_t i = 0; i < values.size(); ++i) {
    require(indptr[i].shape(0) >= 1, "indptr should hold at least one offset");
    const int64_t nnz = int64_t(std::min(values[i].nbytes() / value_bytes,
                                         indices[i].nbytes() / index_bytes));
    sources.push_back({static_cast<const uint8_t*>(values[i].data()),
                       static_cast<const uint8_t*>(indices[i].data()), indptr[i].data(),
                       int64_t(indptr[i].shape(0)) - 1, nnz});
  }
  const auto p = pieces(source, start, length);
  mb::engine::CsrOutput out;
  bool ok;
  {
    nb::gil_scoped_release release;
    ok = mb::engine::gather_csr(sources.data(), sources.size(), value_bytes, index_bytes, p, &out);
  }
  require(ok, "a gathered range lies outside its source, or its indptr is not increasing");
  return nb::make_tuple(owned_numpy(std::move(out.values)), owned_numpy(std::move(out.indices)),
                        owned_numpy(std::move(out.indptr)));
}

nb::tuple sequence_ranges(const std::vector<Vec1<int64_t>>& offsets, Vec1<int32_t> source,
                          Vec1<int64_t> within) {
  require(source.shape(0) == within.shape(0), "source and within should have the same length");
  std::vector<const int64_t*> pointers;
  std::vector<int64_t> counts;
  for (const auto& o : offsets) {
    pointers.push_back(o.data());
    counts.push_back(int64_t(o.shape(0)));
  }
  const size_t n = source.shape(0);
  mb::Buffer<int64_t> start(n), length(n);
  const bool ok = mb::engine::sequence_ranges(pointers.data(), counts.data(), pointers.size(),
                                             source.data(), within.data(), n, start.data(),
                                             length.data());
  require(ok, "a sequence index lies outside its source's offsets");
  return nb::make_tuple(owned_numpy(std::move(start)), owned_numpy(std::move(length)));
}

}  // namespace

NB_MODULE(_native, m) {
  m.doc() = "minibatcher's native kernels (CTF indexing and parsing, block randomization).";
  m.def("ctf_build_index", &build_index, "data"_a, "skip_sequence_ids"_a, "main_alias"_a,
        "progress"_a = nb::none());
  m.def("ctf_chunk_starts", &chunk_starts, "offsets"_a, "sizes"_a, "max_chunk"_a);
  m.def("ctf_parse", &parse, "data"_a, "base_offset"_a, "offsets"_a, "sizes"_a, "rows"_a,
        "lines"_a, "aliases"_a, "dims"_a, "sparse"_a, "main_stream"_a, "is_double"_a,
        "error_limit"_a, "warning_limit"_a, "skip_incomplete"_a = false);
  m.def("ctf_survey", &survey, "data"_a);
  m.def("gather_dense", &gather_dense, "values"_a, "row_bytes"_a, "source"_a, "start"_a, "length"_a);
  m.def("gather_csr", &gather_csr, "values"_a, "indices"_a, "indptr"_a, "value_bytes"_a,
        "index_bytes"_a, "source"_a, "start"_a, "length"_a);
  m.def("sequence_ranges", &sequence_ranges, "offsets"_a, "source"_a, "within"_a);
  bind_buffer_pool(m);
  bind_streaming_indexer(m);
  bind_streaming_parser<float>(m, "CtfParserFloat");
  bind_streaming_parser<double>(m, "CtfParserDouble");
  m.def("block_randomize", &block_randomize, "chunk_sequences"_a, "chunk_samples"_a, "window"_a,
        "sample_based"_a, "seed"_a);
  bind_htk(m);
  bind_image(m);
  bind_engine(m);
  bind_randomizer(m);
  bind_text(m);
  bind_tfdata(m);
  bind_tfrecord(m);
}
