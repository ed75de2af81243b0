#include "zebin/yaml.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xsl {
namespace zebin {
namespace yaml {
namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t';
}

std::string_view trimRight(std::string_view s) {
  while (!s.empty() && (isSpace(s.back()) || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::string_view trimLeft(std::string_view s) {
  while (!s.empty() && isSpace(s.front())) {
    s.remove_prefix(1);
  }
  return s;
}

Error lineError(size_t line, const std::string& what) {
  return Error("line " + std::to_string(line) + ": " + what);
}

// Whether a quote at s[i] opens a quoted scalar: first on the line, after
// an indicator ("key: ", "- ", "? ") or, inside a flow collection, after
// '[', '{' or ','. Elsewhere (`a: x 'y`) it is a character of plain text.
bool opensScalar(std::string_view s, size_t i, bool in_flow) {
  size_t p = i;
  while (p > 0 && isSpace(s[p - 1])) {
    --p;
  }
  if (p == 0) {
    return true;
  }
  const char before = s[p - 1];
  if (in_flow && (before == '[' || before == '{' || before == ',')) {
    return true;
  }
  if (p == i) {
    return false; // no space after it: part of a plain scalar
  }
  return before == ':' ||
      ((before == '-' || before == '?') && (p == 1 || isSpace(s[p - 2])));
}

// Cuts a trailing comment: '#' at the start or after a space, outside
// quoted scalars.
std::string_view stripComment(std::string_view s) {
  if (s.find('#') == std::string_view::npos) {
    return s; // the common case, at memchr speed
  }
  char quote = 0;
  size_t flow_depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote == '"') {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        quote = 0;
      }
      continue;
    }
    if (quote == '\'') {
      if (c == '\'' && i + 1 < s.size() && s[i + 1] == '\'') {
        ++i; // '' is an escaped quote
      } else if (c == '\'') {
        quote = 0;
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      if (opensScalar(s, i, flow_depth > 0)) {
        quote = c;
      }
    } else if (c == '[' || c == '{') {
      if (flow_depth > 0 || opensScalar(s, i, false)) {
        ++flow_depth;
      }
    } else if ((c == ']' || c == '}') && flow_depth > 0) {
      --flow_depth;
    } else if (c == '#' && (i == 0 || isSpace(s[i - 1]))) {
      return s.substr(0, i);
    }
  }
  return s;
}

bool isSequenceItem(std::string_view text) {
  return !text.empty() && text[0] == '-' &&
      (text.size() == 1 || text[1] == ' ');
}

// What a backslash and `e` stand for in a double-quoted scalar, if
// supported.
bool escapedChar(char e, char& out) {
  switch (e) {
    case 'n':
      out = '\n';
      return true;
    case 't':
      out = '\t';
      return true;
    case 'r':
      out = '\r';
      return true;
    case '0':
      out = '\0';
      return true;
    case '\\':
    case '"':
    case '/':
    case ' ':
      out = e;
      return true;
    default:
      return false;
  }
}

// A quoted scalar whose opening quote is text[start]: `end` is one past
// its closing quote; `escaped` says whether it holds '' or backslash
// escapes.
struct QuotedSpan {
  size_t end = 0;
  bool escaped = false;
};

// Finds the end of the quoted scalar at text[start] and checks its escapes,
// reading only: the "- key: value" probe calls it before the parse proper.
// The closing quote must be on the same line; a backslash that ends the
// line escapes nothing.
Expected<QuotedSpan> scanQuoted(
    std::string_view text,
    size_t start,
    size_t line) {
  const char quote = text[start];
  QuotedSpan span;
  for (size_t i = start + 1; i < text.size(); ++i) {
    const char c = text[i];
    if (c == quote) {
      if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
        span.escaped = true;
        ++i;
        continue;
      }
      span.end = i + 1;
      return span;
    }
    if (quote == '"' && c == '\\') {
      if (i + 1 == text.size()) {
        break;
      }
      char unused = 0;
      if (!escapedChar(text[i + 1], unused)) {
        return lineError(
            line,
            std::string("unsupported escape '\\") + text[i + 1] +
                "' in a double-quoted string");
      }
      span.escaped = true;
      ++i;
    }
  }
  return lineError(
      line,
      "unterminated quoted string (the closing quote must be on the same "
      "line; multi-line strings are not supported)");
}

// The value of a quoted scalar body (between the quotes) that scanQuoted
// accepted.
std::string unescape(std::string_view body, char quote) {
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c == quote || (quote == '"' && c == '\\')) {
      c = body[++i];
      if (quote == '"') {
        static_cast<void>(escapedChar(c, c));
      }
    }
    out += c;
  }
  return out;
}

