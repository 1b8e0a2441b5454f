// `headscope-cli ablate`: which heads matter for this sentence (core/analysis/ablation_question.h).
// Knocks out one head at a time (--ablation zero or mean; --reference FILE: the mean over a text's
// lines), or the heads of --knock-out L.H,L.H together, and prints the change in the measure (the
// mean next-token loss, or with --target/--target-position one prediction's log-prob), ranked,
// with the next tokens whose prediction changed most; --json writes every number.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/output_file.h"
#include "app/common/flag_vocabulary.h"
#include "app/common/model_flags.h"
#include "core/analysis/ablation_question.h"
#include "core/analysis/head_list.h"
#include "core/export/ablation_json.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"
#include "core/util/format.h"

namespace hs::cli {
namespace {

struct AblateOptions {
  ModelFlags model;
  std::string ablation = "zero";
  std::string json;
  std::string knock_out;
  std::string target;
  std::string reference;
  int target_position = -1;
  int top = 10;
  int threads = 0;
  int heads_per_pass = 0;
  bool quiet = false;
  bool progress = false;
  bool measure_only = false;
  CLI::Option* json_option = nullptr;
  CLI::Option* knock_out_option = nullptr;
};

// "[13] ▁Lily: -1.234": the predicted token's position and label, and its log-prob's change, for
// the `count` predictions whose log-prob fell most (d: [T-1], d(t) is the prediction of token t+1).
std::string fallen_tokens(const AblationAnswer& a, const Vec& d, size_t count) {
  std::vector<int> order(static_cast<size_t>(d.size()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return d(x) < d(y); });
  std::string out;
  for (size_t i = 0; i < std::min(count, order.size()); ++i) {
    const int t = order[i];
    out += (i ? ", " : "") + std::string("[") + std::to_string(t + 1) + "] " + a.tokens[size_t(t + 1)] + ": " +
           format_change(double(d(t)), 3);
  }
  return out;
}

// "mean next-token loss" or "log p(▁girl) after [12] ▁little".
std::string measure_name(const AblationAnswer& a) {
  if (a.target.is_mean_loss()) return "mean next-token loss";
  return "log p(" + a.target_token + ") after [" + std::to_string(a.target.position) + "] " + a.tokens[size_t(a.target.position)];
}

void print_ablation_notes(const AblationAnswer& a) {
  for (const std::string& n : a.notes) std::printf("note: %s\n", n.c_str());
}

int print_heads(const AblationAnswer& answer, int top) {
  const HeadAblation& a = *answer.heads;
  const int L = a.n_layers(), H = a.n_heads();
  const bool loss = a.target.is_mean_loss();
  std::printf("%d tokens; %s%s%.4f%s; each head knocked out (%s ablation), %d forward passes\n", int(a.ids.size()),
              measure_name(answer).c_str(), loss ? " " : " = ", a.base_measure, loss ? " nats" : "", ablation_mode_name(a.mode), L * H + 1);
  print_ablation_notes(answer);
  // Ranked by harm: the loss rising, or the target's log-prob falling.
  const auto harm = [&](int l, int h) { return loss ? a.delta_measure(l, h) : -a.delta_measure(l, h); };
  std::vector<std::pair<int, int>> heads;
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h) heads.push_back({l, h});
  std::stable_sort(heads.begin(), heads.end(), [&](const auto& x, const auto& y) { return harm(x.first, x.second) > harm(y.first, y.second); });
  if (top > 0 && int(heads.size()) > top) heads.resize(size_t(top));
  std::printf("\n rank  layer  head  %s%s\n", loss ? "loss change" : "  lp change",
              a.measure_only ? "" : "  next tokens whose log-prob fell most ([position] token: change)");
  int rank = 0;
  for (const auto& [l, h] : heads) {
    const std::string fallen = a.measure_only ? "" : "  " + fallen_tokens(answer, a.delta_logprob[size_t(l)][size_t(h)], 3);
    std::printf("%5d  %5d  %4d  %11s%s\n", ++rank, l, h, format_change(double(a.delta_measure(l, h)), 4).c_str(), fallen.c_str());
  }
  if (loss) std::printf("\nloss change: mean next-token loss without the head minus with it (positive: the head helps)\n");
  else std::printf("\nlp change: the target's log-prob without the head minus with it (negative: the head helps)\n");
  return 0;
}

int print_group(const AblationAnswer& answer, int top) {
  const GroupAblation& g = *answer.group;
  std::printf("%d tokens; heads %s knocked out together (%s ablation), 2 forward passes\n", int(g.ids.size()),
              head_list_text(g.heads).c_str(), ablation_mode_name(g.mode));
  print_ablation_notes(answer);
  std::printf("mean next-token loss: %.4f -> %.4f nats (change %s)\n", g.base_loss, g.base_loss + g.delta_loss,
              format_change(g.delta_loss, 4).c_str());
  if (!g.target.is_mean_loss()) {
    std::printf("%s: %.4f -> %.4f (change %s)\n", measure_name(answer).c_str(), g.base_measure, g.base_measure + g.delta_measure,
                format_change(g.delta_measure, 4).c_str());
  }
  const size_t count = top > 0 ? size_t(top) : size_t(g.delta_logprob.size());
  std::printf("next tokens whose log-prob fell most ([position] token: change): %s\n", fallen_tokens(answer, g.delta_logprob, count).c_str());
  return 0;
}

AblationQuestion ablation_question_of(const AblateOptions& o) {
  AblationQuestion q;
  if (o.knock_out_option->count() > 0) q.group = parse_head_list(o.knock_out);
  q.target = o.target;
  q.target_position = o.target_position;
  q.reference = o.reference;
  return q;
}

// Ctrl+C while heads are knocked out: the handler only raises this flag; the progress callbacks
// read it and stop the work at the next head (or reference line), and run_ablate exits 130.
volatile std::sig_atomic_t g_ablate_interrupted = 0;

void ablate_note_interrupt(int) { g_ablate_interrupted = 1; }

// Installs the handler for SIGINT for its lifetime (the previous one, the temporary-file cleanup,
// comes back afterwards). SA_RESETHAND: a second Ctrl+C ends the process at once.
class AblateInterruptScope {
 public:
  AblateInterruptScope() {
    g_ablate_interrupted = 0;
    struct sigaction sa {};
    sa.sa_handler = ablate_note_interrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    installed_ = ::sigaction(SIGINT, nullptr, &old_) == 0 && old_.sa_handler != SIG_IGN && ::sigaction(SIGINT, &sa, nullptr) == 0;
  }
  ~AblateInterruptScope() {
    if (installed_) ::sigaction(SIGINT, &old_, nullptr);
  }
  AblateInterruptScope(const AblateInterruptScope&) = delete;
  AblateInterruptScope& operator=(const AblateInterruptScope&) = delete;

