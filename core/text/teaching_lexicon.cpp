#include "core/text/teaching_lexicon.h"

#include <cstddef>
#include <unordered_set>

#include "core/util/errors.h"

namespace hs {

// The lines of core/text/teaching_lexicon.txt without its comments, compiled in by
// core/CMakeLists.txt (cmake/EmbedLines.cmake writes them into the build tree).
extern const char* const kTeachingLexiconLines[];
extern const size_t kTeachingLexiconLinesCount;

namespace {

// Suffix rules, hunspell-like: flag, letters stripped from the end, letters added ("$" doubles the
// stem's last letter: stop + "$ed" = stopped). Keep in step with RULES in tools/make_teaching_lexicon.py.
struct TeachingSuffixRule {
  char flag;
  const char* strip;
  const char* add;
};
constexpr TeachingSuffixRule kTeachingSuffixRules[] = {
    {'s', "", "s"},    {'e', "", "es"},    {'y', "y", "ies"},  {'d', "", "ed"},   {'D', "", "d"},   {'i', "y", "ied"},
    {'g', "", "ing"},  {'G', "e", "ing"},  {'p', "", "$ed"},   {'n', "", "$ing"}, {'r', "", "er"},  {'R', "", "r"},
    {'t', "", "est"},  {'T', "", "st"},    {'l', "", "ly"},    {'L', "y", "ily"},
};

bool lexicon_ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string apply_suffix_rule(const std::string& word, const TeachingSuffixRule& r, const std::string& line) {
  const std::string strip = r.strip;
  if (!lexicon_ends_with(word, strip) || word.size() <= strip.size()) {
    throw FormatError("teaching_lexicon.txt: line '" + line + "': flag '" + std::string(1, r.flag) + "' strips '" + strip +
                      "', which the word does not end with");
  }
  const std::string stem = word.substr(0, word.size() - strip.size());
  std::string out = stem;
  for (const char* c = r.add; *c; ++c) out += *c == '$' ? stem.back() : *c;
  return out;
}

WordFeature lexicon_section_feature(const std::string& title) {
  if (title == "[names]") return WordFeature::name;
  if (title == "[pronouns]") return WordFeature::pronoun;
  if (title == "[nouns]") return WordFeature::noun;
  if (title == "[words]") return WordFeature::none;
  throw FormatError("teaching_lexicon.txt: unknown section " + title + " (expected [names], [pronouns], [nouns] or [words])");
}

std::vector<LexiconWord> build_teaching_lexicon() {
  std::vector<LexiconWord> out;
  std::unordered_set<std::string> seen;
  const auto add = [&](std::string w, WordFeature f) {
    if (seen.insert(w).second) out.push_back({std::move(w), f});
  };
  WordFeature feature = WordFeature::none;
  std::string previous;
  for (size_t i = 0; i < kTeachingLexiconLinesCount; ++i) {
    const std::string line = kTeachingLexiconLines[i];
    if (line.empty()) continue;
    if (line[0] == '[') {
      feature = lexicon_section_feature(line), previous.clear();
      continue;
    }
    const std::string decoded = decode_lexicon_line(line, previous);
    previous = decoded;
    for (std::string& w : expand_lexicon_line(decoded)) {
      if (feature == WordFeature::name || feature == WordFeature::noun) add(w + "'s", feature);  // the possessive reads as the word
      add(std::move(w), feature);
    }
  }
  return out;
}

}  // namespace

std::string decode_lexicon_line(const std::string& line, const std::string& previous) {
  if (line.empty() || line[0] < '0' || line[0] > '9') return line;
  const size_t k = size_t(line[0] - '0');
  if (k > previous.size()) {
    throw FormatError("teaching_lexicon.txt: line '" + line + "' copies " + std::to_string(k) +
                      " letters of the line before, which has " + std::to_string(previous.size()));
  }
  return previous.substr(0, k) + line.substr(1);
}

std::vector<std::string> expand_lexicon_line(const std::string& decoded) {
  const size_t slash = decoded.find('/');
  std::vector<std::string> words{decoded.substr(0, slash)};
  if (slash == std::string::npos) return words;
  for (size_t i = slash + 1; i < decoded.size(); ++i) {
    const TeachingSuffixRule* rule = nullptr;
    for (const TeachingSuffixRule& r : kTeachingSuffixRules)
      if (r.flag == decoded[i]) rule = &r;
    if (!rule) throw FormatError("teaching_lexicon.txt: line '" + decoded + "': unknown flag '" + decoded.substr(i, 1) + "'");
    words.push_back(apply_suffix_rule(words[0], *rule, decoded));
  }
  return words;
}

const std::vector<LexiconWord>& teaching_lexicon() {
  static const std::vector<LexiconWord> words = build_teaching_lexicon();
  return words;
}

}  // namespace hs