// Why a plain scalar cannot start as `text` does, or null: with an
// indicator, or with '-', '?' or ':' and then a space (or nothing).
const char* plainStartProblem(std::string_view text) {
  if (text.empty()) {
    return nullptr; // an empty key or a null value
  }
  switch (text[0]) {
    case '-':
    case '?':
    case ':':
      if (text.size() == 1 || isSpace(text[1])) {
        return "starts with an indicator ('-', '?' or ':' and a space)";
      }
      return nullptr;
    case ',':
    case '[':
    case ']':
    case '{':
    case '}':
    case '#':
    case '|':
    case '>':
    case '\'':
    case '"':
    case '%':
    case '@':
    case '`':
      return "starts with an indicator character";
    case '&':
    case '*':
    case '!':
      return "starts with an anchor, alias or tag (not supported)";
    default:
      return nullptr;
  }
}

Error plainError(size_t line, std::string_view text, const char* problem) {
  return lineError(
      line,
      "'" + std::string(text.substr(0, 60)) + "' is not a plain scalar: it " +
          problem + " (quote it)");
}

} // namespace

// A line of the input as the parser sees it.
struct SourceLine {
  size_t number = 0;     // 1-based
  size_t indent = 0;     // columns of leading spaces
  std::string_view text; // content: no indentation, comment, trailing space
};

class Parser {
 public:
  Parser(
      std::string_view text,
      const std::vector<std::string_view>& skip_keys,
      Document& doc)
      : text_(text), skip_keys_(skip_keys), doc_(doc) {}

  Status run() {
    return parseDocument();
  }

 private:
  Status parseDocument() {
    Status split = splitLines();
    if (!split) {
      return split;
    }
    if (lines_.empty()) {
      Node root;
      root.kind = NodeKind::kMap;
      doc_.nodes_.push_back(root);
      return Status::success();
    }
    if (lines_[0].indent != 0) {
      return lineError(lines_[0].number, "the document must start in column 1");
    }
    Expected<size_t> root = parseBlock(0, 1);
    if (!root) {
      return root.error();
    }
    if (pos_ < lines_.size()) {
      return lineError(
          lines_[pos_].number,
          "unexpected content after the top-level block "
          "(check the indentation)");
    }
    return Status::success();
  }

  Status splitLines() {
    // IGC's lines average ~30 bytes; an estimate avoids most regrowth
    // without a counting pass over the text.
    const size_t line_estimate = text_.size() / 24 + 4;
    lines_.reserve(line_estimate);
    doc_.nodes_.reserve(line_estimate + 1);
    size_t start = 0;
    size_t number = 0;
    bool in_document = false;
    bool seen_content = false;
    bool skipping = false;
    size_t skip_indent = 0;
    while (start <= text_.size()) {
      size_t end = text_.find('\n', start);
      if (end == std::string_view::npos) {
        end = text_.size();
      }
      ++number;
      std::string_view raw = text_.substr(start, end - start);
      start = end + 1;
      size_t indent = 0;
      while (indent < raw.size() && raw[indent] == ' ') {
        ++indent;
      }
      std::string_view rest = raw.substr(indent);
      if (skipping) {
        // Inside a skipped block: only find where it ends (a content line
        // at or left of the key, other than a same-column list item).
        if (rest.empty() || rest[0] == '#' || rest[0] == '\r' ||
            indent > skip_indent ||
            (indent == skip_indent && isSequenceItem(rest))) {
          if (end == text_.size()) {
            break;
          }
          continue;
        }
        skipping = false;
      }
      std::string_view content = trimRight(stripComment(rest));
      if (trimLeft(content).empty()) {
        if (end == text_.size()) {
          break;
        }
        continue;
      }
      if (content[0] == '\t') {
        return lineError(
            number,
            "tab character in indentation; YAML indents with "
            "spaces only");
      }
      if (indent == 0 && (content == "---" || content.substr(0, 4) == "--- ")) {
        if (seen_content || in_document) {
          return lineError(
              number, "a second YAML document ('---') is not supported");
        }
        in_document = true;
        continue;
      }
      if (indent == 0 && content == "...") {
        break; // end of the document: anything after it is not ours
      }
      if (indent == 0 && content[0] == '%' && !seen_content) {
        continue; // %YAML directive
      }
      seen_content = true;
      if (!skip_keys_.empty() && content.back() == ':' &&
          std::find(
              skip_keys_.begin(),
              skip_keys_.end(),
              trimRight(content.substr(0, content.size() - 1))) !=
              skip_keys_.end()) {
        skipping = true;
        skip_indent = indent;
        continue;
      }
      SourceLine line;
      line.number = number;
      line.indent = indent;
      line.text = content;
      lines_.push_back(line);
      if (end == text_.size()) {
        break;
      }
    }
    return Status::success();
  }

