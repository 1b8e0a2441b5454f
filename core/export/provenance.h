#pragma once
// Provenance: what made an export, so a page or a figure can be traced back to it. Recorded in the
// HTML page (core/export/html_page.h), in figures as metadata (PNG iTXt chunk, SVG <metadata>, PDF
// Subject/Keywords) and in the maps JSON (`maps --json`, every .json export) as a "provenance" object
// without the view (the JSON holds the whole run); .npy and .csv stay plain.
//
//   headscope   the version that wrote it
//   files       each input file (model, tokenizer, weights, maps, input array): its name (no
//               folder), size in bytes and SHA-256. Files up to kProvenanceWholeHashBytes are hashed
//               whole; larger ones (hashing gigabytes would take seconds) only their start, which
//               holds the header and tensor table: a .safetensors file's 8-byte length and JSON header,
//               else the first kProvenancePrefixBytes. "sha256_of" says which.
//   model       kind, name, weight types (the quantization: "F32", "Q4_K, Q6_K, F32")
//   input       the sentence (and sentence B), the token count
//   view        the view, layer, head, layers, query tokens, colormap and colour scale
#include <cstdint>
#include <string>

namespace hs {

struct RunAnalysis;
struct ExportSpec;

constexpr uint64_t kProvenanceWholeHashBytes = uint64_t(64) << 20;
constexpr uint64_t kProvenancePrefixBytes = uint64_t(16) << 20;

// The provenance as a compact JSON object (one line, UTF-8).
std::string provenance_json(const RunAnalysis& analysis, const ExportSpec& spec);
// The same without "view": what made the run (the maps JSON's "provenance").
std::string run_provenance_json(const RunAnalysis& analysis);

// One file's entry: {"role", "name", "bytes", "sha256", "sha256_of"}; a file that is not regular or
// cannot be read has no "sha256" and "sha256_of" says why.
std::string file_provenance_json(const std::string& role, const std::string& path);

// The figure's bytes with the provenance added as metadata: PNG an iTXt chunk "headscope-provenance"
// after IHDR, SVG a <metadata id="headscope-provenance"> element after the <svg> tag; other bytes
// (PDF: the renderer sets its Subject) are returned unchanged.
std::string png_with_provenance(const std::string& png, const std::string& provenance);
std::string svg_with_provenance(const std::string& svg, const std::string& provenance);

}  // namespace hs
