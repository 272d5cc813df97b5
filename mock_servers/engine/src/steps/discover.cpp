// discover: the start of a modern session (revision 2026-07-28 on), in place of handshake.
//
// There is no initialize: "Every request supplies this metadata in its _meta field". A client
// SHOULD probe with server/discover first on stdio (RECOMMENDED when it speaks only modern
// versions) and MAY on HTTP, so the step takes whichever request comes first:
//   - server/discover: answered with the DiscoverResult; the probe check is met;
//   - another request: a modern client that did not probe; the request stays for the steps
//     after this one and the probe check is broken;
//   - initialize: a legacy client. The server answers as a dual-era server does ("An
//     initialize request selects legacy semantics"), records the legacy version it negotiated
//     and stops with an `unsupported` record: the runner reports the case UNSUPPORTED for the
//     negotiated version, as for any session outside a case's revisions.
// Either way the session's version is recorded as negotiated (an `event` with `negotiated`),
// and from then on every client request's _meta is checked (ClientInbox::check_modern_request).
#include "conversation.hpp"
#include "core/jsonrpc.hpp"
#include "core/text.hpp"
#include "engine/default_server.hpp"
#include "engine/modern.hpp"
#include "step_parser.hpp"

namespace mcpping::steps {

namespace {

struct Discover final : Step {
  std::string as = "discover";    // the capture of the request; `<as>_result` its result
  std::string within;             // the wait for the first request (default in parse_discover)
  std::optional<CheckDef> check;  // the probe: server/discover before any other request

  StepResult run(Conversation& conv) const override {
    const auto within_ms = conv.timeout(within);
    const auto probe = [&](Outcome outcome, const std::string& actual) {
      if (check)
        conv.record(*check, outcome, "server/discover as the client's first request", actual);
    };
    const auto t0 = Clock::now();
    std::optional<ClientMessage> first;
    // Client pings are answered by the pump; notifications wait in the inbox.
    const auto why = conv.inbox().pump(t0 + from_ms(within_ms), [&](const ClientMessage& m) {
      if (!is_request(m.json) || method_of(m.json) == "ping") return false;
      first = m;
      return true;
    });
    if (!first) {
      if (why == Pump::Interrupted) return conv.after_wait(why);  // not reached
      probe(Outcome::Broken, "no request: " + conv.inbox().no_message_text(why, within_ms, t0));
      return conv.after_wait(why, "no request to start the session");
    }
    const auto method = method_of(first->json);
    const auto waited = format_ms(std::max(0.0, elapsed_ms(t0, first->at))) + " ms";
    if (method == "initialize") return legacy_session(conv, *first);

    const auto offered = meta_protocol_version(first->json);
    const auto version =
        offered && revision_is_modern(*offered) ? *offered : supported_modern_revisions().front();
    conv.negotiated(version, "modern: per-request _meta");
    conv.inbox().check_modern_request(*first);
    const auto offered_text = " (" + std::string(kMetaProtocolVersion) + " " +
                              (offered ? "\"" + *offered + "\"" : std::string("absent")) + ")";
    if (method == "server/discover") {
      if (!conv.answer(as, first->json, discover_result(conv.defaults()))) {
        probe(Outcome::Broken, "the DiscoverResult could not be written");
        return conv.fail("write failed");
      }
      probe(Outcome::Met, "server/discover" + offered_text + " after " + waited);
      return StepResult::Ok;
    }
    // A modern request without a probe: the later steps take it.
    probe(Outcome::Broken, describe_message(first->json) + offered_text + " after " + waited +
                               ", without probing with server/discover first");
    conv.inbox().put_back_first(std::move(*first));
    return StepResult::Ok;
  }

  // A legacy client: answered as a dual-era server answers it, then the case cannot run.
  static StepResult legacy_session(Conversation& conv, const ClientMessage& init) {
    const auto result = initialize_result(init.json, conv.defaults());
    if (!conv.answer("initialize", init.json, result)) return conv.fail("write failed");
    const auto version = result["protocolVersion"].get<std::string>();
    conv.negotiated(version, "legacy: the client sent initialize");
    conv.transcript().unsupported(
        "the client started a legacy session (initialize, answered with protocol version " +
        version + "): the case needs a modern one (server/discover, per-request _meta)");
    return conv.fail("a legacy session: the case needs a modern one");
  }
};

}  // namespace

std::unique_ptr<Step> parse_discover(StepParser& p) {
  p.empty_arg();
  auto s = std::make_unique<Discover>();
  s->as = p.name("as").value_or(s->as);
  // As for the first handshake: a slow start is the machine's, not the client's.
  s->within = p.timeout("within", "case_deadline_ms");
  s->check = p.optional_check("check");
  p.capture(s->as);
  p.capture(s->as + "_result");
  return s;
}

}  // namespace mcpping::steps
