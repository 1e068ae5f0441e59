// JsonStream writes what nlohmann's dump writes for the same document: random documents (nested containers, empty
// ones, every byte in strings, invalid UTF-8, integers at their limits) are streamed and dumped, and compared.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <sstream>

#include "report/json_stream.hpp"

namespace {

using ojson = nlohmann::ordered_json;

std::string random_string(std::mt19937_64& rng) {
  static const std::vector<std::string> pieces = {"a",
                                                  "Z",
                                                  " ",
                                                  "\"",
                                                  "\\",
                                                  "/",
                                                  "\n",
                                                  "\r",
                                                  "\t",
                                                  "\b",
                                                  "\f",
                                                  std::string(1, '\0'),
                                                  "\x1b",
                                                  "\x7f",
                                                  "\xc3\xa9",
                                                  "\xe2\x80\xae",
                                                  "\xf0\x9f\x98\x80",
                                                  "\xff",
                                                  "\xc3",
                                                  "\xe2\x80",
                                                  "\xed\xa0\x80",
                                                  "\xc0\xaf",
                                                  "\x80",
                                                  "main/If#0/then",
                                                  "%20",
                                                  "\xf4\x90\x80\x80"};
  std::string s;
  const int n = static_cast<int>(rng() % 8);
  for (int i = 0; i < n; ++i) {
    if (rng() % 4 == 0) s += static_cast<char>(rng() % 256);
    else s += pieces[rng() % pieces.size()];
  }
  return s;
}

ojson random_value(std::mt19937_64& rng, int depth) {
  const int kind = static_cast<int>(rng() % (depth > 3 ? 4 : 6));
  switch (kind) {
    case 0: return random_string(rng);
    case 1: {
      static const int64_t ints[] = {0, -1, 7, std::numeric_limits<int64_t>::min(),
                                     std::numeric_limits<int64_t>::max()};
      return ints[rng() % 5];
    }
    case 2: return std::numeric_limits<uint64_t>::max() - rng() % 3;
    case 3: return rng() % 2 == 0;
    case 4: {
      ojson a = ojson::array();
      const int n = static_cast<int>(rng() % 4);
      for (int i = 0; i < n; ++i) a.push_back(random_value(rng, depth + 1));
      return a;
    }
    default: {
      ojson o = ojson::object();
      const int n = static_cast<int>(rng() % 4);
      for (int i = 0; i < n; ++i) o[random_string(rng) + std::to_string(i)] = random_value(rng, depth + 1);
      return o;
    }
  }
}

// Streams `j` member by member; a subtree at depth `tree_at` is handed over whole.
void stream(condlint::JsonStream& out, const ojson& j, int depth, int tree_at) {
  if (depth == tree_at) {
    out.value(j);
    return;
  }
  if (j.is_object()) {
    out.begin_object();
    for (const auto& [k, v] : j.items()) {
      out.key(k);
      stream(out, v, depth + 1, tree_at);
    }
    out.end_object();
  } else if (j.is_array()) {
    out.begin_array();
    for (const auto& v : j) stream(out, v, depth + 1, tree_at);
    out.end_array();
  } else if (j.is_string()) {
    out.value(j.get_ref<const std::string&>());
  } else if (j.is_boolean()) {
    out.value(j.get<bool>());
  } else if (j.is_number_unsigned()) {
    out.value(j.get<uint64_t>());
  } else {
    out.value(j.get<int64_t>());
  }
}

TEST(JsonStream, WritesWhatNlohmannDumps) {
  std::mt19937_64 rng(20261125);
  for (int round = 0; round < 3000; ++round) {
    ojson doc = ojson::object();
    doc["k"] = random_value(rng, 0);
    doc["results"] = ojson::array({random_value(rng, 1), random_value(rng, 1)});
    for (const int indent : {2, -1, 4}) {
      for (const int tree_at : {-1, 1, 2, 3}) {
        std::ostringstream os;
        {
          condlint::JsonStream out(os, indent);
          stream(out, doc, 0, tree_at);
          out.finish();
        }
        ASSERT_EQ(os.str(), doc.dump(indent, ' ', false, ojson::error_handler_t::replace) + "\n")
            << "round " << round << ", indent " << indent << ", subtree at depth " << tree_at;
      }
    }
  }
}

TEST(JsonStream, EveryByteInAStringIsEscapedAsNlohmannEscapesIt) {
  for (int b = 0; b < 256; ++b) {
    const std::string s = std::string("x") + static_cast<char>(b) + "y";
    std::string out;
    condlint::append_json_string(out, s);
    EXPECT_EQ(out, ojson(s).dump(-1, ' ', false, ojson::error_handler_t::replace)) << "byte " << b;
  }
}

// Long strings take the 8-bytes-at-a-time path: every piece at every alignment, and every pair of bytes after a
// lead byte (all two-byte sequences, the starts of the longer ones), escaped as nlohmann escapes them.
TEST(JsonStream, LongStringsAndEveryTwoByteSequenceAreEscapedAsNlohmannEscapesThem) {
  std::mt19937_64 rng(20261126);
  for (int round = 0; round < 20000; ++round) {
    std::string s;
    const int pieces = static_cast<int>(rng() % 12);
    for (int i = 0; i < pieces; ++i) s += std::string(rng() % 11, 'a' + static_cast<char>(i)) + random_string(rng);
    std::string out = "[";  // appended to, as the stream's buffer is
    condlint::append_json_string(out, s);
    ASSERT_EQ(out, "[" + ojson(s).dump(-1, ' ', false, ojson::error_handler_t::replace)) << "round " << round;
  }
  for (int a = 0x80; a < 256; ++a)
    for (int b = 0; b < 256; ++b)
      for (const char* tail : {"", "\x80", "\x80\x80", "abcdefgh"}) {
        const std::string s = std::string("01234567") + static_cast<char>(a) + static_cast<char>(b) + tail;
        std::string out;
        condlint::append_json_string(out, s);
        ASSERT_EQ(out, ojson(s).dump(-1, ' ', false, ojson::error_handler_t::replace)) << a << " " << b;
      }
}

}  // namespace
