// The one JSON reader (core/formats/json_strict.h): the nesting limit at exactly 512 levels,
// repeated keys at every depth, linear work on many keys, and messages that never echo the input
// whole (core/util/format.h's excerpt).
#include "core/formats/json_strict.h"

#include <gtest/gtest.h>

#include <string>

#include "core/util/errors.h"
#include "core/util/format.h"

namespace hs {
namespace {

std::string nested_arrays(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// {"k": {"k": ... {"k": 1} ... }}: `depth` objects.
std::string nested_objects(size_t depth) {
  std::string text;
  for (size_t i = 0; i < depth; ++i) text += R"({"k": )";
  text += "1";
  return text + std::string(depth, '}');
}

std::string error_of(const std::string& text) {
  try {
    parse_json_strict(text, "f.json");
  } catch (const FormatError& e) {
    return e.what();
  }
  return "no error";
}

TEST(JsonStrict, NestingUpTo512LevelsIsRead) {
  nlohmann::json j = parse_json_strict(nested_arrays(kMaxJsonDepth), "f.json");
  for (size_t d = 1; d < kMaxJsonDepth; ++d) {
    ASSERT_TRUE(j.is_array() && j.size() == 1) << "level " << d;
    j = nlohmann::json(j[0]);
  }
  EXPECT_TRUE(j.is_array() && j.empty());
  EXPECT_TRUE(parse_json_strict(nested_objects(kMaxJsonDepth), "f.json").is_object());
  EXPECT_EQ(parse_json_strict("[" + nested_objects(kMaxJsonDepth - 1) + "]", "f.json").size(), 1u);
}

TEST(JsonStrict, NestingPast512LevelsIsAFormatErrorNamingTheFile) {
  for (const std::string& text : {nested_arrays(kMaxJsonDepth + 1), nested_objects(kMaxJsonDepth + 1),
                                  "[" + nested_objects(kMaxJsonDepth) + "]", nested_arrays(1000000),
                                  R"({"a": 1, "b": )" + nested_arrays(200000) + "}"}) {
    EXPECT_EQ(error_of(text), "f.json: JSON nested deeper than 512 levels") << text.substr(0, 40);
  }
}

TEST(JsonStrict, ARepeatedKeyIsRefusedAtEveryDepth) {
  EXPECT_EQ(error_of(R"({"a": 1, "a": 2})"), "f.json: \"a\" appears twice in one object (a file names each key once)");
  EXPECT_NE(error_of(R"({"x": {"y": 1, "b": [2], "b": 3}})").find("\"b\" appears twice"), std::string::npos);
  EXPECT_NE(error_of(R"([[[[{"c": {}, "d": 0, "c": null}]]]])").find("\"c\" appears twice"), std::string::npos);
  // After a nested object closes, its parent's keys are still checked.
  EXPECT_NE(error_of(R"({"e": {"f": {"g": 1}}, "h": 2, "e": 3})").find("\"e\" appears twice"), std::string::npos);
  // The same key in sibling objects, or in a parent and its child, is fine.
  const nlohmann::json j = parse_json_strict(R"({"k": {"k": {"k": 1}}, "l": [{"k": 1}, {"k": 2}], "m": {"k": 3}})", "f.json");
  EXPECT_EQ(j["k"]["k"]["k"], 1);
  EXPECT_EQ(j["l"][1]["k"], 2);
  EXPECT_EQ(j["m"]["k"], 3);
}

TEST(JsonStrict, BuildsTheSameDocumentAsNlohmann) {
  const std::string text =
      R"({"s": "a\u00e9\n", "i": -3, "u": 18446744073709551615, "f": 0.5, "t": true, "n": null, "a": [1, [2, {}], []],
          "o": {"x": {"y": [null]}}})";
  EXPECT_EQ(parse_json_strict(text, "f.json"), nlohmann::json::parse(text));
  EXPECT_EQ(parse_json_strict("7", "f.json"), nlohmann::json(7));
  EXPECT_TRUE(parse_json_strict(R"(["u", 18446744073709551615])", "f.json")[1].is_number_unsigned());
}

TEST(JsonStrict, ManyKeysAreRead) {
  // 200,000 tensor-like objects in one object: quadratic before (the parent was rescanned after
  // every object); this test only checks the result, the benchmark shows the time.
  std::string text = "{";
  for (int i = 0; i < 200000; ++i) {
    text += (i ? "," : "") + std::string("\"t") + std::to_string(i) + R"(": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]})";
  }
  text += "}";
  const nlohmann::json j = parse_json_strict(text, "f.json");
  EXPECT_EQ(j.size(), 200000u);
  EXPECT_EQ(j["t199999"]["data_offsets"][1], 4);
}

