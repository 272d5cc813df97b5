#include "reports/issue_report.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "core/text.hpp"

namespace mcpping {

namespace {

// Expected and Actual may quote whole client frames; an issue quotes their start.
constexpr std::size_t kIssueTextCap = 2048;
constexpr std::size_t kIssueLineCap = 400;
constexpr std::size_t kTitleCap = 90;

std::size_t longest_backtick_run(std::string_view text) {
  std::size_t longest = 0, run = 0;
  for (const char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

// Text as one Markdown code span: line breaks as spaces, delimited by more backticks than
// it holds, so nothing in it is markup.
std::string code_span(std::string text) {
  if (text.empty()) return "(nothing)";
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  const std::string ticks(longest_backtick_run(text) + 1, '`');
  return ticks + " " + text + " " + ticks;
}

// The first line of `text`, at most `cap` bytes, never cut inside a UTF-8 sequence.
std::string title_part(const std::string& text, std::size_t cap) {
  const std::string line = text.substr(0, text.find_first_of("\r\n"));
  return line.size() <= cap ? line : utf8_prefix(line, cap) + "\u2026";
}

// A word for a POSIX shell, quoted only when it needs to be.
std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_./=:@%+,-").find(c) != std::string_view::npos;
  });
  return plain ? word : shell_quote(word);
}

// A case id as a --scenario pattern that matches exactly that id (fnmatch: * ? [ \ escaped).
std::string exact_pattern(const std::string& id) {
  std::string out;
  for (const char c : id) {
    if (std::string_view("*?[\\").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// "basic/utilities/ping#behavior-requirements" of a specification URL; for another URL what
// follows its host.
std::string spec_section(const std::string& url) {
  const std::string marker = "/specification/";
  if (const auto at = url.find(marker); at != std::string::npos) {
    const auto revision_end = url.find('/', at + marker.size());
    if (revision_end != std::string::npos) return url.substr(revision_end + 1);
  }
  const auto scheme = url.find("://");
  const auto path = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  return path == std::string::npos ? url : url.substr(path + 1);
}

// The checks the issue is about: those of the case's subject and fate that fail, else every
// notable one.
std::vector<const CheckResult*> failing_checks(const CaseResult& result) {
  const auto notable = notable_checks(result);
  std::vector<const CheckResult*> failing;
  for (const CheckResult* check : notable) {
    if (check->kind != CheckKind::Collateral &&
        (check->verdict == Verdict::Fail || check->verdict == Verdict::NonStrict)) {
      failing.push_back(check);
    }
  }
  return failing.empty() ? notable : failing;
}

void write_check(std::ostringstream& out, const CheckResult& check) {
  out << "### `" << check.id << "` [" << to_string(check.level) << "]: " << to_string(check.verdict)
      << "\n\n";
  for (const auto& ref : check.spec) {
    out << "Specification (revision " << ref.revision << ", section `" << spec_section(ref.url)
        << "`):\n\n> " << ref.text << "\n\n";
    if (!ref.url.empty()) out << ref.url << "\n\n";
  }
  out << "**Expected:** " << code_span(shorten(check.expected, kIssueTextCap)) << "\n\n**Actual:** "
      << code_span(shorten(check.actual, kIssueTextCap)) << "\n\n";
}

void write_transcript(std::ostringstream& out, const CaseResult& result) {
  out << "### Transcript excerpt\n\n";
  if (result.transcript_excerpt.empty()) {
    out << "(none recorded: see `transcript.txt` in the case's evidence folder)\n\n";
    return;
  }
  std::string text;
  for (const auto& line : result.transcript_excerpt) text += shorten(line, kIssueLineCap) + "\n";
  const std::string fence = markdown_fence(text);
  out << fence << "text\n" << text << fence << "\n\n";
}

}  // namespace

bool wants_issue_report(const CaseResult& result) {
  return result.verdict == Verdict::Fail || result.verdict == Verdict::NonStrict;
}

std::string markdown_fence(std::string_view text) {
  return std::string(std::max<std::size_t>(3, longest_backtick_run(text) + 1), '`');
}

std::string reproduce_command(const CaseResult& result, const RunInfo& info) {
  const bool serve = info.driver_argv.empty();
  std::vector<std::string> words = {
      "mcp-ping-conformance", serve ? "serve" : "run",
      "--scenario",           shell_word(serve ? result.case_id : exact_pattern(result.case_id)),
      "--transport",          shell_word(result.transport)};
  if (!info.revision.empty()) words.insert(words.end(), {"--revision", shell_word(info.revision)});
  if (info.timeout_multiplier != 1.0) {
    std::ostringstream multiplier;
    multiplier << info.timeout_multiplier;
    words.insert(words.end(), {"--timeout-multiplier", multiplier.str()});
  }
  if (serve) return join(words, " ");
  if (info.strict) words.push_back("--strict");
  if (!info.schemas.empty()) words.insert(words.end(), {"--schemas", shell_word(info.schemas)});
  words.push_back("--");
  for (const auto& word : info.driver_argv) words.push_back(shell_word(word));
  return join(words, " ");
}

IssueReport issue_report(const CaseResult& result, const RunInfo& info) {
  const auto checks = failing_checks(result);
  IssueReport report;
  report.title = result.title + " (" + result.transport + ")";
  if (!checks.empty()) {
    report.title += ": [" + std::string(to_string(checks.front()->level)) + "] " +
                    title_part(checks.front()->actual, kTitleCap);
  }
  std::ostringstream out;
  out << "The client fails the MCP conformance case `" << result.case_id << "` (" << result.title
      << ") over " << result.transport << ": " << to_string(result.verdict)
      << ", found by mcp-ping-conformance " << info.suite_version << " at protocol revision "
      << info.revision << " (" << (info.strict ? "strict" : "lenient") << ").\n\n";
  if (!result.description.empty()) out << result.description << "\n\n";
  for (const CheckResult* check : checks) write_check(out, *check);
  write_transcript(out, result);
  const std::string command = reproduce_command(result, info);
  const std::string fence = markdown_fence(command);
  out << "### Reproduce\n\nWith mcp-ping-conformance " << info.suite_version << ":\n\n"
      << fence << "sh\n"
      << command << "\n"
      << fence << "\n";
  report.body = out.str();
  return report;
}

}  // namespace mcpping
