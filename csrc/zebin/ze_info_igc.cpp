// The IGC layout reader (ze_info_readers.h): `.ze_info` as IGC writes it,
// read in one pass straight into ZeInfo, without the tree reader's line
// table and node tree. It takes only what it fully understands: block maps
// and lists indented with spaces, `key: value` lines with plain or simply
// quoted scalars, the keys the tree reader knows, valid values. On anything
// else (comments, tabs, CR, flow maps, escapes, a ':' in a value, unknown
// keys, a bad value) it declines, and the tree reader reads the text with its
// errors and warnings; so every rule below is the tree reader's, never a new
// one.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zebin/yaml.h"
#include "zebin/ze_info_readers.h"
#include "zebin/zebin.h"

namespace xsl {
namespace zebin {
namespace readers {
namespace {

// [A-Za-z0-9_], by a table built at compile time.
struct KeyChars {
  bool table[256] = {};
  constexpr KeyChars() {
    for (int c = 0; c < 256; ++c) {
      table[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_';
    }
  }
};

constexpr KeyChars kKeyChars;

// A key as the tree reader reads one: [A-Za-z0-9_]+. Lines are split at
// their first colon without looking at the key's bytes; a key that is
// compared with the names the reader knows needs no other check, and the
// few places that take any key (flags, attributes, ignored maps) call this.
bool isPlainKey(std::string_view key) {
  for (const char c : key) {
    if (!kKeyChars.table[static_cast<unsigned char>(c)]) {
      return false;
    }
  }
  return !key.empty();
}

// Eight bytes at a time, as one little-endian word: the byte first in
// memory is the lowest. MSVC targets only little-endian hosts; GCC and
// Clang say which they build for.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "ze_info_igc.cpp reads words as little-endian"
#endif
constexpr uint64_t kLowBits = 0x0101010101010101u;
constexpr uint64_t kHighBits = 0x8080808080808080u;

uint64_t loadWord(const char* p) {
  uint64_t word = 0;
  std::memcpy(&word, p, sizeof(word));
  return word;
}

// The high bit of each byte of `word` that equals `c`; exact up to the
// first such byte (a borrow only reaches bytes above it), which is all
// firstMarked reads.
uint64_t bytesEqual(uint64_t word, char c) {
  const uint64_t x = word ^ (kLowBits * static_cast<unsigned char>(c));
  return (x - kLowBits) & ~x & kHighBits;
}

// Index of the first byte marked in `marks` (not 0): the lowest set bit
// is bit 8k+7; multiplying 1 << 8k by 0x0001..07 puts k in the top byte.
size_t firstMarked(uint64_t marks) {
  const uint64_t lowest = (marks & (~marks + 1)) >> 7;
  return static_cast<size_t>((lowest * 0x0001020304050607u) >> 56);
}

// The first ':' or '\n' at or after `p`, or `end`.
const char* findColonOrNewline(const char* p, const char* end) {
  while (end - p >= 8) {
    const uint64_t word = loadWord(p);
    const uint64_t marks = bytesEqual(word, ':') | bytesEqual(word, '\n');
    if (marks != 0) {
      return p + firstMarked(marks);
    }
    p += 8;
  }
  while (p != end && *p != ':' && *p != '\n') {
    ++p;
  }
  return p;
}

// The first byte at or after `p` that is not a space, eight bytes to a
// compare while they are all spaces: IGC indents by two per level and pads
// keys to align values in a column, so most bytes of a line are spaces.
const char* skipSpaces(const char* p, const char* end) {
  constexpr uint64_t kSpaces = kLowBits * ' ';
  while (end - p >= 8 && loadWord(p) == kSpaces) {
    p += 8;
  }
  while (p != end && *p == ' ') {
    ++p;
  }
  return p;
}

// A scalar as the tree reader takes it: plain, or quoted without escapes.
struct Scalar {
  std::string_view text;
  bool quoted = false;
};

bool readScalar(std::string_view value, Scalar& out) {
  if (value.empty()) {
    return false; // a null value or a block: not a scalar here
  }
  const char first = value[0];
  if (first == '\'' || first == '"') {
    if (value.size() < 2 || value.back() != first) {
      return false;
    }
    out.text = value.substr(1, value.size() - 2);
    out.quoted = true;
    // '' in single quotes and \ in double quotes are escapes.
    return out.text.find(first) == std::string_view::npos &&
        (first == '\'' || out.text.find('\\') == std::string_view::npos);
  }
  // Values hold no ':' (parseLine declines one), so a value starting with
  // a letter, digit or '_' is a plain scalar; others take the tree
  // reader's rule, which refuses an indicator first.
  if (!kKeyChars.table[static_cast<unsigned char>(first)] &&
      yaml::plainScalarProblem(value) != nullptr) {
    return false; // the tree reader refuses it (or reads a flow or block)
  }
  out.text = value;
  out.quoted = false;
  return true;
}

std::string_view trimSpaces(std::string_view s) {
  while (!s.empty() && s.front() == ' ') {
    s.remove_prefix(1);
  }
  while (!s.empty() && s.back() == ' ') {
    s.remove_suffix(1);
  }
  return s;
}

// The value of a key the tree reader ignores: a scalar, or a one-line flow
// sequence of plain items, each one the tree reader takes (none empty but
// what follows a trailing comma).
bool isIgnorableValue(std::string_view value) {
  Scalar scalar;
  if (readScalar(value, scalar)) {
    return true;
  }
  if (value.size() < 2 || value.front() != '[' || value.back() != ']') {
    return false;
  }
  const std::string_view items = value.substr(1, value.size() - 2);
  if (items.find_first_of("[]{}'\"") != std::string_view::npos) {
    return false;
  }
  if (trimSpaces(items).empty()) {
    return true; // []
  }
  for (size_t start = 0;;) {
    const size_t comma = items.find(',', start);
    const std::string_view item = trimSpaces(items.substr(
        start, comma == std::string_view::npos ? comma : comma - start));
    if (item.empty()) {
      return comma == std::string_view::npos && start != 0;
    }
    if (yaml::plainScalarProblem(item) != nullptr) {
      return false;
    }
    if (comma == std::string_view::npos) {
      return true;
    }
    start = comma + 1;
  }
}

// One content line: `key: value`, or `- key: value` opening a list item.
struct Line {
  size_t column = 0; // of the key, or of the '-' of an item
  size_t indent = 0; // of the key (an item's entries continue there)
  bool item = false;
  std::string_view key;
  std::string_view value; // empty: a block follows, or a null value
};

class IgcLayoutReader {
 public:
  IgcLayoutReader(std::string_view text, ZeInfoDetail detail)
      : text_(text), keep_lists_(detail != ZeInfoDetail::kLaunch) {}

