// headscope: the desktop app. Same input and model flags as `headscope-cli maps`
// (docs/cli-contract.md); --screenshot FILE.png --frames N renders N frames, writes the
// window's pixels (and FILE.png.json: where each heatmap was drawn) and exits.
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>
#include <new>

#include "app/common/environment.h"
#include "app/common/memory_tuning.h"
#include "app/common/model_flags.h"
#include "app/gui/platform/app.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/panels/lesson_check.h"
#include "app/gui/platform/options.h"
#include "core/formats/mapped_guard.h"
#include "core/util/atomic_file.h"
#include "core/session/lesson_file.h"
#include "core/util/errors.h"

namespace {

// `headscope --check-lesson FILE`: each problem on a line of its own, then how many; no window.
int check_lesson_file(const std::string& name) {
  const auto lesson = hs::gui::find_lesson(name);
  const hs::gui::LessonCheck check = hs::gui::check_lesson(lesson, hs::gui::lesson_check_screens());
  for (const hs::gui::LessonProblem& p : check.problems) std::cout << hs::gui::format_lesson_problem(*lesson, p) << "\n";
  std::cout << name << ": " << check.problems.size() << (check.problems.size() == 1 ? " problem" : " problems") << " in "
            << lesson->steps.size() << " steps (" << check.frames << " frames: 1280x720, 1366x768, 1920x1080, dark and light)\n";
  return check.problems.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  hs::keep_freed_memory_for_reuse();  // every recompute makes fresh T x T maps
  hs::apply_environment();  // core's limits from HEADSCOPE_* (app/common/environment.h)
  CLI::App cli{"headscope: what each attention head of a transformer does"};
  cli.set_version_flag("--version", std::string("headscope ") + HEADSCOPE_VERSION);
  hs::install_temp_file_cleanup();  // a file being written is removed, not left half-written, on SIGTERM
  hs::install_mapped_file_guard();  // a model file truncated while mapped: the run is discarded, the app stays
  hs::gui::Options options;
  hs::gui::add_app_flags(cli, options);
  try {
    hs::parse_arguments(cli, argc, argv);  // --sentence= is an empty sentence, not the next argument
    hs::gui::note_model_flags(cli, options);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return cli.exit(e);
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  try {
    if (!options.check_lesson.empty()) return check_lesson_file(options.check_lesson);
    if (options.notes) {  // the presenter's printout: no window
      if (options.lesson.empty()) throw hs::InputError("--notes prints a lesson's presenter notes: give --lesson NAME or FILE");
      std::cout << hs::lesson_handout(*hs::gui::find_lesson(options.lesson));
      return 0;
    }
    hs::gui::App app(options, hs::gui::initial_state(options));
    return app.run();
  } catch (const hs::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    // Readers bound what they read (core/util/file_read.h); this is what is left: a session or
    // lesson asking for more than the machine has.
    std::cerr << "error: out of memory while starting: the session, lesson or model given is too large for the memory "
                 "available\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
