// A recursive-descent parser for PyTorch's schema grammar. Every error names the
// column and what was expected.
#include <axle/schema.h>
#include <axle/tensor.h>

#include <cctype>
#include <cstdlib>

namespace axle {

std::string ArgType::str() const {
  static const char* kNames[] = {"Tensor",     "Tensor[]", "int",    "int[]",  "float",        "bool",     "Scalar",
                                 "ScalarType", "str",      "Device", "Layout", "MemoryFormat", "Generator"};
  if (optional_elements) return std::string("Tensor?[]") + (optional ? "?" : "");
  return std::string(kNames[static_cast<int>(kind)]) + (optional ? "?" : "");
}

namespace {

#define AXLE_CHECK_SCHEMA(cond, what) \
  do {                                \
    if (!(cond)) fail(what);          \
  } while (0)

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  FunctionSchema parse() {
    FunctionSchema fs;
    fs.text = std::string(s_);
    std::string qualified = ident("operator name");
    if (peek("::")) {
      pos_ += 2;
      fs.ns = qualified;
      qualified = ident("operator name");
    } else {
      fs.ns = "aten";
    }
    fs.name = qualified;
    if (peek(".")) {
      ++pos_;
      fs.overload = ident("overload name");
    }
    expect("(");
    bool kwarg_only = false;
    comma_list([&] {
      if (peek("*")) {
        ++pos_;
        AXLE_CHECK_SCHEMA(!kwarg_only, "'*' given twice");
        kwarg_only = true;
        return;
      }
      Argument a = argument(true);
      a.kwarg_only = kwarg_only;
      for (const Argument& prev : fs.arguments)
        AXLE_CHECK_SCHEMA(prev.name != a.name, "duplicate argument name '" + a.name + "'");
      fs.arguments.push_back(std::move(a));
    });
    expect(")");
    expect("->");
    if (peek("(")) {
      ++pos_;
      comma_list([&] { fs.returns.push_back(argument(false)); });
      expect(")");
    } else {
      fs.returns.push_back(argument(false));
    }
    skip_ws();
    AXLE_CHECK_SCHEMA(pos_ == s_.size(), "unexpected trailing text");
    return fs;
  }

 private:
  // Parses `item (, item)*` up to (not including) a closing ')'; empty allowed.
  template <typename F>
  void comma_list(F&& item) {
    if (peek(")")) return;
    for (;;) {
      skip_ws();
      item();
      if (!peek(",")) return;
      ++pos_;
    }
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw SchemaError(detail::concat("malformed schema at column ", pos_ + 1, ": ", what, "\n  ", s_, "\n  ",
                                     std::string(pos_, ' '), "^"));
  }
  void skip_ws() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool peek(std::string_view t) {
    skip_ws();
    return s_.substr(pos_, t.size()) == t;
  }
  void expect(std::string_view t) {
    AXLE_CHECK_SCHEMA(peek(t), "expected '" + std::string(t) + "'");
    pos_ += t.size();
  }
  std::string ident(const char* what) {
    skip_ws();
    const size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    AXLE_CHECK_SCHEMA(pos_ > start && !std::isdigit(static_cast<unsigned char>(s_[start])),
                      std::string("expected ") + what);
    return std::string(s_.substr(start, pos_ - start));
  }

  ArgType type() {
    const size_t at = pos_;
    const std::string base = ident("a type");
    static const std::pair<const char*, ArgKind> kTypes[] = {{"Tensor", ArgKind::Tensor},
                                                             {"int", ArgKind::Int},
                                                             {"SymInt", ArgKind::Int},
                                                             {"float", ArgKind::Float},
                                                             {"bool", ArgKind::Bool},
                                                             {"Scalar", ArgKind::Scalar},
                                                             {"ScalarType", ArgKind::ScalarType},
                                                             {"str", ArgKind::Str},
                                                             {"Device", ArgKind::Device},
                                                             {"Layout", ArgKind::Layout},
                                                             {"MemoryFormat", ArgKind::MemoryFormat},
                                                             {"Generator", ArgKind::Generator}};
    ArgType t;
    bool found = false;
    for (auto& [n, k] : kTypes)
      if (base == n) {
        t.kind = k;
        found = true;
      }
    if (!found) {
      pos_ = at;
      fail("unknown type '" + base + "'");
    }
    return t;
  }

