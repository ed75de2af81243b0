#pragma once

// Access to the ocloc-generated corpus (tests/kernels/make_corpus.py) from
// C++ tests: the folder comes from $XSL_BINARY_DIR/corpus (set by ctest) and
// manifest.tsv lists one kernel per line.

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace xsl {
namespace zebin {
namespace testing {

struct CorpusEntry {
  std::map<std::string, std::string> fields; // column name -> cell

  const std::string& operator[](const std::string& column) const {
    static const std::string kEmpty;
    const auto it = fields.find(column);
    return it == fields.end() ? kEmpty : it->second;
  }
  // Comma-separated cell ("-" is an empty list).
  std::vector<std::string> list(const std::string& column) const {
    std::vector<std::string> items;
    const std::string& cell = (*this)[column];
    if (cell == "-" || cell.empty()) {
      return items;
    }
    std::stringstream in(cell);
    std::string item;
    while (std::getline(in, item, ',')) {
      items.push_back(item);
    }
    return items;
  }
};

inline std::string corpusDir() {
  const char* binary_dir = std::getenv("XSL_BINARY_DIR");
  return binary_dir == nullptr ? std::string()
                               : std::string(binary_dir) + "/corpus";
}

// Empty when the corpus was not generated (no ocloc): callers GTEST_SKIP.
inline std::vector<CorpusEntry> readCorpusManifest() {
  std::vector<CorpusEntry> entries;
  std::ifstream in(corpusDir() + "/manifest.tsv");
  std::string line;
  std::vector<std::string> columns;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
    }
    std::vector<std::string> cells;
    std::stringstream row(line);
    std::string cell;
    while (std::getline(row, cell, '\t')) {
      cells.push_back(cell);
    }
    if (columns.empty()) {
      columns = cells;
      continue;
    }
    CorpusEntry entry;
    for (size_t i = 0; i < cells.size() && i < columns.size(); ++i) {
      entry.fields[columns[i]] = cells[i];
    }
    entries.push_back(entry);
  }
  return entries;
}

inline std::string readBinaryFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

} // namespace testing
} // namespace zebin
} // namespace xsl
