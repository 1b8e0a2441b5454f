// Provenance of exports (core/export/provenance.h): a file past 64 MiB is hashed over its header and
// tensor table only, and says so; the metadata lands where readers look for it.
#include "core/export/provenance.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/util/sha256.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

// A sparse file of `size` bytes starting with `head`.
std::string sparse_file(const std::string& name, const std::string& head, uint64_t size) {
  const std::string path = (fs::temp_directory_path() / name).string();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << head;
  }
  fs::resize_file(path, size);
  return path;
}

TEST(Provenance, SmallFilesAreHashedWhole) {
  const std::string path = sparse_file("hs_prov_small.bin", "abc", 3);
  const nlohmann::json j = nlohmann::json::parse(file_provenance_json("model", path));
  EXPECT_EQ(j["sha256"], sha256_hex("abc"));
  EXPECT_EQ(j["sha256_of"], "the whole file");
  EXPECT_EQ(j["bytes"], 3);
  EXPECT_EQ(j["name"], "hs_prov_small.bin");
  fs::remove(path);
}

TEST(Provenance, FilesThatCannotBeHashedAreNamed) {
  const nlohmann::json dir = nlohmann::json::parse(file_provenance_json("model", fs::temp_directory_path().string()));
  EXPECT_FALSE(dir.contains("sha256"));
  EXPECT_EQ(dir["sha256_of"], "not hashed: not a regular file");
  const nlohmann::json gone = nlohmann::json::parse(file_provenance_json("model", "/nonexistent/hs_model.bin"));
  EXPECT_FALSE(gone.contains("sha256"));
  EXPECT_EQ(gone["sha256_of"].get<std::string>().rfind("not hashed: ", 0), 0u) << gone["sha256_of"];
  EXPECT_EQ(gone["name"], "hs_model.bin");
}

TEST(Provenance, LargeSafetensorsAreHashedOverLengthAndHeader) {
  const std::string header = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  std::string head(8, '\0');
  for (int i = 0; i < 8; ++i) head[size_t(i)] = char((uint64_t(header.size()) >> (8 * i)) & 0xff);
  head += header;
  const uint64_t size = kProvenanceWholeHashBytes + 4096;
  const std::string path = sparse_file("hs_prov_large.safetensors", head, size);
  const nlohmann::json j = nlohmann::json::parse(file_provenance_json("model", path));
  EXPECT_EQ(j["sha256"], sha256_hex(head));
  EXPECT_NE(j["sha256_of"].get<std::string>().find("the first " + std::to_string(head.size()) + " bytes of " +
                                                   std::to_string(size)),
            std::string::npos)
      << j["sha256_of"];
  fs::remove(path);
}

TEST(Provenance, OtherLargeFilesAreHashedOverTheirStart) {
  const uint64_t size = kProvenanceWholeHashBytes + 1;
  const std::string path = sparse_file("hs_prov_large.gguf", "GGUF", size);
  const nlohmann::json j = nlohmann::json::parse(file_provenance_json("model", path));
  std::string start(kProvenancePrefixBytes, '\0');
  start.replace(0, 4, "GGUF");
  EXPECT_EQ(j["sha256"], sha256_hex(start));
  EXPECT_NE(j["sha256_of"].get<std::string>().find("header and tensor table"), std::string::npos) << j["sha256_of"];
  fs::remove(path);
}

TEST(Provenance, MetadataGoesWhereReadersLook) {
  const std::string svg = "<?xml version=\"1.0\"?>\n<svg width=\"1pt\"><g/></svg>";
  EXPECT_EQ(svg_with_provenance(svg, "{\"a\":\"<&>\"}"),
            "<?xml version=\"1.0\"?>\n<svg width=\"1pt\">\n<metadata id=\"headscope-provenance\">{\"a\":\"&lt;&amp;&gt;\"}"
            "</metadata><g/></svg>");
  EXPECT_EQ(png_with_provenance("not a png", "{}"), "not a png");
}

}  // namespace
}  // namespace hs
