#include "library/schema.h"

#include <cctype>

#include "tensor/error.h"

namespace brisk::library {
namespace {

// A cursor over the schema text that names the text in each error.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool at_end() {
    skip_space();
    return pos_ == text_.size();
  }
  bool consume(std::string_view token) {
    skip_space();
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  void expect(std::string_view token) {
    if (!consume(token)) fail(fmt::format("expected '{}'", token));
  }
  std::string identifier(const char* what) {
    skip_space();
    size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    if (start == pos_ || std::isdigit(static_cast<unsigned char>(text_[start]))) fail(fmt::format("expected {}", what));
    return std::string(text_.substr(start, pos_ - start));
  }
  ArgType type() {
    std::string word = identifier("a type");
    bool list = consume("[]");
    if (word == "Tensor") return list ? ArgType::TensorList : ArgType::Tensor;
    if (word == "int") return list ? ArgType::IntList : ArgType::Int;
    if (!list && word == "float") return ArgType::Float;
    if (!list && word == "bool") return ArgType::Bool;
    if (!list && word == "str") return ArgType::Str;
    fail(fmt::format("unsupported type '{}{}' (types: Tensor, Tensor[], int, float, bool, str, int[])", word,
                     list ? "[]" : ""));
  }
  [[noreturn]] void fail(const std::string& what) const {
    BRISK_FAIL("schema \"{}\": {} at column {}", text_, what, pos_ + 1);
  }
  char peek() {
    skip_space();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

Argument argument(Parser& p) {
  Argument arg;
  arg.type = p.type();
  if (p.peek() == '?') p.fail("optional types are not supported");
  if (p.peek() == '(') p.fail("alias annotations are not supported");
  arg.name = p.identifier("an argument name");
  if (p.peek() == '=') p.fail(fmt::format("argument '{}' has a default; defaults are not supported", arg.name));
  return arg;
}

Returns returns(Parser& p) {
  Returns r;
  if (p.consume("(")) {
    r.kind = Returns::Kind::Tuple;
    do {
      if (p.type() != ArgType::Tensor) p.fail("a returned tuple holds Tensors only");
      ++r.tuple_size;
    } while (p.consume(","));
    p.expect(")");
    return r;
  }
  ArgType t = p.type();
  if (t == ArgType::Tensor) return r;
  if (t == ArgType::TensorList) return r.kind = Returns::Kind::TensorList, r;
  p.fail(fmt::format("an op returns Tensor, Tensor[] or (Tensor, ...), not {}", arg_type_name(t)));
}

}  // namespace

const char* arg_type_name(ArgType type) {
  switch (type) {
    case ArgType::Tensor: return "Tensor";
    case ArgType::TensorList: return "Tensor[]";
    case ArgType::Int: return "int";
    case ArgType::Float: return "float";
    case ArgType::Bool: return "bool";
    case ArgType::Str: return "str";
    case ArgType::IntList: return "int[]";
  }
  return "?";
}

std::string Returns::str() const {
  if (kind == Kind::Tensor) return "Tensor";
  if (kind == Kind::TensorList) return "Tensor[]";
  std::string s = "(";
  for (size_t i = 0; i < tuple_size; ++i) s += i ? ", Tensor" : "Tensor";
  return s + ")";
}

std::string Schema::str() const {
  std::string s = name + "(";
  for (size_t i = 0; i < arguments.size(); ++i)
    s += fmt::format("{}{} {}", i ? ", " : "", arg_type_name(arguments[i].type), arguments[i].name);
  return s + ") -> " + returns.str();
}

Schema parse_schema(std::string_view text) {
  Parser p(text);
  Schema schema;
  schema.name = p.identifier("the op's name");
  p.expect("(");
  if (!p.consume(")")) {
    do {
      Argument arg = argument(p);
      for (const Argument& earlier : schema.arguments)
        if (earlier.name == arg.name) p.fail(fmt::format("argument name '{}' is used twice", arg.name));
      schema.arguments.push_back(std::move(arg));
    } while (p.consume(","));
    p.expect(")");
  }
  p.expect("->");
  schema.returns = returns(p);
  if (!p.at_end()) p.fail("unexpected text after the returns");
  return schema;
}

}  // namespace brisk::library
