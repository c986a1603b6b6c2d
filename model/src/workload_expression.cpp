#include "perfmodel/model/workload_expression.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <vector>

namespace perfmodel {
namespace {

const std::vector<std::string>& function_names() {
  static const std::vector<std::string> names = {"ceil", "floor", "round", "min", "max", "sqrt", "log2", "abs"};
  return names;
}

class Parser {
 public:
  Parser(const std::string& text, const std::map<std::string, double>& names) : s_(text), names_(names) {}

  double parse() {
    skip();
    if (pos_ == s_.size()) throw ExpressionError("empty expression");
    const double v = expr();
    skip();
    if (pos_ != s_.size()) fail("unexpected '" + std::string(1, s_[pos_]) + "'");
    return v;
  }

 private:
  const std::string& s_;
  const std::map<std::string, double>& names_;
  std::size_t pos_ = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw ExpressionError(what + " at character " + std::to_string(pos_ + 1) + " of '" + s_ + "'");
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(const char* token) {
    skip();
    const std::string t(token);
    if (s_.compare(pos_, t.size(), t) != 0) return false;
    pos_ += t.size();
    return true;
  }
  double checked(double v, const char* what) const {
    if (!std::isfinite(v)) fail(std::string("the ") + what + " is not finite");
    return v;
  }

  double expr() {
    double v = term();
    for (;;) {
      if (eat("+")) v = checked(v + term(), "sum");
      else if (eat("-")) v = checked(v - term(), "difference");
      else return v;
    }
  }
  double term() {
    double v = unary();
    for (;;) {
      skip();
      if (s_.compare(pos_, 2, "**") != 0 && eat("*")) {
        v = checked(v * unary(), "product");
      } else if (eat("/")) {
        const double d = unary();
        if (d == 0) fail("division by zero");
        v = checked(v / d, "quotient");
      } else if (eat("%")) {
        const double d = unary();
        if (d == 0) fail("remainder by zero");
        v = checked(std::fmod(v, d), "remainder");
      } else {
        return v;
      }
    }
  }
  // Unary minus binds looser than the power: -2^2 = -4, 2^-1 = 0.5.
  double unary() {
    if (eat("-")) return -unary();
    if (eat("+")) return unary();
    return power();
  }
  double power() {
    const double base = atom();
    if (eat("**") || eat("^")) return checked(std::pow(base, unary()), "power");
    return base;
  }
  double atom() {
    skip();
    if (pos_ == s_.size()) fail("expression ends too early");
    const char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      const double v = expr();
      if (!eat(")")) fail("missing ')'");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::string name = identifier();
      skip();
      if (pos_ < s_.size() && s_[pos_] == '(') return call(name);
      const auto it = names_.find(name);
      if (it == names_.end()) {
        std::string known;
        for (const auto& [k, v] : names_) known += (known.empty() ? "" : ", ") + k;
        throw ExpressionError("undefined parameter '" + name + "' in '" + s_ + "'" +
                              (known.empty() ? std::string(" (the file has no params)") : " (params: " + known + ")"));
      }
      return it->second;
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }
  std::string identifier() {
    const std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    return s_.substr(start, pos_ - start);
  }
  double number() {
    const std::size_t start = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    }
    if (pos_ - start == 1 && s_[start] == '.') fail("a lone '.'");
    // An exponent only where digits follow: "1e9", "2.5E-3".
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      std::size_t p = pos_ + 1;
      if (p < s_.size() && (s_[p] == '+' || s_[p] == '-')) ++p;
      if (p < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p]))) {
        pos_ = p;
        while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      }
    }
    double v = 0;
    try {
      v = std::stod(s_.substr(start, pos_ - start));
    } catch (const std::exception&) {
      fail("number out of range");
    }
    return checked(v * unit(), "number");
  }
  // The unit attached to a number; 1 when none.
  double unit() {
    const std::size_t start = pos_;
    const std::string suffix = identifier();
    if (suffix.empty()) return 1;
    static const std::map<std::string, double> units = {
        {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12},
        {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}};
    std::string scale = suffix;
    if (scale.size() > 0 && scale.back() == 'B') scale.pop_back();
    if (scale.empty()) return 1;  // "4B"
    const auto it = units.find(scale);
    if (it == units.end()) {
      pos_ = start;
      fail("unknown unit '" + suffix + "' (K M G T Ki Mi Gi Ti, optionally with B; write 2*n, not 2n)");
    }
    return it->second;
  }
  double call(const std::string& name) {
    bool known = false;
    for (const std::string& f : function_names()) known = known || f == name;
    if (!known) fail("unknown function '" + name + "' (ceil floor round min max sqrt log2 abs)");
    eat("(");
    std::vector<double> args{expr()};
    while (eat(",")) args.push_back(expr());
    if (!eat(")")) fail("missing ')' after the arguments of " + name);
    const bool two = name == "min" || name == "max";
    if (two ? args.size() < 2 : args.size() != 1)
      fail(name + " takes " + (two ? std::string("two or more arguments") : std::string("one argument")));
    const double a = args[0];
    if (name == "min" || name == "max") {
      double v = a;
      for (double x : args) v = name == "min" ? std::min(v, x) : std::max(v, x);
      return v;
    }
    if (name == "ceil") return std::ceil(a);
    if (name == "floor") return std::floor(a);
    if (name == "round") return std::round(a);
    if (name == "abs") return std::fabs(a);
    if (name == "sqrt") {
      if (a < 0) fail("sqrt of a negative number");
      return std::sqrt(a);
    }
    if (a <= 0) fail("log2 of a number <= 0");
    return std::log2(a);
  }
};

}  // namespace

double evaluate_expression(const std::string& text, const std::map<std::string, double>& names) {
  return Parser(text, names).parse();
}

bool valid_parameter_name(const std::string& name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  for (const std::string& f : function_names())
    if (f == name) return false;
  return true;
}

}  // namespace perfmodel
