#include "crc32c.h"

#include <algorithm>
#include <array>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define MB_CRC_X86 1
#endif
#if defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>
#define MB_CRC_ARM 1
#endif

namespace mb::tfrecord {
namespace {

constexpr uint32_t kPoly = 0x82F63B78u;

struct Tables {
  std::array<std::array<uint32_t, 256>, 8> t{};
  Tables() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1u) ? kPoly : 0u);
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i) {
      for (size_t s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFFu];
    }
  }
};

const Tables& tables() {
  static const Tables instance;
  return instance;
}

uint64_t load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;  // little-endian hosts only (every platform we build for)
}

#ifdef MB_CRC_X86
__attribute__((target("sse4.2"))) uint32_t crc_sse42(uint32_t crc, const uint8_t* p, size_t n) {
  uint64_t c = ~crc;
  for (; n >= 8; n -= 8, p += 8) c = _mm_crc32_u64(c, load64(p));
  uint32_t c32 = uint32_t(c);
  for (; n > 0; --n, ++p) c32 = _mm_crc32_u8(c32, *p);
  return ~c32;
}

// Three buffers at once: the instruction has a latency of three cycles and a
// throughput of one (Intel, Zen 4), so three independent CRCs cost about what one does.
__attribute__((target("sse4.2"))) void crc3_sse42(const uint8_t* const* p, const size_t* n,
                                                  uint32_t* out) {
  const size_t common = std::min(n[0], std::min(n[1], n[2])) & ~size_t(7);
  uint64_t c0 = 0xFFFFFFFFu, c1 = 0xFFFFFFFFu, c2 = 0xFFFFFFFFu;
  for (size_t i = 0; i < common; i += 8) {
    c0 = _mm_crc32_u64(c0, load64(p[0] + i));
    c1 = _mm_crc32_u64(c1, load64(p[1] + i));
    c2 = _mm_crc32_u64(c2, load64(p[2] + i));
  }
  const uint64_t c[3] = {c0, c1, c2};
  for (int k = 0; k < 3; ++k) out[k] = crc_sse42(~uint32_t(c[k]), p[k] + common, n[k] - common);
}

// Six at once: CPUs that issue more than one CRC instruction per cycle (Zen 5 runs
// six chains at twice the speed of three, 66 against 33 GB/s) keep them busy;
// the others lose nothing.
__attribute__((target("sse4.2"))) void crc6_sse42(const uint8_t* const* p, const size_t* n,
                                                  uint32_t* out) {
  size_t common = n[0];
  for (int k = 1; k < 6; ++k) common = std::min(common, n[k]);
  common &= ~size_t(7);
  uint64_t c0 = 0xFFFFFFFFu, c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0;
  for (size_t i = 0; i < common; i += 8) {
    c0 = _mm_crc32_u64(c0, load64(p[0] + i));
    c1 = _mm_crc32_u64(c1, load64(p[1] + i));
    c2 = _mm_crc32_u64(c2, load64(p[2] + i));
    c3 = _mm_crc32_u64(c3, load64(p[3] + i));
    c4 = _mm_crc32_u64(c4, load64(p[4] + i));
    c5 = _mm_crc32_u64(c5, load64(p[5] + i));
  }
  const uint64_t c[6] = {c0, c1, c2, c3, c4, c5};
  for (int k = 0; k < 6; ++k) out[k] = crc_sse42(~uint32_t(c[k]), p[k] + common, n[k] - common);
}

bool detect() { return __builtin_cpu_supports("sse4.2"); }
#endif

#ifdef MB_CRC_ARM
uint32_t crc_arm(uint32_t crc, const uint8_t* p, size_t n) {
  uint32_t c = ~crc;
  for (; n >= 8; n -= 8, p += 8) c = __crc32cd(c, load64(p));
  for (; n > 0; --n, ++p) c = __crc32cb(c, *p);
  return ~c;
}
#endif

}  // namespace

uint32_t crc32c_portable(uint32_t crc, const uint8_t* p, size_t n) {
  const auto& t = tables().t;
  uint32_t c = ~crc;
  for (; n >= 8; n -= 8, p += 8) {
    const uint64_t v = load64(p) ^ c;
    c = t[7][v & 0xFF] ^ t[6][(v >> 8) & 0xFF] ^ t[5][(v >> 16) & 0xFF] ^
        t[4][(v >> 24) & 0xFF] ^ t[3][(v >> 32) & 0xFF] ^ t[2][(v >> 40) & 0xFF] ^
        t[1][(v >> 48) & 0xFF] ^ t[0][v >> 56];
  }
  for (; n > 0; --n, ++p) c = (c >> 8) ^ t[0][(c ^ *p) & 0xFF];
  return ~c;
}

bool crc32c_hardware() {
#if defined(MB_CRC_X86)
  static const bool has = detect();
  return has;
#elif defined(MB_CRC_ARM)
  return true;
#else
  return false;
#endif
}

uint32_t crc32c_extend(uint32_t crc, const uint8_t* p, size_t n) {
#if defined(MB_CRC_X86)
  if (crc32c_hardware()) return crc_sse42(crc, p, n);
#elif defined(MB_CRC_ARM)
  return crc_arm(crc, p, n);
#endif
  return crc32c_portable(crc, p, n);
}

void crc32c_many(const uint8_t* const* p, const size_t* n, size_t count, uint32_t* out) {
  size_t i = 0;
#if defined(MB_CRC_X86)
  if (crc32c_hardware()) {
    for (; i + 6 <= count; i += 6) crc6_sse42(p + i, n + i, out + i);
    for (; i + 3 <= count; i += 3) crc3_sse42(p + i, n + i, out + i);
  }
#endif
  for (; i < count; ++i) out[i] = crc32c_extend(0, p[i], n[i]);
}

}  // namespace mb::tfrecord
