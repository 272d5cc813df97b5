// cdash-receiver STORE_DIR
//
// A stand-in for a CDash server on 127.0.0.1, for testing dashboard submissions without one.
// Prints its submit URL (http://127.0.0.1:<port>/submit.php) as the first line of stdout
// once it accepts connections, then answers every request as CDash answers an accepted
// submission. CTest 3.25 uploads each part (Configure.xml, Build.xml, Test.xml, Done.xml)
// with an HTTP PUT to submit.php?...&FileName=<name>&MD5=<md5>: the body of each PUT is
// stored as STORE_DIR/<FileName>, and every request is logged to STORE_DIR/requests.log as
// "<method> <target> <body bytes>".
//
// Runs until SIGTERM or SIGINT, or until the process that started it exits, so that a test
// that is killed cannot leave it behind. Exit status: 0 after a signal, 2 for a bad command
// line or a failed start.
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include <httplib.h>

namespace {

namespace fs = std::filesystem;

constexpr int kBadStart = 2;

// CDash's reply to an accepted file. CTest fails the submission when the reply contains
// "ERROR", and counts a warning when it contains "WARNING".
constexpr const char* kAccepted =
    "<cdash version=\"mcp-ping-conformance cdash-receiver\">"
    "<status>OK</status><message></message></cdash>\n";

// The stored name of a submitted file: its FileName parameter when that is a plain file
// name, otherwise request-<n> (a receiver must not write outside its folder).
std::string stored_name(const httplib::Request& request, std::size_t number) {
  const std::string name = request.get_param_value("FileName");
  const bool plain = !name.empty() && name.find('/') == std::string::npos &&
                     name.find('\\') == std::string::npos && name.front() != '.';
  return plain ? name : "request-" + std::to_string(number);
}

class Store {
 public:
  explicit Store(fs::path dir) : dir_(std::move(dir)), log_(dir_ / "requests.log") {}

  bool ok() const { return static_cast<bool>(log_); }

  void record(const httplib::Request& request) {
    std::lock_guard lock(mutex_);
    ++count_;
    if (request.method == "PUT") {
      // Written aside and renamed, so a reader never sees a partial file.
      const fs::path file = dir_ / stored_name(request, count_);
      const fs::path partial = file.string() + ".part";
      {
        std::ofstream out(partial, std::ios::binary);
        out.write(request.body.data(), static_cast<std::streamsize>(request.body.size()));
        // Thrown to httplib, which answers 500: CTest then reports the submission failed.
        if (!out) throw std::runtime_error("cannot write " + partial.string());
      }
      fs::rename(partial, file);
    }
    log_ << request.method << ' ' << request.target << ' ' << request.body.size() << std::endl;
  }

 private:
  fs::path dir_;
  std::mutex mutex_;
  std::ofstream log_;
  std::size_t count_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: cdash-receiver STORE_DIR\n";
    return kBadStart;
  }
  // Blocked before any thread starts, so every thread inherits the mask and only sigwait()
  // below sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) return 0;  // the parent exited before prctl() took effect

  std::error_code error;
  fs::create_directories(argv[1], error);
  Store store(argv[1]);
  if (error || !store.ok()) {
    std::cerr << "cdash-receiver: cannot write into " << argv[1] << "\n";
    return kBadStart;
  }

  httplib::Server server;
  const auto accept = [&store](const httplib::Request& request, httplib::Response& response) {
    store.record(request);
    response.set_content(kAccepted, "text/xml");
  };
  server.Put(".*", accept);
  server.Post(".*", accept);
  server.Get(".*", accept);

  const int port = server.bind_to_any_port("127.0.0.1");
  if (port <= 0) {
    std::cerr << "cdash-receiver: cannot bind 127.0.0.1\n";
    return kBadStart;
  }
  std::thread listener([&server] { server.listen_after_bind(); });
  // stop() is a no-op until the accept loop runs; a bounded wait for it.
  for (int i = 0; i < 5000 && !server.is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (!server.is_running()) {
    std::cerr << "cdash-receiver: the server did not start\n";
    std::_Exit(kBadStart);
  }
  std::cout << "http://127.0.0.1:" << port << "/submit.php" << std::endl;

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  server.stop();
  listener.join();
  return 0;
}
