// io/case/schema.hpp: the sections of a case file and their keys, in one table (case_file_schema() in
// io/case_config.hpp), and what reads it: the unknown-key check of every section and the "did you mean" suggestion.
// cases/README.md ("All keys") documents the same table; tests/unit/test_case_schema.cpp checks that they agree.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "io/case_config.hpp"

namespace eddy::case_io {

/// The section names of case_file_schema(), in its order.
std::vector<std::string_view> section_names();

/// The keys of section `name` in case_file_schema() (none for an unknown name).
const std::vector<std::string_view>& section_keys(std::string_view name);

/// " (did you mean 'x'?)" for the closest of `allowed` within two edits (Levenshtein distance) of `given`, else "".
std::string suggestion(std::string_view given, const std::vector<std::string_view>& allowed);

}  // namespace eddy::case_io
