#include "yaml_reader.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>
#include <utility>

namespace perfmodel::yaml {

namespace {

// Walks the parser's events once before the document is built: yaml-cpp keeps one of two equal
// keys and ignores every document after the first without a word, so both are found here, with
// anchors and aliases (perfmodel writes none; refusing them keeps every value where it is written).
class StructureCheck : public YAML::EventHandler {
 public:
  explicit StructureCheck(std::string file) : file_(std::move(file)) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1)
      throw fail(mark, "", "a second YAML document (after '---' or '...'): a perfmodel file holds exactly one");
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { item(mark, anchor, nullptr); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    throw fail(mark, path(), "aliases (*name) are not supported: write the value out");
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
    item(mark, anchor, &value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    item(mark, anchor, nullptr);
    frames_.push_back({false, true, {}, child_path(), 0, ""});
  }
  void OnSequenceEnd() override { frames_.pop_back(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    item(mark, anchor, nullptr);
    frames_.push_back({true, true, {}, child_path(), 0, ""});
  }
  void OnMapEnd() override { frames_.pop_back(); }

 private:
  struct Frame {
    bool map;
    bool expecting_key;                 // maps: the next node is a key
    std::map<std::string, int> keys;    // maps: key → line it was first given on
    std::string path;                   // dotted path of this container
    std::size_t index;                  // sequences: index of the next item
    std::string key;                    // maps: the key whose value comes next
  };

  InputError fail(const YAML::Mark& mark, const std::string& key, const std::string& problem) const {
    return input_error_at({file_, mark.line + 1, mark.column + 1}, key, problem);
  }
  std::string path() const { return frames_.empty() ? std::string() : frames_.back().path; }
  // Path of the node that starts now (called after item() has advanced the parent).
  std::string child_path() const {
    if (frames_.empty()) return "";
    const Frame& f = frames_.back();
    if (f.map) return f.path.empty() ? f.key : f.path + "." + f.key;
    return f.path + "[" + std::to_string(f.index - 1) + "]";
  }
  // Every node: keys are checked for repeats; the parent advances.
  void item(const YAML::Mark& mark, YAML::anchor_t anchor, const std::string* scalar) {
    if (anchor != YAML::NullAnchor) throw fail(mark, path(), "anchors (&name) are not supported: write the value out");
    if (frames_.empty()) return;
    Frame& f = frames_.back();
    if (!f.map) {
      ++f.index;
      return;
    }
    if (f.expecting_key) {
      f.key = scalar ? *scalar : std::string("?");
      if (scalar) {
        const auto [it, first] = f.keys.emplace(*scalar, mark.line + 1);
        if (!first)
          throw fail(mark, f.path.empty() ? *scalar : f.path + "." + *scalar,
                     "duplicate key (first given on line " + std::to_string(it->second) + ")");
      }
    }
    f.expecting_key = !f.expecting_key;
  }

  std::string file_;
  int documents_ = 0;
  std::vector<Frame> frames_;
};

}  // namespace

YAML::Node parse(const std::string& text, const std::string& file) {
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    StructureCheck check(file);
    while (parser.HandleNextDocument(check)) {
    }
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw input_error_at({file, e.mark.line + 1, e.mark.column + 1}, "", "malformed YAML: " + e.msg);
  } catch (const YAML::Exception& e) {
    throw input_error_at({file, 0, 0}, "", std::string("malformed YAML: ") + e.what());
  }
}

SourceLocation Value::location() const {
  const YAML::Mark mark = node_.Mark();
  if (mark.is_null()) return {file_, 0, 0};
  return {file_, mark.line + 1, mark.column + 1};
}

InputError Value::error(const std::string& problem) const { return input_error_at(location(), path_, problem); }

void Value::expect_map() const {
  if (!node_.IsMap()) throw error("expected a mapping (key: value pairs)");
}

bool Value::has(const std::string& key) const {
  expect_map();
  return static_cast<bool>(node_[key]);
}

Value Value::get(const std::string& key) const {
  expect_map();
  const std::string child_path = path_.empty() ? key : path_ + "." + key;
  YAML::Node child = node_[key];
  if (!child) throw input_error_at(location(), child_path, "missing key");
  return Value(child, child_path, file_);
}

void Value::allow_only(const std::vector<std::string>& keys) const {
  expect_map();
  for (const auto& item : node_) {
    const std::string key = item.first.Scalar();
    bool known = false;
    std::string list;
    for (const std::string& k : keys) {
      known = known || key == k;
      list += list.empty() ? k : ", " + k;
    }
    if (!known) {
      const YAML::Mark m = item.first.Mark();
      throw input_error_at({file_, m.line + 1, m.column + 1}, path_.empty() ? key : path_ + "." + key,
                           "unknown key (expected one of: " + list + ")");
    }
  }
}

std::size_t Value::sequence_size() const {
  if (!node_.IsSequence()) throw error("expected a list");
  return node_.size();
}

Value Value::at(std::size_t index) const {
  if (!node_.IsSequence()) throw error("expected a list");
  return Value(node_[index], path_ + "[" + std::to_string(index) + "]", file_);
}

std::string Value::as_string() const {
  if (!node_.IsScalar()) throw error("expected a scalar value");
  return node_.Scalar();
}

std::string Value::as_file_name() const {
  const std::string name = as_string();
  if (name.find_first_of("/\\\n\r") != std::string::npos || name == "." || name == ".." || name.find('\0') != std::string::npos)
    throw error("must be a file name beside this file (no directory part), got '" + name + "'");
  return name;
}

double Value::as_double() const {
  if (!node_.IsScalar()) throw error("expected a number");
  double v = 0;
  try {
    v = node_.as<double>();
  } catch (const YAML::Exception&) {
    throw error("expected a number, got '" + node_.Scalar() + "'");
  }
  if (!std::isfinite(v)) throw error("must be finite, got '" + node_.Scalar() + "'");
  if (std::fabs(v) > limits::kMaxProfileNumber)
    throw error("is out of range: " + node_.Scalar() + " (no number perfmodel reads exceeds 1e21; limits.hpp)");
  return v;
}

namespace {
std::string shortest(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.10g", v);
  return buffer;
}
}  // namespace

double Value::as_number_in(double low, double high) const {
  const double v = as_double();
  if (v < low) throw error("must be >= " + shortest(low) + ", got " + node_.Scalar());
  if (v > high) throw error("must be <= " + shortest(high) + ", got " + node_.Scalar() + " (limits.hpp)");
  return v;
}

double Value::as_whole_in(double low, double high) const {
  const double v = as_number_in(low, high);
  if (v != std::floor(v)) throw error("must be a whole number, got " + node_.Scalar());
  return v;
}

double Value::as_nonnegative() const {
  const double v = as_double();
  if (v < 0) throw error("must be >= 0, got " + node_.Scalar());
  return v;
}

double Value::as_nonnegative_or_inf() const {
  if (node_.IsScalar() && (node_.Scalar() == ".inf" || node_.Scalar() == ".Inf" || node_.Scalar() == ".INF"))
    return std::numeric_limits<double>::infinity();
  return as_nonnegative();
}

long long Value::as_integer() const {
  if (!node_.IsScalar()) throw error("expected an integer");
  try {
    return node_.as<long long>();
  } catch (const YAML::Exception&) {
    throw error("expected an integer, got '" + node_.Scalar() + "'");
  }
}

std::size_t Value::as_count() const {
  const long long v = as_integer();
  if (v < 0) throw error("must be >= 0, got " + node_.Scalar());
  if (static_cast<double>(v) > limits::kMaxProfileNumber) throw error("is out of range: " + node_.Scalar() + " (limits.hpp)");
  return static_cast<std::size_t>(v);
}

}  // namespace perfmodel::yaml