  std::optional<ZeInfo> read() {
    // Outside the layout anywhere: comments, tabs, CR line ends.
    if (text_.find('#') != std::string_view::npos ||
        text_.find('\t') != std::string_view::npos ||
        text_.find('\r') != std::string_view::npos) {
      return std::nullopt;
    }
    next();
    while (ok_ && has_line_) {
      if (line_.column != 0 || line_.item) {
        return std::nullopt;
      }
      const Line entry = line_;
      next();
      bool read = false;
      if (entry.key == "version") {
        Scalar version;
        read = readScalar(entry.value, version) &&
            parseVersion(version.text, info_.version);
        if (read) {
          info_.version_text.assign(version.text.data(), version.text.size());
        }
      } else if (entry.key == "kernels") {
        read = readList(
            entry, [this](size_t indent) { return readKernel(indent); });
      } else if (entry.key == "kernels_misc_info") {
        read = readList(
            entry, [this](size_t indent) { return readMiscInfo(indent); });
      }
      if (!read) {
        return std::nullopt;
      }
    }
    if (!ok_ || info_.version_text.empty()) {
      return std::nullopt;
    }
    if (!deriveKernels(info_, misc_)) {
      return std::nullopt;
    }
    if (!keep_lists_) {
      leaveLaunchDetail(info_);
    }
    return std::move(info_);
  }

