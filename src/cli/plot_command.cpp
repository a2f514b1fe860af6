// `netdp plot DIR [--out FILE]`: the standard figure of a results directory (docs/plot.md). The drawing is
// the Python package's (python/netdp/plot.py, matplotlib): this command finds an interpreter that has netdp
// and matplotlib, and runs `PYTHON -m netdp.plot DIR --out FILE` with the terminal's stdout and stderr.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "netdp/core/error.hpp"

extern char** environ;

namespace netdp::cli {

namespace {

namespace fs = std::filesystem;

// Names the first module the figure needs that this interpreter cannot import, and exits 3; prints nothing
// and exits 0 when all import. netdp.plot is imported last: it needs the package's compiled module too.
constexpr const char* kProbe =
    "import importlib, sys\n"
    "for name in ('numpy', 'matplotlib', 'netdp.plot'):\n"
    "    try:\n"
    "        importlib.import_module(name)\n"
    "    except Exception as e:\n"
    "        print('cannot import %s (%s)' % (name, str(e).splitlines()[0] if str(e) else "
    "type(e).__name__))\n"
    "        sys.exit(3)\n";

/// The environment of the child: ours, with <dir of this program>/python first on PYTHONPATH when the
/// program runs from a build tree (where CMake assembles the package), so that `build/netdp plot` draws with
/// the package of the same build rather than an older installed one.
std::vector<std::string> child_environment() {
  std::vector<std::string> env;
  std::string path_prefix;
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error && fs::is_regular_file(self.parent_path() / "python" / "netdp" / "plot.py", error))
    path_prefix = (self.parent_path() / "python").string();
  bool replaced = false;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    if (entry.starts_with("PYTHONPATH=") && !path_prefix.empty()) {
      const std::string old = entry.substr(11);
      entry = "PYTHONPATH=" + path_prefix + (old.empty() ? "" : ":" + old);
      replaced = true;
    }
    env.push_back(std::move(entry));
  }
  if (!replaced && !path_prefix.empty()) env.push_back("PYTHONPATH=" + path_prefix);
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (auto& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

struct Outcome {
  int status = -1;  // exit status, 127 when the program could not be started, -1 when killed
  std::string output;
};

/// Runs `argv` (looked up on PATH) with `env`; with `capture`, its stdout is returned and its stderr
/// discarded, otherwise both are ours.
Outcome spawn(std::vector<std::string> argv, std::vector<std::string> env, bool capture) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  int pipe_fds[2] = {-1, -1};
  if (capture) {
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("plot: cannot create a pipe");
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  }
  auto args = pointers(argv);
  auto envp = pointers(env);
  pid_t pid = 0;
  const int failed = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  Outcome outcome;
  if (capture) ::close(pipe_fds[1]);
  if (failed != 0) {
    if (capture) ::close(pipe_fds[0]);
    outcome.status = 127;
    outcome.output = "not found (" + std::string(std::strerror(failed)) + ")";
    return outcome;
  }
  if (capture) {
    char buffer[512];
    for (ssize_t got; (got = ::read(pipe_fds[0], buffer, sizeof buffer)) != 0;)
      if (got > 0)
        outcome.output.append(buffer, static_cast<std::size_t>(got));
      else if (errno != EINTR)
        break;
    ::close(pipe_fds[0]);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  outcome.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  while (!outcome.output.empty() && (outcome.output.back() == '\n' || outcome.output.back() == '\r'))
    outcome.output.pop_back();
  return outcome;
}

/// $NETDP_PYTHON when set (only it), else python3 on PATH, then Debian's /usr/bin/python3 (where
/// scripts/setup.sh's packages live when another python3 comes first on PATH, docs/python.md).
std::vector<std::string> interpreters() {
  if (const char* chosen = std::getenv("NETDP_PYTHON"); chosen != nullptr && *chosen != '\0') return {chosen};
  return {"python3", "/usr/bin/python3"};
}

}  // namespace

Command add_plot_command(CLI::App& app) {
  auto* c = app.add_subcommand(
      "plot",
      "draw the standard figure of a results directory (any model command, demo or a study) with the Python "
      "package and matplotlib (docs/plot.md)");
  auto dir = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  c->add_option("directory", *dir, "results directory (--out of a model command, netdp demo or netdp run)")
      ->required();
  c->add_option("--out", *out, "figure file: .png, .svg or .pdf by its extension (default DIR/figure.png)");
  c->footer(
      "The interpreter: $NETDP_PYTHON when set, else python3 on PATH, else /usr/bin/python3; the first that "
      "imports numpy, matplotlib and netdp draws.\n"
      "Example: netdp plot out/ring --out ring.svg");
  return {
      c, [dir, out] {
        const fs::path directory = *dir;
        if (!fs::is_directory(directory))
          throw InvalidInput("plot: '" + excerpt(*dir) + "' is not a directory");
        if (!fs::is_regular_file(directory / "manifest.json") &&
            !fs::is_regular_file(directory / "results.csv"))
          throw InvalidInput("plot: '" + excerpt(*dir) +
                             "' is not a netdp results directory (no manifest.json: not written by netdp, "
                             "or a run that failed or is still running)");
        const std::string figure = out->empty() ? (directory / "figure.png").string() : *out;
        const std::string extension = fs::path(figure).extension().string();
        if (extension != ".png" && extension != ".svg" && extension != ".pdf")
          throw InvalidInput("plot: --out '" + excerpt(figure) + "' must end in .png, .svg or .pdf");
        const auto env = child_environment();
        std::string tried;
        for (const auto& python : interpreters()) {
          const Outcome probe = spawn({python, "-c", kProbe}, env, true);
          if (probe.status == 0) {
            const Outcome run = spawn({python, "-m", "netdp.plot", *dir, "--out", figure}, env, false);
            return run.status == 0 ? 0 : run.status == 2 ? 2 : 1;
          }
          tried +=
              (tried.empty() ? "" : "; ") + python + ": " +
              (probe.output.empty() ? "exit " + std::to_string(probe.status) : excerpt(probe.output, 160));
        }
        throw InvalidInput("plot: no Python with numpy, matplotlib and netdp (" + tried +
                           "); install them or set NETDP_PYTHON to an interpreter that has them "
                           "(docs/plot.md)");
      }};
}

}  // namespace netdp::cli
