// The head list of `ablate --knock-out` (core/analysis/head_list.h): "1.3,2.5" reads as heads in
// order; every malformed list is an InputError that quotes what was given and says what was expected.
#include "core/analysis/head_list.h"

#include <gtest/gtest.h>

#include <string>

#include "core/util/errors.h"

namespace hs {
namespace {

// The message of the InputError `text` gives, or "" when it parses.
std::string parse_error(const std::string& text) {
  try {
    parse_head_list(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string range_error(const std::string& text, int layers, int heads) {
  try {
    check_head_list(parse_head_list(text), layers, heads);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(HeadList, ReadsLayerDotHeadPairsInOrder) {
  const std::vector<HeadRef> h = parse_head_list("1.3,2.5,0.0");
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[0], (HeadRef{1, 3}));
  EXPECT_EQ(h[1], (HeadRef{2, 5}));
  EXPECT_EQ(h[2], (HeadRef{0, 0}));
  EXPECT_EQ(head_list_text(h), "1.3,2.5,0.0");
  EXPECT_EQ(parse_head_list("4.7").size(), 1u);
}

TEST(HeadList, MalformedListsSayWhatWasGivenAndWhatIsExpected) {
  const std::string form = "expected LAYER.HEAD items (whole numbers from 0) separated by commas, e.g. 1.3,2.5";
  const std::pair<const char*, const char*> cases[] = {
      {"1.x", "heads '1.x': '1.x' has head 'x', not a whole number"},
      {"x.1", "heads 'x.1': 'x.1' has layer 'x', not a whole number"},
      {"13", "heads '13': '13' has no '.' between layer and head"},
      {"1.3,,2.5", "heads '1.3,,2.5': an empty item"},
      {"1.3,", "heads '1.3,': an empty item"},
      {"", "heads '': no head given"},
      {"-1.2", "heads '-1.2': '-1.2' has layer '-1', not a whole number"},
      {"1.2.3", "heads '1.2.3': '1.2.3' has head '2.3', not a whole number"},
      {" 1.2", "heads ' 1.2': ' 1.2' has layer ' 1', not a whole number"},
      {"1.3,2.5,1.3", "heads '1.3,2.5,1.3': head 1.3 is listed twice"},
      {"9999999.1", "heads '9999999.1': '9999999.1' has layer '9999999', not a whole number"},
  };
  for (const auto& [text, want] : cases) {
    const std::string got = parse_error(text);
    EXPECT_EQ(got, std::string(want) + "; " + form) << "for '" << text << "'";
  }
}

TEST(HeadList, HeadsOutsideTheModelNameTheHeadAndTheRange) {
  EXPECT_EQ(range_error("1.3,5.0", 5, 8), "head 5.0: layer 5 is not in the model; expected a layer from 0 to 4");
  EXPECT_EQ(range_error("4.8", 5, 8), "head 4.8: head 8 is not in the model; expected a head from 0 to 7");
  EXPECT_EQ(range_error("4.7,0.0", 5, 8), "");
}

}  // namespace
}  // namespace hs