  size_t addNode(NodeKind kind, size_t line) {
    Node node;
    node.kind = kind;
    node.line = line;
    doc_.nodes_.push_back(node);
    return doc_.nodes_.size() - 1;
  }

  // Links `child` after `last` (or as first child of `parent`).
  void append(size_t parent, size_t& last, size_t child) {
    if (last == kNoNode) {
      doc_.nodes_[parent].first_child = child;
    } else {
      doc_.nodes_[last].next_sibling = child;
    }
    last = child;
    ++doc_.nodes_[parent].child_count;
  }

  // A map or sequence node at nesting `depth`, refused past kMaxDepth.
  Expected<size_t> addCollection(NodeKind kind, size_t line, size_t depth) {
    if (depth > kMaxDepth) {
      return lineError(
          line, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    return addNode(kind, line);
  }

  // A block (map or sequence) whose first line is lines_[pos_] at `indent`.
  Expected<size_t> parseBlock(size_t indent, size_t depth) {
    const bool sequence = isSequenceItem(lines_[pos_].text);
    Expected<size_t> block = addCollection(
        sequence ? NodeKind::kSequence : NodeKind::kMap,
        lines_[pos_].number,
        depth);
    if (!block) {
      return block.error();
    }
    Status items = sequence ? parseSequenceItems(*block, indent, depth)
                            : parseMapItems(*block, indent, depth);
    if (!items) {
      return items.error();
    }
    return *block;
  }

  // Finds the ':' that ends a plain key: followed by a space or the end.
  static size_t plainKeyEnd(std::string_view text) {
    for (size_t i = text.find(':'); i != std::string_view::npos;
         i = text.find(':', i + 1)) {
      if (i + 1 == text.size() || text[i + 1] == ' ') {
        return i;
      }
    }
    return std::string_view::npos;
  }

  // Whether a sequence item's content opens a map ("- key: value"). Only
  // reads `text` (static: no parser or document state); a malformed key is
  // "no", and the parse of the item as a scalar then reports it.
  static bool looksLikeMapEntry(std::string_view text) {
    if (text.empty() || text[0] == '[' || text[0] == '{') {
      return false;
    }
    if (text[0] == '\'' || text[0] == '"') {
      Expected<QuotedSpan> quoted = scanQuoted(text, 0, 0);
      return quoted.ok() && isKeyColon(trimLeft(text.substr(quoted->end)));
    }
    return plainKeyEnd(text) != std::string_view::npos;
  }

  // `after` (what follows a quoted key) starts with the ':' of "key: value".
  static bool isKeyColon(std::string_view after) {
    return !after.empty() && after[0] == ':' &&
        (after.size() == 1 || after[1] == ' ');
  }

  // The "key: value" lines of `map`, all at `indent`.
  Status parseMapItems(size_t map, size_t indent, size_t depth) {
    size_t last = kNoNode;
    while (pos_ < lines_.size()) {
      const SourceLine line = lines_[pos_];
      if (line.indent < indent) {
        break;
      }
      if (line.indent > indent) {
        return lineError(
            line.number,
            "unexpected indentation (expected column " +
                std::to_string(indent + 1) +
                "; multi-line values are not supported)");
      }
      if (isSequenceItem(line.text)) {
        return lineError(
            line.number, "expected 'key: value' but found a sequence item");
      }
      std::string_view key;
      std::string_view rest;
      if (line.text[0] == '\'' || line.text[0] == '"') {
        size_t end = 0;
        Status quoted = readQuoted(line.text, 0, line.number, key, end);
        if (!quoted) {
          return quoted.error();
        }
        rest = trimLeft(line.text.substr(end));
        if (rest.empty() || rest[0] != ':') {
          return lineError(line.number, "expected ':' after the quoted key");
        }
        if (!isKeyColon(rest)) {
          return lineError(
              line.number, "expected ': ' after the quoted key (a space)");
        }
        rest = trimLeft(rest.substr(1));
      } else {
        const size_t colon = plainKeyEnd(line.text);
        if (colon == std::string_view::npos) {
          return lineError(
              line.number,
              "expected 'key: value', got '" +
                  std::string(line.text.substr(0, 60)) + "'");
        }
        key = trimRight(line.text.substr(0, colon));
        if (const char* problem = plainStartProblem(key)) {
          return plainError(line.number, key, problem);
        }
        rest = trimLeft(line.text.substr(colon + 1));
      }
      ++pos_;
      size_t child = kNoNode;
      if (!rest.empty()) {
        Expected<size_t> value = parseInline(rest, line.number, depth + 1);
        if (!value) {
          return value.error();
        }
        child = *value;
      } else if (
          pos_ < lines_.size() &&
          (lines_[pos_].indent > indent ||
           // "key:\n- item": a sequence may sit at its key's indentation.
           (lines_[pos_].indent == indent &&
            isSequenceItem(lines_[pos_].text)))) {
        Expected<size_t> value = parseBlock(lines_[pos_].indent, depth + 1);
        if (!value) {
          return value.error();
        }
        child = *value;
      } else {
        child = addNode(NodeKind::kScalar, line.number); // null value
      }
      doc_.nodes_[child].key = key;
      append(map, last, child);
    }
    return Status::success();
  }

  // The "- item" lines of `seq`, all at `indent`.
  Status parseSequenceItems(size_t seq, size_t indent, size_t depth) {
    size_t last = kNoNode;
    while (pos_ < lines_.size()) {
      const SourceLine line = lines_[pos_];
      if (line.indent < indent || !isSequenceItem(line.text)) {
        break;
      }
      if (line.indent > indent) {
        return lineError(
            line.number, "unexpected indentation inside a sequence");
      }
      std::string_view after_dash = line.text.substr(1);
      const std::string_view content = trimLeft(after_dash);
      const size_t content_indent =
          line.indent + 1 + (after_dash.size() - content.size());
      size_t child = kNoNode;
      if (content.empty()) {
        ++pos_;
        if (pos_ < lines_.size() && lines_[pos_].indent > indent) {
          Expected<size_t> value = parseBlock(lines_[pos_].indent, depth + 1);
          if (!value) {
            return value.error();
          }
          child = *value;
        } else {
          child = addNode(NodeKind::kScalar, line.number);
        }
      } else if (isSequenceItem(content) || looksLikeMapEntry(content)) {
        // "- key: value" / "- - x": the rest of the line opens a nested
        // block at the column where its content starts.
        lines_[pos_].indent = content_indent;
        lines_[pos_].text = content;
        Expected<size_t> value = parseBlock(content_indent, depth + 1);
        if (!value) {
          return value.error();
        }
        child = *value;
      } else {
        ++pos_;
        Expected<size_t> value = parseInline(content, line.number, depth + 1);
        if (!value) {
          return value.error();
        }
        child = *value;
      }
      append(seq, last, child);
    }
    return Status::success();
  }

  // The quoted scalar at text[start] (scanQuoted): its value, unescaped
  // into a string the document keeps when it has escapes; `end` is one
  // past the closing quote.
  Status readQuoted(
      std::string_view text,
      size_t start,
      size_t line,
      std::string_view& value,
      size_t& end) {
    Expected<QuotedSpan> span = scanQuoted(text, start, line);
    if (!span) {
      return span.error();
    }
    const std::string_view body = text.substr(start + 1, span->end - start - 2);
    if (span->escaped) {
      doc_.owned_.push_back(unescape(body, text[start]));
      value = doc_.owned_.back();
    } else {
      value = body;
    }
    end = span->end;
    return Status::success();
  }

  // A value on the same line as its key or dash.
  Expected<size_t> parseInline(
      std::string_view text,
      size_t line,
      size_t depth) {
    const char first = text[0];
    if (first == '[' || first == '{') {
      size_t end = 0;
      Expected<size_t> flow = parseFlow(text, 0, line, depth, end);
      if (!flow) {
        return flow.error();
      }
      if (!trimLeft(text.substr(end)).empty()) {
        return lineError(line, "unexpected text after a flow collection");
      }
      return flow;
    }
    if (first == '\'' || first == '"') {
      std::string_view value;
      size_t end = 0;
      Status quoted = readQuoted(text, 0, line, value, end);
      if (!quoted) {
        return quoted.error();
      }
      if (!trimLeft(text.substr(end)).empty()) {
        return lineError(line, "unexpected text after a quoted string");
      }
      const size_t node = addNode(NodeKind::kScalar, line);
      doc_.nodes_[node].text = value;
      doc_.nodes_[node].quoted = true;
      return node;
    }
    if (first == '|' || first == '>') {
      return lineError(line, "block scalars ('|', '>') are not supported");
    }
    if (first == '&' || first == '*' || first == '!') {
      return lineError(line, "anchors, aliases and tags are not supported");
    }
    if (const char* problem = plainScalarProblem(text)) {
      return plainError(line, text, problem);
    }
    const size_t node = addNode(NodeKind::kScalar, line);
    doc_.nodes_[node].text = text;
    return node;
  }

  // The key of a flow map entry at text[i], quoted or plain; `i` moves past
  // its ':'. A plain key ends at a ':' followed by a space, ',', ']', '}'
  // or the line's end (YAML reads `{a:1}` as the key "a:1").
  Status readFlowKey(
      std::string_view text,
      size_t line,
      size_t& i,
      std::string_view& key) {
    if (text[i] == '\'' || text[i] == '"') {
      Status quoted = readQuoted(text, i, line, key, i);
      if (!quoted) {
        return quoted;
      }
      while (i < text.size() && text[i] == ' ') {
        ++i;
      }
      if (i >= text.size() || text[i] != ':') {
        return lineError(line, "expected ':' after the quoted key");
      }
      ++i;
      return Status::success();
    }
    for (size_t colon = text.find_first_of(":,[]{}", i);
         colon != std::string_view::npos && text[colon] == ':';
         colon = text.find_first_of(":,[]{}", colon + 1)) {
      if (colon + 1 == text.size() ||
          std::string_view(" ,]}").find(text[colon + 1]) !=
              std::string_view::npos) {
        key = trimRight(text.substr(i, colon - i));
        if (key.empty()) {
          break;
        }
        if (const char* problem = plainStartProblem(key)) {
          return plainError(line, key, problem);
        }
        i = colon + 1;
        return Status::success();
      }
    }
    return lineError(line, "expected 'key: value' in a flow map");
  }

  // `[a, b, [c]]` or `{k: v}` starting at text[start], on one line.
  Expected<size_t> parseFlow(
      std::string_view text,
      size_t start,
      size_t line,
      size_t depth,
      size_t& end) {
    const bool is_map = text[start] == '{';
    const char close = is_map ? '}' : ']';
    Expected<size_t> opened = addCollection(
        is_map ? NodeKind::kMap : NodeKind::kSequence, line, depth);
    if (!opened) {
      return opened.error();
    }
    const size_t node = *opened;
    size_t last = kNoNode;
    size_t i = start + 1;
    auto skipSpaces = [&]() {
      while (i < text.size() && text[i] == ' ') {
        ++i;
      }
    };
    skipSpaces();
    if (i < text.size() && text[i] == close) {
      end = i + 1;
      return node;
    }
    while (true) {
      skipSpaces();
      if (i >= text.size()) {
        break;
      }
      std::string_view key;
      if (is_map) {
        Status key_read = readFlowKey(text, line, i, key);
        if (!key_read) {
          return key_read.error();
        }
        skipSpaces();
      }
      if (i >= text.size()) {
        break;
      }
      size_t child = kNoNode;
      if (text[i] == '[' || text[i] == '{') {
        Expected<size_t> nested = parseFlow(text, i, line, depth + 1, i);
        if (!nested) {
          return nested.error();
        }
        child = *nested;
      } else if (text[i] == '\'' || text[i] == '"') {
        std::string_view value;
        Status quoted = readQuoted(text, i, line, value, i);
        if (!quoted) {
          return quoted.error();
        }
        child = addNode(NodeKind::kScalar, line);
        doc_.nodes_[child].text = value;
        doc_.nodes_[child].quoted = true;
      } else {
        const size_t item_end = text.find_first_of(",]}", i);
        if (item_end == std::string_view::npos) {
          break;
        }
        const std::string_view item = trimRight(text.substr(i, item_end - i));
        // A map's value may be empty (null); a sequence entry may not.
        if (item.empty() && !is_map) {
          return lineError(line, "empty entry in a flow sequence");
        }
        if (!item.empty()) {
          const char* problem =
              item.find_first_of("[{") != std::string_view::npos
              ? "holds '[' or '{'"
              : plainScalarProblem(item);
          if (problem != nullptr) {
            return plainError(line, item, problem);
          }
        }
        child = addNode(NodeKind::kScalar, line);
        doc_.nodes_[child].text = item;
        i = item_end;
      }
      doc_.nodes_[child].key = key;
      append(node, last, child);
      skipSpaces();
      if (i >= text.size()) {
        break;
      }
      if (text[i] == ',') {
        ++i;
        skipSpaces();
        if (i < text.size() && text[i] == close) {
          end = i + 1; // a trailing comma adds no entry
          return node;
        }
        continue;
      }
      if (text[i] == close) {
        end = i + 1;
        return node;
      }
      return lineError(
          line,
          std::string("expected ',' or '") + close + "' in a flow collection");
    }
    return lineError(
        line,
        std::string("flow collection not closed with '") + close +
            "' on the same line");
  }

  std::string_view text_;
  const std::vector<std::string_view>& skip_keys_;
  std::vector<SourceLine> lines_;
  size_t pos_ = 0;
  Document& doc_;
};

const char* plainScalarProblem(std::string_view text) {
  if (const char* problem = plainStartProblem(text)) {
    return problem;
  }
  for (size_t i = text.find(':'); i != std::string_view::npos;
       i = text.find(':', i + 1)) {
    if (i + 1 == text.size()) {
      return "ends with ':'";
    }
    if (isSpace(text[i + 1])) {
      return "holds ': '";
    }
  }
  return nullptr;
}

size_t Document::find(size_t index, std::string_view key) const {
  for (size_t c = nodes_[index].first_child; c != kNoNode;
       c = nodes_[c].next_sibling) {
    if (nodes_[c].key == key) {
      return c;
    }
  }
  return kNoNode;
}

Expected<Document> parse(
    std::string_view text,
    const std::vector<std::string_view>& skip_keys) {
  Document doc;
  Status parsed = Parser(text, skip_keys, doc).run();
  if (!parsed) {
    return parsed.error();
  }
  return doc;
}

Expected<int64_t> toInt(const Node& node) {
  if (node.kind != NodeKind::kScalar) {
    return Error(
        "expected an integer, got a " +
        std::string(node.kind == NodeKind::kMap ? "map" : "sequence"));
  }
  return parseInt(node.text);
}

Expected<int64_t> parseInt(std::string_view text) {
  std::string_view s = text;
  const auto shown = [text]() { return std::string(text.substr(0, 40)); };
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  uint64_t base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  } else if (s.size() > 2 && s[0] == '0' && s[1] == 'o') {
    base = 8;
    s.remove_prefix(2);
  }
  if (s.empty()) {
    return Error("expected an integer, got '" + shown() + "'");
  }
  // Magnitude limit: INT64_MAX, or one more for a negative value.
  const uint64_t limit =
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) +
      (negative ? 1u : 0u);
  const uint64_t limit_before_digit = limit / base;
  uint64_t value = 0;
  for (const char c : s) {
    uint64_t digit = 0;
    if (c >= '0' && c <= '9') {
      digit = static_cast<uint64_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      digit = static_cast<uint64_t>(c - 'a') + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = static_cast<uint64_t>(c - 'A') + 10;
    } else {
      digit = base; // not a digit
    }
    if (digit >= base) {
      return Error("expected an integer, got '" + shown() + "'");
    }
    // value <= limit / base keeps value * base from wrapping (one division
    // per number, not per digit).
    if (value > limit_before_digit || value * base > limit - digit) {
      return Error("integer '" + shown() + "' is out of range");
    }
    value = value * base + digit;
  }
  if (negative) {
    return value == limit ? std::numeric_limits<int64_t>::min()
                          : -static_cast<int64_t>(value);
  }
  return static_cast<int64_t>(value);
}

Expected<bool> toBool(const Node& node) {
  // A map or sequence has no text: the error shows ''.
  return parseBool(node.text, node.kind != NodeKind::kScalar || node.quoted);
}

Expected<bool> parseBool(std::string_view text, bool quoted) {
  if (!quoted) {
    if (text == "true" || text == "True" || text == "TRUE") {
      return true;
    }
    if (text == "false" || text == "False" || text == "FALSE") {
      return false;
    }
  }
  return Error(
      "expected true or false, got '" + std::string(text.substr(0, 40)) + "'");
}

} // namespace yaml
} // namespace zebin
} // namespace xsl