  // Parses [ '(' alias ['!'] ')' ] after Tensor.
  void alias(Argument& a) {
    if (!peek("(")) return;
    ++pos_;
    a.alias = ident("an alias name");
    if (peek("!")) {
      ++pos_;
      a.is_write = true;
    }
    if (peek("->")) {  // Tensor(a -> *)
      pos_ += 2;
      skip_ws();
      AXLE_CHECK_SCHEMA(peek("*"), "expected '*'");
      ++pos_;
    }
    expect(")");
  }

  Argument argument(bool is_input) {
    Argument a;
    a.type = type();
    if (a.type.kind == ArgKind::Tensor) alias(a);
    if (a.type.kind == ArgKind::Tensor && peek("?[")) {  // Tensor?[]: a list of optional tensors
      ++pos_;
      a.type.optional_elements = true;
    }
    if (peek("[")) {
      ++pos_;
      skip_ws();
      if (!peek("]")) {
        const size_t start = pos_;
        while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
        AXLE_CHECK_SCHEMA(pos_ > start, "expected a list size or ']'");
        // A fixed size is a handful of dims (int[2], int[3]); a huge one would be
        // allocated for its default or a broadcast int.
        const std::string digits(s_.substr(start, pos_ - start));
        AXLE_CHECK_SCHEMA(digits.size() <= 4 && std::atoll(digits.c_str()) <= kMaxTensorDims,
                          "list size " + digits + " is too large (at most " + std::to_string(kMaxTensorDims) + ")");
        a.type.fixed_size = std::atoll(digits.c_str());
      }
      expect("]");
      AXLE_CHECK_SCHEMA(!a.type.optional_elements || a.type.fixed_size < 0, "Tensor?[] cannot have a fixed size");
      if (a.type.kind == ArgKind::Tensor)
        a.type.kind = ArgKind::TensorList;
      else if (a.type.kind == ArgKind::Int)
        a.type.kind = ArgKind::IntList;
      else
        fail("lists of " + a.type.str() + " are not supported");
    }
    if (peek("?")) {
      ++pos_;
      a.type.optional = true;
    }
    skip_ws();
    if (is_input) {
      a.name = ident("an argument name");
      if (peek("=")) {
        ++pos_;
        default_value(a);
      }
    } else if (pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
      a.name = ident("a return name");
    }
    return a;
  }

  void default_value(Argument& a) {
    skip_ws();
    const size_t start = pos_;
    int depth = 0;
    bool in_str = false;
    char quote = 0;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (in_str) {
        if (c == quote) in_str = false;
      } else if (c == '"' || c == '\'') {
        in_str = true;
        quote = c;
      } else if (c == '[') {
        ++depth;
      } else if (c == ']') {
        --depth;
      } else if ((c == ',' || c == ')') && depth == 0) {
        break;
      }
      ++pos_;
    }
    AXLE_CHECK_SCHEMA(!in_str && depth == 0, "unterminated default value");
    std::string text(s_.substr(start, pos_ - start));
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    AXLE_CHECK_SCHEMA(!text.empty(), "expected a default value");
    a.default_text = text;
    const size_t saved = pos_;
    pos_ = start;
    a.default_value = convert_default(a, text);
    pos_ = saved;
  }

  static bool parse_int(const std::string& t, int64_t& out) {
    if (t.empty()) return false;
    char* end = nullptr;
    const long long v = std::strtoll(t.c_str(), &end, 10);
    if (*end != '\0') return false;
    out = v;
    return true;
  }

