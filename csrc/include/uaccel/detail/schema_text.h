#pragma once
// A pointwise op's schema text, read at compile time, so that an op header whose schemas and C++
// description disagree fails to build with a message naming what disagrees (pointwise.cpp's
// check_op), instead of failing at load time or, worse, dispatching with the wrong arguments.
#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>

#include <cstdint>
#include <optional>
#include <string_view>

namespace uaccel::pointwise::schema_text {

constexpr std::string_view trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') {
    text.remove_prefix(1);
  }
  while (!text.empty() && text.back() == ' ') {
    text.remove_suffix(1);
  }
  return text;
}

// The text between the name's "(" and the ") ->" before the returns.
constexpr std::string_view arguments(std::string_view schema) {
  const auto open = schema.find('(');
  return schema.substr(open + 1, schema.rfind(") ->") - open - 1);
}

constexpr std::string_view returns(std::string_view schema) {
  return trim(schema.substr(schema.rfind("->") + 2));
}

// The index-th argument ("Tensor(a!) self", "str approximate='none'"), skipping the keyword-only "*";
// empty past the last. Commas inside parentheses (alias annotations) do not split.
constexpr std::string_view argument(std::string_view schema, size_t index) {
  const auto text = arguments(schema);
  size_t depth = 0, start = 0, found = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && (text[i] == '(' || text[i] == '[')) {
      ++depth;
    } else if (i < text.size() && (text[i] == ')' || text[i] == ']')) {
      --depth;
    } else if (i == text.size() || (text[i] == ',' && depth == 0)) {
      const auto item = trim(text.substr(start, i - start));
      start = i + 1;
      if (item.empty() || item == "*") {
        continue;
      }
      if (found++ == index) {
        return item;
      }
    }
  }
  return {};
}

// An argument's type without its alias annotation: "Tensor(a!)" -> "Tensor", "float?" stays.
constexpr std::string_view type_of(std::string_view argument) {
  auto type = argument.substr(0, argument.find(' '));
  if (const auto alias = type.find('('); alias != std::string_view::npos) {
    type = std::string_view(type.data(), alias);
  }
  return type;
}

constexpr std::string_view name_of(std::string_view argument) {
  const auto rest = argument.substr(argument.find(' ') + 1);
  return rest.substr(0, rest.find('='));
}

// How many arguments the schema has, and how many of them lead as plain tensors.
constexpr size_t count_arguments(std::string_view schema) {
  size_t n = 0;
  while (!argument(schema, n).empty()) {
    ++n;
  }
  return n;
}
constexpr size_t leading_tensors(std::string_view schema) {
  size_t n = 0;
  while (type_of(argument(schema, n)) == "Tensor") {
    ++n;
  }
  return n;
}

// Whether a schema type is what the kernels take as the C++ type A: Scalar at::Scalar, float double,
// int int64_t, bool bool, str std::string_view, and T? std::optional of T's.
template <typename A>
struct TypeName;
template <>
struct TypeName<at::Scalar> {
  static constexpr std::string_view value = "Scalar";
};
template <>
struct TypeName<double> {
  static constexpr std::string_view value = "float";
};
template <>
struct TypeName<int64_t> {
  static constexpr std::string_view value = "int";
};
template <>
struct TypeName<bool> {
  static constexpr std::string_view value = "bool";
};
template <>
struct TypeName<std::string_view> {
  static constexpr std::string_view value = "str";
};

template <typename A>
constexpr bool is_type(std::string_view type) {
  if constexpr (requires { TypeName<A>::value; }) {
    return type == TypeName<A>::value;
  } else {
    return false;  // a C++ type no schema type maps to
  }
}
template <typename A>
  requires requires { typename A::value_type; } && std::is_same_v<A, std::optional<typename A::value_type>>
constexpr bool is_type(std::string_view type) {
  return type.ends_with('?') && is_type<typename A::value_type>(type.substr(0, type.size() - 1));
}

// Whether the arguments after the first `tensors` are, in order and number, the types of Tuple.
template <typename Tuple>
constexpr bool parameters_are(std::string_view schema, size_t tensors) {
  return [&]<size_t... I>(std::index_sequence<I...>) {
    return count_arguments(schema) == tensors + sizeof...(I) &&
        (is_type<std::tuple_element_t<I, Tuple>>(type_of(argument(schema, tensors + I))) && ...);
  }(std::make_index_sequence<std::tuple_size_v<Tuple>>{});
}

// "Tensor", or "(Tensor, Tensor)" for n tensors.
constexpr bool returns_tensors(std::string_view schema, size_t n) {
  const auto text = returns(schema);
  if (n == 1) {
    return text == "Tensor";
  }
  if (!text.starts_with('(') || !text.ends_with(')')) {
    return false;
  }
  size_t tensors = 0;
  for (size_t at = 0; (at = text.find("Tensor", at)) != std::string_view::npos; at += 6) {
    ++tensors;
  }
  return tensors == n;
}

// Whether `schema` names the op `name` followed by `suffix` ("", "_", "_backward").
constexpr bool names_op(std::string_view schema, std::string_view name, std::string_view suffix) {
  return schema.starts_with(name) && schema.substr(name.size()).starts_with(suffix) &&
      schema.substr(name.size() + suffix.size()).starts_with("(");
}

} // namespace uaccel::pointwise::schema_text
