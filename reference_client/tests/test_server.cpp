// A scriptable stand-in for a stdio MCP server, used by the transport tests. Each argument is
// an action run in order, e.g. `--read-line --line '{"id":1}' --close-stdin --forever`.
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

void write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n <= 0) std::_Exit(70);
    done += static_cast<std::size_t>(n);
  }
}

// Unbuffered, so nothing read ahead is lost between actions. Returns false at EOF.
bool read_line(std::string& line) {
  line.clear();
  char c = 0;
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, &c, 1);
    if (n <= 0) return false;
    if (c == '\n') return true;
    line.push_back(c);
  }
}

long number(const char* text) { return std::strtol(text, nullptr, 10); }

}  // namespace

int main(int argc, char** argv) {
  std::string line;
  for (int i = 1; i < argc; ++i) {
    const std::string action = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : "";
    if (action == "--line") {  // write a line to stdout
      write_all(STDOUT_FILENO, std::string(value) + "\n");
      ++i;
    } else if (action == "--chopped") {  // the same, one byte per write
      for (const char c : std::string(value) + "\n") write_all(STDOUT_FILENO, std::string(1, c));
      ++i;
    } else if (action == "--long-line") {  // N bytes without a newline, then the newline
      write_all(STDOUT_FILENO, std::string(static_cast<std::size_t>(number(value)), 'a') + "\n");
      ++i;
    } else if (action == "--stderr-bytes") {  // N bytes to stderr, in lines of 100 bytes
      long left = number(value);
      const std::string chunk = std::string(99, 'e') + "\n";
      while (left >= 100) {
        write_all(STDERR_FILENO, chunk);
        left -= 100;
      }
      ++i;
    } else if (action == "--read-line") {  // wait for one line on stdin
      if (!read_line(line)) return 3;
    } else if (action == "--echo-until-eof") {
      while (read_line(line)) write_all(STDOUT_FILENO, line + "\n");
    } else if (action == "--wait-eof") {
      while (read_line(line)) {
      }
    } else if (action == "--close-stdin") {
      ::close(STDIN_FILENO);
    } else if (action == "--ignore-term") {
      ::signal(SIGTERM, SIG_IGN);
    } else if (action == "--forever") {
      for (;;) ::pause();
    } else if (action == "--exit") {
      return static_cast<int>(number(value));
    } else {
      write_all(STDERR_FILENO, "test_server: unknown action " + action + "\n");
      return 64;
    }
  }
  return 0;
}