  Value convert_default(const Argument& a, const std::string& t) {
    if (t == "None") {
      AXLE_CHECK_SCHEMA(a.type.optional || a.type.kind == ArgKind::Layout || a.type.kind == ArgKind::MemoryFormat,
                        "default None for non-optional argument '" + a.name + "'");
      return Value();
    }
    int64_t i = 0;
    switch (a.type.kind) {
      case ArgKind::Int:
        AXLE_CHECK_SCHEMA(parse_int(t, i), "expected an integer default, got '" + t + "'");
        return Value(i);
      case ArgKind::Float: {
        char* end = nullptr;
        const double d = std::strtod(t.c_str(), &end);
        AXLE_CHECK_SCHEMA(*end == '\0', "expected a float default, got '" + t + "'");
        return Value(d);
      }
      case ArgKind::Bool:
        AXLE_CHECK_SCHEMA(t == "True" || t == "False", "expected True or False, got '" + t + "'");
        return Value(t == "True");
      case ArgKind::Scalar: {
        if (t == "True" || t == "False") return Value(t == "True");
        if (parse_int(t, i)) return Value(i);
        char* end = nullptr;
        const double d = std::strtod(t.c_str(), &end);
        AXLE_CHECK_SCHEMA(*end == '\0', "expected a number default, got '" + t + "'");
        return Value(d);
      }
      case ArgKind::IntList: {
        IntList l;
        std::string body = t;
        if (body.front() == '[') {
          AXLE_CHECK_SCHEMA(body.back() == ']', "expected ']' in list default");
          body = body.substr(1, body.size() - 2);
          size_t p = 0;
          while (p < body.size()) {
            size_t q = body.find(',', p);
            if (q == std::string::npos) q = body.size();
            std::string item = body.substr(p, q - p);
            item.erase(0, item.find_first_not_of(' '));
            item.erase(item.find_last_not_of(' ') + 1);
            if (!item.empty()) {
              AXLE_CHECK_SCHEMA(parse_int(item, i), "expected integers in list default, got '" + item + "'");
              l.push_back(i);
            }
            p = q + 1;
          }
        } else {  // int[2] stride=1 means [1, 1]
          AXLE_CHECK_SCHEMA(parse_int(t, i), "expected a list default, got '" + t + "'");
          l.assign(a.type.fixed_size > 0 ? a.type.fixed_size : 1, i);
        }
        return Value(l);
      }
      case ArgKind::Str:
        AXLE_CHECK_SCHEMA(t.size() >= 2 && (t.front() == '"' || t.front() == '\'') && t.back() == t.front(),
                          "expected a quoted string default, got '" + t + "'");
        return Value(t.substr(1, t.size() - 2));
      case ArgKind::ScalarType: return Value(dtype_from_name(t));
      case ArgKind::Layout:
      case ArgKind::MemoryFormat: return Value(t);
      default: fail("argument '" + a.name + "' of type " + a.type.str() + " cannot have a default");
    }
  }
#undef AXLE_CHECK_SCHEMA

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

FunctionSchema FunctionSchema::parse(std::string_view text) { return Parser(text).parse(); }

std::string FunctionSchema::full_name() const {
  std::string n = (ns == "aten" ? "" : ns + "::") + name;
  return overload.empty() ? n : n + "." + overload;
}

int FunctionSchema::find_argument(std::string_view n) const {
  for (size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].name == n) return static_cast<int>(i);
  return -1;
}

void FunctionSchema::complete_arguments(Stack& args) const {
  AXLE_CHECK(args.size() <= arguments.size(), ValueError, full_name(), "() takes ", arguments.size(), " arguments but ",
             args.size(), " were given");
  for (size_t i = args.size(); i < arguments.size(); ++i) {
    AXLE_CHECK(arguments[i].default_value.has_value(), ValueError, full_name(), "() missing required argument '",
               arguments[i].name, "' (position ", i, ")");
    args.push_back(*arguments[i].default_value);
  }
}

}  // namespace axle
