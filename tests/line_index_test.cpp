// LineIndex (src/loaders/loader.hpp) against a naive line/column count, for offsets asked in document order
// (the loaders' pattern, served from the last answer), backwards, at random, at line starts and ends, and
// past the end of the text.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "loaders/loader.hpp"

namespace {

void naive(const std::string& text, int64_t offset, int& line, int& column) {
  if (offset < 0) {
    line = column = 0;
    return;
  }
  const size_t off = std::min(static_cast<size_t>(offset), text.size());
  line = 1;
  size_t start = 0;
  for (size_t i = 0; i < off; ++i)
    if (text[i] == '\n') {
      ++line;
      start = i + 1;
    }
  column = static_cast<int>(off - start + 1);
}

}  // namespace

TEST(LineIndex, AgreesWithANaiveCountInAnyOrder) {
  std::mt19937 rng(11);
  std::string text;
  for (int i = 0; i < 3000; ++i) {
    text.append(rng() % 40, 'x');
    if (rng() % 5 == 0) text += "\n\n";  // empty lines too
    text += '\n';
  }
  const condlint::LineIndex index(text);
  std::vector<int64_t> offsets;
  for (int64_t o = 0; o < static_cast<int64_t>(text.size()); o += 1 + static_cast<int64_t>(rng() % 30))
    offsets.push_back(o);
  const size_t forward = offsets.size();
  for (size_t i = forward; i-- > 0;) offsets.push_back(offsets[i]);  // backwards
  for (int i = 0; i < 2000; ++i)
    offsets.push_back(static_cast<int64_t>(rng() % (text.size() + 10)));  // random, past the end
  offsets.push_back(-1);
  offsets.push_back(0);
  offsets.push_back(static_cast<int64_t>(text.size()));
  for (int64_t o : offsets) {
    int l1 = 0, c1 = 0, l2 = 0, c2 = 0;
    index.locate(o, l1, c1);
    naive(text, o, l2, c2);
    ASSERT_EQ(l1, l2) << "offset " << o;
    ASSERT_EQ(c1, c2) << "offset " << o;
  }
}
