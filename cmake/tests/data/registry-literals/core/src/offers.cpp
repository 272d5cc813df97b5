// style/registry-literals-catches-a-literal: a revision and a transport spelled out beside
// free ones: "2025-11-25" in a comment, a date in a sentence, "sse" as a step key.
#include <string>

const std::string kOffered = "2025-11-25";
const std::string kSentence = "batches exist in 2025-03-26 only";
const char* const kStepKey = "sse";
bool on_stdio(const std::string& transport) { return transport == "stdio"; }
