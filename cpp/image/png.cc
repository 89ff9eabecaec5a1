#include "png.h"

#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace mb::image {
namespace {

constexpr uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

uint32_t be32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

bool is_type(const uint8_t* t, const char* name) { return std::memcmp(t, name, 4) == 0; }

// Ancillary chunks that hold no pixel meaning, with the only length Pillow
// reads without a possible error; any other chunk sends the image to Pillow.
bool harmless(const uint8_t* type, uint32_t length) {
  return (is_type(type, "gAMA") && length == 4) || (is_type(type, "cHRM") && length == 32) ||
         (is_type(type, "sRGB") && length == 1) || (is_type(type, "pHYs") && length == 9) ||
         (is_type(type, "tIME") && length == 7);
}

int64_t channels_of(uint8_t color_type) {
  switch (color_type) {
    case 0: return 1;
    case 2: return 3;
    case 4: return 2;
    case 6: return 4;
    default: return 0;
  }
}

uint8_t paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return uint8_t(a);
  return uint8_t(pb <= pc ? b : c);
}

// Reverses the scanline filters of `rows` into `out` (stride row bytes).
bool unfilter(const uint8_t* in, int64_t rows, int64_t row, int64_t bpp, uint8_t* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t filter = in[0];
    const uint8_t* src = in + 1;
    uint8_t* cur = out + r * row;
    const uint8_t* prev = r ? cur - row : nullptr;
    switch (filter) {
      case 0:
        std::memcpy(cur, src, size_t(row));
        break;
      case 1:
        for (int64_t i = 0; i < row; ++i) cur[i] = uint8_t(src[i] + (i >= bpp ? cur[i - bpp] : 0));
        break;
      case 2:
        for (int64_t i = 0; i < row; ++i) cur[i] = uint8_t(src[i] + (prev ? prev[i] : 0));
        break;
      case 3:
        for (int64_t i = 0; i < row; ++i) {
          const int left = i >= bpp ? cur[i - bpp] : 0, up = prev ? prev[i] : 0;
          cur[i] = uint8_t(src[i] + ((left + up) >> 1));
        }
        break;
      case 4:
        for (int64_t i = 0; i < row; ++i) {
          const int left = i >= bpp ? cur[i - bpp] : 0, up = prev ? prev[i] : 0;
          const int corner = (i >= bpp && prev) ? prev[i - bpp] : 0;
          cur[i] = uint8_t(src[i] + paeth(left, up, corner));
        }
        break;
      default:
        return false;
    }
    in += row + 1;
  }
  return true;
}

class Decoder {
 public:
  Decoder() { ok_ = inflateInit(&zs_) == Z_OK; }
  ~Decoder() {
    if (ok_) inflateEnd(&zs_);
  }
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  bool decode(const uint8_t* p, size_t n, int64_t h, int64_t w, int64_t c, int64_t max_pixels,
              uint8_t* out);

 private:
  bool inflate_idat(const uint8_t* data, uint32_t length);

  z_stream zs_{};
  bool ok_ = false, ended_ = false;
  std::vector<uint8_t> scanlines_;
};

bool Decoder::inflate_idat(const uint8_t* data, uint32_t length) {
  if (length == 0) return true;
  if (ended_) return false;  // data after the end of the zlib stream
  zs_.next_in = const_cast<Bytef*>(data);
  zs_.avail_in = length;
  while (zs_.avail_in > 0) {
    const int ret = inflate(&zs_, Z_NO_FLUSH);
    if (ret == Z_STREAM_END) {
      ended_ = true;
      return zs_.avail_in == 0;
    }
    if (ret != Z_OK) return false;  // damaged data, or more than the image holds
  }
  return true;
}

bool Decoder::decode(const uint8_t* p, size_t n, int64_t h, int64_t w, int64_t c,
                     int64_t max_pixels, uint8_t* out) {
  if (!ok_ || n < 8 + 25 || std::memcmp(p, kSignature, 8) != 0) return false;
  const int64_t row = w * c;
  scanlines_.resize(size_t(h * (row + 1)));
  if (inflateReset(&zs_) != Z_OK) return false;
  zs_.next_out = scanlines_.data();
  zs_.avail_out = uInt(scanlines_.size());
  ended_ = false;
  size_t pos = 8;
  bool header = false, idat_seen = false, idat_done = false;
  while (true) {
    if (pos + 12 > n) return false;  // no IEND
    const uint32_t length = be32(p + pos);
    const uint8_t* type = p + pos + 4;
    if (length > 0x7fffffffu || n - pos - 12 < length) return false;
    const uint8_t* body = p + pos + 8;
    if (uint32_t(crc32(crc32(0L, type, 4), body, length)) != be32(body + length)) return false;
    const bool is_idat = is_type(type, "IDAT");
    if (!header) {
      if (!is_type(type, "IHDR") || length != 13) return false;
      const int64_t width = be32(body), height = be32(body + 4);
      if (width != w || height != h || body[8] != 8 || channels_of(body[9]) != c ||
          body[10] != 0 || body[11] != 0 || body[12] != 0) {
        return false;
      }
      if (max_pixels > 0 && width * height > max_pixels) return false;
      header = true;
    } else if (is_idat) {
      if (idat_done || !inflate_idat(body, length)) return false;
      idat_seen = true;
    } else if (is_type(type, "IEND")) {
      break;
    } else if (!harmless(type, length)) {
      return false;
    }
    if (idat_seen && !is_idat) idat_done = true;
    pos += 12 + size_t(length);
  }
  if (!ended_ || zs_.avail_out != 0) return false;
  return unfilter(scanlines_.data(), h, row, c, out);
}

}  // namespace

void png_decode_many(const uint8_t* data, const int64_t* starts, const int64_t* ends, size_t n,
                     int64_t height, int64_t width, int64_t channels, int64_t max_pixels,
                     uint8_t* out, int8_t* status) {
  Decoder decoder;
  const int64_t size = height * width * channels;
  for (size_t i = 0; i < n; ++i) {
    const bool ok = height > 0 && width > 0 &&
                    decoder.decode(data + starts[i], size_t(ends[i] - starts[i]), height, width,
                                   channels, max_pixels, out + int64_t(i) * size);
    status[i] = int8_t(ok ? PngStatus::kOk : PngStatus::kNotHandled);
  }
}

}  // namespace mb::image
