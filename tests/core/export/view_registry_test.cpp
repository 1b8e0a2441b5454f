// The view registry (core/export/view_registry.h): one row per view, in the enum's order; every
// name and alias names one view; every view a tab of the app or a part of one; every tab but the
// contrast (two runs: compare --out) writes every format; lists derived from it.
#include <gtest/gtest.h>

#include <set>

#include "core/export/export.h"
#include "core/export/view_registry.h"
#include "core/util/errors.h"

namespace hs {
namespace {

TEST(ViewRegistry, OneRowPerViewInTheEnumsOrder) {
  const std::vector<ViewDescriptor>& views = all_views();
  ASSERT_FALSE(views.empty());
  for (size_t i = 0; i < views.size(); ++i) {
    EXPECT_EQ(size_t(views[i].view), i) << views[i].name;
    EXPECT_EQ(&view_descriptor(views[i].view), &views[i]);
  }
  EXPECT_EQ(views.back().view, View::sweep) << "a view added to the enum needs its row";
}

TEST(ViewRegistry, EveryNameAndAliasNamesOneView) {
  std::set<std::string> seen;
  for (const ViewDescriptor& v : all_views()) {
    EXPECT_TRUE(seen.insert(v.name).second) << v.name;
    for (const std::string& a : v.aliases) EXPECT_TRUE(seen.insert(a).second) << a;
    EXPECT_EQ(find_view(v.name), &v);
    EXPECT_EQ(parse_view(v.name), v.view);
    EXPECT_TRUE(*v.title && *v.shows && *v.file_stem) << v.name;
  }
  EXPECT_EQ(view_names().size(), seen.size());
  EXPECT_EQ(parse_view("grid"), View::heads) << "the lessons' older name";
  EXPECT_EQ(parse_view("layers"), View::overview) << "the sessions' older name";
  EXPECT_EQ(find_view("nope"), nullptr);
}

TEST(ViewRegistry, EveryViewIsATabOrAPartOfOne) {
  const std::vector<View> tabs = tab_views();
  EXPECT_EQ(tabs.front(), View::heads);
  for (const ViewDescriptor& v : all_views()) {
    EXPECT_TRUE(is_tab(v.tab)) << v.name << " is a part of " << view_name(v.tab) << ", which is no tab";
    EXPECT_EQ(is_tab(v.view), std::find(tabs.begin(), tabs.end(), v.view) != tabs.end()) << v.name;
  }
  // The tabs come first, in tab order: the enum's order.
  for (size_t i = 0; i < tabs.size(); ++i) EXPECT_EQ(size_t(tabs[i]), i);
}

TEST(ViewRegistry, EveryViewButTheContrastWritesEveryFormat) {
  for (const ViewDescriptor& v : all_views()) {
    const bool writes = v.view != View::contrast;
    EXPECT_EQ(v.figure != nullptr, writes) << v.name;
    EXPECT_EQ(v.npy != nullptr, writes) << v.name;
    EXPECT_EQ(v.csv != nullptr, writes) << v.name;
    EXPECT_EQ(v.json != nullptr, writes) << v.name;
  }
}

TEST(ViewRegistry, UnknownNamesAreAnsweredWithTheNearestAndTheList) {
  try {
    parse_view("heds");
    ADD_FAILURE() << "heds was read";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("unknown view 'heds' (did you mean heads"), std::string::npos) << m;
    for (const ViewDescriptor& v : all_views()) EXPECT_NE(m.find(v.name), std::string::npos) << v.name << " in " << m;
  }
}

TEST(ViewRegistry, TheHelpNamesEveryViewAndAlias) {
  const std::string help = view_help();
  for (const std::string& n : view_names()) EXPECT_NE(help.find(n), std::string::npos) << n;
  for (const ViewDescriptor& v : all_views()) EXPECT_NE(help.find(v.shows), std::string::npos) << v.name;
}

TEST(ExportFormats, OneTableForEveryFormat) {
  std::set<std::string> extensions;
  for (const ExportFormatInfo& f : export_formats()) {
    EXPECT_TRUE(extensions.insert(f.extension).second) << f.extension;
    EXPECT_EQ(export_format_of(std::string("x.") + f.extension), f.format);
    EXPECT_EQ(export_format_is_figure(f.format), f.figure);
  }
  EXPECT_EQ(extensions, (std::set<std::string>{"png", "svg", "pdf", "npy", "csv", "json", "html"}));
}

}  // namespace
}  // namespace hs
