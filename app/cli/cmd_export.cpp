// `headscope-cli export`: figures (.png .svg .pdf) and data (.npy .csv .json) of one view, or
// every head of every layer into a folder (see docs/cli-contract.md).
#include <algorithm>
#include <cctype>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "app/cli/commands.h"
#include "app/common/flag_vocabulary.h"
#include "app/common/model_flags.h"
#include "core/analysis/head_roles.h"
#include "core/analysis/run_analysis.h"
#include "core/analysis/sweep_analysis.h"
#include "core/export/export.h"
#include "core/export/vectors_export.h"
#include "core/render/figure.h"
#include "core/util/atomic_file.h"
#include "core/session/session_file.h"
#include "core/util/errors.h"
#include "core/util/file_read.h"

namespace hs::cli {
namespace {

// Block maxima per side of a run that keeps one layer's or head's whole maps for a .npy (not written).
constexpr int kKeptRunDisplaySize = 64;

// A style file holds a dozen keys; 16 MiB (as config.json) leaves room for long strings.
constexpr size_t kMaxStyleFileBytes = size_t(16) << 20;

// The figure's look: page size with a unit, fonts, title, labels, a style file.
struct FigureFlags {
  std::string preset;  // --preset slide
  double font_size = 0;
  std::string title;
  bool no_title = false;
  bool no_caption = false;
  std::string labels;
  std::string space_mark;
  std::string colorbar_label;
  std::string style_file;
  CLI::Option* title_option = nullptr;
  CLI::Option* colorbar_option = nullptr;
};

struct ExportOptions {
  ModelFlags model;
  std::string out;
  std::string out_dir;
  std::string format = "png";
  std::string view = "heatmap";
  std::string colormap = "viridis";
  std::string colour_scale = "linear";
  bool ignore_first_key = false;
  bool per_head_range = false;
  bool layer_range = false;
  bool whole_maps = false;
  bool long_input = false;
  bool large_page = false;
  std::string size;
  std::string role;
  std::string queries;
  std::string csv_layout = "auto";
  std::string ablation = "zero";
  bool all_layers = false;
  bool rollout = false;
  std::string order = "model";
  std::string what;  // --what scores|q|k|v: the engine's vectors instead of a view
  FigureFlags figure;
  int layer = 0;
  int head = -1;
  double scale = 1.0;
  double dpi = 0;
  int threads = 0;
  CLI::Option* head_option = nullptr;
  CLI::Option* format_option = nullptr;
  CLI::Option* role_option = nullptr;
  CLI::Option* layer_option = nullptr;
  CLI::Option* colormap_option = nullptr;
  CLI::Option* query_option = nullptr;
  CLI::Option* ablation_option = nullptr;
  std::string pattern, fit_widths;
  CLI::Option* pattern_option = nullptr;
  CLI::Option* fit_widths_option = nullptr;
  CLI::Option* view_option = nullptr;
};

// The preset, the style file, then the flags over them.
void apply_figure_flags(const FigureFlags& f, ExportSpec& spec, CLI::Option* colormap_option) {
  try {
    apply_figure_preset(parse_figure_preset(f.preset), spec.style);
  } catch (const InputError& e) {
    throw InputError(std::string("--") + e.what());
  }
  if (!f.style_file.empty()) {
    // A FIFO or a device is refused, not waited on or read forever; a style is a few hundred bytes.
    std::string text;
    try {
      text = read_file_limited(f.style_file, kMaxStyleFileBytes, "a style file");
    } catch (const IoError& e) {
      throw IoError(std::string("the style file: ") + e.what());
    }
    std::optional<Colormap> colormap;
    apply_style_json(text, f.style_file, spec.style, colormap);
    if (colormap && colormap_option->count() == 0) spec.colours.colormap = *colormap;
  }
  if (f.font_size != 0) {
    if (!(f.font_size >= 4 && f.font_size <= 72)) {
      throw InputError("--font-size (" + std::to_string(f.font_size) + ") must be from 4 to 72 points");
    }
    spec.style.font_size = f.font_size;
  }
  if (f.title_option->count() > 0) {
    if (f.no_title) throw InputError("give either --title TEXT or --no-title, not both");
    spec.style.title = f.title;
    spec.style.show_title = true;
  }
  if (f.no_title) spec.style.show_title = false;
  if (f.no_caption) spec.style.show_caption = false;
  if (!f.labels.empty()) parse_label_mode(f.labels, spec.style);
  if (!f.space_mark.empty()) spec.style.space_mark = parse_space_mark(f.space_mark);
  if (f.colorbar_option->count() > 0) spec.style.colorbar_label = f.colorbar_label;
}

// "WxH" (either may be 0 to keep the aspect ratio) -> width, height.
void parse_size(const std::string& text, ExportSpec& spec) {
  if (text.empty()) return;
  try {
    if (parse_page_size(text, kPngPixelsPerPoint * spec.scale, spec.style)) return;
  } catch (const InputError& e) {
    throw InputError(std::string("--size: ") + e.what());
  }
  const size_t x = text.find_first_of("xX");
  try {
    if (x == std::string::npos) throw std::invalid_argument("no x");
    size_t used_w = 0, used_h = 0;
    const std::string w = text.substr(0, x), h = text.substr(x + 1);
    spec.width = std::stoi(w, &used_w);
    spec.height = std::stoi(h, &used_h);
    if (used_w != w.size() || used_h != h.size()) throw std::invalid_argument("trailing");
  } catch (const std::logic_error&) {
    throw InputError("--size '" + text + "' is not WIDTHxHEIGHT (e.g. 3.25x3.25in, 8x6cm, or 1600x1200 output units; 0 for one side keeps the aspect ratio)");
  }
  if (spec.width < 0 || spec.height < 0 || (spec.width == 0 && spec.height == 0) || spec.width > 100000 ||
      spec.height > 100000) {
    throw InputError("--size '" + text + "' must give sides from 1 to 100000 (0 for one side keeps the aspect ratio)");
  }
}

// "3" or "2,5,7" -> whole numbers >= 0 (token indices, checked against the input by export;
// head widths, by the fit). `flag` and `what` name them in messages.
std::vector<int> parse_queries(const std::string& text, const std::string& flag = "--query",
                               const std::string& one = "token index", const std::string& many = "token indices") {
  std::vector<int> queries;
  std::stringstream in(text);
  std::string item;
  const std::string example = flag == "--query" ? " (e.g. 7 or 2,5,7; 0 is the first token)" : " (e.g. 1,2,4)";
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    int q = -1;
    try {
      q = std::stoi(item, &used);
    } catch (const std::logic_error&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || q < 0) throw InputError(flag + " '" + text + "' is not a list of " + many + example);
    queries.push_back(q);
  }
  if (queries.empty()) throw InputError(flag + " needs at least one " + one + example);
  return queries;
}

// The flags that belong to one view, and the layer flags, checked against the view.
void check_view_flags(const ExportOptions& o, ExportSpec& spec) {
  const View v = spec.view;
  const ViewDescriptor& d = view_descriptor(v);
  const bool head_given = o.head_option->count() > 0;
  const bool whole_model = d.scope == ViewScope::model;
  if (whole_model && head_given) {
    throw InputError("--head is for the head and heatmap views; the " + o.view + " view covers the whole model");
  }
  if (head_given && d.scope == ViewScope::layer) {
    throw InputError("--head is for --view head (one head); the " + o.view + " view shows every head of the layer");
  }
  if (whole_model && (o.layer_option->count() > 0 || (o.all_layers && v != View::overview))) {
    throw InputError("--layer is for the views drawn per layer; the " + o.view + " view covers every layer");
  }
  if (o.all_layers && o.layer_option->count() > 0) throw InputError("give either --layer L or --all-layers, not both");
  spec.layers = o.all_layers ? LayerScope::every : o.layer_option->count() > 0 ? LayerScope::one : LayerScope::unset;
  const bool figure = !o.out.empty() && export_format_is_figure(export_format_of(o.out));
  const bool heads_figure = d.tab == View::heads && !head_given;  // heads, heatmap, overview
  if (o.all_layers && figure && !heads_figure) {
    throw InputError("a " + o.view + " figure shows one layer (--layer L); --all-layers is for data files (.npy, .csv, .json) "
                     "and --view heads (the figure of every layer's heads)");
  }
  if (o.query_option->count() > 0) {
    if (v != View::query) throw InputError("--query is for --view query");
    spec.queries = parse_queries(o.queries);
  }
  if (o.rollout) {
    if (v != View::average && v != View::rollout) throw InputError("--rollout is for --view average");
    spec.view = View::rollout;
  }
  if ((o.ablation_option->count() > 0 || o.ablation != "zero") && v != View::ablation)
    throw InputError("--ablation is for --view ablation");
  spec.ablation_mode = o.ablation == "mean" ? AblationMode::mean : AblationMode::zero;
  spec.csv_layout = parse_csv_layout(o.csv_layout);
  if (o.pattern_option->count() > 0) {
    if (v != View::width) throw InputError("--pattern is for --view width (the pattern a head of each width is fitted to)");
    spec.pattern = o.pattern;
  }
  if (o.fit_widths_option->count() > 0) {
    if (v != View::width) throw InputError("--fit-widths is for --view width");
    spec.fit_widths = parse_queries(o.fit_widths, "--fit-widths", "head width", "head widths");
  }
}

// --what: every layer's scores, q, k or v as one .npy (core/export/vectors_export.h).
int run_vectors_export(const ExportOptions& o) {
  const VectorKind kind = parse_vector_kind(o.what);
  if (o.out.empty() || export_format_of(o.out) != ExportFormat::npy)
    throw InputError("--what " + o.what + " writes a .npy file: give --out FILE.npy");
  if (o.head_option->count() > 0) throw InputError("--what " + o.what + " holds every head; leave out --head (index the array)");
  if (o.view_option->count() > 0) throw InputError("--what " + o.what + " exports vectors, not a view; leave out --view");
  if (o.long_input) throw InputError("--what " + o.what + " holds whole T x T or T x d_head arrays; leave out --long-input");
  const int layer = o.layer_option->count() > 0 ? o.layer : -1;
  if (o.layer_option->count() > 0 && o.layer < 0) throw InputError("layer (" + std::to_string(o.layer) + ") must be 0 or more");
  write_file_atomic(o.out, vectors_npy(model_request(o.model), kind, layer));
  return 0;
}

// --scale, the older name of --figure-scale: a number is the figure's size factor (with a note to use
// --figure-scale); a colour scale (linear, log, row) is refused with the flag that sets it.
CLI::Option* add_figure_scale_alias(CLI::App& sub, CLI::Option* figure_scale, double& value) {
  const CLI::Validator number = finite_number("figure scale");
  return sub
      .add_option_function<std::string>(
          "--scale",
          [&value](const std::string& text) {
            value = std::stod(text);
            std::cerr << "note: --scale is --figure-scale; use --figure-scale " << text << "\n";
          },
          "Older name of --figure-scale (prints a note); the colour scale is --color-scale")
      ->check(CLI::Validator(
          [number](std::string& text) -> std::string {
            const std::vector<std::string>& scales = session_color_scales();
            if (std::find(scales.begin(), scales.end(), text) != scales.end()) {
              return "'" + text + "' is a colour scale: give --color-scale " + text +
                     " (export's --scale is the figure's size factor, --figure-scale)";
            }
            return number(text);
          },
          "NUMBER"))
      ->excludes(figure_scale);
}

int run_export(const ExportOptions& o) {
  if (!o.what.empty()) return run_vectors_export(o);
  if (o.out.empty() == o.out_dir.empty()) throw InputError("give exactly one of --out FILE or --out-dir DIR");
  if (o.format_option->count() > 0 && o.out_dir.empty()) {
    throw InputError("--format is for --out-dir; with --out the file's extension picks the format");
  }
  ExportSpec spec;
  spec.path = o.out;
  spec.layer = o.layer;
  spec.head = o.head_option->count() > 0 ? o.head : -1;
  if (o.head_option->count() > 0 && o.head < 0) {
    throw InputError("head (" + std::to_string(o.head) + ") must be 0 or more; leave --head out for all heads");
  }
  spec.view = parse_view(o.view);
  check_view_flags(o, spec);
  if (o.role_option->count() > 0) {
    if (spec.view != View::roles) throw InputError("--role is for --view roles");
    spec.role = int(parse_head_role(o.role));
  }
  spec.cluster_order = o.order == "cluster";
  spec.large_page = o.large_page;
  spec.colours.colormap = parse_colormap(o.colormap);
  spec.colours.mode = parse_scale_mode(o.colour_scale);
  spec.colours.ignore_first_key = o.ignore_first_key;
  spec.colours.per_map = o.per_head_range;
  if (o.per_head_range && o.layer_range) throw InputError("give either --per-head-range or --layer-range, not both");
  if (o.layer_range && spec.head < 0) throw InputError("--layer-range is for one head (--head H): a grid shares its layer's range already");
  if (o.dpi < 0) throw InputError("--dpi (" + std::to_string(o.dpi) + ") must be greater than 0");
  spec.scale = o.dpi != 0 ? o.dpi / (72.0 * kPngPixelsPerPoint) : o.scale;
  apply_figure_flags(o.figure, spec, o.colormap_option);
  parse_size(o.size, spec);
  if (!o.out.empty()) export_format_of(o.out);  // a bad extension fails before the model runs

  AnalysisOptions options;
  options.spectrum = spec.view == View::width;  // only the width view shows singular values
  // Reachable keys: the width view's maps, and the .json (maps --json's object, which holds them).
  const ExportFormat format = export_format_of(o.out.empty() ? "x." + o.format : o.out);
  options.reach = spec.view == View::width || format == ExportFormat::json;
  options.threads = o.threads;
  if (o.long_input && o.whole_maps) throw InputError("give either --long-input or --whole-maps, not both");
  options.maps = o.whole_maps ? MapMode::whole : o.long_input ? MapMode::long_input : MapMode::automatic;
  // --whole-maps of one layer (or one head) as .npy: the run keeps only those maps whole; on a long
  // input every other head streams, so memory grows with what is written (core/export/kept_maps_export.h).
  const bool one_layer = o.layer_option->count() > 0 || o.head_option->count() > 0;
  const bool maps_view = spec.view == View::heatmap || spec.view == View::heads || spec.view == View::head;
  if (o.whole_maps && !o.out.empty() && format == ExportFormat::npy && one_layer && !o.all_layers && maps_view) {
    options.keep = spec.head >= 0 ? MapSelection::of_head(spec.layer, spec.head) : MapSelection::of_layer(spec.layer);
    options.roles = options.rollout = options.reach = options.spectrum = false;  // the .npy holds the maps alone
    // Nor are the other heads' block maxima written: 64 cells a side keep them small (24 x 14 heads:
    // 5.3 MiB, not 336 MiB at the rule's 512).
    options.display_size = kKeptRunDisplaySize;
  }
  if (!o.long_input) {
    options.check_plan = [](const MapPlan& plan) {
      // Without --long-input, export holds whole maps: refuse what the long-input rule would not keep, before running.
      if (plan.display_size == 0 || plan.kept.layer >= 0) return;
      throw InputError("export writes whole T x T maps, and this input is in long-input mode (" + plan.reason +
                       "); add --whole-maps to export whole maps anyway (with --layer L [--head H] and a .npy, only those "
                       "maps are kept), --long-input to export the block maxima (labelled as such), or shorten the input");
    };
  }
  const ModelRequest request = model_request(o.model);
  require_input(request);
  if (spec.view == View::sweep && !request.attention_file.empty()) {
    throw InputError("the head-count sweep re-initialises a synthetic layer at every head count; maps from a file "
                     "(--attention) have no weights to sweep");
  }
  const std::shared_ptr<const RunAnalysis> analysis = analyse(request, options);
  if (o.layer_range && spec.layer >= 0 && spec.layer < analysis->run.n_layers()) {
    const size_t l = size_t(spec.layer);
    spec.colours.fixed_max = o.ignore_first_key ? analysis->layer_max_skip_first[l] : analysis->layer_max[l];
  }
  std::vector<std::string> notes;  // the layout's: labels asked for that had to be thinned
  spec.notes = &notes;
  const auto print_notes = [&] {
    std::vector<std::string> said;
    for (const std::string& n : notes)
      if (std::find(said.begin(), said.end(), n) == said.end()) std::cerr << "note: " << n << "\n", said.push_back(n);
  };
  if (!o.out.empty()) {
    export_view(*analysis, nullptr, spec);
    print_notes();
    return 0;
  }
  const std::vector<std::string> written = export_all(*analysis, nullptr, o.out_dir, spec, o.format);
  for (const std::string& path : written) std::cout << path << "\n";
  print_notes();
  return 0;
}

}  // namespace

