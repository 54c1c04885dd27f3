// What every library of pointwise ops shares at run time (uaccel/pointwise.h): exported from libuaccel,
// which the libraries link (this project's ops and other projects', cmake/TorchUaccelPointwise.cmake).
#include <torch/library.h>

#include <cctype>
#include <mutex>
#include <regex>

#include <uaccel/detail/pointwise_op.h>

#include "common/fork_safety.h"

namespace uaccel::pointwise {

namespace {

// The names of the `count` tensors that lead `schema`.
std::vector<std::string> tensor_names(std::string_view schema, size_t count) {
  std::vector<std::string> names;
  for (size_t i = 0; i < count; ++i) {
    names.emplace_back(schema_text::name_of(schema_text::argument(schema, i)));
  }
  return names;
}

} // namespace

Names make_names(const char* library, const char* op, const Schemas& schemas) {
  const std::string ns = library;
  const std::string name = op;
  std::string node;  // uaccel silu -> UaccelSilu, myops layer_norm -> MyopsLayerNorm
  const std::string words = ns + "_" + name;
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] != '_') {
      node += i == 0 || words[i - 1] == '_' ? static_cast<char>(std::toupper(words[i])) : words[i];
    }
  }
  const auto inputs = schema_text::leading_tensors(schemas.forward);
  return {
      name,
      name + "_",
      name + "_backward",
      ns + "::" + name,
      ns + "::" + name + "_",
      ns + "::" + name + "_backward",
      ns + "." + name,
      ns + "." + name + "_",
      ns + "." + name + "_backward",
      node,
      tensor_names(schemas.forward, inputs),
      tensor_names(schemas.backward, inputs + 1)};
}

void define(torch::Library& m, const char* schema) {
  m.def(schema, {at::Tag::pointwise});
  const std::string text = schema;
  static const std::regex scalar_parameter(R"((Scalar|float) (\w+)(=[^,)]+)?)");
  if (std::regex_search(text, scalar_parameter) && text.find("-> ()") == std::string::npos) {
    const auto name_end = text.find('(');
    const auto twin = text.substr(0, name_end) + ".tensor_scalars" + text.substr(name_end);
    m.def(torch::schema(std::regex_replace(twin, scalar_parameter, "Tensor $2").c_str()));
  }
}

namespace {

// The namespaces of the libraries loaded into the process, in load order (fork-safe: a child keeps them).
struct Libraries {
  std::mutex mutex;
  std::vector<std::string> namespaces;
  Libraries() { fork_safety::register_state(mutex); }
};

Libraries& loaded() {
  static Libraries libraries;
  return libraries;
}

} // namespace

void announce_library(const char* library) {
  auto& state = loaded();
  const std::lock_guard<std::mutex> lock(state.mutex);
  state.namespaces.emplace_back(library);
}

std::vector<std::string> libraries() {
  auto& state = loaded();
  const std::lock_guard<std::mutex> lock(state.mutex);
  return state.namespaces;
}

} // namespace uaccel::pointwise
