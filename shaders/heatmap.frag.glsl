#version 330 core
// values: [rows, cols] R32F, already mapped to t in [0, 1] by the colour scale.
// colormap: 256x1 RGBA8, the same table the CPU exporter uses (core/render/colormap.h).
// The target may have fewer pixels than the map has cells: then each pixel shows the largest t
// of the cells it covers (core/render/peak_reduce.h: pixel p of m covers cells
// [floor(p n / m), ceil((p + 1) n / m))), so no peak disappears. With one pixel per cell it is
// the cell itself.
// Lookup rule shared with hs::colormap_lookup: t clamped to [0, 1], NaN -> 0,
// index = floor(t * 255 + 0.5).
uniform sampler2D values;
uniform sampler2D colormap;
uniform ivec2 cells;   // (cols, rows) of the map
uniform ivec2 pixels;  // (width, height) of the target, at most `cells` each
uniform ivec2 origin;  // the target's first pixel in the framebuffer (an atlas region's corner)
uniform vec3 masked;   // colour of cells a mask hides (t < 0: hs::kMaskedT), hs::masked_colour
out vec4 colour;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy) - origin;
  ivec2 first = (p * cells) / pixels;
  ivec2 end = ((p + 1) * cells + pixels - 1) / pixels;
  float t = 0.0;
  bool all_masked = true;  // a pixel is masked only when every cell it covers is
  for (int y = first.y; y < end.y; ++y)
    for (int x = first.x; x < end.x; ++x) {
      float v = texelFetch(values, ivec2(x, y), 0).r;
      if (!(v < 0.0)) all_masked = false;
      if (v > t) t = v;  // NaN and negatives never win
    }
  if (all_masked) {
    colour = vec4(masked, 1.0);
    return;
  }
  t = min(t, 1.0);
  int index = int(floor(t * 255.0 + 0.5));
  colour = vec4(texelFetch(colormap, ivec2(index, 0), 0).rgb, 1.0);
}
