#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace perfmodel {

// A small table of numbers with named columns, kept as evidence beside a fitted constant.
struct NumericTable {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;
  std::size_t column(const std::string& name) const;  // throws std::out_of_range
  bool has(const std::string& name) const;
};

}  // namespace perfmodel
