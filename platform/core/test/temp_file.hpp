#pragma once
// A file with the given text in GoogleTest's temporary directory, for tests of file readers.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace trainvp::test {

// Writes `text` (bytes as given) to TempDir()/name and returns the path.
inline std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace trainvp::test
