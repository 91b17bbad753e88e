// io/case/overrides.hpp: --set "section.key=value" applied to the parsed TOML tree before the sections are read.
// toml++ inside: include only in host-only io/ sources.
#pragma once

#include <toml++/toml.h>

#include <string>

#include "io/case/rules.hpp"

namespace eddy::case_io {

/// Applies one "section.key=value" override to the parsed tree (creating missing tables; the value written as in
/// TOML) and records it in `source`, so that later messages name it. An override that fixes a quantity replaces the
/// file's keys that fix the same one (physics.reynolds replaces physics.tau, a "wall" drops the lid's velocity, ...).
/// Throws InputError "bad --set '<text>': <why>" on a malformed override.
void apply_override(toml::table& root, const std::string& text, Source& source);

}  // namespace eddy::case_io
