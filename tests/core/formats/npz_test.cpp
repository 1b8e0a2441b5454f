// .npz archives (core/formats/npz.h): stored and deflated entries, the zip64 fields numpy writes,
// and every malformed variant a FormatError naming the file and the problem. The archives are
// built here byte by byte (numpy's own files are read in tests/tools/export_attention_test.py).
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "core/formats/npz.h"
#include "core/util/errors.h"

namespace hs {
namespace {

struct ZipEntry {
  std::string name;
  std::string data;
  int method = 0;          // 0 stored, 8 deflate, anything else as given
  bool zip64 = false;      // sizes and offset as 0xFFFFFFFF + a zip64 extra field (numpy's force_zip64)
  bool encrypted = false;
  int64_t crc = -1;        // >= 0: stored instead of the real CRC-32
  int64_t size = -1;       // >= 0: declared uncompressed size instead of the real one
};

void put(std::string& s, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s += char((v >> (8 * i)) & 0xFF);
}

std::string deflate_raw(const std::string& data) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, uLong(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = uInt(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// A zip archive of `entries`; `zip64_end` adds the zip64 end record and locator (and 0xFFFF
// counts in the classic end record).
std::string zip(const std::vector<ZipEntry>& entries, bool zip64_end = false) {
  std::string file, dir;
  for (const ZipEntry& e : entries) {
    const std::string body = e.method == 8 ? deflate_raw(e.data) : e.data;
    const uint32_t crc = e.crc >= 0 ? uint32_t(e.crc)
                                    : uint32_t(crc32(0, reinterpret_cast<const Bytef*>(e.data.data()), uInt(e.data.size())));
    const uint64_t size = e.size >= 0 ? uint64_t(e.size) : e.data.size();
    const uint64_t offset = file.size();
    std::string extra;
    if (e.zip64) {
      put(extra, 1, 2);
      put(extra, 24, 2);
      put(extra, size, 8);
      put(extra, body.size(), 8);
      put(extra, offset, 8);
    }
    const auto header = [&](bool central) {
      std::string h;
      put(h, central ? 0x02014b50 : 0x04034b50, 4);
      if (central) put(h, 45, 2);
      put(h, 45, 2);
      put(h, e.encrypted ? 1 : 0, 2);
      put(h, uint64_t(e.method), 2);
      put(h, 0, 4);  // time, date
      put(h, crc, 4);
      put(h, e.zip64 ? 0xFFFFFFFFu : body.size(), 4);
      put(h, e.zip64 ? 0xFFFFFFFFu : size, 4);
      put(h, e.name.size(), 2);
      put(h, central || e.zip64 ? extra.size() : 0, 2);
      if (central) {
        put(h, 0, 2);   // comment
        put(h, 0, 2);   // disk
        put(h, 0, 2);   // internal attributes
        put(h, 0, 4);   // external attributes
        put(h, e.zip64 ? 0xFFFFFFFFu : offset, 4);
      }
      h += e.name;
      if (central || e.zip64) h += extra;
      return h;
    };
    file += header(false) + body;
    dir += header(true);
  }
  const uint64_t dir_offset = file.size();
  file += dir;
  if (zip64_end) {
    const uint64_t at = file.size();
    put(file, 0x06064b50, 4);
    put(file, 44, 8);
    put(file, 45, 2);
    put(file, 45, 2);
    put(file, 0, 4);
    put(file, 0, 4);
    put(file, entries.size(), 8);
    put(file, entries.size(), 8);
    put(file, dir.size(), 8);
    put(file, dir_offset, 8);
    put(file, 0x07064b50, 4);
    put(file, 0, 4);
    put(file, at, 8);
    put(file, 1, 4);
  }
  put(file, 0x06054b50, 4);
  put(file, 0, 2);
  put(file, 0, 2);
  put(file, zip64_end ? 0xFFFF : entries.size(), 2);
  put(file, zip64_end ? 0xFFFF : entries.size(), 2);
  put(file, zip64_end ? 0xFFFFFFFFu : dir.size(), 4);
  put(file, zip64_end ? 0xFFFFFFFFu : dir_offset, 4);
  put(file, 0, 2);
  return file;
}

std::string write_temp(const std::string& name, const std::string& bytes) {
  const std::filesystem::path dir = std::filesystem::path(HEADSCOPE_BINARY_DIR) / "test-scratch" / "npz";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

const std::vector<float> kSix = {1, 2, 3, 4, 5, 6};
const std::string kArray = npy_bytes(kSix.data(), {2, 3});

std::string error_of(const std::string& name, const std::string& bytes, const std::string& array = "a") {
  try {
    NpzFile f(write_temp(name, bytes));
    f.array(array);
  } catch (const FormatError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong error type: ") + e.what();
  }
  return "no error";
}

#define EXPECT_HAS(message, part) EXPECT_NE((message).find(part), std::string::npos) << "message: " << (message) << "\nexpected to contain: " << (part)

TEST(Npz, StoredDeflatedAndZip64EntriesRead) {
  const std::vector<float> other = {9, 8};
  const std::string b = npy_bytes(other.data(), {2});
  for (const bool zip64 : {false, true}) {
    for (const int method : {0, 8}) {
      SCOPED_TRACE(std::string(method ? "deflate" : "stored") + (zip64 ? ", zip64" : ""));
      ZipEntry a{"a.npy", kArray, method, zip64};
      ZipEntry readme{"README.txt", "not an array", 0, false};
      ZipEntry second{"layer.1.npy", b, method, zip64};
      const NpzFile f(write_temp("ok.npz", zip({a, readme, second}, zip64)));
      EXPECT_EQ(f.names(), std::vector<std::string>({"a", "layer.1"}));
      EXPECT_TRUE(f.has("a"));
      EXPECT_FALSE(f.has("README.txt"));
      EXPECT_EQ(f.array_bytes("a"), kArray.size());
      const NpyArray x = f.array("a");
      EXPECT_EQ(x.shape, std::vector<int64_t>({2, 3}));
      EXPECT_EQ(x.data, kSix);
      EXPECT_EQ(f.array("layer.1").data, other);
    }
  }
}

TEST(Npz, DamageIsAFormatErrorNamingIt) {
  const std::string good = zip({{"a.npy", kArray, 8}});
  EXPECT_HAS(error_of("not_zip.npz", "PK but not a zip at all, only text"), "no end-of-central-directory record");
  EXPECT_HAS(error_of("tiny.npz", "PK"), "fewer than a zip's end record");
  EXPECT_HAS(error_of("missing.npz", good, "b"), "no array 'b' (the archive has: a)");
  ZipEntry crc{"a.npy", kArray, 0};
  crc.crc = 1234;
  EXPECT_HAS(error_of("crc.npz", zip({crc})), "CRC-32 mismatch");
  EXPECT_HAS(error_of("method.npz", zip({{"a.npy", kArray, 12}})), "compression method 12");
  ZipEntry enc{"a.npy", kArray, 0};
  enc.encrypted = true;
  EXPECT_HAS(error_of("encrypted.npz", zip({enc})), "is encrypted");
  ZipEntry small{"a.npy", kArray, 8};
  small.size = 10;  // the deflated data inflates to more than it says
  EXPECT_HAS(error_of("bomb.npz", zip({small})), "more than its declared 10 bytes");
  ZipEntry big{"a.npy", kArray, 8};
  big.size = int64_t(kArray.size()) + 5;
  EXPECT_HAS(error_of("short.npz", zip({big})), "inflates to");
  EXPECT_HAS(error_of("dupe.npz", zip({{"a.npy", kArray}, {"a.npy", kArray}})), "two entries are named 'a.npy'");
  // Deflated bytes cut short: a central directory pointing past the data it has.
  std::string cut = good;
  cut.erase(40, 20);
  const std::string e = error_of("cut.npz", cut);
  EXPECT_EQ(e.find("wrong error type"), std::string::npos) << e;
  EXPECT_NE(e, "no error");
  // Every prefix of a good archive fails cleanly.
  for (size_t n = 0; n < good.size(); n += 7) EXPECT_NE(error_of("prefix.npz", good.substr(0, n)), "no error") << n;
}

}  // namespace
}  // namespace hs
