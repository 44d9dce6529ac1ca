// The version cilia reports (`cilia version`, GET /health). CMakeLists.txt
// reads project(VERSION), and so the .deb's version, from this line.
#pragma once

namespace cilia {

inline constexpr char kVersion[] = "0.1.0";

}  // namespace cilia
