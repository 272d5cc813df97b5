// style/registry-literals-catches-a-literal: "sse" where the line speaks of a transport.
#include <string>

bool legacy(const std::string& transport) { return transport == "sse"; }
