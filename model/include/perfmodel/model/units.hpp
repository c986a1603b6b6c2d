#pragma once
// Byte sizes and durations as people write and read them.
#include <cstdint>
#include <string>

namespace perfmodel {

// Parses "4096", "64KiB", "1.5 MiB", "2GB" (K/M/G/T = 10^3.., Ki/Mi/Gi/Ti = 2^10..).
// Throws InputError naming `what` for anything else: signs, garbage, non-integral byte counts,
// values beyond 2^62.
std::uint64_t parse_bytes(const std::string& text, const std::string& what = "bytes");

std::string format_bytes(double bytes);                 // "64 MiB", "1.5 KiB", "12 B"
std::string format_seconds(double seconds);             // "12.3 us", "4.56 ms", "1.2 s"
std::string format_rate(double bytes_per_second);       // "55.3 GB/s" (decimal, as the field reports)
std::string format_number(double v);                    // three significant digits: "0.123", "1.5e+03"

}  // namespace perfmodel
