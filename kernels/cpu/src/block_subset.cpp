#include "perfmodel/kernels/block_subset.hpp"

#include <algorithm>
#include <stdexcept>

#include "perfmodel/model/errors.hpp"

namespace perfmodel::gpu {

std::vector<GridDims> select_blocks(const GridDims& grid, int budget) {
  if (budget < 1 || budget > kMaxSubsetBlocks)
    throw std::invalid_argument("select_blocks: budget " + std::to_string(budget) + " outside [1, " + std::to_string(kMaxSubsetBlocks) + "]");
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) throw std::invalid_argument("select_blocks: empty grid");
  const unsigned long long total = static_cast<unsigned long long>(grid.x) * grid.y * grid.z;
  const auto want = static_cast<std::size_t>(std::min<unsigned long long>(total, static_cast<unsigned long long>(budget)));
  std::vector<GridDims> out;
  const auto add = [&](unsigned x, unsigned y, unsigned z) {
    const GridDims b{x, y, z};
    if (out.size() < want && std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
  };
  const unsigned lx = grid.x - 1, ly = grid.y - 1, lz = grid.z - 1;
  add(0, 0, 0);
  add(lx, 0, 0), add(0, ly, 0), add(0, 0, lz);  // the last block of each dimension
  add(lx, ly, lz);                              // the last block
  add(lx, ly, 0), add(lx, 0, lz), add(0, ly, lz);  // the other corners
  add(grid.x / 2, grid.y / 2, grid.z / 2);          // an interior block
  for (unsigned long long i = 1; out.size() < want && i < total; ++i)  // consecutive blocks, launch order
    add(static_cast<unsigned>(i % grid.x), static_cast<unsigned>(i / grid.x % grid.y), static_cast<unsigned>(i / grid.x / grid.y));
  return out;
}

int parse_racecheck_blocks(const char* value) {
  if (value == nullptr || *value == '\0') return 0;
  const std::string s(value);
  const bool digits = s.size() <= 3 && s.find_first_not_of("0123456789") == std::string::npos;
  const int n = digits ? std::stoi(s) : -1;
  if (n < 1 || n > kMaxSubsetBlocks)
    throw InputError("PERFMODEL_RACECHECK_BLOCKS=" + s + ": expected the number of blocks each launch keeps, an integer from 1 to " +
                     std::to_string(kMaxSubsetBlocks) + " (unset: whole grids)");
  return n;
}

std::vector<int> parse_index_list(const std::string& text, const std::string& variable) {
  std::vector<int> out;
  const auto bad = [&](const std::string& item) {
    return InputError(variable + "=" + text + ": '" + item + "' is not an index or a range a-b of indices (expected e.g. 74,52,54-57)");
  };
  const auto number = [&](const std::string& s, const std::string& item) {
    if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos) throw bad(item);
    return std::stoi(s);
  };
  for (std::size_t pos = 0; pos <= text.size();) {
    const std::size_t end = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, end - pos);
    const std::size_t dash = item.find('-');
    const int a = number(item.substr(0, dash), item);
    const int b = dash == std::string::npos ? a : number(item.substr(dash + 1), item);
    if (b < a) throw bad(item);
    for (int i = a; i <= b; ++i)
      if (std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
    pos = end + 1;
  }
  return out;
}

std::string describe_blocks(const std::vector<GridDims>& blocks, const GridDims& grid) {
  const int dims = grid.z > 1 ? 3 : grid.y > 1 ? 2 : 1;
  std::string s;
  for (const GridDims& b : blocks) {
    if (!s.empty()) s += ' ';
    s += '(' + std::to_string(b.x);
    if (dims >= 2) s += ',' + std::to_string(b.y);
    if (dims == 3) s += ',' + std::to_string(b.z);
    s += ')';
  }
  return s;
}

}  // namespace perfmodel::gpu
