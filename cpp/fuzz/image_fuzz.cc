// libFuzzer harness for the PNG decoder (cpp/image/png.h; built by tools/fuzz.sh).
//
// Input: b[0] (height 1..16), b[1] (width 1..16), b[2] (channels 1..4, and
// bit 7: wrap), then the file. Wrapped, the rest is taken as raw scanlines
// and put into a well-formed PNG (IHDR of that size, zlib-compressed IDAT
// split in two, IEND, right CRCs), so the filters and the inflate path are
// reached; otherwise the bytes are the file as they are. Every image must
// be decoded or reported not handled, never read or written out of bounds;
// a decoded well-formed file must have consumed exactly its scanlines.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "image/png.h"

namespace {

#define CHECK(cond)                \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (0)

void put32(std::vector<uint8_t>& out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(uint8_t(v >> s));
}

void chunk(std::vector<uint8_t>& out, const char* type, const uint8_t* body, size_t n) {
  put32(out, uint32_t(n));
  const size_t at = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), body, body + n);
  put32(out, uint32_t(crc32(0L, out.data() + at, uInt(n + 4))));
}

std::vector<uint8_t> wrap(const uint8_t* raw, size_t n, int64_t h, int64_t w, int64_t c) {
  static const uint8_t kTypes[5] = {0, 0, 4, 2, 6};
  std::vector<uint8_t> out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  uint8_t ihdr[13] = {0, 0, 0, uint8_t(w), 0, 0, 0, uint8_t(h), 8, kTypes[c], 0, 0, 0};
  chunk(out, "IHDR", ihdr, sizeof ihdr);
  uLongf size = compressBound(uLong(n));
  std::vector<uint8_t> z(size);
  CHECK(compress(z.data(), &size, raw, uLong(n)) == Z_OK);
  chunk(out, "IDAT", z.data(), size / 2);
  chunk(out, "IDAT", z.data() + size / 2, size - size / 2);
  chunk(out, "IEND", nullptr, 0);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const int64_t h = 1 + data[0] % 16, w = 1 + data[1] % 16, c = 1 + (data[2] & 3);
  const bool wrapped = (data[2] & 0x80) != 0;
  std::vector<uint8_t> file(data + 3, data + size);
  if (wrapped) file = wrap(data + 3, size - 3, h, w, c);
  const int64_t starts[1] = {0}, ends[1] = {int64_t(file.size())};
  std::vector<uint8_t> out(size_t(h * w * c) + 1, 0xA5);
  int8_t status = -1;
  mb::image::png_decode_many(file.data(), starts, ends, 1, h, w, c, -1, out.data(), &status);
  CHECK(status == 0 || status == 1);
  CHECK(out.back() == 0xA5);  // nothing written past the image
  if (wrapped && status == 0) CHECK(size - 3 == size_t(h * (w * c + 1)));
  return 0;
}