Command add_export_command(CLI::App& app) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* sub = app.add_subcommand("export", "Write a figure (.png .svg .pdf), data (.npy .csv .json) or a page (.html)");
  add_model_flags(*sub, o->model);
  sub->add_option("--out", o->out, flag_help("out", ".png .svg .pdf .npy .csv .json .html"));
  sub->add_option("--out-dir", o->out_dir,
                  "Batch into this folder: every head of every layer as layer{L}_head{H}.{format} "
                  "(difference view: layer{L}_difference, sweep: sweep, json: maps.json)");
  o->format_option = sub->add_option("--format", o->format, "With --out-dir: png, svg, pdf, npy, csv or json")
                         ->capture_default_str();
  o->layer_option = sub->add_option("--layer", o->layer,
                                    flag_help("layer", "The one exported (default 0). Given, it is the only layer in every "
                                                       "format: .npy [1, n_heads, T, T], .json's per-layer arrays with "
                                                       "\"layers\": [L], .csv that layer. Left out, data files hold every layer"))
                        ->capture_default_str();
  sub->add_flag("--all-layers", o->all_layers,
                flag_help("all-layers", "Data files as without --layer; the heads figure of every layer x head"));
  o->head_option = sub->add_option("--head", o->head, flag_help("head", "Without it, every head of the layer (images: a grid)"));
  o->view_option = add_view_flag(*sub, o->view);
  sub->add_option("--what", o->what,
                  "Instead of a view, the engine's vectors as .npy (--out FILE.npy): scores [layers, heads, T, T] (scaled, "
                  "soft-capped, before mask and softmax; masked cells -inf), q [layers, heads, T, d_head], k or v "
                  "[layers, kv_heads, T, d_head] (q and k after RoPE); --layer L: that layer alone");
  o->query_option = sub->add_option("--query", o->queries,
                                    flag_help("query", "--view query: several as 2,5,7, their rows summed"));
  sub->add_flag("--rollout", o->rollout, flag_help("rollout", "--view average (= --view rollout)"));
  o->ablation_option = add_ablation_flag(*sub, o->ablation, "--view ablation");
  add_alias(*sub, "--ablation-mode", o->ablation_option, o->ablation);
  o->pattern_option = sub->add_option(
      "--pattern", o->pattern,
      "--view width: the attention pattern fitted by a head of width 1, 2, 4, ... T-1: previous, first, token:N, "
      "permutation:SEED, head:LAYER:HEAD, a T x T .npy or .csv file, or none (default: previous, up to 64 tokens)");
  o->fit_widths_option = sub->add_option("--fit-widths", o->fit_widths,
                                         "--view width: the head widths fitted to --pattern, e.g. 1,2,4 (each 1 to T)");
  sub->add_option("--csv-layout", o->csv_layout,
                  "Maps as .csv: auto (one map, e.g. --head: the query\\key matrix; else tidy), tidy (header "
                  "layer,head,query,key,query_token,key_token,weight, a row per cell; masked cells, keys a causal or "
                  "windowed query cannot see, have weight 0) or matrix (the layer's query\\key tables, one per head, "
                  "separated by an empty line)")
      ->capture_default_str();
  o->role_option = sub->add_option(
      "--role", o->role, flag_help("role", "--view roles: that role's layers x heads map; left out, every role of every head"));
  add_order_flag(*sub, o->order, "Head grid and difference/distance figures (labels keep the real index)");
  o->colormap_option = add_colormap_flag(*sub, o->colormap);
  add_color_scale_flag(*sub, o->colour_scale);
  sub->add_flag("--ignore-first-key", o->ignore_first_key, flag_help("ignore-first-key"));
  sub->add_flag("--per-head-range", o->per_head_range,
                "Grid: each head on its own colour range (default: one range for the layer, so a dim head looks dim)");
  sub->add_flag("--layer-range", o->layer_range, "One head (--head): on its layer's colour range instead of its own");
  sub->add_flag("--whole-maps", o->whole_maps, flag_help("whole-maps"));
  sub->add_flag("--large-page", o->large_page,
                "An .html page past 8 MB (the size a browser still decodes quickly) is written instead of refused");
  sub->add_flag("--long-input", o->long_input,
                flag_help("long-input", "The heads, head, heatmap and overview views export each head's block maxima, "
                                        "labelled as such (figure title and colour bar; CSV first line; NPY sidecar "
                                        "NAME.blocks.json; JSON long_input.block_size); the query view its exact rows"));
  CLI::Option* scale = sub->add_option("--figure-scale", o->scale, "Figure size factor (PNG: 144 dpi at 1, 288 dpi at 2)")
                           ->check(finite_number("figure scale"))
                           ->capture_default_str();
  CLI::Option* old_scale = add_figure_scale_alias(*sub, scale, o->scale);
  sub->add_option("--dpi", o->dpi, "PNG resolution in dots per inch (sets --figure-scale to DPI / 144)")
      ->check(finite_number("dpi"))
      ->excludes(scale)
      ->excludes(old_scale);
  sub->add_option("--size", o->size,
                  flag_help("size", "Lays the figure out for that page with fixed point-size text (0 for a free side); "
                                    "without a unit, WIDTHxHEIGHT output units (PNG pixels, SVG/PDF points) and the figure fitted"));
  add_threads_flag(*sub, o->threads);
  FigureFlags& f = o->figure;
  sub->add_option("--preset", f.preset,
                  "slide: a 16:9 slide (10x5.625in, 14 pt text) the maps fill, their cells stretched up to 2:1, token "
                  "labels at least 0.85 x the text size (thinned, not shrunk); --size and --font-size still win");
  sub->add_option("--font-size", f.font_size, "Text size in points (default 8 with a page --size; else the natural layout's)")
      ->check(finite_number("font size"));
  f.title_option = sub->add_option("--title", f.title, "Title text instead of the model, layer and heads");
  sub->add_flag("--no-title", f.no_title, "No title");
  sub->add_flag("--no-caption", f.no_caption,
                "No explanatory text in the figure (a journal's caption says it). Leaves out the definitions under the "
                "roles, ablation and patching tables");
  sub->add_option("--labels", f.labels, "Token labels: auto (as many as fit), all, none or \"every N\"");
  sub->add_option("--space-mark", f.space_mark,
                  "A token's space on the axes: dot (a thin \xC2\xB7 before the word, the default) or none; as the app's "
                  "View menu sets it");
  f.colorbar_option = sub->add_option("--colorbar-label", f.colorbar_label, "Colour bar label (\"\" for none)");
  sub->add_option("--style", f.style_file,
                  "Style file (JSON): font_size, title, show_title, labels, colorbar_label, gap, colormap, width, "
                  "height, space_mark, font (an installed family, e.g. \"DejaVu Serif\"); flags given as well win");
  return [o] { return run_export(*o); };
}

}  // namespace hs::cli
