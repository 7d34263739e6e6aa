#pragma once
/// Debian's headless Chromium for the tests that check a page the tool wrote: it loads the page,
/// runs its script, and the test reads the DOM it rendered and what it logged.

#include <string>

#include "support/test_support.hpp"

namespace migrate::test {

inline const fs::path kChromium = "/usr/bin/chromium";

/// What Chromium rendered of `url` (the DOM after the page's script ran) and what it logged.
struct Rendered {
  std::string dom;
  std::string log;
};

/// Renders `url` with a profile and a log in `dir`.
inline Rendered renderInChromium(const TempDir& dir, const std::string& url) {
  const std::string profile = (dir.path() / "chromium-profile").string();
  const std::string flags =
      " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking"
      " --disable-component-update --disable-sync --user-data-dir=" +
      quote(profile) + " --enable-logging=stderr --v=0 --virtual-time-budget=3000";
  Rendered r;
  r.dom = run(quote(kChromium.string()) + flags + " --dump-dom " + quote(url) + " 2>" +
              quote((dir.path() / "chromium.log").string()))
              .output;
  r.log = readFile(dir.path() / "chromium.log");
  return r;
}

}  // namespace migrate::test
