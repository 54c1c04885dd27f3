// Writes the C++ API of the pointwise ops, uaccel/pointwise_ops.h, from their schemas (each op's
// header, listed in op_list.h): one inline function per schema, with the schema's parameter types and
// defaults, calling the op through its typed dispatcher handle (uaccel/dispatch.h), so that an op's
// C++ API is never written by hand. CMake builds and runs this at build time; uaccel/ops.h includes
// the result, which is installed with the other headers.
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "pointwise/op_list.h"  // the ops' headers, and UACCEL_FOR_EACH_POINTWISE_OP
#include "pointwise/schema_text.h"

namespace {

namespace text = uaccel::pointwise::schema_text;

// A schema type as the dispatcher's typed signature takes it, and as a parameter of the API.
std::string cpp_type(std::string_view type, bool written) {
  if (type.ends_with('?')) {
    const auto inner = type.substr(0, type.size() - 1);
    return inner == "Scalar" ? "const std::optional<at::Scalar>&" : "std::optional<" + cpp_type(inner, false) + ">";
  }
  if (type == "Tensor") {
    return written ? "at::Tensor&" : "const at::Tensor&";
  }
  if (type == "Scalar") {
    return "const at::Scalar&";
  }
  if (type == "float") {
    return "double";
  }
  if (type == "int") {
    return "int64_t";
  }
  if (type == "str") {
    return "std::string_view";
  }
  return std::string(type);  // bool
}

// A schema default as a C++ default argument: 'none' -> "none", True -> true, None -> std::nullopt.
std::string cpp_default(std::string_view value) {
  if (value.starts_with('\'')) {
    return "\"" + std::string(value.substr(1, value.size() - 2)) + "\"";
  }
  if (value == "True" || value == "False") {
    return value == "True" ? "true" : "false";
  }
  return value == "None" ? "std::nullopt" : std::string(value);
}

void write_function(std::ostream& out, std::string_view schema) {
  const auto name = schema.substr(0, schema.find('('));
  const bool in_place = text::returns(schema) == "()";
  const auto returns = text::returns(schema);
  const std::string result = in_place ? "at::Tensor&"
      : returns == "Tensor"           ? "at::Tensor"
                                      : "std::tuple<at::Tensor, at::Tensor" +
          std::string(returns.find("Tensor, Tensor, Tensor") != std::string_view::npos ? ", at::Tensor" : "") + ">";
  std::vector<std::string> parameters, signature, names;
  for (size_t i = 0; i < text::count_arguments(schema); ++i) {
    const auto argument = text::argument(schema, i);
    const auto type = text::type_of(argument);
    const auto parameter_name = std::string(text::name_of(argument));
    const auto equals = argument.find('=');
    std::string parameter = cpp_type(type, in_place && i == 0) + " " + parameter_name;
    if (equals != std::string_view::npos) {
      parameter += " = " + cpp_default(argument.substr(equals + 1));
    }
    parameters.push_back(parameter);
    signature.push_back(cpp_type(type, false));
    names.push_back(parameter_name);
  }
  const auto join = [](const std::vector<std::string>& items) {
    std::string joined;
    for (const auto& item : items) {
      joined += (joined.empty() ? "" : ", ") + item;
    }
    return joined;
  };
  const std::string handle_result = in_place ? "void" : result;
  out << "// uaccel::" << schema << "\n";
  out << "inline " << result << " " << name << "(" << join(parameters) << ") {\n";
  out << "  static const auto op = detail::op<" << handle_result << "(" << join(signature) << ")>(\"" << name
      << "\");\n";
  if (in_place) {
    out << "  op.call(" << join(names) << ");\n  return " << names[0] << ";\n}\n\n";
  } else {
    out << "  return op.call(" << join(names) << ");\n}\n\n";
  }
}

template <typename Op>
void write_op(std::ostream& out) {
  write_function(out, Op::kSchemas.forward);
  if (Op::kSchemas.inplace != nullptr) {
    write_function(out, Op::kSchemas.inplace);
  }
  write_function(out, Op::kSchemas.backward);
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " OUTPUT_HEADER\n";
    return 2;
  }
  std::ofstream out(argv[1]);
  out << "#pragma once\n"
         "// Generated at build time from the ops' schemas (csrc/pointwise/generate_api.cpp): the C++ API of\n"
         "// the pointwise ops, through the dispatcher, as torch.ops.uaccel.* (autograd in both modes included).\n"
         "// In-place forms return their first argument.\n"
         "#include <ATen/core/Tensor.h>\n#include <c10/core/Scalar.h>\n\n"
         "#include <cstdint>\n#include <optional>\n#include <string_view>\n#include <tuple>\n\n"
         "#include <uaccel/dispatch.h>\n\nnamespace uaccel {\n\n";
#define UACCEL_WRITE_OP(op) write_op<uaccel::ops::op::Op>(out);
  UACCEL_FOR_EACH_POINTWISE_OP(UACCEL_WRITE_OP)
  out << "} // namespace uaccel\n";
  return out ? 0 : 1;
}
