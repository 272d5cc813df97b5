// style/registry-literals-catches-a-literal: tests may spell revisions and transports out.
#include <string>

const std::string kExpected = "2025-11-25";
const std::string kTransport = "streamable-http";
