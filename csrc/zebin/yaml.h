#pragma once

// A small YAML reader for the subset IGC writes into `.ze_info`: block maps,
// block sequences (also "- key: value" compact items), plain, single- and
// double-quoted scalars, flow sequences (`[ 0, 1, 2 ]`), empty flow maps,
// comments and the `---` / `...` document markers. No anchors, tags,
// block scalars or multi-line scalars: those are reported as errors, never
// guessed at, as are scalars YAML itself refuses (a quote not closed on its
// line, text after a closing quote, an unknown escape, a plain scalar that
// starts with an indicator or holds ': '). Nesting is limited (kMaxDepth) so
// hostile input cannot exhaust the stack; tabs in indentation are rejected as
// YAML requires.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"

namespace xsl {
namespace zebin {
namespace yaml {

constexpr size_t kMaxDepth = 32;
constexpr size_t kNoNode = static_cast<size_t>(-1);

enum class NodeKind : uint8_t { kScalar, kMap, kSequence };

struct Node {
  NodeKind kind = NodeKind::kScalar;
  bool quoted = false;   // scalar was quoted: never a number/bool/null
  std::string_view key;  // set when this node is a map entry's value
  std::string_view text; // scalar text (unquoted, unescaped)
  size_t line = 0;       // 1-based line of the node in the document
  size_t first_child = kNoNode;
  size_t next_sibling = kNoNode;
  size_t child_count = 0;
};

// A parsed document: nodes in a flat vector (index 0 is the root); scalar
// and key views point into the input text or into owned unescaped strings.
class Document {
 public:
  const Node& node(size_t index) const {
    return nodes_[index];
  }
  const Node& root() const {
    return nodes_[0];
  }
  bool empty() const {
    return nodes_.empty();
  }

  // Children of a map or sequence: `for (size_t c = d.firstChild(n); c !=
  // kNoNode; c = d.nextSibling(c))`.
  size_t firstChild(size_t index) const {
    return nodes_[index].first_child;
  }
  size_t nextSibling(size_t index) const {
    return nodes_[index].next_sibling;
  }
  // Value of `key` in the map at `index`, or kNoNode.
  size_t find(size_t index, std::string_view key) const;
  // Scalars and keys held as unescaped copies: one per quoted scalar with
  // escapes; every other view points into the parsed text.
  size_t unescapedCount() const noexcept {
    return owned_.size();
  }

 private:
  friend class Parser;
  std::vector<Node> nodes_;
  std::deque<std::string> owned_; // unescaped quoted scalars
};

// Parses `text`. Errors name the line ("line 12: ..."). A block value of
// a key in `skip_keys` ("key:" followed by an indented block or list) is
// skipped unparsed and the key left out: a fast path for callers that need
// only part of a large document.
Expected<Document> parse(
    std::string_view text,
    const std::vector<std::string_view>& skip_keys = {});

// Why `text` cannot be a plain (unquoted) scalar value, or null if it can:
// YAML 1.2 lets none start with an indicator ("[{&*!|>'\"%@`#,]}", or '-',
// '?', ':' before a space) and none hold ": " or end with ':'. `text` has
// no comment and no surrounding spaces.
const char* plainScalarProblem(std::string_view text);

// Scalar conversions with YAML 1.2 core-schema spelling (decimal, 0x hex,
// 0o octal; true/false). Errors say what was expected.
Expected<int64_t> toInt(const Node& node);
Expected<bool> toBool(const Node& node);
// The same on a scalar's text (`quoted`: it was quoted, so never a bool).
Expected<int64_t> parseInt(std::string_view text);
Expected<bool> parseBool(std::string_view text, bool quoted);

} // namespace yaml
} // namespace zebin
} // namespace xsl
