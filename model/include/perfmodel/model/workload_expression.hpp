#pragma once
// Arithmetic expressions of workload format 2 (docs/workload-format.md): numbers with unit
// suffixes, parameters, + − * / % ^ (or **), parentheses, and the functions ceil floor round
// min max sqrt log2 abs. A small recursive-descent parser; nothing else is evaluated.
//
//   expr  := term (('+' | '-') term)*
//   term  := unary (('*' | '/' | '%') unary)*
//   unary := '-' unary | '+' unary | power
//   power := atom (('^' | '**') unary)?            right-associative: 2^3^2 = 2^9, -2^2 = -4
//   atom  := NUMBER UNIT? | NAME | FUNC '(' expr (',' expr)* ')' | '(' expr ')'
//   UNIT  := K M G T (10^3 …) | Ki Mi Gi Ti (2^10 …), optionally followed by B; or B alone
#include <map>
#include <stdexcept>
#include <string>

namespace perfmodel {

// What is wrong with an expression, without a location: the workload reader adds file, line
// and key.
class ExpressionError : public std::runtime_error {
 public:
  explicit ExpressionError(const std::string& message) : std::runtime_error(message) {}
};

// The value of `text` with `names` bound; throws ExpressionError on a syntax error, an unknown
// name or function, division by zero, or a result (or intermediate) that is not finite.
double evaluate_expression(const std::string& text, const std::map<std::string, double>& names = {});

// True for a name a parameter may have: a letter or '_' then letters, digits, '_', and not a
// function name.
bool valid_parameter_name(const std::string& name);

}  // namespace perfmodel
