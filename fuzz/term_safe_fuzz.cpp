// libFuzzer target: any bytes through term_safe (report/terminal.hpp), the escaping every text writer uses.
// Aborts when the output holds a character a terminal would act on (a C0 control other than tab, DEL, a C1 control,
// a bidi control), is not valid UTF-8, or differs from the input although the input needed no escaping; and when
// needs_term_escape disagrees with this file's independent definition of clean text.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "report/terminal.hpp"

namespace {

// Valid UTF-8 with no C0 (but tab), DEL, C1 or bidi control: what a terminal may receive.
bool terminal_clean(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
      ++i;
      continue;
    }
    size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    if (n == 0 || c > 0xf4 || i + n > s.size()) return false;
    uint32_t cp = c & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
    for (size_t k = 1; k < n; ++k) {
      const unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    const uint32_t min = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    if (cp <= 0x9f || cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
        (cp >= 0x2066 && cp <= 0x2069))
      return false;
    i += n;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const std::string out = condlint::term_safe(in);
  if (!terminal_clean(out)) std::abort();
  if (!condlint::needs_term_escape(in) && out != in) std::abort();
  if (condlint::needs_term_escape(in) == terminal_clean(in)) std::abort();  // the two definitions agree
  return 0;
}
