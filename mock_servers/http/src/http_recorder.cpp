#include "http_recorder.hpp"

#include "core/check_registry.hpp"
#include "core/jsonrpc.hpp"
#include "core/text.hpp"

namespace mcpping {

namespace {

const char* const kFactHeaders[] = {
    "mcp-session-id", "mcp-protocol-version", "mcp-method",   "mcp-name",
    "accept",         "content-type",         "last-event-id"};

}  // namespace

Json HttpRecorder::facts(const httplib::Request& req, int status,
                         const std::string& session) const {
  Json headers = Json::object();
  for (const auto* name : kFactHeaders) {
    if (req.has_header(name)) headers[name] = req.get_header_value(name);
  }
  Json f{{"method", req.method}, {"path", req.path}, {"status", status}, {"headers", headers}};
  if (!session.empty()) f["session"] = session;
  return f;
}

void HttpRecorder::record(const httplib::Request& req, int status, const std::string& session,
                          Json extra) {
  Json r = facts(req, status, session);
  for (auto& [k, v] : extra.items()) r[k] = v;
  std::string text = req.method + " " + req.path + " -> " +
                     (status ? std::to_string(status) : std::string("connection reset"));
  if (!session.empty()) text += " (session " + session + ")";
  if (r.contains("note")) text += ": " + r["note"].get<std::string>();
  transcript_.host_record("http", std::move(r), text);
}

void HttpRecorder::implicit_check(const HttpRule& rule, const std::string& actual) {
  {
    const std::lock_guard lock(mutex_);
    const auto [it, first] = recorded_.emplace(std::string(rule.check), rule.outcome);
    if (!first) {
      if (it->second == Outcome::Broken || rule.outcome != Outcome::Broken) return;
      it->second = rule.outcome;
    }
  }
  CheckRecord r;
  r.check = builtin_check(rule.check, rule.spec);
  r.outcome = rule.outcome;
  r.expected = rule.expected;
  if (const auto at = r.expected.find("{max}"); at != std::string::npos)
    r.expected.replace(at, 5, std::to_string(max_body_bytes_));
  r.actual = actual;
  r.implicit = true;
  transcript_.check(r);
}

void HttpRecorder::reject(const httplib::Request& req, httplib::Response& res,
                          const Rejection& rejection, const std::string& session,
                          const std::string& body) {
  const auto& rule = http_rule(rejection.rule);
  res.status = rule.status;
  if (!rejection.body.is_null()) res.set_content(safe_dump(rejection.body), "application/json");
  record(req, rule.status, session, {{"note", rejection.note}});
  if (!body.empty()) {
    transcript_.raw(Direction::ClientToServer, shorten(body, 1024), body.size(),
                    {{"note", "rejected with " + std::to_string(rule.status)}});
  }
  if (!rule.check.empty()) implicit_check(rule, rule_actual(rule, req, rejection.note, body));
  refused_response(req, rule.status, session, body);
}

void HttpRecorder::refused_response(const httplib::Request& req, int status,
                                    const std::string& session, const std::string& body) {
  const auto message = Json::parse(body, nullptr, false);
  if (!message.is_object() || !is_response(message)) return;
  auto meta = facts(req, status, session);
  meta["refused"] = status;
  meta["message"] = message;
  inbox_.push_event("post-refused", std::move(meta));
}

bool HttpRecorder::broke(const httplib::Request& req, httplib::Response& res,
                         const std::vector<Rejection>& broken, const std::string& session,
                         const std::string& body) {
  for (const auto& one : broken) {
    const auto& rule = http_rule(one.rule);
    if (rule.refuses) {
      reject(req, res, one, session, body);
      return true;
    }
    transcript_.event(req.method + " " + req.path + ": " + one.note + " (recorded; accepted)");
    if (!rule.check.empty()) implicit_check(rule, rule_actual(rule, req, one.note, body));
  }
  return false;
}

}  // namespace mcpping
