#version 330 core
// values: [rows, cols] R32F, already mapped to t in [0, 1] by the colour scale and, when the map is
// drawn on fewer pixels than it has cells, already reduced to one value per pixel (the largest t of
// the cells it covers: core/render/peak_reduce.h's block_max, on the CPU before the upload), so
// pixel p of the target is texel p.
// colormap: 256x1 RGBA8, the same table the CPU exporter uses (core/render/colormap.h).
// Lookup rule shared with hs::colormap_lookup: t clamped to [0, 1], NaN -> 0,
// index = floor(t * 255 + 0.5).
uniform sampler2D values;
uniform sampler2D colormap;
uniform ivec2 origin;  // the target's first pixel in the framebuffer (an atlas region's corner)
uniform vec3 masked;   // colour of cells a mask hides (t < 0: hs::kMaskedT), hs::masked_colour
out vec4 colour;

void main() {
  float v = texelFetch(values, ivec2(gl_FragCoord.xy) - origin, 0).r;
  if (v < 0.0) {
    colour = vec4(masked, 1.0);
    return;
  }
  float t = v > 0.0 ? min(v, 1.0) : 0.0;  // NaN -> 0
  int index = int(floor(t * 255.0 + 0.5));
  colour = vec4(texelFetch(colormap, ivec2(index, 0), 0).rgb, 1.0);
}
