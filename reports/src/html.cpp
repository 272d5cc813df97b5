#include "reports/html.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "core/files.hpp"
#include "core/text.hpp"
#include "reports/evidence.hpp"
#include "reports/issue_report.hpp"
#include "reports/json_report.hpp"
#include "reports/junit.hpp"
#include "reports/markdown.hpp"
#include "reports/number_text.hpp"

namespace mcpping {

namespace fs = std::filesystem;

// Transcripts of misbehaving clients can be huge; a page shows at most this much.
constexpr std::size_t kTranscriptCap = 2 * 1024 * 1024;
// Expected and Actual may quote whole client frames.
constexpr std::size_t kCheckTextCap = 16 * 1024;

constexpr std::string_view kStyle = R"css(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1f2328}
h1{font-size:22px;margin:0 0 4px}h1 code{font-size:inherit}h2{font-size:17px;margin:28px 0 8px}
code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px}
a{color:#0550ae}
table{border-collapse:collapse;margin:4px 0}
th,td{border:1px solid #d0d7de;padding:3px 7px;text-align:left;vertical-align:top}
thead th{background:#f6f8fa;white-space:nowrap}
.sub,.note{color:#59636e}.note{font-size:12.5px}
.matrix th[scope=row] .title{display:block;color:#59636e;font-weight:normal;font-size:12px}
.matrix td{padding:0;text-align:center;vertical-align:middle;font-size:12px;white-space:nowrap;
min-width:92px}
.nowrap{white-space:nowrap}
.matrix td a{display:block;padding:5px 7px;color:inherit;text-decoration:none}
.matrix td a:hover{text-decoration:underline}
.matrix .group,.bursts .group{border-left:3px solid #59636e}
.bursts td.num{text-align:right}
.badge,.legend span{display:inline-block;padding:1px 9px;border-radius:9px;font-size:12.5px}
.legend span{margin:0 4px 4px 0;border:1px solid #d0d7de}
.v-pass{background:#d1f5d9}.v-non-strict{background:#fff0b3}
.v-fail{background:#ffcdc7;font-weight:600}.v-info{background:#d6e6ff}
.v-unsupported{background:#eef0f2;color:#59636e}.v-error{background:#6f3fa0;color:#fff}
.v-xfail{background:repeating-linear-gradient(135deg,#ffe1dc 0 6px,#fff6f4 6px 12px)}
.v-stale{background:#a40e26;color:#fff;font-weight:600}.v-none{color:#8c959f}
.checks td.id{white-space:nowrap}
.checks td.text{white-space:pre-wrap;word-break:break-word;min-width:180px;max-width:360px;
font-size:12.5px}
.checks td.spec{min-width:340px}
pre.transcript{background:#f6f8fa;border:1px solid #d0d7de;padding:8px;white-space:pre-wrap;word-break:break-all}
figure{margin:12px 0 20px}figcaption{margin-bottom:4px}
.side th[scope=row] code{white-space:nowrap}.side td.transport{padding:3px 7px;text-align:left;color:#59636e}
.side th.client{white-space:normal;min-width:110px;vertical-align:bottom}
.side th.client .title{display:block;color:#59636e;font-weight:normal;font-size:12px}
.side td a{display:inline-block;padding:5px 2px}.side td a.tx{font-size:11px;color:#0550ae}
.side tfoot td.total{white-space:normal;font-size:12px;text-align:left;padding:3px 7px}
details.issue{margin:12px 0;border:1px solid #d0d7de;padding:6px 10px;max-width:1100px}
details.issue summary{cursor:pointer;font-weight:600}
details.issue pre{background:#f6f8fa;border:1px solid #d0d7de;padding:8px;white-space:pre-wrap;
word-break:break-word;user-select:all}
)css";

std::string html_escape(std::string_view text) { return xml_escape(std::string(text)); }

std::string html_page_start(const std::string& title) {
  // The policy is a second line of defence: even a markup bug cannot run a script.
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "style-src 'unsafe-inline'\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         html_escape(title) + "</title>\n<style>" + std::string(kStyle) +
         "</style>\n</head>\n<body>\n";
}

std::string_view html_page_end() { return "</body>\n</html>\n"; }

std::string_view html_legend() {
  return "<p class=\"legend\"><span class=\"v-pass\">PASS</span><span class=\"v-non-strict\">"
         "NON_STRICT</span><span class=\"v-fail\">FAIL</span><span class=\"v-info\">"
         "INFORMATIONAL</span><span class=\"v-unsupported\">UNSUPPORTED</span>"
         "<span class=\"v-error\">ERROR</span><span class=\"v-xfail\">expected failure "
         "(baseline)</span><span class=\"v-stale\">STALE baseline entry</span></p>\n";
}

namespace {

using number_text::latency_text;
using number_text::ms;
using number_text::per_second;

// `text` with [A-Za-z0-9-] and the bytes of `also` kept, every other byte as `escape` and two
// hex digits.
std::string escape_bytes(std::string_view text, char escape, std::string_view also) {
  std::string out;
  for (const char c : text) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        also.find(c) != std::string_view::npos) {
      out += c;
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%c%02x", escape, static_cast<unsigned char>(c));
      out += hex;
    }
  }
  return out;
}

// One segment of a page path: [A-Za-z0-9-] kept, every other byte _xx. An empty segment is
// "_", which escaping never yields.
std::string path_part(std::string_view text) {
  return text.empty() ? "_" : escape_bytes(text, '_', "");
}

std::string verdict_class(Verdict verdict) {
  // In the order of the enumerators.
  constexpr std::string_view kClasses[] = {"v-pass",       "v-info", "v-unsupported",
                                           "v-non-strict", "v-fail", "v-error"};
  return std::string(kClasses[static_cast<std::size_t>(verdict)]);
}

struct Cell {
  std::string css;
  std::string text;
};

// What a baseline says comes before the verdict, as in JUnit; ERROR is never expected.
Cell cell_of(const CaseResult& result) {
  const std::string verdict(to_string(result.verdict));
  if (result.verdict != Verdict::Error) {
    if (result.expectation == Expectation::kExpectedFailure) {
      return {"v-xfail", "expected " + verdict};
    }
    if (result.expectation == Expectation::kStale) return {"v-stale", "STALE"};
  }
  const bool flaky = result.expectation == Expectation::kFlaky && result.verdict != Verdict::Pass;
  return {verdict_class(result.verdict), flaky ? verdict + " (flaky)" : verdict};
}

std::string spec_html(const std::vector<SpecReference>& refs) {
  std::string out;
  for (const auto& ref : refs) {
    if (!out.empty()) out += "<br>";
    const std::string sentence = "\u201c" + html_escape(ref.text) + "\u201d";
    // Only web links: a results.json from elsewhere could carry a javascript: URL.
    const bool web = ref.url.rfind("https://", 0) == 0 || ref.url.rfind("http://", 0) == 0;
    out += web ? "<a href=\"" + html_escape(ref.url) + "\">" + sentence + "</a>" : sentence;
    out += " <span class=\"note\">" + html_escape(ref.key) + ", " + html_escape(ref.revision) +
           "</span>";
  }
  return out.empty() ? "&ndash;" : out;
}

std::string checks_table(const CaseResult& result) {
  if (result.checks.empty()) return "<p class=\"note\">No checks were decided.</p>\n";
  std::ostringstream out;
  out << "<table class=\"checks\">\n<thead><tr><th>check</th><th>level</th><th>verdict</th>"
         "<th>spec</th><th>Expected</th><th>Actual</th><th>at (ms)</th></tr></thead>\n<tbody>\n";
  for (const auto& check : result.checks) {
    const bool note = check.kind == CheckKind::Collateral;
    out << "<tr><td class=\"id\"><code>" << html_escape(check.id) << "</code>"
        << (note ? "<br><span class=\"note\">finding of the run: not this case's verdict</span>"
                 : "")
        << "</td><td>" << to_string(check.level) << "</td><td class=\""
        << verdict_class(check.verdict) << "\">" << to_string(check.verdict)
        << "</td><td class=\"spec\">" << spec_html(check.spec) << "</td><td class=\"text\">"
        << html_escape(shorten(check.expected, kCheckTextCap)) << "</td><td class=\"text\">"
        << html_escape(shorten(check.actual, kCheckTextCap)) << "</td><td>"
        << (check.at_ms ? ms(*check.at_ms) : "&ndash;") << "</td></tr>\n";
  }
  for (const auto& check : result.not_judged) {
    out << "<tr><td class=\"id\"><code>" << html_escape(check.id) << "</code></td><td>"
        << to_string(check.level) << "</td><td class=\"note\">not judged</td><td></td>"
        << "<td class=\"text\">" << html_escape(shorten(check.expected, kCheckTextCap))
        << "</td><td class=\"text\">" << html_escape(shorten(check.why, kCheckTextCap))
        << "</td><td>&ndash;</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
  return out.str();
}

std::string timings_table(const CaseResult& result) {
  std::ostringstream out;
  out << "<table>\n<tr><th>case duration</th><td>" << ms(result.duration_ms) << " ms</td></tr>\n";
  if (const auto figures = single_pong_figures(result); figures.count > 0) {
    out << "<tr><th>single pongs</th><td>" << figures.count
        << "</td></tr>\n<tr><th>single-pong latency</th><td>" << latency_text(figures)
        << "</td></tr>\n";
  }
  for (const auto& check : result.checks) {
    if (!is_burst(check)) continue;
    std::vector<std::string> parts;
    if (check.burst) parts.push_back(number_text::burst_text(*check.burst));
    if (!check.latency_ms.empty()) {
      parts.push_back("each pong " + latency_text(summarize_latencies(check.latency_ms)));
    }
    out << "<tr><th>burst <code>" << html_escape(check.short_id) << "</code></th><td>"
        << join(parts, "; ") << "</td></tr>\n";
  }
  out << "</table>\n";
  return out.str();
}

std::string transcript_section(const fs::path& evidence_dir) {
  std::string out = "<h2>Transcript</h2>\n";
  if (evidence_dir.empty()) return out + "<p class=\"note\">None: the case did not run.</p>\n";
  const fs::path file = evidence_dir / "transcript.txt";
  auto head = try_read_file_head(file, kTranscriptCap + 1);
  if (!head) {
    return out + "<p class=\"note\">No transcript at <code>" + html_escape(file.string()) +
           "</code>.</p>\n";
  }
  std::string text = std::move(*head);
  const bool cut = text.size() > kTranscriptCap;
  if (cut) {
    text.resize(kTranscriptCap);
    if (const auto newline = text.rfind('\n'); newline != std::string::npos) {
      text.resize(newline + 1);
    }
  }
  out += "<p class=\"note\">" + std::string(cut ? "The first 2 MiB of " : "") + "<code>" +
         html_escape(file.string()) + "</code>" + (cut ? "; the rest is only in the file." : "") +
         "</p>\n<pre class=\"transcript\">" + html_escape(text) + "</pre>\n";
  return out;
}

// A failing case's upstream issue, folded: its title and body each in a <pre> that one click
// selects whole (no script: the policy forbids one).
std::string issue_section(const CaseResult& result, const RunInfo& info) {
  if (!wants_issue_report(result)) return "";
  const IssueReport issue = issue_report(result, info);
  return "<details class=\"issue\" id=\"issue\"><summary>Report it upstream: the issue text"
         "</summary>\n<p class=\"note\">Title (one click selects it):</p>\n<pre>" +
         html_escape(issue.title) + "</pre>\n<p class=\"note\">Body (Markdown):</p>\n<pre>" +
         html_escape(issue.body) + "</pre>\n</details>\n";
}

std::string render_case_page(const std::string& label, const CaseResult& result,
                             const RunInfo& info, const std::string& index_href) {
  const Cell cell = cell_of(result);
  std::ostringstream out;
  out << html_page_start(result.case_id + " (" + result.transport + ", " + label + ")")
      << "<nav><a href=\"" << index_href << "\">&larr; all cases</a></nav>\n"
      << "<h1><code>" << html_escape(result.case_id) << "</code></h1>\n<p class=\"sub\">"
      << html_escape(result.title) << " &middot; " << html_escape(result.transport) << " &middot; "
      << html_escape(label) << "</p>\n<p><span class=\"badge " << cell.css << "\">"
      << html_escape(cell.text) << "</span> " << html_escape(result.reason) << "</p>\n";
  if (result.expectation != Expectation::kNone) {
    out << "<p>Baseline: " << to_string(result.expectation) << " &mdash; "
        << html_escape(result.expectation_reason) << "</p>\n";
  }
  if (!result.description.empty()) out << "<p>" << html_escape(result.description) << "</p>\n";
  if (!result.catches.empty()) {
    out << "<p><strong>Catches:</strong> " << html_escape(result.catches) << "</p>\n";
  }
  if (!result.evidence_dir.empty()) {
    out << "<p class=\"note\">Evidence: <code>" << html_escape(result.evidence_dir.string())
        << "</code></p>\n";
  }
  out << issue_section(result, info) << "<h2>Checks</h2>\n"
      << checks_table(result) << "<h2>Timings</h2>\n"
      << timings_table(result) << transcript_section(result.evidence_dir) << html_page_end();
  return out.str();
}

// The transports of every run, in the order they first appear.
std::vector<std::string> transports_of(const std::vector<LabelledRun>& runs) {
  std::vector<std::string> transports;
  for (const auto& run : runs) {
    for (const auto& transport : transports_of(run.run)) {
      if (std::find(transports.begin(), transports.end(), transport) == transports.end()) {
        transports.push_back(transport);
      }
    }
  }
  return transports;
}

std::string runs_table(const std::vector<LabelledRun>& runs) {
  std::ostringstream out;
  out << "<table>\n<thead><tr><th>client</th><th>driver</th><th>revision</th><th>mode</th>"
         "<th>started</th><th>result</th></tr></thead>\n<tbody>\n";
  for (const auto& [label, run] : runs) {
    out << "<tr><td>" << html_escape(label) << "</td><td><code>"
        << html_escape(join(run.info.driver_argv, " ")) << "</code></td><td class=\"nowrap\">"
        << html_escape(run.info.revision) << "</td><td>" << (run.info.strict ? "strict" : "lenient")
        << "<br>" << html_escape(schema_validation_line(run.info)) << "</td><td class=\"nowrap\">"
        << html_escape(run.started_at) << "</td><td>" << html_escape(closing_line(run))
        << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
  for (const auto& [label, run] : runs) {
    for (const auto& entry : run.unknown_baseline_entries) {
      out << "<p class=\"note\">" << html_escape(label)
          << ": baseline entry names no case or check: <code>" << html_escape(entry)
          << "</code></p>\n";
    }
  }
  return out.str();
}

// A table's head: the `lead` columns, then `columns` for each client, grouped under its label
// when there are several (the first column of a group marked "group").
std::string grouped_head(const std::vector<LabelledRun>& runs, const std::vector<std::string>& lead,
                         const std::vector<std::string>& columns) {
  const bool several = runs.size() > 1;
  std::string out = "<thead>\n<tr>";
  for (const auto& head : lead) out += (several ? "<th rowspan=\"2\">" : "<th>") + head + "</th>";
  if (several) {
    for (const auto& run : runs) {
      out += "<th class=\"group\" colspan=\"" + std::to_string(columns.size()) + "\">" +
             html_escape(run.label) + "</th>";
    }
    out += "</tr>\n<tr>";
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (std::size_t c = 0; c < columns.size(); ++c)
      out += (c == 0 && several ? "<th class=\"group\">" : "<th>") + columns[c] + "</th>";
  }
  return out + "</tr>\n</thead>\n";
}

std::string matrix(const std::vector<LabelledRun>& runs) {
  const auto transports = transports_of(runs);
  const CaseMatrix cases = case_matrix(runs);
  const bool several = runs.size() > 1;
  std::ostringstream out;
  std::vector<std::string> transport_heads;
  for (const auto& transport : transports) transport_heads.push_back(html_escape(transport));
  out << "<table class=\"matrix\">\n"
      << grouped_head(runs, {"case"}, transport_heads) << "<tbody>\n";
  for (const auto& [id, title] : cases.titles) {
    out << "<tr><th scope=\"row\"><code>" << html_escape(id) << "</code><span class=\"title\">"
        << html_escape(title) << "</span></th>";
    for (std::size_t i = 0; i < runs.size(); ++i) {
      for (std::size_t t = 0; t < transports.size(); ++t) {
        const std::string group = t == 0 && several ? " group" : "";
        const auto it = cases.cells[i].find({id, transports[t]});
        if (it == cases.cells[i].end()) {
          out << "<td class=\"v-none" << group << "\" title=\"not run\">&ndash;</td>";
          continue;
        }
        const Cell cell = cell_of(*it->second);
        out << "<td class=\"" << cell.css << group << "\"><a href=\""
            << html_escape(html_case_page(i, transports[t], id).generic_string()) << "\" title=\""
            << html_escape(html_cell_reason(*it->second)) << "\">" << html_escape(cell.text)
            << "</a></td>";
      }
    }
    out << "</tr>\n";
  }
  out << "</tbody>\n</table>\n";
  return out.str();
}

// Horizontal bars, three per client (p50, p95, max) of single pongs, on one linear scale per
// transport.
std::string latency_chart(const std::vector<LabelledRun>& runs, const std::string& transport) {
  std::vector<LatencySummary> figures;
  double top = 0;
  for (const auto& run : runs) {
    figures.push_back(single_pong_figures(run.run, transport));
    top = std::max(top, figures.back().max);
  }
  if (top <= 0) return "";
  constexpr int kLabelWidth = 170, kMetricWidth = 34, kBarWidth = 360, kValueWidth = 90;
  constexpr int kRow = 15, kGroupGap = 10;
  const int width = kLabelWidth + kMetricWidth + kBarWidth + kValueWidth;
  const int height = static_cast<int>(runs.size()) * (3 * kRow + kGroupGap);
  const int bar_x = kLabelWidth + kMetricWidth;
  std::ostringstream svg;
  svg << "<figure>\n<figcaption><strong>" << html_escape(transport)
      << "</strong>: single-pong latency (ms) over every case</figcaption>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height << "\" role=\"img\" aria-label=\""
      << html_escape(transport)
      << " single-pong latency\" font-family=\"sans-serif\" font-size=\"11\">\n";
  const std::pair<const char*, const char*> metrics[] = {
      {"p50", "#0969da"}, {"p95", "#54aeff"}, {"max", "#b6e3ff"}};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const int y0 = static_cast<int>(i) * (3 * kRow + kGroupGap);
    svg << "<text x=\"0\" y=\"" << y0 + 2 * kRow - 4 << "\">"
        << html_escape(shorten(runs[i].label, 26)) << "</text>\n";
    const double values[] = {figures[i].p50, figures[i].p95, figures[i].max};
    for (int m = 0; m < 3; ++m) {
      const int y = y0 + m * kRow;
      const double length = figures[i].count ? std::max(1.0, values[m] / top * kBarWidth) : 0;
      svg << "<text x=\"" << kLabelWidth << "\" y=\"" << y + 11 << "\" fill=\"#59636e\">"
          << metrics[m].first << "</text><rect x=\"" << bar_x << "\" y=\"" << y + 2 << "\" width=\""
          << ms(length) << "\" height=\"" << kRow - 4 << "\" fill=\"" << metrics[m].second
          << "\"/><text x=\"" << ms(bar_x + length + 4) << "\" y=\"" << y + 11 << "\">"
          << (figures[i].count ? ms(values[m]) : "no pongs") << "</text>\n";
    }
  }
  svg << "<line x1=\"" << bar_x << "\" y1=\"0\" x2=\"" << bar_x << "\" y2=\"" << height
      << "\" stroke=\"#59636e\"/>\n</svg>\n</figure>\n";
  return svg.str();
}

// One row per burst and transport, one group of columns per client.
std::string burst_table(const std::vector<LabelledRun>& runs) {
  struct Row {
    std::string transport, check_id, case_id;
  };
  std::vector<Row> rows;
  using Key = std::pair<std::string, std::string>;  // transport, check id
  std::vector<std::map<Key, const BurstFigures*>> cells(runs.size());
  for (const auto& transport : transports_of(runs)) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      for (const auto& [result, check] : bursts_of(runs[i].run, transport)) {
        const Key key{transport, check->id};
        if (std::none_of(rows.begin(), rows.end(), [&](const Row& row) {
              // key.second, not check->id: clang 14 cannot capture a structured binding.
              return row.transport == transport && row.check_id == key.second;
            })) {
          rows.push_back({transport, check->id, result->case_id});
        }
        cells[i][key] = &*check->burst;
      }
    }
  }
  if (rows.empty()) return "";
  const bool several = runs.size() > 1;
  std::ostringstream out;
  out << "<table class=\"bursts\">\n"
      << grouped_head(runs, {"case", "transport"}, {"pongs", "time to last pong (ms)", "pongs/s"})
      << "<tbody>\n";
  for (const auto& row : rows) {
    out << "<tr><td><code>" << html_escape(row.case_id) << "</code></td><td>"
        << html_escape(row.transport) << "</td>";
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const std::string group = several ? " group" : "";
      const auto it = cells[i].find({row.transport, row.check_id});
      if (it == cells[i].end()) {
        out << "<td class=\"num" << group << "\" colspan=\"3\">&ndash;</td>";
        continue;
      }
      const BurstFigures& burst = *it->second;
      out << "<td class=\"num" << group << "\">" << number_text::pongs_of_pings(burst)
          << "</td><td class=\"num\">" << ms(burst.time_to_last_pong_ms)
          << "</td><td class=\"num\">" << per_second(burst.pongs_per_second) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</tbody>\n</table>\n";
  return out.str();
}

// One cause behind three or more cases, named once, per run; then the run's findings.
std::string root_causes_and_findings(const std::vector<LabelledRun>& runs) {
  std::ostringstream causes, findings;
  for (const auto& labelled : runs) {
    const auto of = runs.size() > 1
                        ? " <span class=\"note\">(" + html_escape(labelled.label) + ")</span>"
                        : std::string();
    for (const auto& cause : root_causes(labelled.run))
      causes << "<li>" << html_escape(root_cause_line(cause)) << of << "</li>\n";
    for (const auto& finding : labelled.run.findings) {
      findings << "<li class=\"" << verdict_class(finding.verdict) << "\">"
               << html_escape(finding_line(finding)) << of << "</li>\n";
    }
  }
  std::string out;
  if (!causes.str().empty()) {
    out +=
        "<h2 id=\"root-causes\">Root causes</h2>\n<p class=\"note\">One defect behind "
        "several cases: fix it first.</p>\n<ul>\n" +
        causes.str() + "</ul>\n";
  }
  if (!findings.str().empty()) {
    out +=
        "<h2 id=\"findings\">Findings</h2>\n<p class=\"note\">About the transport or "
        "the client in general (the handshake, transport and HTTP rules), not one case's "
        "subject: judged once by their own level, never a case's verdict.</p>\n<ul>\n" +
        findings.str() + "</ul>\n";
  }
  return out;
}

std::string render_index(const std::vector<LabelledRun>& runs) {
  std::ostringstream out;
  out << html_page_start("mcp-ping-conformance report") << "<h1>mcp-ping-conformance</h1>\n"
      << "<p class=\"sub\">Version "
      << html_escape(runs.empty() ? "" : runs.front().run.info.suite_version)
      << ". Each cell links to the case's checks and transcript.</p>\n<h2 id=\"runs\">Runs</h2>\n"
      << runs_table(runs) << root_causes_and_findings(runs) << "<h2 id=\"cases\">Cases</h2>\n"
      << html_legend() << matrix(runs);
  std::string charts;
  for (const auto& transport : transports_of(runs)) charts += latency_chart(runs, transport);
  if (!charts.empty()) {
    out << "<h2 id=\"latency\">Single-pong latency</h2>\n<p class=\"note\">One ping at a time, "
           "from the ping written to its pong received; the pongs of bursts are not counted here."
           "</p>\n"
        << charts;
  }
  if (const std::string bursts = burst_table(runs); !bursts.empty()) {
    out << "<h2 id=\"burst\">Burst</h2>\n<p class=\"note\">Several pings written at once, timed "
           "from the first ping written to the last pong received.</p>\n"
        << bursts;
  }
  out << html_page_end();
  return out.str();
}

}  // namespace

std::string html_href(const fs::path& relative) {
  return html_escape(escape_bytes(relative.generic_string(), '%', "._~/"));
}

std::string html_cell_class(const CaseResult& result) { return cell_of(result).css; }

std::string html_cell_reason(const CaseResult& result) {
  if (result.expectation == Expectation::kStale) {
    return shorten("listed in the baseline, but passed: " + result.expectation_reason, 300);
  }
  const auto notable = notable_checks(result);
  std::string line = notable.empty() ? result.reason : check_headline(*notable.front());
  if (result.expectation == Expectation::kExpectedFailure) {
    line += " (baseline: " + result.expectation_reason + ")";
  }
  return shorten(line, 300);
}

fs::path html_case_page(std::size_t client, const std::string& transport,
                        const std::string& case_id) {
  fs::path page = fs::path("cases") / std::to_string(client) / path_part(transport);
  std::size_t start = 0;
  for (std::size_t slash; (slash = case_id.find('/', start)) != std::string::npos;
       start = slash + 1) {
    page /= path_part(std::string_view(case_id).substr(start, slash - start));
  }
  return page / (path_part(std::string_view(case_id).substr(start)) + ".html");
}

void write_html_report(const std::vector<LabelledRun>& runs, const fs::path& dir) {
  fs::remove_all(dir / "cases");  // pages of an earlier report must not linger
  fs::create_directories(dir);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (const auto& result : runs[i].run.cases) {
      const fs::path page = html_case_page(i, result.transport, result.case_id);
      std::string index_href;
      for (auto part = std::next(page.begin()); part != page.end(); ++part) index_href += "../";
      fs::create_directories((dir / page).parent_path());
      write_file(dir / page, render_case_page(runs[i].label, result, runs[i].run.info,
                                              index_href + "index.html"));
    }
  }
  write_file(dir / "index.html", render_index(runs));
}

}  // namespace mcpping
