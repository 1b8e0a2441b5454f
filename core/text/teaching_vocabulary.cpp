#include "core/text/teaching_vocabulary.h"

#include <algorithm>
#include <unordered_map>

#include "core/text/word_tokenizer.h"

namespace hs {
namespace {

constexpr WordFeature N = WordFeature::none, NAME = WordFeature::name, PRON = WordFeature::pronoun,
                      NOUN = WordFeature::noun;

std::string teaching_ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return out;
}

// "don\u2019t" reads as "don't": the typographic apostrophe is the list's ASCII one.
std::string teaching_plain_apostrophes(std::string_view s) {
  std::string out;
  const std::string_view curly = "\xE2\x80\x99";  // U+2019
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, curly.size(), curly) == 0) out += '\'', i += curly.size();
    else out += s[i++];
  }
  return out;
}

std::vector<TeachingEntry> build_teaching_vocabulary() {
  std::vector<TeachingEntry> out;
  const auto& core = teaching_core_words();
  for (size_t i = 0; i < core.size(); ++i) out.push_back({core[i].text, core[i].feature, int(i)});
  std::unordered_map<std::string, int> core_index;
  for (size_t i = 1; i < core.size(); ++i) core_index.emplace(teaching_ascii_lower(core[i].text), int(i));
  for (size_t i = 1; i < core.size(); ++i)  // "Priya's": a core name or noun's possessive reads as the word
    if (core[i].feature == NAME || core[i].feature == NOUN) {
      const std::string w = std::string(core[i].text) + "'s";
      out.push_back({w, core[i].feature, teaching_hashed_slot(w)});
    }
  for (const LexiconWord& w : teaching_lexicon()) {
    if (core_index.count(teaching_ascii_lower(w.text))) continue;  // the core table decides its words
    out.push_back({w.text, w.feature, teaching_hashed_slot(w.text)});
  }
  return out;
}

// Lookup tables: the core table by lower case; the word list as written, and by lower case for
// words listed in lower case.
struct TeachingIndex {
  std::unordered_map<std::string, int> core, exact, lower;
};

const TeachingIndex& teaching_index() {
  static const TeachingIndex index = [] {
    TeachingIndex t;
    const auto& v = teaching_vocabulary();
    const int core = int(teaching_core_words().size());
    for (int i = 1; i < core; ++i) t.core.emplace(teaching_ascii_lower(v[size_t(i)].text), i);
    for (int i = core; i < int(v.size()); ++i) {
      t.exact.emplace(v[size_t(i)].text, i);
      if (v[size_t(i)].text == teaching_ascii_lower(v[size_t(i)].text)) t.lower.emplace(v[size_t(i)].text, i);
    }
    return t;
  }();
  return index;
}

}  // namespace

const std::vector<TeachingWord>& teaching_core_words() {
  static const std::vector<TeachingWord> words = {
      {"<unk>", N},
      // punctuation
      {".", N}, {",", N}, {"!", N}, {"?", N}, {"\"", N}, {"'", N}, {":", N}, {";", N},
      // determiners, conjunctions, prepositions
      {"the", N}, {"a", N}, {"an", N}, {"this", N}, {"that", N}, {"these", N}, {"those", N}, {"some", N},
      {"every", N}, {"and", N}, {"but", N}, {"or", N}, {"so", N}, {"because", N}, {"when", N}, {"then", N},
      {"if", N}, {"to", N}, {"of", N}, {"in", N}, {"on", N}, {"at", N}, {"with", N}, {"for", N}, {"from", N},
      {"by", N}, {"into", N}, {"under", N}, {"over", N}, {"near", N}, {"after", N}, {"before", N}, {"what", N},
      {"who", N}, {"where", N},
      // verbs
      {"was", N}, {"were", N}, {"is", N}, {"are", N}, {"be", N}, {"been", N}, {"had", N}, {"has", N},
      {"have", N}, {"did", N}, {"do", N}, {"does", N}, {"said", N}, {"says", N}, {"saw", N}, {"see", N},
      {"went", N}, {"go", N}, {"left", N}, {"gave", N}, {"give", N}, {"took", N}, {"take", N}, {"found", N},
      {"find", N}, {"made", N}, {"make", N}, {"lost", N}, {"put", N}, {"ran", N}, {"run", N}, {"sat", N},
      {"got", N}, {"came", N}, {"liked", N}, {"like", N}, {"loved", N}, {"love", N}, {"wanted", N},
      {"want", N}, {"played", N}, {"play", N}, {"looked", N}, {"look", N}, {"asked", N}, {"knew", N},
      {"thought", N}, {"felt", N}, {"helped", N}, {"help", N}, {"opened", N}, {"shared", N}, {"smiled", N},
      // adverbs and others
      {"not", N}, {"no", N}, {"yes", N}, {"very", N}, {"too", N}, {"all", N}, {"up", N}, {"down", N},
      {"out", N}, {"home", N}, {"again", N}, {"back", N}, {"there", N}, {"here", N}, {"once", N}, {"upon", N},
      {"one", N}, {"two", N}, {"three", N}, {"first", N}, {"last", N}, {"next", N}, {"named", N}, {"outside", N},
      // adjectives
      {"red", N}, {"big", N}, {"little", N}, {"happy", N}, {"sad", N}, {"old", N}, {"new", N}, {"blue", N},
      {"green", N}, {"small", N}, {"good", N}, {"kind", N},
      // first and second person (not antecedent-seeking)
      {"i", N}, {"you", N}, {"we", N}, {"me", N}, {"my", N}, {"your", N}, {"us", N}, {"our", N},
      // third-person pronouns
      {"he", PRON}, {"she", PRON}, {"it", PRON}, {"they", PRON}, {"him", PRON}, {"her", PRON}, {"hers", PRON},
      {"his", PRON}, {"its", PRON}, {"them", PRON}, {"their", PRON}, {"theirs", PRON},
      // common nouns
      {"keys", NOUN}, {"key", NOUN}, {"table", NOUN}, {"cat", NOUN}, {"dog", NOUN}, {"ball", NOUN},
      {"park", NOUN}, {"tree", NOUN}, {"house", NOUN}, {"box", NOUN}, {"car", NOUN}, {"book", NOUN},
      {"cake", NOUN}, {"door", NOUN}, {"bird", NOUN}, {"hat", NOUN}, {"toy", NOUN}, {"garden", NOUN},
      {"mat", NOUN}, {"girl", NOUN}, {"boy", NOUN}, {"mom", NOUN}, {"dad", NOUN}, {"friend", NOUN},
      {"room", NOUN}, {"bag", NOUN}, {"cup", NOUN}, {"apple", NOUN}, {"shoes", NOUN}, {"sun", NOUN},
      {"time", NOUN}, {"day", NOUN}, {"story", NOUN}, {"school", NOUN}, {"kite", NOUN}, {"flower", NOUN},
      // first names
      {"Priya", NAME}, {"Lily", NAME}, {"Tom", NAME}, {"Ben", NAME}, {"Sam", NAME}, {"Anna", NAME},
      {"Max", NAME}, {"Mia", NAME}, {"Leo", NAME}, {"Zoe", NAME}, {"Omar", NAME}, {"Ravi", NAME},
      {"Sara", NAME}, {"Tim", NAME}, {"Sue", NAME}, {"Jack", NAME},
  };
  return words;
}

