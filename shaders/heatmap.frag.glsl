#version 330 core
// values: [rows, cols] R32F, already mapped to t in [0, 1] by the colour scale.
// colormap: 256x1 RGBA8, the same table the CPU exporter uses (core/render/colormap.h).
// Lookup rule shared with hs::colormap_lookup: t clamped to [0, 1], NaN -> 0,
// index = floor(t * 255 + 0.5).
uniform sampler2D values;
uniform sampler2D colormap;
out vec4 colour;

void main() {
  float t = texelFetch(values, ivec2(gl_FragCoord.xy), 0).r;
  if (!(t >= 0.0)) t = 0.0;  // NaN and negatives
  t = min(t, 1.0);
  int index = int(floor(t * 255.0 + 0.5));
  colour = vec4(texelFetch(colormap, ivec2(index, 0), 0).rgb, 1.0);
}