 private:
  // Moves to the next content line; has_line_ is false at the end of the
  // document, ok_ false on a line outside the layout. One pass over each
  // line's bytes: indentation, item dash, key, colon, value.
  void next() {
    has_line_ = false;
    const char* const begin = text_.data();
    const char* const end = begin + text_.size();
    while (ok_ && pos_ < text_.size()) {
      const char* const line = begin + pos_;
      const char* p = skipSpaces(line, end);
      if (p == end || *p == '\n') {
        pos_ = static_cast<size_t>(p - begin) + 1; // a blank line
        continue;
      }
      if (p == line && (*p == '-' || *p == '.') && documentMarker(line)) {
        continue;
      }
      seen_content_ = true;
      ok_ = parseLine(static_cast<size_t>(p - line), p, end);
      has_line_ = ok_;
      return;
    }
  }

  // "---" (the document start, once, before any content) or "..." (its
  // end: what follows is not ours) at the start of a line: true if the line
  // is one, and then it has been taken.
  bool documentMarker(const char* line) {
    size_t line_end = text_.find('\n', pos_);
    if (line_end == std::string_view::npos) {
      line_end = text_.size();
    }
    std::string_view rest(line, line_end - pos_);
    while (!rest.empty() && rest.back() == ' ') {
      rest.remove_suffix(1);
    }
    if (rest.substr(0, 3) == "---") {
      ok_ = rest.size() == 3 && !seen_content_;
      seen_content_ = true;
      pos_ = line_end + 1;
      return true;
    }
    if (rest == "...") {
      pos_ = text_.size();
      return true;
    }
    return false;
  }

  // The line whose first non-space byte is `p`, at `column`; leaves pos_
  // at the next line.
  bool parseLine(size_t column, const char* p, const char* end) {
    line_.column = column;
    line_.item = *p == '-';
    if (line_.item) {
      const char* after = skipSpaces(p + 1, end);
      if (after == p + 1 || after == end || *after == '\n') {
        return false; // "-x" or a bare "-"
      }
      column += static_cast<size_t>(after - p);
      p = after;
    }
    line_.indent = column;
    const char* const key = p;
    p = findColonOrNewline(p, end);
    if (p == key || p == end || *p != ':') {
      return false;
    }
    line_.key = std::string_view(key, static_cast<size_t>(p - key));
    ++p;
    if (p != end && *p != ' ' && *p != '\n') {
      return false;
    }
    const char* const value = skipSpaces(p, end);
    // IGC writes no ':' in a value: one is declined, and the tree reader
    // decides whether "a: b" or "a:b" is text (readScalar counts on it).
    p = findColonOrNewline(value, end);
    if (p != end && *p == ':') {
      return false;
    }
    pos_ = static_cast<size_t>(p - text_.data()) + 1;
    const char* value_end = p;
    while (value_end != value && value_end[-1] == ' ') {
      --value_end;
    }
    line_.value =
        std::string_view(value, static_cast<size_t>(value_end - value));
    return true;
  }

  // After `key:` at `key_indent` (its line already passed): true if a
  // block of lines deeper than the key follows.
  bool blockFollows(size_t key_indent) const {
    return has_line_ && line_.column > key_indent;
  }

  // The list under `key` (the current line is the one after it): fn(indent)
  // reads each item, whose first entry is the current line.
  template <typename Fn>
  bool readList(const Line& key, Fn&& fn) {
    if (!key.value.empty()) {
      return false;
    }
    if (!blockFollows(key.indent)) {
      // "key:" alone: an empty list. A "- item" at the key's own column
      // (the tree reader's) then ends the enclosing map outside the layout.
      return true;
    }
    if (!line_.item) {
      return false; // a map where a list belongs
    }
    const size_t dash = line_.column;
    while (ok_ && has_line_ && line_.item && line_.column == dash) {
      if (!fn(line_.indent)) {
        return false;
      }
    }
    return ok_ && (!has_line_ || line_.column <= key.indent);
  }

  // The entries of a map at `indent`, the current line being the first:
  // fn(entry) reads each (the entry's line already passed).
  template <typename Fn>
  bool readMap(size_t indent, Fn&& fn) {
    bool first = true;
    while (ok_ && has_line_ && line_.indent == indent &&
           (first ? line_.column <= indent : !line_.item)) {
      first = false;
      const Line entry = line_;
      next();
      if (!fn(entry)) {
        return false;
      }
    }
    return ok_ && (!has_line_ || line_.column < indent);
  }

