#pragma once
// Python values as TOML, for the config readers that take TOML tables
// (experiments/scenario/*_table.h, sweep_config.h): a dict of str keys becomes a table, a list or
// tuple an array, bool / int (anything with
// __index__, e.g. numpy.int64) / float (or anything with __float__, e.g. numpy.float32) / str
// the TOML value of that type. Anything else (None, an object) throws InvalidArgument naming its
// key path under `where` and the types TOML holds. A TOML file is read by toml++ itself, and
// its table `name` taken (a missing file, a syntax error or no such table throw
// InvalidArgument naming the file).
#include <pybind11/pybind11.h>
#include <toml++/toml.h>

#include <string>

namespace compopt::python {

toml::table toml_from_python(const pybind11::dict& dict, const std::string& where);

toml::table toml_table_of_file(const std::string& path, const std::string& name);

}  // namespace compopt::python
