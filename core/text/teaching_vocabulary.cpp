#include "core/text/teaching_vocabulary.h"

#include <unordered_map>

#include "core/text/word_tokenizer.h"

namespace hs {
namespace {

constexpr WordFeature N = WordFeature::none, NAME = WordFeature::name, PRON = WordFeature::pronoun,
                      NOUN = WordFeature::noun;

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return out;
}

const std::unordered_map<std::string, int>& index_by_word() {
  static const std::unordered_map<std::string, int> index = [] {
    std::unordered_map<std::string, int> m;
    const auto& v = teaching_vocabulary();
    for (size_t i = 1; i < v.size(); ++i) m.emplace(ascii_lower(v[i].text), int(i));
    return m;
  }();
  return index;
}

}  // namespace

const std::vector<TeachingWord>& teaching_vocabulary() {
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

int TeachingTokenizer::id_of(std::string_view word) {
  const auto& index = index_by_word();
  const auto it = index.find(ascii_lower(word));
  return it == index.end() ? 0 : it->second;
}

std::vector<int> TeachingTokenizer::encode(std::string_view text) const {
  std::vector<int> ids;
  if (text.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos) return ids;  // nothing to read
  for (const WordToken& t : tokenize_words(text)) ids.push_back(id_of(t.text));
  return ids;
}

std::string TeachingTokenizer::piece_bytes(int id) const {
  const auto& v = teaching_vocabulary();
  return id >= 0 && size_t(id) < v.size() ? v[size_t(id)].text : "<unk>";
}

int TeachingTokenizer::vocab_size() const { return int(teaching_vocabulary().size()); }

}  // namespace hs
