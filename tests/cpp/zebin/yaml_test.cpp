// The YAML subset reader and the .ze_info type checks on bad input.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "zebin/yaml.h"
#include "zebin/zebin.h"
#include "zebin_writer.h"

namespace xsl {
namespace zebin {
namespace {

using yaml::Document;
using yaml::kNoNode;
using yaml::NodeKind;

std::string parseError(const std::string& text) {
  Expected<Document> doc = yaml::parse(text);
  EXPECT_FALSE(doc.ok()) << text;
  return doc.ok() ? std::string() : doc.error().message();
}

std::string zeInfoError(const std::string& text) {
  Expected<ZeInfo> info = parseZeInfo(text);
  EXPECT_FALSE(info.ok()) << text;
  return info.ok() ? std::string() : info.error().message();
}

#define EXPECT_HAS(message, text) \
  EXPECT_NE((message).find(text), std::string::npos) << (message)

TEST(Yaml, ParsesTheSubsetIgcWrites) {
  const std::string text =
      "%YAML 1.2\n"
      "---\n"
      "# comment line\n"
      "a:   1   # trailing comment\n"
      "b: 'it''s # not a comment'\n"
      "c: \"tab\\tquote\\\" # still text\"\n"
      "flow: [ 0, 1 , 2 ]\n"
      "empty_flow: []\n"
      "empty_map: {}\n"
      "nested: [ [1, 2], ['x', \"y\"] ]\n"
      "list:\n"
      "  - x: 1\n"
      "    y: 2\n"
      "  - plain item\n"
      "  -\n"
      "    z: 3\n"
      "  - - inner\n"
      "    - inner2\n"
      "same_indent_list:\n"
      "- one\n"
      "- two\n"
      "null_value:\n"
      "'quoted key': v\n"
      "url: http://example.com/a#b\n"
      "...\n"
      "this: is ignored after the end marker\n";
  Expected<Document> doc = yaml::parse(text);
  ASSERT_TRUE(doc.ok()) << doc.error().message();
  const Document& d = *doc;
  EXPECT_EQ(d.node(d.find(0, "a")).text, "1");
  EXPECT_EQ(d.node(d.find(0, "b")).text, "it's # not a comment");
  EXPECT_TRUE(d.node(d.find(0, "b")).quoted);
  EXPECT_EQ(d.node(d.find(0, "c")).text, "tab\tquote\" # still text");
  const size_t flow = d.find(0, "flow");
  ASSERT_EQ(d.node(flow).kind, NodeKind::kSequence);
  ASSERT_EQ(d.node(flow).child_count, 3u);
  EXPECT_EQ(d.node(d.nextSibling(d.firstChild(flow))).text, "1");
  EXPECT_EQ(d.node(d.find(0, "empty_flow")).child_count, 0u);
  EXPECT_EQ(d.node(d.find(0, "empty_map")).kind, NodeKind::kMap);
  EXPECT_EQ(d.node(d.find(0, "nested")).child_count, 2u);
  const size_t list = d.find(0, "list");
  ASSERT_EQ(d.node(list).child_count, 4u);
  const size_t first = d.firstChild(list);
  EXPECT_EQ(d.node(d.find(first, "y")).text, "2");
  const size_t second = d.nextSibling(first);
  EXPECT_EQ(d.node(second).text, "plain item");
  const size_t third = d.nextSibling(second);
  EXPECT_EQ(d.node(d.find(third, "z")).text, "3");
  const size_t fourth = d.nextSibling(third);
  EXPECT_EQ(d.node(fourth).kind, NodeKind::kSequence);
  EXPECT_EQ(d.node(fourth).child_count, 2u);
  EXPECT_EQ(d.node(d.find(0, "same_indent_list")).child_count, 2u);
  EXPECT_EQ(d.node(d.find(0, "null_value")).text, "");
  EXPECT_EQ(d.node(d.find(0, "quoted key")).text, "v");
  EXPECT_EQ(d.node(d.find(0, "url")).text, "http://example.com/a#b");
  EXPECT_EQ(d.find(0, "this"), kNoNode);
}

TEST(Yaml, AcceptsCrLfAndEmptyDocuments) {
  Expected<Document> doc = yaml::parse("a: 1\r\nb:\r\n  - 2\r\n");
  ASSERT_TRUE(doc.ok()) << doc.error().message();
  EXPECT_EQ(doc->node(doc->find(0, "a")).text, "1");
  EXPECT_TRUE(yaml::parse("").ok());
  EXPECT_TRUE(yaml::parse("---\n...\n").ok());
}

TEST(Yaml, RejectsWhatItDoesNotSupport) {
  EXPECT_HAS(
      parseError("a:\n\tb: 1\n"), "line 2: tab character in indentation");
  EXPECT_HAS(parseError("a: 1\n   b: 2\n"), "line 2: unexpected indentation");
  EXPECT_HAS(parseError("a:\n  b: 1\n c: 2\n"), "line 3");
  EXPECT_HAS(parseError("  a: 1\n"), "column 1");
  EXPECT_HAS(parseError("a: 1\nplain\n"), "expected 'key: value'");
  EXPECT_HAS(parseError("a: 'open\n"), "unterminated quoted string");
  EXPECT_HAS(parseError("a: \"bad \\q\"\n"), "unsupported escape");
  EXPECT_HAS(parseError("a: [1, 2\n"), "not closed");
  EXPECT_HAS(parseError("a: [1 2] x\n"), "after a flow collection");
  EXPECT_HAS(parseError("a: |\n  text\n"), "block scalars");
  EXPECT_HAS(parseError("a: &anchor 1\n"), "anchors");
  EXPECT_HAS(parseError("a: 1\n---\nb: 2\n"), "second YAML document");
  EXPECT_HAS(parseError("a:\n  - 1\n  b: 2\n"), "line 3");
}

// A quoted scalar ends at its closing quote on the same line, and only
// spaces or a comment may follow it. Each error names the line.
TEST(Yaml, RejectsMalformedQuotedScalars) {
  // A backslash at the end of the line escapes nothing: no closing quote.
  EXPECT_HAS(
      parseError("a: 1\nb: \"abc\\\n"), "line 2: unterminated quoted string");
  EXPECT_HAS(parseError("- \"abc\\\n"), "line 1: unterminated quoted string");
  EXPECT_HAS(
      parseError("a:\n  - \"abc\\\n"), "line 2: unterminated quoted string");
  EXPECT_HAS(
      parseError("\"abc\\\n"), "line 1: unterminated quoted string"); // a key
  EXPECT_HAS(parseError("a: [ \"x\\\n"), "line 1: unterminated quoted string");
  EXPECT_HAS(
      parseError("a: \"abc\\\"\n"), "line 1: unterminated quoted string");
  EXPECT_HAS(parseError("a: 'it''\n"), "line 1: unterminated quoted string");
  EXPECT_HAS(parseError("a: \"abc\n"), "line 1: unterminated quoted string");
  EXPECT_HAS(parseError("'k: v\n"), "line 1: unterminated quoted string");
  // Escapes the reader does not know, in values, keys and flow items.
  EXPECT_HAS(
      parseError("a: 1\nb: \"\\x41\"\n"), "line 2: unsupported escape '\\x'");
  EXPECT_HAS(parseError("\"a\\qb\": 1\n"), "line 1: unsupported escape");
  EXPECT_HAS(parseError("- \"a\\qb\": 1\n"), "line 1: unsupported escape");
  EXPECT_HAS(parseError("a: [ \"\\u0041\" ]\n"), "line 1: unsupported escape");
  // Text after the closing quote.
  EXPECT_HAS(
      parseError("a: 1\nb: \"x\" y\n"),
      "line 2: unexpected text after a quoted string");
  EXPECT_HAS(
      parseError("a: 'x'y\n"), "line 1: unexpected text after a quoted string");
  EXPECT_HAS(
      parseError("a: \"x\"# no space, no comment\n"),
      "line 1: unexpected text after a quoted string");
  EXPECT_HAS(
      parseError("- 'x' y\n"), "line 1: unexpected text after a quoted string");
  EXPECT_HAS(parseError("a: [ \"x\" y ]\n"), "line 1: expected ',' or ']'");
  EXPECT_HAS(
      parseError("a: { \"k\" x: 1 }\n"),
      "line 1: expected ':' after the quoted key");
  EXPECT_HAS(
      parseError("a: 1\n\"k\" x: v\n"),
      "line 2: expected ':' after the quoted key");
  EXPECT_HAS(
      parseError("\"k\":v\n"), "line 1: expected ': ' after the quoted key");
  EXPECT_HAS(
      parseError("- 'k':v\n"), "line 1: unexpected text after a quoted string");

  // Still read: a comment or spaces after the quote, "" and '' escapes.
  Expected<Document> doc = yaml::parse(
      "a: \"x\"   # comment\n"
      "b: 'it''s'\n"
      "c: \"q\\\"\\\\\"\n"
      "\"k\"  : v\n");
  ASSERT_TRUE(doc.ok()) << doc.error().message();
  EXPECT_EQ(doc->node(doc->find(0, "a")).text, "x");
  EXPECT_EQ(doc->node(doc->find(0, "b")).text, "it's");
  EXPECT_EQ(doc->node(doc->find(0, "c")).text, "q\"\\");
  EXPECT_EQ(doc->node(doc->find(0, "k")).text, "v");
}

// Plain scalars (values, keys, flow items) as YAML allows them: no
// indicator first, no ': ' inside, no empty flow entry.
TEST(Yaml, RejectsMalformedPlainScalars) {
  for (const char* text :
       {"a: b: c\n",     "a: b:\n",      "a: @x\n",       "a: `x\n",
        "a: %x\n",       "a: ,x\n",      "a: ]\n",        "a: }x\n",
        "a: -\n",        "a: - x\n",     "a: ? x\n",      "a: : x\n",
        "a: ?\n",        "@k: 1\n",      "&k a: 1\n",     "[k]: 1\n",
        "? k: 1\n",      "- @x\n",       "- ]: 1\n",      "a: [1, , 2]\n",
        "a: [ , 1]\n",   "a: [ @x ]\n",  "a: [ &x 1 ]\n", "a: [ - x ]\n",
        "a: [ k: v ]\n", "a: [ x[y ]\n", "a: { @k: 1 }\n"}) {
    const std::string message = parseError(std::string("z: 0\n") + text);
    EXPECT_EQ(message.rfind("line 2: ", 0), 0u) << text << " -> " << message;
  }
  EXPECT_HAS(parseError("a: b: c\n"), "': '");
  EXPECT_HAS(parseError("a: @x\n"), "'@x' is not a plain scalar");
  EXPECT_HAS(parseError("a: [1, , 2]\n"), "empty entry");

  // What YAML reads as plain text stays plain text.
  Expected<Document> doc = yaml::parse(
      "a: -x\n"
      "b: ?x\n"
      "c: :x\n"
      "d: x:y\n"
      "e: x :y\n"
      "f: -1\n"
      "g: x 'y # a comment, not a quoted string'\n"
      "h: [1, 2, ]\n"
      "i: { \"k\": v, 'q r': 2, s: 3 }\n"
      "j: a#b\n");
  ASSERT_TRUE(doc.ok()) << doc.error().message();
  const Document& d = *doc;
  EXPECT_EQ(d.node(d.find(0, "a")).text, "-x");
  EXPECT_EQ(d.node(d.find(0, "b")).text, "?x");
  EXPECT_EQ(d.node(d.find(0, "c")).text, ":x");
  EXPECT_EQ(d.node(d.find(0, "d")).text, "x:y");
  EXPECT_EQ(d.node(d.find(0, "e")).text, "x :y");
  EXPECT_EQ(d.node(d.find(0, "f")).text, "-1");
  EXPECT_EQ(d.node(d.find(0, "g")).text, "x 'y");
  const size_t h = d.find(0, "h");
  ASSERT_EQ(d.node(h).child_count, 2u); // a trailing comma adds no entry
  EXPECT_EQ(d.node(d.nextSibling(d.firstChild(h))).text, "2");
  const size_t i = d.find(0, "i");
  ASSERT_EQ(d.node(i).child_count, 3u);
  EXPECT_EQ(d.node(d.find(i, "k")).text, "v");
  EXPECT_EQ(d.node(d.find(i, "q r")).text, "2");
  EXPECT_EQ(d.node(d.find(i, "s")).text, "3");
  EXPECT_EQ(d.node(d.find(0, "j")).text, "a#b");
}

// "- key: value" is told from "- scalar" by a probe that reads the quoted
// key without unescaping or storing it: the document holds one copy per
// escaped key, made by the parse proper.
TEST(Yaml, ProbingASequenceItemStoresNothing) {
  const std::string text =
      "- \"k\\tx\": 1\n"
      "- 'it''s': 2\n"
      "- \"a long key with an escape\\t past the short string buffer\": 3\n"
      "- \"plain\": 4\n"
      "- \"just \\\"a\\\" scalar\"\n";
  Expected<Document> doc = yaml::parse(text);
  ASSERT_TRUE(doc.ok()) << doc.error().message();
  EXPECT_EQ(doc->unescapedCount(), 4u);
  const size_t first = doc->firstChild(0);
  EXPECT_EQ(doc->node(doc->find(first, "k\tx")).text, "1");
  const size_t second = doc->nextSibling(first);
  EXPECT_EQ(doc->node(doc->find(second, "it's")).text, "2");
  const size_t fifth =
      doc->nextSibling(doc->nextSibling(doc->nextSibling(second)));
  EXPECT_EQ(doc->node(fifth).text, "just \"a\" scalar");
}

TEST(Yaml, SkipKeysLeavesTheirBlocksOut) {
  const std::string text =
      "a:\n"
      "  skip:\n"
      "    - x: 1\n"
      "\n"
      "# a comment in column 1 does not end the block\n"
      "      deeper: [1, 2\n" // not even valid: never parsed
      "    - y: 2\n"
      "  keep: 3\n"
      "skip:\n"
      "- 1\n"
      "- 2\n"
      "b: 4\n";
  Expected<Document> doc = yaml::parse(text, {"skip"});
  ASSERT_TRUE(doc.ok()) << doc.error().message();
  const size_t a = doc->find(0, "a");
  EXPECT_EQ(doc->find(a, "skip"), kNoNode);
  EXPECT_EQ(doc->node(doc->find(a, "keep")).text, "3");
  EXPECT_EQ(doc->find(0, "skip"), kNoNode);
  EXPECT_EQ(doc->node(doc->find(0, "b")).text, "4");
  EXPECT_EQ(doc->node(doc->find(0, "b")).line, 12u);
  EXPECT_FALSE(yaml::parse(text).ok()); // the full parse sees the bad line
}

TEST(Yaml, DeepNestingIsAnErrorNotAStackOverflow) {
  std::string block;
  for (size_t depth = 0; depth < 2000; ++depth) {
    block += std::string(depth, ' ') + "k:\n";
  }
  EXPECT_HAS(parseError(block), "nesting deeper than");
  EXPECT_HAS(
      parseError("a: " + std::string(100000, '[')), "nesting deeper than");
  std::string dashes;
  for (size_t i = 0; i < 100000; ++i) {
    dashes += "- ";
  }
  EXPECT_HAS(parseError(dashes + "x\n"), "nesting deeper than");
}

TEST(Yaml, Integers) {
  yaml::Node node;
  const auto convert = [&](const char* text) {
    node.text = text;
    return yaml::toInt(node);
  };
  EXPECT_EQ(*convert("42"), 42);
  EXPECT_EQ(*convert("-7"), -7);
  EXPECT_EQ(*convert("0x1F"), 31);
  EXPECT_EQ(*convert("0o17"), 15);
  EXPECT_EQ(
      *convert("9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(
      *convert("-9223372036854775808"), std::numeric_limits<int64_t>::min());
  EXPECT_HAS(convert("9223372036854775808").error().message(), "out of range");
  EXPECT_HAS(
      convert("99999999999999999999999").error().message(), "out of range");
  EXPECT_HAS(convert("0x10000000000000000").error().message(), "out of range");
  EXPECT_HAS(convert("12abc").error().message(), "expected an integer");
  EXPECT_HAS(convert("").error().message(), "expected an integer");
  EXPECT_HAS(convert("-").error().message(), "expected an integer");
  EXPECT_HAS(convert("1.5").error().message(), "expected an integer");
}

TEST(ZeInfoTypes, WrongTypesAndValuesNameKernelAndKey) {
  using testing::simpleZeInfo;
  EXPECT_HAS(zeInfoError("kernels: []\n"), "missing the 'version'");
  EXPECT_HAS(zeInfoError("version: 1.x\nkernels: []\n"), "MAJOR.MINOR");
  EXPECT_HAS(zeInfoError("- a\n- b\n"), "not a YAML map");
  EXPECT_HAS(zeInfoError("version: '1.2'\nkernels: 3\n"), "expected a list");
  EXPECT_HAS(
      zeInfoError("version: '1.2'\nkernels:\n  - 3\n"), "expected a map");
  EXPECT_HAS(
      zeInfoError("version: '1.2'\nkernels:\n  - execution_env: {}\n"),
      "missing 'name'");
  EXPECT_HAS(
      zeInfoError("version: '1.2'\nkernels:\n  - name: k\n"),
      "kernel 'k': missing 'execution_env'");
  EXPECT_HAS(
      zeInfoError(simpleZeInfo({"k"}, "1.2", "      grf_count: [1]\n")),
      "expected an integer, got a sequence");
  EXPECT_HAS(
      zeInfoError(simpleZeInfo({"k"}, "1.2", "      spill_size: -4\n")),
      "kernel 'k': execution_env.spill_size (line 7): must not be negative");
  EXPECT_HAS(
      zeInfoError(simpleZeInfo(
          {"k"}, "1.2", "      slm_size: 123456789012345678901234\n")),
      "out of range");
  EXPECT_HAS(
      zeInfoError(simpleZeInfo({"k"}, "1.2", "      has_barriers: maybe\n")),
      "expected true or false");
  EXPECT_HAS(
      zeInfoError("version: '1.2'\nkernels:\n  - name: k\n"
                  "    execution_env:\n      simd_size: 16\n"),
      "missing 'grf_count'");
  EXPECT_HAS(
      zeInfoError("version: '1.2'\nkernels:\n  - name: k\n"
                  "    execution_env:\n      grf_count: 128\n"
                  "      simd_size: 12\n"),
      "12 is not 1, 8, 16 or 32");
  EXPECT_HAS(
      zeInfoError(
          simpleZeInfo({"k"}) + "    payload_arguments:\n      - offset: 0\n"),
      "missing 'arg_type'");
  EXPECT_HAS(
      zeInfoError(
          simpleZeInfo({"k"}) +
          "    payload_arguments:\n"
          "      - arg_type: arg_byvalue\n"
          "        arg_index: 100000000\n"),
      "is larger than");
  EXPECT_HAS(
      zeInfoError(
          simpleZeInfo({"k"}) +
          "    per_thread_memory_buffers:\n"
          "      - type: [scratch]\n"),
      "expected a string, got a list");
  EXPECT_HAS(
      zeInfoError(
          simpleZeInfo({"k"}) +
          "kernels_misc_info:\n  - name: k\n    args_info:\n"
          "      - index: x\n"),
      "kernels_misc_info 'k'");
}

} // namespace
} // namespace zebin
} // namespace xsl
