// Decimal number scanning with correct rounding straight to float or double.
//
// Grammar (docs/ctf-format.md, "Numbers"):
//   number := [+-] ( DIGIT+ ['.' DIGIT*] | '.' DIGIT+ ) [ (e|E) [+-] DIGIT+ ]
//           | [+-] ( inf | nan )                        (any letter case)
//
// The scanner validates the grammar itself, then converts. Short significands
// take Clinger's exact fast path; everything else goes through
// std::from_chars, which rounds correctly to the target type (no double
// rounding for float). Overflow gives +-inf and underflow +-0, as IEEE
// rounding of the exact value does.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "bytes.h"

namespace mb::ctf {

enum class NumberError : int32_t {
  kNone = 0,
  kExpectedDigit = 1,     // no digit where the grammar needs one
  kExponentDigits = 2,    // an exponent mark without digits
};

struct NumberScan {
  const uint8_t* end;     // first byte after the number (or the error byte)
  NumberError error;
};

namespace detail {

inline const double kPow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                  1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

inline bool lower_equals(const uint8_t* p, const uint8_t* end, const char* word) {
  for (; *word; ++word, ++p) {
    if (p >= end || (*p | 0x20) != static_cast<uint8_t>(*word)) return false;
  }
  return true;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
// Eight ASCII digits at once (SWAR): a check and a conversion with three
// multiplications instead of eight dependent ones.
inline bool eight_digits(uint64_t v) {
  return ((v & 0xF0F0F0F0F0F0F0F0ull) |
          (((v + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) == 0x3333333333333333ull;
}

inline uint64_t eight_digit_value(uint64_t v) {
  const uint64_t mask = 0x000000FF000000FFull;
  v -= 0x3030303030303030ull;
  v = v * 10 + (v >> 8);  // pairs
  return (((v & mask) * (100 + (1000000ull << 32))) +
          (((v >> 16) & mask) * (1 + (10000ull << 32)))) >> 32;
}
#define MB_CTF_SWAR 1
#endif

// Appends the digit run at `p` to `mantissa` while it holds fewer than 19
// digits; counts every digit of the run into `*total`. Returns the run's end.
inline const uint8_t* digits(const uint8_t* p, const uint8_t* end, uint64_t* mantissa,
                             int64_t* kept, int64_t* total) {
  const uint8_t* start = p;
#ifdef MB_CTF_SWAR
  while (*kept <= 11 && end - p >= 8) {
    uint64_t chunk;
    std::memcpy(&chunk, p, 8);
    if (!eight_digits(chunk)) break;
    *mantissa = *mantissa * 100000000ull + eight_digit_value(chunk);
    *kept += 8;
    p += 8;
  }
#endif
  for (; p < end && is_digit(*p); ++p) {
    if (*kept < 19) {
      *mantissa = *mantissa * 10 + uint64_t(*p - '0');
      ++*kept;
    }
  }
  *total += p - start;
  return p;
}

// True when `d` lies exactly halfway between two adjacent floats.
inline bool is_float_tie(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return (bits & 0x1FFFFFFFull) == 0x10000000ull;
}

template <typename T>
bool from_chars_value(const uint8_t* begin, const uint8_t* end, int64_t magnitude, bool negative,
                      T* out) {
  T value{};
  auto res = std::from_chars(reinterpret_cast<const char*>(begin),
                             reinterpret_cast<const char*>(end), value);
  if (res.ec == std::errc::result_out_of_range) {
    // from_chars leaves the value untouched: decide the direction ourselves.
    value = magnitude > 0 ? std::numeric_limits<T>::infinity() : T(0);
    if (negative) value = -value;
  } else if (res.ec != std::errc()) {
    return false;
  }
  *out = value;
  return true;
}

}  // namespace detail

// Scans one number at `p` (p < end) and stores its value in `*out`.
template <typename T>
NumberScan scan_number(const uint8_t* p, const uint8_t* end, T* out) {
  const uint8_t* start = p;
  bool negative = false;
  if (*p == '+' || *p == '-') {
    negative = *p == '-';
    ++p;
  }
  if (p < end && ((*p | 0x20) == 'i' || (*p | 0x20) == 'n')) {
    if (detail::lower_equals(p, end, "inf")) {
      *out = negative ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
      return {p + 3, NumberError::kNone};
    }
    if (detail::lower_equals(p, end, "nan")) {
      *out = std::copysign(std::numeric_limits<T>::quiet_NaN(), negative ? T(-1) : T(1));
      return {p + 3, NumberError::kNone};
    }
    return {p, NumberError::kExpectedDigit};
  }
  // The significand: up to 19 significant digits in `mantissa` (leading
  // zeros skipped), the rest only counted; `fraction_digits` are the
  // fraction digits (zeros included) that went into the value's scale.
  uint64_t mantissa = 0;
  int64_t kept = 0, integer_digits = 0, fraction_total = 0, fraction_kept = 0;
  const uint8_t* digits_start = p;
  while (p < end && *p == '0') ++p;
  p = detail::digits(p, end, &mantissa, &kept, &integer_digits);
  const int64_t integer_kept = kept;
  bool any_digit = p > digits_start;
  bool plain_integer = true;
  int64_t fraction_zeros = 0;
  if (p < end && *p == '.') {
    plain_integer = false;
    const uint8_t* fraction_start = ++p;
    if (kept == 0) {
      while (p < end && *p == '0') ++p;
      fraction_zeros = p - fraction_start;
    }
    p = detail::digits(p, end, &mantissa, &kept, &fraction_total);
    fraction_kept = kept - integer_kept;
    any_digit = any_digit || p > fraction_start;
  }
  const int64_t significant = integer_digits + fraction_total;
  const int64_t fraction_digits = fraction_zeros + fraction_kept;
  const int64_t integer_significant = integer_digits;
  if (!any_digit) return {p, NumberError::kExpectedDigit};
  int64_t exponent = 0;
  if (p < end && (*p | 0x20) == 'e') {
    plain_integer = false;
    ++p;
    bool negative_exponent = false;
    if (p < end && (*p == '+' || *p == '-')) {
      negative_exponent = *p == '-';
      ++p;
    }
    if (p >= end || !is_digit(*p)) return {p, NumberError::kExponentDigits};
    for (; p < end && is_digit(*p); ++p) {
      if (exponent < 100000000) exponent = exponent * 10 + (*p - '0');
    }
    if (negative_exponent) exponent = -exponent;
  }
  // Digits dropped beyond the 19th shift the decimal exponent.
  const int64_t dropped = significant > 19 ? significant - 19 : 0;
  const int64_t integer_dropped = integer_significant > 19 ? integer_significant - 19 : 0;
  const int64_t e10 = exponent - fraction_digits + integer_dropped;
  if (dropped == 0) {
    if (plain_integer && significant <= 18) {
      T value = static_cast<T>(static_cast<int64_t>(mantissa));
      *out = negative ? -value : value;
      return {p, NumberError::kNone};
    }
    if (mantissa <= (uint64_t(1) << 53) && e10 >= -22 && e10 <= 22) {
      double d = static_cast<double>(mantissa);
      d = e10 < 0 ? d / detail::kPow10[-e10] : d * detail::kPow10[e10];
      if (sizeof(T) == sizeof(double) || !detail::is_float_tie(d)) {
        T value = static_cast<T>(d);
        *out = negative ? -value : value;
        return {p, NumberError::kNone};
      }
    }
  }
  const uint8_t* convert_from = *start == '+' ? start + 1 : start;
  // Decimal position of the leading digit: decides overflow versus underflow.
  const int64_t magnitude = significant == 0 ? -1 : e10 + significant - dropped;
  if (!detail::from_chars_value<T>(convert_from, p, magnitude, negative, out)) {
    return {start, NumberError::kExpectedDigit};
  }
  return {p, NumberError::kNone};
}

// The common short case, inlined by the parser: DIGITS[.DIGITS*] with at most 9
// integer digits and 15 in all. Returns the end of the number's prefix it read (the
// caller checks that a delimiter follows), or nullptr (nothing stored) for anything
// else, which scan_number then reads. The value is scan_number's: the digits are an
// exact double and 10^k an exact power (Clinger's fast path; a float tie is left to
// from_chars).
template <typename T>
inline const uint8_t* scan_short_decimal(const uint8_t* p, const uint8_t* end, T* out) {
  const uint8_t* q = p;
  uint32_t integer = 0;
  for (int n = 0; q < end && n < 9 && is_digit(*q); ++n, ++q) integer = integer * 10 + (*q - '0');
  if (q == p) return nullptr;
  if (q == end || *q != '.') {
    *out = static_cast<T>(integer);
    return q;
  }
  const uint8_t* fraction = ++q;
  const int64_t room = 15 - (fraction - 1 - p);
  uint64_t mantissa = integer;
  for (; q < end && is_digit(*q); ++q) {
    if (q - fraction >= room) return nullptr;
    mantissa = mantissa * 10 + uint64_t(*q - '0');
  }
  const double d = static_cast<double>(mantissa) / detail::kPow10[q - fraction];
  if (sizeof(T) != sizeof(double) && detail::is_float_tie(d)) return nullptr;
  *out = static_cast<T>(d);
  return q;
}

// Scans an unsigned decimal integer (a sparse index). Returns false and sets
// `*overflow` when the digits do not fit into uint64.
inline const uint8_t* scan_uint64(const uint8_t* p, const uint8_t* end, uint64_t* out,
                                  bool* overflow) {
  uint64_t value = 0;
  *overflow = false;
  for (; p < end && is_digit(*p); ++p) {
    uint64_t digit = *p - '0';
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) *overflow = true;
    value = value * 10 + digit;
  }
  *out = value;
  return p;
}

}  // namespace mb::ctf
