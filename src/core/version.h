// The version cilia reports (`cilia version`, GET /health). Keep it equal to
// project(VERSION) in CMakeLists.txt.
#pragma once

namespace cilia {

inline constexpr char kVersion[] = "0.1.0";

}  // namespace cilia
