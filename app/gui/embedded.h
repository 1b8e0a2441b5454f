#pragma once
// Files embedded at build time (app/gui/embed_files.cmake): shaders/*.glsl, assets/examples.txt.
namespace hs::gui {

// The file's text by file name ("heatmap.frag.glsl"), or nullptr.
const char* embedded_file(const char* name);

}  // namespace hs::gui
