#pragma once
// Files embedded at build time (app/gui/embed_files.cmake): shaders/*.glsl, assets/examples.txt,
// assets/lessons/*.json.
namespace hs::gui {

// The file's text by file name ("heatmap.frag.glsl"), or nullptr.
const char* embedded_file(const char* name);

// The name of the index-th embedded file (0-based), nullptr past the end.
const char* embedded_name(int index);

}  // namespace hs::gui
