// Writing to the client: send, send_raw, respond.
#include "conversation.hpp"
#include "core/jsonrpc.hpp"
#include "core/text.hpp"
#include "engine/default_server.hpp"
#include "step_parser.hpp"
#include "template.hpp"

namespace mcpping::steps {

namespace {

struct Send final : Step {
  std::vector<Json> templates;
  std::size_t repeat = 1;
  bool repeated = false;  // "repeat" given: "${i}" is the repetition
  SendOptions options;    // route: the step's "on", resolved at run time
  bool batch = false;     // "write": "batch": the frames as one JSON array
  std::optional<std::string> label;

  StepResult run(Conversation& conv) const override {
    std::vector<Json> frames;
    frames.reserve(templates.size() * repeat);
    try {
      for (std::size_t i = 0; i < repeat; ++i) {
        for (const auto& t : templates) {
          frames.push_back(
              instantiate(t, conv.script().captures(), repeated ? std::optional(i) : std::nullopt));
        }
      }
    } catch (const TemplateError& e) {
      conv.transcript().event(std::string("cannot build the frame: ") + e.what());
      return conv.fail("template error");
    }
    auto resolved = options;
    const auto route = conv.route_of(options.route);
    if (!route) return StepResult::Failed;
    resolved.route = *route;
    if (!conv.send(frames, resolved, label ? &*label : nullptr, batch))
      return conv.fail("write failed");
    return StepResult::Ok;
  }
};

struct SendRaw final : Step {
  std::string bytes;
  std::size_t chunk = 0;
  std::string on;

  StepResult run(Conversation& conv) const override {
    const auto route = conv.route_of(on);
    if (!route) return StepResult::Failed;
    const auto result = conv.channel().send_raw(bytes, chunk, *route);
    Json extra = Json::object();
    if (!result.writes.empty() && result.writes.front() != 1)
      extra["writes"] = result.writes.front();
    if (!result.streams.empty() && !result.streams.front().empty())
      extra["stream"] = result.streams.front();
    conv.transcript().raw(Direction::ServerToClient, bytes, {}, std::move(extra));
    if (!result.ok) {
      conv.transcript().event("write failed: " + result.error, {{"error", result.error}});
      return conv.fail("write failed");
    }
    return StepResult::Ok;
  }
};

struct Respond final : Step {
  enum class Answer { Result, Error, Default };
  std::string name;  // the capture answered
  Answer answer = Answer::Default;
  Json body;  // the result or error template
  std::string on;
  std::optional<std::string> label;  // names the answer for driver checks' "given"

  StepResult run(Conversation& conv) const override {
    const auto captured = conv.script().captures().find(name);
    if (captured == conv.script().captures().end()) {
      // An expect that only records a miss (SHOULD, MAY, INFO) captured nothing to answer.
      conv.transcript().event("cannot respond to \"" + name + "\": the client never sent it");
      return conv.fail("nothing to respond to");
    }
    const auto& request = captured->second;
    if (!request.contains("id")) {
      conv.transcript().event("cannot respond to \"" + name + "\": the captured message has no id");
      return conv.fail("respond to a notification");
    }
    Json frame;
    try {
      if (answer == Answer::Default) {
        auto reply = default_answer(request, conv.defaults(), conv.inbox().era());
        if (!reply) {
          conv.transcript().event("the default server has no answer for \"" + name + "\"");
          return conv.fail("no default answer");
        }
        frame = std::move(*reply);
      } else {
        frame = Json{{"jsonrpc", "2.0"},
                     {"id", request["id"]},
                     {answer == Answer::Result ? "result" : "error",
                      instantiate(body, conv.script().captures())}};
      }
    } catch (const TemplateError& e) {
      conv.transcript().event(std::string("cannot build the response: ") + e.what());
      return conv.fail("template error");
    }
    const auto route = conv.route_of(on);
    if (!route) return StepResult::Failed;
    conv.script().answered(name);
    SendOptions options;
    options.route = *route;
    if (!conv.send({frame}, options, label ? &*label : nullptr)) return conv.fail("write failed");
    // A scripted answer to initialize (ping/during-initialize) settles the session's version
    // as the handshake step does.
    const auto result = frame.find("result");
    if (method_of(request) == "initialize" && result != frame.end() && result->is_object() &&
        result->contains("protocolVersion") && (*result)["protocolVersion"].is_string())
      conv.negotiated((*result)["protocolVersion"].get<std::string>());
    return StepResult::Ok;
  }
};

std::string unknown_write_mode(const std::string& mode) {
  return "unknown write mode \"" + mode + "\" (known: lines, coalesced, chopped, batch)";
}

}  // namespace

std::unique_ptr<Step> parse_send(StepParser& p) {
  auto s = std::make_unique<Send>();
  const auto& arg = p.arg();
  if (arg.is_array()) {
    if (arg.empty()) p.fail(p.arg_pointer(), "must not be an empty list of frames");
    for (std::size_t f = 0; f < arg.size(); ++f) {
      p.reader().object(arg[f], p.arg_pointer() + "/" + std::to_string(f));
    }
  } else {
    p.object_arg();
  }
  s->repeated = p.has("repeat");
  const auto frames = p.template_value(arg, p.arg_pointer(), s->repeated);
  s->templates = frames.is_array() ? frames.get<std::vector<Json>>() : std::vector<Json>{frames};
  s->repeat = p.count("repeat", 1, 1);
  s->options.chunk = p.count("chunk", 1, 1);
  const auto mode =
      p.one_of("write", {"lines", "coalesced", "chopped", "batch"}, "lines", unknown_write_mode);
  s->batch = mode == "batch";
  s->options.mode = mode == "coalesced" ? WriteMode::Coalesced
                    : mode == "chopped" ? WriteMode::Chopped
                                        : WriteMode::Lines;
  s->label = p.define_label("label");
  s->options.sse = p.sse();
  s->options.route = p.route();
  return s;
}

std::unique_ptr<Step> parse_send_raw(StepParser& p) {
  auto s = std::make_unique<SendRaw>();
  s->bytes = p.reader().nonempty_string(p.arg(), p.arg_pointer());
  s->chunk = p.count("chunk", 1, 0);
  s->on = p.route();
  return s;
}

std::unique_ptr<Step> parse_respond(StepParser& p) {
  auto s = std::make_unique<Respond>();
  s->name = p.captured(p.arg(), p.arg_pointer());
  const int answers = static_cast<int>(p.has("result")) + static_cast<int>(p.has("error")) +
                      static_cast<int>(p.has("default"));
  if (answers != 1)
    p.fail(p.pointer(), "respond needs exactly one of \"result\", \"error\", \"default\"");
  if (p.has("default")) {
    if (p.step()["default"] != Json(true)) p.fail(p.pointer("default"), "takes true");
    s->answer = Respond::Answer::Default;
  }
  if (p.has("result")) {
    s->answer = Respond::Answer::Result;
    s->body = p.template_value(p.step()["result"], p.pointer("result"), false);
  }
  if (p.has("error")) {
    s->answer = Respond::Answer::Error;
    p.reader().object(p.step()["error"], p.pointer("error"));
    s->body = p.template_value(p.step()["error"], p.pointer("error"), false);
  }
  s->on = p.route();
  s->label = p.define_label("label", true);
  return s;
}

}  // namespace mcpping::steps
