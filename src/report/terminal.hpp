// Terminal-safe text. Names, paths and messages come from model files, and a text report goes to a terminal or a
// CI log: a raw ESC can recolour or rewrite it, CR or LF can start a fake line, U+202E can reverse what follows.
// Every text writer (lint, run, diff, export) and every message on stderr passes model-derived text through
// `term_safe`, which shows such characters escaped, as `git` and `ls` quote file names.
#pragma once

#include <string>
#include <string_view>

namespace condlint {

// `s` with every character a terminal would act on shown escaped:
//   C0 controls except tab, and DEL   -> \n, \r or \xNN   (NUL is never written raw)
//   C1 controls (U+0080..U+009F)      -> \u0080 .. \u009f
//   bidi and invisible direction marks (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069)
//                                     -> \u202e and so on
//   bytes that are not valid UTF-8    -> \xNN, one per byte
// Everything else, tab and valid printable UTF-8 included, is copied unchanged. A backslash stays a backslash,
// so text without such characters prints exactly as before.
std::string term_safe(std::string_view s);

// True when `term_safe(s)` would change `s` (lets callers skip the copy on the common path).
bool needs_term_escape(std::string_view s);

}  // namespace condlint