TEST(JsonStrict, MoreValuesThanTheLimitAreRefused) {
  // The top array and kMaxJsonValues - 1 zeros: exactly the limit, read; one more zero: refused.
  std::string text = "[0";
  for (size_t i = 1; i + 1 < kMaxJsonValues; ++i) text += ",0";
  EXPECT_EQ(parse_json_strict(text + "]", "f.json").size(), kMaxJsonValues - 1);
  EXPECT_EQ(error_of(text + ",0]"), "f.json: more than 8,388,608 JSON values (the limit against files that would not fit in memory)");
}

TEST(JsonStrict, InvalidJsonKeepsItsMessageAndCutsTheTokenItEchoes) {
  EXPECT_NE(error_of(R"({"a": )").find("f.json: not valid JSON ("), std::string::npos);
  EXPECT_NE(error_of(R"({"a": 1} x)").find("f.json: not valid JSON ("), std::string::npos);
  // nlohmann's message ends with the token read so far: a 1 MB string broken at its end.
  const std::string msg = error_of("[\"" + std::string(1 << 20, 'x') + "\x01\"]");
  EXPECT_NE(msg.find("f.json: not valid JSON ("), std::string::npos) << msg.substr(0, 300);
  EXPECT_NE(msg.find("last read: '\"xxxx"), std::string::npos) << msg.substr(0, 300);
  EXPECT_LT(msg.size(), 300u) << msg.substr(0, 300);
}

TEST(JsonStrict, MessagesCutLongKeysAndValues) {
  const std::string key(100000, 'k');
  const std::string msg = error_of("{\"" + key + "\": 1, \"" + key + "\": 2}");
  EXPECT_EQ(msg, "f.json: \"" + std::string(kExcerptCodePoints, 'k') + "...\" appears twice in one object (a file names each key once)");
  EXPECT_EQ(json_excerpt(nlohmann::json(std::string(1000, 'v'))), "\"" + std::string(kExcerptCodePoints - 1, 'v') + "...");
  EXPECT_EQ(json_excerpt(nlohmann::json::parse("[1, 2]")), "[1,2]");
  try {
    json_integer_in(nlohmann::json(std::string(1 << 20, '9')), 0, 10, "f.json: \"n\"");
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_LT(std::string(e.what()).size(), 120u) << std::string(e.what()).substr(0, 200);
  }
}

TEST(JsonStrict, TextThatMayBeJson) {
  EXPECT_FALSE(parse_json_if_json("a name", "m").has_value());
  EXPECT_FALSE(parse_json_if_json("", "m").has_value());
  EXPECT_EQ(*parse_json_if_json(R"(["a", "b"])", "m"), nlohmann::json::parse(R"(["a", "b"])"));
  // JSON that breaks a rule still throws (it is not taken as plain text).
  EXPECT_THROW(parse_json_if_json(nested_arrays(600), "m"), FormatError);
  EXPECT_THROW(parse_json_if_json(R"({"a": 1, "a": 1})", "m"), FormatError);
}

TEST(Excerpt, OneBoundedLine) {
  EXPECT_EQ(excerpt("short"), "short");
  EXPECT_EQ(excerpt(std::string(60, 'a')), std::string(60, 'a'));
  EXPECT_EQ(excerpt(std::string(61, 'a')), std::string(60, 'a') + "...");
  EXPECT_EQ(excerpt("a\nb\tc"), "a b c");
  EXPECT_EQ(excerpt("abc", 2), "ab...");
  // Code points, not bytes; invalid UTF-8 repaired; a cut never splits a character.
  std::string accents;
  for (int i = 0; i < 100; ++i) accents += "\xC3\xA9";
  EXPECT_EQ(excerpt(accents, 3), "\xC3\xA9\xC3\xA9\xC3\xA9...");
  EXPECT_EQ(excerpt("a\xFF" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(excerpt(std::string(1 << 20, '\xE2'), 2), "\xEF\xBF\xBD\xEF\xBF\xBD...");
}

}  // namespace
}  // namespace hs