  // A block map of scalar (or flow) entries under `key`.
  template <typename Fn>
  bool readFlatMap(const Line& key, Fn&& fn) {
    if (!key.value.empty() || !blockFollows(key.indent) || line_.item) {
      return false;
    }
    const size_t indent = line_.column;
    return readMap(
               indent,
               [&fn](const Line& entry) {
                 return !entry.value.empty() && fn(entry);
               }) &&
        (!has_line_ || line_.column <= key.indent);
  }

  // The value of a key the tree reader ignores: one on the line, or a list
  // of flat maps, or a flat map.
  bool skipValue(const Line& key) {
    if (!key.value.empty()) {
      return isIgnorableValue(key.value);
    }
    if (!blockFollows(key.indent)) {
      return true; // null
    }
    const auto ignorable = [](const Line& entry) {
      return isPlainKey(entry.key) && isIgnorableValue(entry.value);
    };
    if (line_.item) {
      return readList(key, [this, &ignorable](size_t indent) {
        return readMap(indent, ignorable);
      });
    }
    return readFlatMap(key, ignorable);
  }

  static bool text(const Line& entry, std::string& out) {
    Scalar scalar;
    if (!readScalar(entry.value, scalar)) {
      return false;
    }
    out.assign(scalar.text.data(), scalar.text.size());
    return true;
  }

  // Sizes, counts, offsets: integers that cannot be negative.
  static bool count(const Line& entry, int64_t& out) {
    Scalar scalar;
    if (!readScalar(entry.value, scalar)) {
      return false;
    }
    Expected<int64_t> value = yaml::parseInt(scalar.text);
    if (!value || *value < 0) {
      return false;
    }
    out = *value;
    return true;
  }

  static bool boolean(const Line& entry, bool& out) {
    Scalar scalar;
    if (!readScalar(entry.value, scalar)) {
      return false;
    }
    Expected<bool> value = yaml::parseBool(scalar.text, scalar.quoted);
    if (!value) {
      return false;
    }
    out = *value;
    return true;
  }

  bool readKernel(size_t indent) {
    KernelInfo kernel;
    bool has_name = false;
    bool has_env = false;
    int64_t attribute_sub_group_size = 0;
    const bool read = readMap(indent, [&](const Line& entry) {
      if (entry.key == "name") {
        // The tree reader takes the first name and ignores others.
        if (has_name) {
          return skipValue(entry);
        }
        has_name = true;
        return text(entry, kernel.name) && !kernel.name.empty();
      }
      if (entry.key == "execution_env") {
        has_env = true;
        return readExecutionEnv(entry, kernel.execution_env);
      }
      if (entry.key == "payload_arguments") {
        // Triton's kernels have 10-60: most lists grow once at most.
        kernel.payload_arguments.reserve(32);
        return readList(entry, [this, &kernel](size_t item) {
          return readPayloadArgument(item, kernel);
        });
      }
      if (entry.key == "per_thread_memory_buffers") {
        return readList(entry, [this, &kernel](size_t item) {
          return readMemoryBuffer(item, kernel);
        });
      }
      if (entry.key == "user_attributes") {
        bool found = false;
        return readFlatMap(entry, [&](const Line& attribute) {
          if (attribute.key != "intel_reqd_sub_group_size" || found) {
            return isPlainKey(attribute.key) &&
                isIgnorableValue(attribute.value);
          }
          found = true;
          return count(attribute, attribute_sub_group_size);
        });
      }
      if (isIgnoredKernelKey(entry.key)) {
        return skipValue(entry);
      }
      return false;
    });
    if (!read || !has_name || !has_env) {
      return false;
    }
    if (kernel.execution_env.required_sub_group_size == 0) {
      kernel.execution_env.required_sub_group_size = attribute_sub_group_size;
    }
    info_.kernels.push_back(std::move(kernel));
    return true;
  }

