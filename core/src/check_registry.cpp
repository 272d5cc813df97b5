#include "core/check_registry.hpp"

#include <algorithm>
#include <regex>
#include <stdexcept>

#include "core/revision.hpp"
#include "core/text.hpp"

namespace mcpping {

constexpr std::string_view kEveryLine =
    "every message the client writes is one JSON-RPC message (a JSON object; in a 2025-03-26 "
    "session, or a batch of them)";

const std::vector<BuiltinCheck>& builtin_checks() {
  using K = CheckKind;
  static const std::vector<BuiltinCheck> checks = {
      // The client's process in this case.
      {"driver:exit",
       Level::Must,
       K::Fate,
       {"suite.client-survives"},
       "a driver ran the case",
       "the driver exits 0 after attempting every step"},
      {"driver:started",
       Level::Must,
       K::Fate,
       {"suite.client-survives"},
       "a driver ran the case",
       "the client reaches the mock server (a line on stdio, a request over HTTP) within the "
       "start-up budget (startup_ms)"},
      {"driver:completed",
       Level::Must,
       K::Fate,
       {"suite.client-survives"},
       "a driver ran the case",
       "the driver finishes its steps before the case deadline"},
      {"harness:exit",
       Level::Must,
       K::Fate,
       {"suite.client-survives"},
       "an official-suite harness ran the case",
       "the harness connects, lists tools, closes and exits 0"},
      {"transport:server-started",
       Level::Must,
       K::Fate,
       {"suite.client-starts-server"},
       "",
       "the client starts the server it was given"},
      // The client in general: a finding of the run, named once.
      {"handshake",
       Level::Must,
       K::Collateral,
       {"lifecycle.init-first", "lifecycle.initialized"},
       "",
       "initialize request, then notifications/initialized"},
      {"transport:valid-message",
       Level::Must,
       K::Collateral,
       {"stdio.client-writes-only-messages", "stdio.batch", "lifecycle.initialize-not-batched",
        "http.post-body-json", "http.post-body-batch"},
       "",
       kEveryLine},
      {"wire:schema-valid",
       Level::Must,
       K::Collateral,
       {"spec.schema-authoritative", "basic.jsonrpc-messages"},
       "the run was given the specification's schemas (--schemas DIR)",
       "every message the client sends validates against the specification's JSON schema of "
       "the session's revision"},
      {"transport:line-too-long",
       Level::Must,
       K::Collateral,
       {"stdio.newline-delimited"},
       "",
       "every client message on one line of at most the line cap"},
      {"transport:revision",
       Level::Info,
       K::Collateral,
       {"lifecycle.version-other"},
       "the client offered a revision the transport does not exist in",
       "the client offers a protocol version the transport exists in"},
      {"cancellation:references",
       Level::Must,
       K::Collateral,
       {"cancellation.only-issued", "cancellation.not-initialize"},
       "the client sent notifications/cancelled",
       "every notifications/cancelled the client sends names a request it sent earlier, other "
       "than its initialize"},
      {"modern:request-meta",
       Level::Must,
       K::Collateral,
       {"modern.meta-required"},
       "",
       "every request carries _meta with the protocol version and the client capabilities"},
      {"modern:client-info",
       Level::Should,
       K::Collateral,
       {"modern.client-info"},
       "",
       "every request carries the client info in _meta"},
      {"http:body-too-large",
       Level::Info,
       K::Collateral,
       {"http.post-body-json"},
       "",
       "POST bodies of at most the body cap"},
      {"http:session-id",
       Level::Must,
       K::Collateral,
       {"http.session-header"},
       "a request sent once the client had the session id",
       "every request after initialize carries the Mcp-Session-Id the server issued"},
      {"http:protocol-version",
       Level::Must,
       K::Collateral,
       {"http.protocol-version-header", "http.protocol-version-negotiated",
        "http.modern-protocol-version-header", "http.modern-protocol-version-match"},
       "",
       "every request after initialize carries MCP-Protocol-Version, the negotiated version"},
      {"http:accept",
       Level::Must,
       K::Collateral,
       {"http.accept-both"},
       "",
       "a POST lists both application/json and text/event-stream in Accept; a GET lists "
       "text/event-stream"},
      {"http:content-type",
       Level::Should,
       K::Collateral,
       {"rfc9110.content-type"},
       "",
       "a POST body comes with Content-Type: application/json"},
      {"http:before-initialize",
       Level::Info,
       K::Collateral,
       {"lifecycle.init-first"},
       "",
       "initialize is the client's first request"},
      {"http:mcp-method",
       Level::Must,
       K::Collateral,
       {"http.modern-request-headers"},
       "",
       "every request POST carries Mcp-Method, equal to the request's method"},
      {"http:mcp-name",
       Level::Must,
       K::Collateral,
       {"http.modern-request-headers"},
       "",
       "a tools/call, resources/read or prompts/get POST carries Mcp-Name"},
      {"http:modern-post-only",
       Level::Info,
       K::Collateral,
       {"http.modern-get-delete-405"},
       "",
       "a 2026-07-28 client uses POST only (no GET stream, no DELETE)"},
  };
  return checks;
}

namespace {

const BuiltinCheck* find_builtin(std::string_view id) {
  const auto& all = builtin_checks();
  const auto it =
      std::find_if(all.begin(), all.end(), [&](const BuiltinCheck& c) { return c.id == id; });
  return it == all.end() ? nullptr : &*it;
}

const BuiltinCheck& builtin(std::string_view id) {
  const auto* found = find_builtin(id);
  if (!found) throw std::logic_error("no built-in check \"" + std::string(id) + "\"");
  return *found;
}

CheckDef def_of(const BuiltinCheck& b, std::vector<std::string> spec) {
  return {.id = std::string(b.id),
          .level = b.level,
          .spec = std::move(spec),
          .kind = b.kind,
          .premise = std::string(b.premise)};
}

// The MCP revision ranges a sentence's revision text names: "A..B", or "A" alone.
std::vector<std::pair<std::size_t, std::size_t>> ranges_of(std::string_view text) {
  static const std::regex range(R"((\d{4}-\d{2}-\d{2})(?:\.\.(\d{4}-\d{2}-\d{2}))?)");
  std::vector<std::pair<std::size_t, std::size_t>> out;
  const std::string owned(text);
  for (auto it = std::sregex_iterator(owned.begin(), owned.end(), range);
       it != std::sregex_iterator(); ++it) {
    const auto from = revision_index((*it)[1].str());
    const auto until = (*it)[2].matched ? revision_index((*it)[2].str()) : from;
    if (from && until) out.emplace_back(*from, *until);
  }
  return out;
}

}  // namespace

CheckDef builtin_check(std::string_view id) {
  const auto& b = builtin(id);
  return def_of(b, std::vector<std::string>(b.spec.begin(), b.spec.end()));
}

CheckDef builtin_check(std::string_view id, std::string_view spec_key) {
  const auto& b = builtin(id);
  if (std::find(b.spec.begin(), b.spec.end(), spec_key) == b.spec.end())
    throw std::logic_error("built-in check \"" + std::string(id) + "\" does not cite \"" +
                           std::string(spec_key) + "\"");
  return def_of(b, {std::string(spec_key)});
}

bool is_builtin_check(std::string_view id) { return find_builtin(id) != nullptr; }

std::string_view builtin_expected(std::string_view id) { return builtin(id).expected; }

bool miss_stops_script(const CheckDef& check) { return check.level == Level::Must; }

bool revision_text_covers(std::string_view text, std::string_view revision) {
  const auto ranges = ranges_of(text);
  if (ranges.empty()) return true;
  const auto index = revision_index(revision);
  if (!index) return true;
  return std::any_of(ranges.begin(), ranges.end(),
                     [&](const auto& r) { return r.first <= *index && *index <= r.second; });
}

std::optional<std::string> not_applicable_at(const CheckDef& check, std::string_view revision,
                                             const SpecReferences& refs) {
  if (check.spec.empty()) return std::nullopt;
  for (const auto& key : check.spec) {
    const auto it = refs.find(key);
    if (it == refs.end() || revision_text_covers(it->second.revision, revision))
      return std::nullopt;
  }
  return "the session ran at " + std::string(revision) + "; the check's sentences apply at " +
         applicable_revisions(check, refs);
}

std::string applicable_revisions(const CheckDef& check, const SpecReferences& refs) {
  const auto& all = known_revisions();
  std::vector<bool> covered(all.size(), false);
  for (const auto& key : check.spec) {
    const auto it = refs.find(key);
    for (std::size_t i = 0; i < all.size(); ++i)
      if (it == refs.end() || revision_text_covers(it->second.revision, all[i])) covered[i] = true;
  }
  std::vector<std::string> ranges;
  for (std::size_t i = 0; i < all.size();) {
    if (!covered[i]) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j + 1 < all.size() && covered[j + 1]) ++j;
    ranges.push_back(i == j ? all[i] : all[i] + ".." + all[j]);
    i = j + 1;
  }
  return ranges.empty() ? std::string("no revision") : join(ranges, ", ");
}

}  // namespace mcpping