const std::vector<TeachingEntry>& teaching_vocabulary() {
  static const std::vector<TeachingEntry> words = build_teaching_vocabulary();
  return words;
}

int teaching_hashed_slots() { return kTeachingSlots - int(teaching_core_words().size()); }

int teaching_hashed_slot(std::string_view word) {
  // FNV-1a, 32 bits: h = (h xor byte) * 16777619 from h = 2166136261.
  uint32_t h = 2166136261u;
  for (const char c : word) h = (h ^ uint32_t(uint8_t(c))) * 16777619u;
  const int hashed = teaching_hashed_slots();
  return int(teaching_core_words().size()) + int(h % uint32_t(hashed));
}

int TeachingTokenizer::id_of(std::string_view word) {
  const TeachingIndex& index = teaching_index();
  const std::string plain = teaching_plain_apostrophes(word), lower = teaching_ascii_lower(plain);
  if (const auto it = index.core.find(lower); it != index.core.end()) return it->second;
  if (const auto it = index.exact.find(plain); it != index.exact.end()) return it->second;  // "Will": the name
  if (const auto it = index.lower.find(lower); it != index.lower.end()) return it->second;   // "The", "TROPHY"
  std::string capital = lower;  // "aaron", "AARON": the name Aaron
  if (!capital.empty() && capital[0] >= 'a' && capital[0] <= 'z') capital[0] = char(capital[0] - 'a' + 'A');
  if (const auto it = index.exact.find(capital); it != index.exact.end()) return it->second;
  return 0;
}

std::vector<int> TeachingTokenizer::encode(std::string_view text) const {
  std::vector<int> ids;
  if (text.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos) return ids;  // nothing to read
  for (const WordToken& t : tokenize_words(text)) ids.push_back(id_of(t.text));
  return ids;
}

std::vector<std::string> TeachingTokenizer::unknown_words(std::string_view text) {
  std::vector<std::string> out;
  if (text.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos) return out;
  for (const WordToken& t : tokenize_words(text))
    if (id_of(t.text) == 0 && std::find(out.begin(), out.end(), t.text) == out.end()) out.push_back(t.text);
  return out;
}

std::string TeachingTokenizer::piece_bytes(int id) const {
  const auto& v = teaching_vocabulary();
  return id >= 0 && size_t(id) < v.size() ? v[size_t(id)].text : "<unk>";
}

int TeachingTokenizer::vocab_size() const { return int(teaching_vocabulary().size()); }

std::string teaching_unknown_note(const std::vector<std::string>& unknown) {
  if (unknown.empty()) return "";
  std::string s = std::to_string(unknown.size()) + (unknown.size() == 1 ? " word" : " words") +
                  " unknown to the teaching model (read as <unk>): ";
  for (size_t i = 0; i < unknown.size(); ++i) s += (i ? ", " : "") + unknown[i];
  return s;
}

}  // namespace hs
