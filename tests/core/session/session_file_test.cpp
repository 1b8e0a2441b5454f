// Session files: round trip, defaults for missing keys, strict types and ranges, versions.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include "core/session/session_file.h"
#include "core/util/errors.h"

namespace hs {
namespace {

Session sample() {
  Session s;
  s.request.sentence = "the keys that Priya left on the table were not hers — naïve 🙂";
  s.request.attention.d_model = 12;
  s.request.attention.n_heads = 6;
  s.request.attention.n_kv_heads = 2;
  s.request.attention.causal = true;
  s.request.attention.window = 3;
  s.request.attention.temperature = 0.5f;
  s.request.seed = 42;
  s.view.panel = "query";
  s.view.layer = 0;
  s.view.head = 5;
  s.view.queries = {1, 3};
  s.view.color_scale = "log";
  s.view.ignore_first_column = true;
  s.view.colormap = "magma";
  s.view.roles_sort = "induction";
  return s;
}

std::string message_of(const std::string& text) {
  try {
    parse_session(text, "s.json");
  } catch (const FormatError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SessionFile, RoundTripsEveryField) {
  const Session a = sample();
  const Session b = parse_session(session_to_json(a), "s.json");
  EXPECT_EQ(b.request.sentence, a.request.sentence);
  EXPECT_EQ(b.request.attention.d_model, 12);
  EXPECT_EQ(b.request.attention.n_heads, 6);
  EXPECT_EQ(b.request.attention.n_kv_heads, 2);
  EXPECT_TRUE(b.request.attention.causal);
  EXPECT_EQ(b.request.attention.window, 3);
  EXPECT_FLOAT_EQ(b.request.attention.temperature, 0.5f);
  EXPECT_EQ(b.request.seed, 42u);
  EXPECT_EQ(b.view.panel, "query");
  EXPECT_EQ(b.view.head, 5);
  EXPECT_EQ(b.view.queries, (std::vector<int>{1, 3}));
  EXPECT_EQ(b.view.color_scale, "log");
  EXPECT_TRUE(b.view.ignore_first_column);
  EXPECT_EQ(b.view.colormap, "magma");
  EXPECT_EQ(b.view.roles_sort, "induction");
  EXPECT_EQ(session_to_json(b), session_to_json(a));
}

TEST(SessionFile, RoundTripsSentencePairsAndAttentionFiles) {
  Session a = sample();
  a.request.sentence_b = "it was late — tard";
  a.request.attention_file = "maps/vit.safetensors";
  a.request.attention.n_heads = 5;  // impossible for d_model 12, but no synthetic layer runs on a file
  const Session b = parse_session(session_to_json(a), "s.json");
  EXPECT_EQ(b.request.sentence_b, a.request.sentence_b);
  EXPECT_EQ(b.request.attention_file, "maps/vit.safetensors");
  EXPECT_EQ(session_to_json(b), session_to_json(a));
}

TEST(SessionFile, RoundTripsAMinimalPairWithItsContinuations) {
  Session a = sample();
  a.contrast = "the keys that Priya left were hers";
  a.target = " are";
  a.versus = " is";
  const std::string text = session_to_json(a);
  const Session b = parse_session(text, "s.json");
  EXPECT_EQ(b.contrast, a.contrast);
  EXPECT_EQ(b.target, " are");
  EXPECT_EQ(b.versus, " is");
  EXPECT_EQ(session_to_json(b), text);
  // Not set: not written, and a file without them keeps none.
  const std::string plain = session_to_json(sample());
  EXPECT_EQ(plain.find("\"target\""), std::string::npos);
  EXPECT_EQ(parse_session(plain, "s.json").target, "");
  EXPECT_NE(message_of(R"({"format": "headscope-session", "version": 1, "input": {"target": 3}})").find("target"),
            std::string::npos);
}

TEST(SessionFile, RoundTripsASecondModel) {
  Session a = sample();
  a.request.model_path = "models/stories260K_f32.gguf";
  a.model_b = "models/stories260K_q8_0.gguf";
  a.tokenizer_b = "models/tok512.bin";
  const std::string text = session_to_json(a);
  const Session b = parse_session(text, "s.json");
  EXPECT_EQ(b.model_b, a.model_b);
  EXPECT_EQ(b.tokenizer_b, a.tokenizer_b);
  EXPECT_EQ(session_to_json(b), text);
  // Not set: not written, and a session written before model B existed opens without one.
  const std::string plain = session_to_json(sample());
  EXPECT_EQ(plain.find("checkpoint_b"), std::string::npos);
  EXPECT_EQ(parse_session(plain, "s.json").model_b, "");
  EXPECT_NE(message_of(R"({"format": "headscope-session", "version": 1, "model": {"checkpoint_b": 3}})").find("checkpoint_b"),
            std::string::npos);
}

TEST(SessionFile, NoWindowIsNull) {
  Session s;
  const auto j = nlohmann::json::parse(session_to_json(s));
  EXPECT_TRUE(j["model"]["window"].is_null());
  EXPECT_EQ(parse_session(session_to_json(s), "s.json").request.attention.window, -1);
}

TEST(SessionFile, MissingKeysKeepTheBase) {
  const Session base = sample();
  const Session s = parse_session(R"({"format": "headscope-session", "version": 1, "model": {"heads": 4}})", "s.json", base);
  EXPECT_EQ(s.request.attention.n_heads, 4);
  EXPECT_EQ(s.request.attention.n_kv_heads, 2);
  EXPECT_EQ(s.request.sentence, base.request.sentence);
  EXPECT_EQ(s.view.panel, "query");
}

// Issue 44: a misspelt key was read as if it were absent (the file opened on defaults, exit 0).
// Every unknown key is refused with its file, its path and the nearest known key.
TEST(SessionFile, UnknownKeysAreRefusedWithTheNearestKnownOne) {
  const std::string head = R"({"format": "headscope-session", "version": 1, )";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {head + R"("modle": {"heads": 4}})", "s.json: unknown key \"modle\" (did you mean model?)"},
      {head + R"("view": {"pannel": "grid"}})", "s.json: view: unknown key \"pannel\" (did you mean panel?)"},
      {head + R"("model": {"head": 4}})", "s.json: model: unknown key \"head\" (did you mean heads"},
      {head + R"("input": {"sentense": "a b"}})", "s.json: input: unknown key \"sentense\" (did you mean sentence?)"},
      {head + R"("future_key": {"x": 1}})", "s.json: unknown key \"future_key\""},
  };
  for (const auto& [text, expected] : cases) {
    const std::string msg = message_of(text);
    EXPECT_NE(msg.find(expected), std::string::npos) << "input: " << text << "\nmessage: " << msg;
  }
}

// One name per view (core/export/view_registry.h): "heads" is the heads grid's name, "grid" and
// "layers" (the overview) the older ones, read as their views' names.
TEST(SessionFile, PanelsAreViewNamesAndOlderNamesAreRead) {
  const auto panel = [](const std::string& p) {
    return parse_session(R"({"format": "headscope-session", "version": 1, "view": {"panel": ")" + p + R"("}})", "s.json").view.panel;
  };
  EXPECT_EQ(panel("heads"), "heads");
  EXPECT_EQ(panel("grid"), "heads");
  EXPECT_EQ(panel("layers"), "overview");
  EXPECT_EQ(panel("rollout"), "rollout");
  EXPECT_EQ(default_session().view.panel, "heads");
  EXPECT_NE(message_of(R"({"format": "headscope-session", "version": 1, "view": {"panel": "heds"}})").find("did you mean heads"),
            std::string::npos);
}

// docs/session-format.md: every key may be left out. A session without "input" (or "model")
// opens on the app's built-in start instead of an empty sentence that could only fail with
// "no input: give --sentence TEXT or --input FILE.npy", a command-line hint in the app (issue 15).
TEST(SessionFile, ASessionWithoutInputOpensOnTheDefaultSentence) {
  const auto dir = std::filesystem::temp_directory_path() / ("hs-session-min-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "minimal.json").string();
  std::ofstream(path) << R"({"format": "headscope-session", "version": 1, "view": {"panel": "difference"}})";
  const Session s = load_session(path);
  EXPECT_EQ(s.request.sentence, default_session().request.sentence);
  EXPECT_FALSE(s.request.sentence.empty());
  EXPECT_EQ(s.request.attention.n_heads, 4);
  EXPECT_EQ(s.view.panel, "difference");
  EXPECT_NO_THROW(run_request(s.request));
  std::filesystem::remove_all(dir);
}

TEST(SessionFile, NewerVersionIsRefusedWithBothVersions) {
  const std::string msg = message_of(R"({"format": "headscope-session", "version": 7})");
  EXPECT_NE(msg.find("newer"), std::string::npos) << msg;
  EXPECT_NE(msg.find("7"), std::string::npos) << msg;
  EXPECT_NE(msg.find("up to 1"), std::string::npos) << msg;
}

TEST(SessionFile, MalformedFilesNameTheProblem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "not valid JSON"},
      {"[1, 2]", "must be a JSON object"},
      {R"({"format": "headscope-session", "version": 1, "view": {"panel": "grid", "panel": "difference"}})",
       "\"panel\" appears twice"},
      {R"({"format": "headscope-session", "version": 1, "input": {"sentence": )" + std::string(100000, '[') +
           std::string(100000, ']') + "}}",
       "JSON nested deeper than 512 levels"},
      {R"({"version": 1})", "not a headscope session"},
      {R"({"format": "headscope-lesson", "version": 1})", "not a headscope session"},
      {R"({"format": "headscope-session"})", "version"},
      {R"({"format": "headscope-session", "version": "1"})", "version"},
      {R"({"format": "headscope-session", "version": 1, "model": {"heads": "four"}})", "model.heads must be a whole number"},
      {R"({"format": "headscope-session", "version": 1, "model": {"heads": 0}})", "model.heads must be between 1"},
      {R"({"format": "headscope-session", "version": 1, "model": {"heads": 3}})", "heads (3) must divide d_model (8)"},
      {R"({"format": "headscope-session", "version": 1, "model": {"temperature": 0}})", "temperature"},
      {R"({"format": "headscope-session", "version": 1, "model": {"seed": -1}})", "model.seed"},
      {R"({"format": "headscope-session", "version": 1, "model": 5})", "model must be an object"},
      {R"({"format": "headscope-session", "version": 1, "view": {"panel": "spaceship"}})", "view.panel must be one of heads"},
      {R"({"format": "headscope-session", "version": 1, "view": {"queries": [0, -1]}})", "view.queries"},
      {R"({"format": "headscope-session", "version": 1, "view": {"colormap": "jet"}})", "view.colormap must be one of"},
      {R"({"format": "headscope-session", "version": 1, "view": {"roles_sort": "size"}})", "view.roles_sort must be one of layer"},
      {R"({"format": "headscope-session", "version": 1, "input": {"sentence": 5}})", "input.sentence must be a string"},
  };
  for (const auto& [text, expected] : cases) {
    const std::string msg = message_of(text);
    EXPECT_NE(msg.find(expected), std::string::npos) << "input: " << text << "\nmessage: " << msg;
    if (msg != "no error") {
      EXPECT_EQ(msg.rfind("s.json", 0), 0u) << "the message names the file: " << msg;
    }
  }
}

TEST(SessionFile, SaveIsAtomicAndLoadReadsItBack) {
  const auto dir = std::filesystem::temp_directory_path() / ("hs-session-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "a.json").string();
  save_session(path, sample());
  EXPECT_EQ(load_session(path).view.queries, (std::vector<int>{1, 3}));
  for (const auto& e : std::filesystem::directory_iterator(dir)) EXPECT_EQ(e.path().filename(), "a.json");
  EXPECT_THROW(save_session((dir / "missing" / "b.json").string(), sample()), IoError);
  EXPECT_THROW(load_session((dir / "nope.json").string()), IoError);
  EXPECT_THROW(load_session(dir.string()), IoError);  // a folder
  std::filesystem::remove_all(dir);
}

// A session that is a symlink to a device or a FIFO is refused at once with what it is; before,
// /dev/zero was read until std::bad_alloc aborted the app (issue 15). A /proc file (its size
// says 0) is read as far as the limit and no further.
TEST(SessionFile, DevicesFifosAndEndlessFilesAreRefusedWithWhatTheyAre) {
  const auto dir = std::filesystem::temp_directory_path() / ("hs-session-dev-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto message = [](const std::string& path) -> std::string {
    try {
      load_session(path);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  std::filesystem::create_symlink("/dev/zero", dir / "zero.json");
  EXPECT_NE(message((dir / "zero.json").string()).find("character device"), std::string::npos)
      << message((dir / "zero.json").string());
  ASSERT_EQ(::mkfifo((dir / "fifo.json").c_str(), 0600), 0);
  EXPECT_NE(message((dir / "fifo.json").string()).find("FIFO"), std::string::npos);  // and no wait for a writer
  std::filesystem::create_symlink(dir / "loop.json", dir / "loop.json");
  EXPECT_NE(message((dir / "loop.json").string()).find("symlink loop"), std::string::npos)
      << message((dir / "loop.json").string());
  EXPECT_NE(message("/proc/self/maps").find("/proc/self/maps"), std::string::npos);  // not JSON, read and refused
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hs
