// SPDX-License-Identifier: MIT
// workbook watch: re-builds and re-checks the current exercise whenever its file is saved.
// inotify watches the file's directory (editors often save by writing a new file and renaming
// it); where inotify is unavailable (some network and WSL-mounted file systems) it polls the
// modification time once a second. Keys: r re-run, h hint, q quit.
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "tools/workbook/commands.h"
#include "tools/workbook/text.h"

namespace wbcli {
namespace {

// Single key presses without Enter while watching; restored on exit.
class RawTerminal {
 public:
  RawTerminal() {
    if (::isatty(STDIN_FILENO) && ::tcgetattr(STDIN_FILENO, &saved_) == 0) {
      termios raw = saved_;
      raw.c_lflag &= static_cast<tcflag_t>(~(ICANON | ECHO));
      raw.c_cc[VMIN] = 1;
      raw.c_cc[VTIME] = 0;
      active_ = ::tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
    }
  }
  ~RawTerminal() {
    if (active_) ::tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
  }
  RawTerminal(const RawTerminal&) = delete;
  RawTerminal& operator=(const RawTerminal&) = delete;

 private:
  termios saved_{};
  bool active_ = false;
};

struct FileWatch {
  int inotify_fd = -1;
  int watch_descriptor = -1;
  std::string path, name;
  timespec last_mtime{};

  bool polling() const { return watch_descriptor < 0; }
};

timespec modification_time(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return timespec{};
  return info.st_mtim;
}

void watch_file(FileWatch* watch, const std::string& path) {
  if (watch->watch_descriptor >= 0) ::inotify_rm_watch(watch->inotify_fd, watch->watch_descriptor);
  watch->watch_descriptor = -1;
  watch->path = path;
  watch->name = base_name(path);
  watch->last_mtime = modification_time(path);
  if (watch->inotify_fd >= 0)
    watch->watch_descriptor = ::inotify_add_watch(watch->inotify_fd, parent_directory(path).c_str(),
                                                  IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE);
}

// Did an event name our file? Reads every queued event.
bool drain_events(int fd, const std::string& name) {
  alignas(inotify_event) char buffer[8192];
  bool ours = false;
  while (true) {
    const ssize_t length = ::read(fd, buffer, sizeof buffer);
    if (length <= 0) break;
    for (char* p = buffer; p < buffer + length;) {
      const inotify_event* event = reinterpret_cast<const inotify_event*>(p);
      if (event->len > 0 && name == event->name) ours = true;
      p += sizeof(inotify_event) + event->len;
    }
  }
  return ours;
}

enum class WakeReason { FileSaved, Rerun, Hint, Quit };

WakeReason wait_for_change(FileWatch* watch, bool* stdin_open) {
  while (true) {
    pollfd fds[2];
    nfds_t count = 0;
    if (*stdin_open) fds[count++] = pollfd{STDIN_FILENO, POLLIN, 0};
    const int inotify_slot = watch->polling() ? -1 : static_cast<int>(count);
    if (!watch->polling()) fds[count++] = pollfd{watch->inotify_fd, POLLIN, 0};
    const int ready = ::poll(fds, count, watch->polling() ? 1000 : -1);
    if (ready < 0) continue;
    if (*stdin_open && (fds[0].revents & (POLLIN | POLLHUP))) {
      char key = 0;
      if (::read(STDIN_FILENO, &key, 1) <= 0) {
        *stdin_open = false;  // input closed (not a terminal): keep watching the file only
      } else {
        if (key == 'q' || key == 'Q') return WakeReason::Quit;
        if (key == 'r' || key == 'R' || key == '\n') return WakeReason::Rerun;
        if (key == 'h' || key == 'H') return WakeReason::Hint;
      }
    }
    if (inotify_slot >= 0 && (fds[inotify_slot].revents & POLLIN)) {
      if (drain_events(watch->inotify_fd, watch->name)) {
        // Editors write in bursts: let the save settle, then drop the rest of the burst.
        ::usleep(150 * 1000);
        drain_events(watch->inotify_fd, watch->name);
        return WakeReason::FileSaved;
      }
    }
    if (watch->polling()) {
      const timespec now = modification_time(watch->path);
      if (now.tv_sec != watch->last_mtime.tv_sec || now.tv_nsec != watch->last_mtime.tv_nsec) {
        watch->last_mtime = now;
        return WakeReason::FileSaved;
      }
    }
  }
}

}  // namespace

int command_watch(Context& ctx, const Exercise* fixed) {
  const Exercise* current = fixed != nullptr ? fixed : next_exercise_here(ctx);
  if (current == nullptr) {
    std::printf("Every exercise is done: nothing to watch.\n");
    return kExitOk;
  }
  FileWatch watch;
  // WORKBOOK_WATCH_POLL=1 forces the polling fallback (to test it, or where inotify misbehaves).
  const char* force_polling = std::getenv("WORKBOOK_WATCH_POLL");
  watch.inotify_fd = force_polling && *force_polling == '1' ? -1 : ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  watch_file(&watch, ctx.source_path(current->stub));
  RawTerminal raw_terminal;
  bool stdin_open = true;
  bool show_hint = false;
  while (true) {
    std::printf("\033[2J\033[H");  // clear the screen between runs
    std::printf("%s\n\n", ctx.dim("workbook watch: " + current->id + " " + current->name + " (" + current->stub +
                                  "): save the file to re-check; r re-run, h hint, q quit" +
                                  (watch.polling() ? " [polling: inotify is unavailable here]" : ""))
                              .c_str());
    if (show_hint) {
      command_hint(ctx, *current);
      show_hint = false;
    } else {
      warn_if_answer_held(ctx, *current);
      const CheckOutcome outcome = check_exercise(ctx, *current, CheckOptions{false, true, true});
      // Without a GPU nothing is graded, but each save still shows whether the file compiles.
      if (outcome == CheckOutcome::NoGpu || outcome == CheckOutcome::Unsupported)
        std::printf("\nStill watching: each save re-builds it.\n");
      if (outcome == CheckOutcome::Passed && fixed == nullptr) {
        const Exercise* next = next_exercise_here(ctx);
        if (next == nullptr) return kExitOk;
        if (next != current) {
          current = next;
          watch_file(&watch, ctx.source_path(current->stub));
          std::printf("\nNow watching %s. Press r to check it now.\n", current->stub.c_str());
        }
      }
    }
    std::fflush(stdout);
    const WakeReason reason = wait_for_change(&watch, &stdin_open);
    if (reason == WakeReason::Quit) break;
    show_hint = reason == WakeReason::Hint;
  }
  if (watch.inotify_fd >= 0) ::close(watch.inotify_fd);
  return kExitOk;
}

}  // namespace wbcli
