#pragma once
// A linked GLSL program from embedded shader sources; errors carry the compiler log.
#include <glad/gl.h>

#include <string>

namespace hs::gui {

class GlProgram {
 public:
  GlProgram() = default;
  // Throws std::runtime_error with the shader log if compiling or linking fails.
  GlProgram(const char* vertex_source, const char* fragment_source);
  ~GlProgram();
  GlProgram(GlProgram&& o) noexcept : id_(o.id_) { o.id_ = 0; }
  GlProgram& operator=(GlProgram&& o) noexcept;
  GlProgram(const GlProgram&) = delete;
  GlProgram& operator=(const GlProgram&) = delete;

  GLuint id() const { return id_; }
  GLint uniform(const char* name) const { return glGetUniformLocation(id_, name); }

 private:
  GLuint id_ = 0;
};

}  // namespace hs::gui
