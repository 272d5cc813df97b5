// The HTTP rules applied to a request and the records they leave: the `http` transcript record
// of every request, a refusal's status and body, the rule's implicit check (once per case, or
// again when broken worse), and the `post-refused` event of a refused JSON-RPC response.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include <httplib.h>

#include "engine/transcript.hpp"
#include "http_inbox.hpp"
#include "http_rules.hpp"

namespace mcpping {

class HttpRecorder {
 public:
  HttpRecorder(Transcript& transcript, HttpInbox& inbox, std::size_t max_body_bytes)
      : transcript_(transcript), inbox_(inbox), max_body_bytes_(max_body_bytes) {}

  Json facts(const httplib::Request& req, int status, const std::string& session) const;
  // The `http` record of a request (status 0: the connection was reset).
  void record(const httplib::Request& req, int status, const std::string& session,
              Json extra = Json::object());
  // Answers with the rule's status and `rejection`'s body, records it, keeps `body` as a
  // rejected `raw` record and records the rule's implicit check.
  void reject(const httplib::Request& req, httplib::Response& res, const Rejection& rejection,
              const std::string& session, const std::string& body = {});
  // The request broke each of `broken`, in order: a rule that refuses answers with its status
  // (true: the request ends here); any other is recorded and the request goes on, as a lenient
  // server lets it.
  bool broke(const httplib::Request& req, httplib::Response& res,
             const std::vector<Rejection>& broken, const std::string& session,
             const std::string& body = {});
  // A refused response is still the client's answer: a `post-refused` event hands it on.
  void refused_response(const httplib::Request& req, int status, const std::string& session,
                        const std::string& body);

 private:
  void implicit_check(const HttpRule& rule, const std::string& actual);

  Transcript& transcript_;
  HttpInbox& inbox_;
  const std::size_t max_body_bytes_;
  std::mutex mutex_;
  std::map<std::string, Outcome> recorded_;  // implicit checks recorded, and how
};

}  // namespace mcpping
