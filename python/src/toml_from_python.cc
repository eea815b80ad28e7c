#include "python/src/toml_from_python.h"

#include <fmt/format.h>

#include <filesystem>
#include <utility>

#include "core/util/error.h"
#include "core/util/file_io.h"
#include "experiments/scenario/toml_values.h"

namespace compopt::python {
namespace {

namespace py = pybind11;

// Deeper nesting is refused (a dict that contains itself would never end).
constexpr int kMaxDepth = 32;

toml::array array_of(const py::sequence& items, const std::string& key, int depth);

void check_depth(int depth, const std::string& key) {
  if (depth > kMaxDepth)
    throw InvalidArgument(
        fmt::format("{}: nested deeper than {} tables or arrays", key, kMaxDepth));
}

toml::table table_of(const py::dict& dict, const std::string& where, int depth);

// An int (or anything with __index__) as TOML's 64-bit integer.
int64_t integer_of(const py::handle& value, const std::string& key) {
  try {
    return py::reinterpret_borrow<py::object>(value).cast<int64_t>();
  } catch (const py::cast_error&) {
    throw InvalidArgument(fmt::format("{} = {}: out of range, expected a 64-bit integer", key,
                                      py::repr(value).cast<std::string>()));
  }
}

// Calls put(v) with `value` as the TOML value v of its type.
template <typename Put>
void put_value(const py::handle& value, const std::string& key, int depth, Put&& put) {
  if (py::isinstance<py::bool_>(value)) return put(value.cast<bool>());
  if (py::isinstance<py::float_>(value)) return put(value.cast<double>());
  if (py::hasattr(value, "__index__")) return put(integer_of(value, key));
  if (py::isinstance<py::str>(value)) return put(value.cast<std::string>());
  if (py::isinstance<py::dict>(value)) return put(table_of(value.cast<py::dict>(), key, depth + 1));
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value))
    return put(array_of(value.cast<py::sequence>(), key, depth + 1));
  if (py::hasattr(value, "__float__")) return put(value.cast<double>());  // numpy.float32
  throw InvalidArgument(
      fmt::format("{} = {}: a value of type {}, expected a bool, int, float, str, list or dict",
                  key, py::repr(value).cast<std::string>(),
                  py::type::of(value).attr("__name__").cast<std::string>()));
}

toml::array array_of(const py::sequence& items, const std::string& key, int depth) {
  check_depth(depth, key);
  toml::array out;
  for (size_t i = 0; i < items.size(); ++i) {
    put_value(items[i], fmt::format("{}[{}]", key, i), depth,
              [&](auto&& v) { out.push_back(std::forward<decltype(v)>(v)); });
  }
  return out;
}

toml::table table_of(const py::dict& dict, const std::string& where, int depth) {
  check_depth(depth, where);
  toml::table out;
  for (const auto& [key, value] : dict) {
    if (!py::isinstance<py::str>(key)) {
      throw InvalidArgument(
          fmt::format("{}: the key {} is not a string", where, py::repr(key).cast<std::string>()));
    }
    const std::string name = key.cast<std::string>();
    put_value(value, where + "." + name, depth,
              [&](auto&& v) { out.insert_or_assign(name, std::forward<decltype(v)>(v)); });
  }
  return out;
}

}  // namespace

toml::table toml_from_python(const py::dict& dict, const std::string& where) {
  return table_of(dict, where, 0);
}

toml::table toml_table_of_file(const std::string& path, const std::string& name) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InvalidArgument(fmt::format("{} file '{}': not found or not a regular file", name, path));
  const toml::table root = cli::parse_toml_document(read_text_file(path), path, name + " file");
  const toml::table* table = root[name].as_table();
  if (table == nullptr)
    throw InvalidArgument(fmt::format("{} file '{}': no [{}] table", name, path, name));
  return *table;
}

}  // namespace compopt::python