 private:
  struct sigaction old_ {};
  bool installed_ = false;
};

// Thrown from the reference-means callback on Ctrl+C (that loop has no way to stop but an exception).
struct AblateInterrupted {};

// "ablate: 120/336 heads, 14 s left": on a terminal one line rewritten in place, elsewhere (a log,
// a pipe) a line at most every 2 s and the last one. Time left = elapsed / done * (total - done).
struct AblateProgressLine {
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now(), last{};
  bool terminal = false;
  bool open_line = false;  // a terminal line not yet ended by a newline
  void operator()(const char* what, int done, int total) {
    const Clock::time_point now = Clock::now();
    if (done < total && now - last < (terminal ? std::chrono::milliseconds(200) : std::chrono::milliseconds(2000))) return;
    last = now;
    const double s = std::chrono::duration<double>(now - start).count();
    std::string left;
    if (done < total && done > 0) left = ", " + std::to_string(long(std::lround(s / done * (total - done)))) + " s left";
    else if (done == total) left = ", " + format("%.1f", s) + " s";
    std::fprintf(stderr, "%sablate: %d/%d %s%s%s", terminal ? "\r" : "", done, total, what, left.c_str(),
                 terminal ? "\033[K" : "\n");
    open_line = terminal && done < total;
    if (terminal && done == total) std::fputc('\n', stderr);
    std::fflush(stderr);
  }
  void end_line() {
    if (open_line) std::fputc('\n', stderr);
    open_line = false;
  }
};

void connect_ablate_progress(const AblateOptions& o, bool group, AblationOptions& options,
                             std::shared_ptr<AblateProgressLine> heads_line, std::shared_ptr<AblateProgressLine> reference_line) {
  const bool show = !o.quiet && (o.progress || ::isatty(STDERR_FILENO) == 1);
  heads_line->terminal = reference_line->terminal = show && ::isatty(STDERR_FILENO) == 1;
  // A group is one pass: no head progress, but Ctrl+C still stops the reference means.
  options.progress = [show, group, heads_line](int done, int total) {
    if (show && !group) (*heads_line)("heads", done, total);
    return g_ablate_interrupted == 0;
  };
  options.cancelled = [] { return g_ablate_interrupted != 0; };  // between layers of a pass of many heads
  options.reference_progress = [show, reference_line](int done, int total) {
    if (g_ablate_interrupted != 0) throw AblateInterrupted{};
    if (show && total > 1) (*reference_line)("reference lines", done, total);
  };
}

int report_ablate_interrupt(int done, int total) {
  if (total > 0) std::fprintf(stderr, "error: interrupted (Ctrl+C) after %d of %d heads; nothing written\n", done, total);
  else std::fprintf(stderr, "error: interrupted (Ctrl+C) while reading the reference lines; nothing written\n");
  return 130;
}

int count_measured_heads(const HeadAblation& a) {
  int n = 0;
  for (Eigen::Index i = 0; i < a.delta_measure.size(); ++i) n += std::isfinite(a.delta_measure.data()[i]) ? 1 : 0;
  return n;
}

int run_ablate(const AblateOptions& o) {
  if (o.json_option->count() > 0 && o.json.empty()) throw InputError("--json needs a file name, or '-' for standard output");
  if (o.top < 0) throw InputError("--top (" + std::to_string(o.top) + ") must be 0 (every head) or more");
  if (o.quiet && o.progress) throw InputError("--quiet and --progress contradict each other: give one");
  const AblationQuestion question = ablation_question_of(o);
  AblationOptions options;
  options.mode = o.ablation == "mean" ? AblationMode::mean : AblationMode::zero;
  options.threads = o.threads;
  options.heads_per_pass = o.heads_per_pass;
  if (o.measure_only) {
    if (question.target.empty() && question.target_position < 0)
      throw InputError("--measure-only needs a target (--target TEXT or --target-position P): the mean loss reads every row of logits");
    options.logits = AblationLogits::measure_only;
  }
  auto heads_line = std::make_shared<AblateProgressLine>();
  auto reference_line = std::make_shared<AblateProgressLine>();
  connect_ablate_progress(o, !question.group.empty(), options, heads_line, reference_line);
  const ModelRequest request = model_request(o.model);
  require_input(request);
  AblationAnswer a;
  {
    const AblateInterruptScope interrupt_scope;
    try {
      a = answer_ablation(request, question, options);
    } catch (const AblateInterrupted&) {
      reference_line->end_line();
      return report_ablate_interrupt(0, 0);
    }
  }
  heads_line->end_line();
  // A group is one pass: once it has run, its result is printed even after a Ctrl+C.
  if (g_ablate_interrupted != 0 && a.heads && !a.heads->complete) {
    return report_ablate_interrupt(count_measured_heads(*a.heads), a.heads->n_layers() * a.heads->n_heads());
  }
  if (!o.json.empty()) {
    write_output(o.json, [&](std::ostream& out) { write_ablation_json(out, a); });
    return 0;
  }
  return a.group ? print_group(a, o.top) : print_heads(a, o.top);
}

}  // namespace

