#include "yaml_reader.hpp"

#include <cmath>
#include <limits>

namespace perfmodel::yaml {

YAML::Node parse(const std::string& text, const std::string& file) {
  try {
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

double Value::as_double() const {
  if (!node_.IsScalar()) throw error("expected a number");
  double v = 0;
  try {
    v = node_.as<double>();
  } catch (const YAML::Exception&) {
    throw error("expected a number, got '" + node_.Scalar() + "'");
  }
  if (!std::isfinite(v)) throw error("must be finite, got '" + node_.Scalar() + "'");
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
  return static_cast<std::size_t>(v);
}

}  // namespace perfmodel::yaml
