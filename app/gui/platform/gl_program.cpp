#include "app/gui/platform/gl_program.h"

#include <stdexcept>
#include <utility>

namespace hs::gui {
namespace {

GLuint compile(GLenum kind, const char* source) {
  GLuint s = glCreateShader(kind);
  glShaderSource(s, 1, &source, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    glDeleteShader(s);
    throw std::runtime_error(std::string("shader compile failed: ") + log);
  }
  return s;
}

}  // namespace

GlProgram::GlProgram(const char* vertex_source, const char* fragment_source) {
  if (!vertex_source || !fragment_source) throw std::runtime_error("shader source missing from the build");
  const GLuint vs = compile(GL_VERTEX_SHADER, vertex_source), fs = compile(GL_FRAGMENT_SHADER, fragment_source);
  id_ = glCreateProgram();
  glAttachShader(id_, vs);
  glAttachShader(id_, fs);
  glLinkProgram(id_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(id_, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetProgramInfoLog(id_, sizeof log, nullptr, log);
    glDeleteProgram(id_);
    id_ = 0;
    throw std::runtime_error(std::string("shader link failed: ") + log);
  }
}

GlProgram::~GlProgram() {
  if (id_) glDeleteProgram(id_);
}

GlProgram& GlProgram::operator=(GlProgram&& o) noexcept {
  std::swap(id_, o.id_);
  return *this;
}

}  // namespace hs::gui
