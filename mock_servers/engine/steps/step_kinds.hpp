// The parse function of every step kind; each is defined in its family's file under steps/
// and listed once in engine/step_table.cpp.
#pragma once

#include <memory>

#include "engine/step.hpp"
#include "engine/step_parser.hpp"

namespace mcpping::steps {

using Parse = std::unique_ptr<Step>(StepParser&);

// steps/handshake.cpp
Parse parse_handshake;
// steps/discover.cpp
Parse parse_discover;
// steps/expect_steps.cpp
Parse parse_expect, parse_expect_none, parse_await_get_stream, parse_observe_client_pings;
// steps/send_steps.cpp
Parse parse_send, parse_send_raw, parse_respond;
// steps/response_steps.cpp
Parse parse_expect_response, parse_expect_error, parse_expect_no_response;
// steps/http_steps.cpp
Parse parse_fail_next_post, parse_expect_post, parse_disconnect, parse_await_resume;
// steps/process_steps.cpp
Parse parse_pause, parse_stderr, parse_stderr_bytes, parse_close_stdin, parse_close_stdout,
    parse_hold_input, parse_await_held_input, parse_serve_defaults;

}  // namespace mcpping::steps