  bool readExecutionEnv(const Line& key, ExecutionEnv& env) {
    bool has_grf = false;
    bool has_simd = false;
    const bool read = readFlatMap(key, [&](const Line& entry) {
      int64_t* target = executionEnvCount(env, entry.key);
      has_grf |= entry.key == "grf_count";
      has_simd |= entry.key == "simd_size";
      if (target != nullptr) {
        return count(entry, *target);
      }
      if (entry.key == "spill_size") {
        int64_t spill = 0;
        if (!count(entry, spill)) {
          return false;
        }
        env.spill_size = spill;
        return true;
      }
      if ((entry.value == "true" || entry.value == "false") &&
          isPlainKey(entry.key)) {
        if (keep_lists_) {
          env.flags[std::string(entry.key)] = entry.value == "true";
        }
        return true;
      }
      // Known keys checked for shape only; anything else is a warning.
      return isIgnoredExecutionEnvKey(entry.key) &&
          isIgnorableValue(entry.value);
    });
    return read && has_grf && has_simd &&
        (env.simd_size == 1 || env.simd_size == 8 || env.simd_size == 16 ||
         env.simd_size == 32) &&
        env.grf_count > 0 && env.grf_count <= 4096;
  }

  // Entries are read in place at the end of their list: most of a
  // .ze_info is these, and a declined document is dropped whole.
  bool readPayloadArgument(size_t indent, KernelInfo& kernel) {
    PayloadArgument& arg = kernel.payload_arguments.emplace_back();
    const bool read = readMap(indent, [&arg](const Line& entry) {
      if (std::string* target = payloadText(arg, entry.key)) {
        return text(entry, *target);
      }
      if (int64_t* target = payloadCount(arg, entry.key)) {
        return count(entry, *target);
      }
      if (entry.key == "arg_index") {
        int64_t index = 0;
        if (!count(entry, index) || index > kMaxArgIndex) {
          return false;
        }
        arg.arg_index = index;
        return true;
      }
      if (entry.key == "is_ptr") {
        return boolean(entry, arg.is_ptr);
      }
      return isIgnoredPayloadKey(entry.key) && isIgnorableValue(entry.value);
    });
    return read && !arg.arg_type.empty();
  }

  bool readMemoryBuffer(size_t indent, KernelInfo& kernel) {
    PerThreadMemoryBuffer buffer;
    const bool read = readMap(indent, [&buffer](const Line& entry) {
      if (entry.key == "type") {
        return text(entry, buffer.type);
      }
      if (entry.key == "usage") {
        return text(entry, buffer.usage);
      }
      if (entry.key == "size") {
        return count(entry, buffer.size);
      }
      if (entry.key == "slot") {
        return count(entry, buffer.slot);
      }
      if (entry.key == "is_simt_thread") {
        return boolean(entry, buffer.is_simt_thread);
      }
      return false;
    });
    if (!read) {
      return false;
    }
    kernel.per_thread_memory_buffers.push_back(std::move(buffer));
    return true;
  }

  bool readMiscInfo(size_t indent) {
    std::string name;
    bool has_name = false;
    bool has_args = false;
    std::vector<ArgInfo> infos;
    const bool read = readMap(indent, [&](const Line& entry) {
      // The tree reader looks up the first name and args_info and ignores
      // every other entry: only those two, once each, are the layout.
      if (entry.key == "name" && !has_name) {
        has_name = true;
        return text(entry, name);
      }
      if (entry.key == "args_info" && !has_args) {
        has_args = true;
        infos.reserve(16);
        return readList(entry, [this, &infos](size_t item) {
          return readArgInfo(item, infos);
        });
      }
      return false;
    });
    if (!read || !has_name) {
      return false;
    }
    misc_.emplace_back(std::move(name), std::move(infos));
    return true;
  }

  bool readArgInfo(size_t indent, std::vector<ArgInfo>& infos) {
    ArgInfo& info = infos.emplace_back();
    return readMap(indent, [&info](const Line& entry) {
      if (entry.key == "index") {
        return count(entry, info.index);
      }
      std::string* target = argInfoText(info, entry.key);
      return target != nullptr && text(entry, *target);
    });
  }

  std::string_view text_;
  // kFull: keep the payload and args_info lists and the flags; kLaunch
  // reads and checks them only, then leaves them out (leaveLaunchDetail),
  // and does not store the flags in the first place.
  bool keep_lists_ = true;
  size_t pos_ = 0;
  Line line_;
  bool has_line_ = false;
  bool ok_ = true;
  bool seen_content_ = false;
  ZeInfo info_;
  MiscInfos misc_;
};

} // namespace

std::optional<ZeInfo> parseIgcLayout(
    std::string_view text,
    ZeInfoDetail detail) {
  return IgcLayoutReader(text, detail).read();
}

} // namespace readers
} // namespace zebin
} // namespace xsl