Command add_ablate_command(CLI::App& app) {
  auto options = std::make_shared<AblateOptions>();
  CLI::App* sub = app.add_subcommand("ablate", "Knock out each head (or a group of heads together) and rank the heads by how much the "
                                               "next-token loss (or a target's log-prob) changes");
  add_model_flags(*sub, options->model);
  CLI::Option* ablation = add_ablation_flag(*sub, options->ablation, "With --reference FILE: the mean over that text's lines");
  add_alias(*sub, "--mean", ablation, options->ablation, "mean");
  options->knock_out_option = sub->add_option(
      "--knock-out", options->knock_out,
      "Knock out these heads together in one run, LAYER.HEAD separated by commas (1.3,2.5), and report the group's change");
  sub->add_option("--target", options->target,
                  flag_help("target", "Measure its first piece's log-prob as the prediction made at --target-position (default: "
                                      "the last token) instead of the mean loss"));
  sub->add_option("--target-position", options->target_position,
                  "Measure the prediction made at token P (from 0): of --target's first piece, or without --target of the "
                  "token that follows P")
      ->check(whole_number("--target-position", 0, 1 << 20));
  sub->add_option("--reference", options->reference,
                  "With --ablation mean: each head's mean over the positions of this text file's lines (one sentence a line) "
                  "instead of over the sentence");
  sub->add_option("--top", options->top, flag_help("top", "0: every head"))->capture_default_str();
  options->json_option = sub->add_option("--json", options->json, flag_help("json", "Every number"));
  sub->add_flag("--measure-only", options->measure_only,
                "With a target: each knocked-out head's pass computes the target's row of logits alone (1 of T rows; "
                "faster), so the report has no per-token changes and the JSON no delta_loss or delta_logprob");
  sub->add_option("--heads-per-pass", options->heads_per_pass,
                  "Heads knocked out per forward pass, each in its own stacked copy of the sentence: 0 a layer's heads "
                  "together (as many as 128 MiB of activations hold; the fastest), 1 one head per pass (the plain path), "
                  "N at most N; the numbers agree within float rounding")
      ->check(whole_number("--heads-per-pass", 0, 1 << 16))
      ->capture_default_str();
  sub->add_flag("--quiet", options->quiet, flag_help("quiet", "No progress line even on a terminal"));
  sub->add_flag("--progress", options->progress,
                "Progress on standard error (\"ablate: 120/336 heads, 14 s left\") even when it is not a terminal "
                "(on a terminal it is shown without this flag)");
  add_threads_flag(*sub, options->threads);
  return [options] { return run_ablate(*options); };
}

}  // namespace hs::cli
