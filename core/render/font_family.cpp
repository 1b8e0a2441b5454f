#include "core/render/font_family.h"

#include <fontconfig/fontconfig.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "core/util/errors.h"
#include "core/util/format.h"

namespace hs {
namespace {

std::string lower(std::string s) {
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

}  // namespace

std::vector<std::string> installed_font_families() {
  std::set<std::string> names;
  FcPattern* pattern = FcPatternCreate();
  FcObjectSet* fields = FcObjectSetBuild(FC_FAMILY, nullptr);
  FcFontSet* fonts = pattern && fields ? FcFontList(nullptr, pattern, fields) : nullptr;
  if (fonts) {
    for (int i = 0; i < fonts->nfont; ++i) {
      FcChar8* name = nullptr;
      // A font can carry several family names ("DejaVu Sans", "DejaVu Sans Condensed").
      for (int k = 0; FcPatternGetString(fonts->fonts[i], FC_FAMILY, k, &name) == FcResultMatch; ++k)
        names.insert(reinterpret_cast<const char*>(name));
    }
    FcFontSetDestroy(fonts);
  }
  if (fields) FcObjectSetDestroy(fields);
  if (pattern) FcPatternDestroy(pattern);
  return {names.begin(), names.end()};
}

std::string check_font_family(const std::string& family) {
  const std::vector<std::string> all = installed_font_families();
  for (const std::string& name : all)
    if (lower(name) == lower(family)) return name;
  std::string list;
  for (const std::string& name : all) list += (list.empty() ? "" : ", ") + name;
  throw InputError("font '" + excerpt(family) + "' is not installed; installed families: " +
                   (list.empty() ? std::string("none found by fontconfig") : list));
}

}  // namespace hs
