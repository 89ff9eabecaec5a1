// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as TFRecord framing
// uses it, plus TensorFlow's "masked" form of a CRC.
//
// The hardware instruction is used where the CPU has it (x86 SSE4.2, checked
// at run time; ARMv8 CRC, when the compiler targets it); otherwise a portable
// slicing-by-8 table implementation. Both give identical results.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mb::tfrecord {

// Extends `crc` (0 for a new checksum) over `n` bytes at `p`.
uint32_t crc32c_extend(uint32_t crc, const uint8_t* p, size_t n);

inline uint32_t crc32c(const uint8_t* p, size_t n) { return crc32c_extend(0, p, n); }

// The portable implementation (exposed so tests can compare it with the
// hardware path).
uint32_t crc32c_portable(uint32_t crc, const uint8_t* p, size_t n);

// The CRC-32C of each of `count` buffers (p[i], n[i] bytes) into out[i]; with the
// x86 instruction six buffers are checksummed at once (then three): one CRC chain
// waits on the instruction's latency, six keep a CPU that issues two a cycle busy
// (11 GB/s for one chain, 66 GB/s for six on Zen 5). Same values as crc32c.
void crc32c_many(const uint8_t* const* p, const size_t* n, size_t count, uint32_t* out);

// Whether crc32c_extend uses a CPU instruction.
bool crc32c_hardware();

// TensorFlow's masked CRC: rotate right by 15 bits, then add a constant.
inline uint32_t mask_crc(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xA282EAD8u;
}

inline uint32_t masked_crc32c(const uint8_t* p, size_t n) { return mask_crc(crc32c(p, n)); }

}  // namespace mb::tfrecord
