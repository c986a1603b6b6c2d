#pragma once
// Validating access to a YAML document: every failure is an InputError naming the file, the
// line and column, and the dotted key path ("pcie.h2d.pinned.segments[2].setup_s").
// Private to model/: yaml-cpp does not leak through public headers.
#include <yaml-cpp/yaml.h>

#include <vector>
#include <string>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/limits.hpp"

namespace perfmodel::yaml {

// Parses text; a syntax error becomes InputError at its line and column.
YAML::Node parse(const std::string& text, const std::string& file);

class Value {
 public:
  Value(YAML::Node node, std::string path, std::string file) : node_(std::move(node)), path_(std::move(path)), file_(std::move(file)) {}

  const std::string& path() const { return path_; }
  const YAML::Node& node() const { return node_; }
  SourceLocation location() const;
  InputError error(const std::string& problem) const;

  // Maps
  void expect_map() const;
  bool has(const std::string& key) const;
  Value get(const std::string& key) const;  // missing → "missing key"
  // Unknown keys are errors: they are usually typos, and silently ignoring them hides them.
  void allow_only(const std::vector<std::string>& keys) const;

  // Sequences
  std::size_t sequence_size() const;
  Value at(std::size_t index) const;

  // Scalars. Every number is finite and within ±limits::kMaxProfileNumber unless a range says less.
  std::string as_string() const;
  // A file name beside the file being read (a profile's samples_file): no directory part, so a
  // file from elsewhere cannot make perfmodel read outside its own folder.
  std::string as_file_name() const;
  double as_double() const;            // finite
  double as_nonnegative() const;       // finite, ≥ 0
  double as_nonnegative_or_inf() const;  // ≥ 0, may be +.inf
  long long as_integer() const;
  std::size_t as_count() const;        // integer ≥ 0
  // A number in [low, high] ("must be between …" otherwise); as_whole_in also needs an integer.
  double as_number_in(double low, double high) const;
  double as_whole_in(double low, double high) const;

 private:
  YAML::Node node_;
  std::string path_;
  std::string file_;
};

}  // namespace perfmodel::yaml
