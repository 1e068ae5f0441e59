// The HTML pages at common widths: the demo's pages (lint, lint --exec, run, diff, merge) and a lint page of the
// real-world models, rendered in headless chromium at 1,280 and 1,920 px, widen no page past the window and clip no
// table cell. One chromium process per page: a frame page holds the report twice, one frame per width, and a probe
// added to the report's copy posts what it measured to the frame page, whose DOM chromium prints.
#include <gtest/gtest.h>

#include <filesystem>
#include <algorithm>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "report/report.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint::test;

namespace {

constexpr int kWidths[] = {1280, 1920};

// Runs in the report's copy after report.js: opens every panel, then reports the page's width against the window's
// and every element whose content is wider than its box where it cannot be seen whole: a table cell (its text
// would run under the next column), or an element that hides or scrolls what overflows.
constexpr const char* kWidthProbe = R"JS(
(function () {
  Array.prototype.forEach.call(document.querySelectorAll("details"), function (d) { d.open = true; });
  var de = document.documentElement, out = ["page " + de.scrollWidth + " " + window.innerWidth];
  Array.prototype.forEach.call(document.querySelectorAll("body *"), function (el) {
    if (el.clientWidth === 0 || el.scrollWidth <= el.clientWidth + 1) return;
    var cell = el.tagName === "TD" || el.tagName === "TH";
    if (!cell && getComputedStyle(el).overflowX === "visible") return;
    var text = (el.textContent || "").replace(/\s+/g, " ").slice(0, 80).replace(/[^A-Za-z0-9 ._\/:,\[\]()-]/g, "?");
    out.push("clip " + el.tagName.toLowerCase() + "." + String(el.className).replace(/ /g, ".") + " " +
             el.scrollWidth + ">" + el.clientWidth + " " + text);
  });
  parent.postMessage(window.innerWidth + "|" + out.join("\n"), "*");
})();
)JS";

// What the probe measured at one width.
struct Measure {
  int scroll_width = -1, inner_width = -1;
  std::vector<std::string> clipped;
};

std::string unescape_attribute(std::string s) {
  const std::pair<const char*, const char*> entities[] = {
      {"&quot;", "\""}, {"&lt;", "<"}, {"&gt;", ">"}, {"&nbsp;", " "}, {"&amp;", "&"}};
  for (const auto& [from, to] : entities)
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + 1)) s.replace(p, strlen(from), to);
  return s;
}

// Renders `html` at every width of kWidths in one chromium process, with a screenshot into `shots`; the measures by
// width (none when the probe did not report).
std::map<int, Measure> measure_widths(const fs::path& html, const fs::path& shots) {
  const fs::path dir = fresh_dir("probe-" + html.stem().string());
  std::string page = slurp(html);
  const size_t end = page.rfind("</body>");
  if (end == std::string::npos) return {};
  page.insert(end, std::string("<script>") + kWidthProbe + "</script>\n");
  write_file(dir / "report.html", page);
  std::string frames =
      "<!DOCTYPE html><html><body style=\"margin:0\"><script>var got = [];"
      "window.addEventListener('message', function (e) { got.push(String(e.data));"
      " document.body.setAttribute('data-probe', got.join('\\u0001')); });</script>";
  int total = 0;
  for (int w : kWidths) {
    frames +=
        "<iframe src=\"report.html\" style=\"width:" + std::to_string(w) + "px;height:1000px;border:0\"></iframe>";
    total += w;
  }
  write_file(dir / "frames.html", frames + "</body></html>");
  fs::create_directories(shots);
  const std::string dom =
      run(shell_quote(browser()) +
          " --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=" + std::to_string(total) +
          ",1000 --dump-dom --screenshot=" + shell_quote((shots / (html.stem().string() + ".png")).string()) + " " +
          shell_quote("file://" + (dir / "frames.html").string()) + " 2>/dev/null")
          .out;
  const std::string key = "data-probe=\"";
  const size_t at = dom.find(key);
  if (at == std::string::npos) return {};
  const std::string probe =
      unescape_attribute(dom.substr(at + key.size(), dom.find('"', at + key.size()) - at - key.size()));
  std::map<int, Measure> by_width;
  size_t start = 0;
  while (start <= probe.size()) {
    const size_t sep = std::min(probe.find('\x01', start), probe.size());
    const std::string one = probe.substr(start, sep - start);
    start = sep + 1;
    const size_t bar = one.find('|');
    if (bar == std::string::npos) continue;
    Measure m;
    std::istringstream lines(one.substr(bar + 1));
    std::string line;
    while (std::getline(lines, line)) {
      if (line.rfind("page ", 0) == 0) std::istringstream(line.substr(5)) >> m.scroll_width >> m.inner_width;
      else if (line.rfind("clip ", 0) == 0) m.clipped.push_back(line.substr(5));
    }
    by_width[std::stoi(one.substr(0, bar))] = m;
  }
  return by_width;
}

void expect_fits(const fs::path& html, const fs::path& shots) {
  ASSERT_GT(fs::file_size(html), 1000u) << html << " was not written";
  const auto by_width = measure_widths(html, shots);
  for (int w : kWidths) {
    ASSERT_TRUE(by_width.count(w)) << html.filename() << ": the probe reported nothing at " << w << " px";
    const Measure& m = by_width.at(w);
    EXPECT_EQ(m.inner_width, w) << html.filename();
    EXPECT_LE(m.scroll_width, m.inner_width) << html.filename() << " at " << w << " px is wider than the window";
    std::string clipped;
    for (const auto& c : m.clipped) clipped += "\n  " + c;
    EXPECT_TRUE(m.clipped.empty()) << html.filename() << " at " << w << " px: content wider than its box:" << clipped;
  }
}

// The pages scripts/demo.sh writes, written the same way into a temporary directory.
fs::path demo_pages() {
  static const fs::path dir = [] {
    const fs::path d = fresh_dir("width-pages");
    const std::string bin = condlint_binary();
    auto out = [&](const char* name) { return shell_quote((d / name).string()); };
    condlint_in_checkout("-q lint corpus -o /dev/null --html " + out("lint.html"));
    condlint_in_checkout("-q lint corpus/ir/exec-cases corpus/ir/exec --exec -o /dev/null --html " + out("exec.html"));
    condlint_in_checkout("-q run corpus/ir/exec/nested_if/nested_if.xml -o /dev/null --html " + out("run.html"));
    // diff against a runtime that perturbs the else-pinned runs (its tables then show values and mismatches), or
    // against itself without python3-onnx.
    const bool onnx = run("/usr/bin/python3 -c 'import onnx, numpy' 2>/dev/null").exit_code == 0;
    const std::string other = onnx ? "cmd:/usr/bin/python3 " +
                                         (source_dir() / "tests/diff_runtime_perturb.py").string() + " --condlint " +
                                         bin + " --when else {model} {inputs} {outputs}"
                                   : std::string("ref");
    condlint_in_checkout("-q diff tests/data/diff/nested_if/model.onnx --runtime ref --runtime " + shell_quote(other) +
                         " -o /dev/null --html " + out("diff.html") + " 2>/dev/null");
    // merge: the SARIF of two shares of the corpus, merged into one page.
    for (int k = 1; k <= 2; ++k)
      condlint_in_checkout("-q lint corpus --shard " + std::to_string(k) + "/2 --format sarif -o " +
                           out(("share" + std::to_string(k) + ".sarif").c_str()));
    condlint_in_checkout("-q merge " + out("share1.sarif") + " " + out("share2.sarif") + " -o /dev/null --html " +
                         out("merge.html"));
    return d;
  }();
  return dir;
}

TEST(HtmlWidth, TheDemoPagesFitAt1280And1920Pixels) {
  if (condlint::test::sanitized_suite()) GTEST_SKIP() << condlint::test::kValidatorLeftToUnsanitized;
  if (browser().empty()) GTEST_SKIP() << "no chromium-headless-shell or chromium (scripts/install-deps.sh installs it)";
  const fs::path shots = temp_dir("width-shots");
  for (const char* page : {"lint.html", "exec.html", "run.html", "diff.html", "merge.html"})
    expect_fits(demo_pages() / page, shots);
}

TEST(HtmlWidth, ARealModelPageFitsAt1280And1920Pixels) {
  if (condlint::test::sanitized_suite()) GTEST_SKIP() << condlint::test::kValidatorLeftToUnsanitized;
  if (browser().empty()) GTEST_SKIP() << "no chromium-headless-shell or chromium (scripts/install-deps.sh installs it)";
  const fs::path models = source_dir() / "tools/models";
  if (!fs::is_directory(models))
    GTEST_SKIP() << "tools/models is absent (the npm real-world models: scripts/install-deps.sh)";
  const fs::path page = fresh_dir("width-models") / "models.html";
  condlint_in_checkout("-q lint tools/models -o /dev/null --html " + shell_quote(page.string()));
  expect_fits(page, temp_dir("width-shots"));
}

// The probe finds what it is for: a page whose table is forced wider than the window.
TEST(HtmlWidth, TheProbeSeesAnOverflowingPage) {
  if (condlint::test::sanitized_suite()) GTEST_SKIP() << condlint::test::kValidatorLeftToUnsanitized;
  if (browser().empty()) GTEST_SKIP() << "no chromium-headless-shell or chromium (scripts/install-deps.sh installs it)";
  const fs::path page = fresh_dir("width-probe") / "wide.html";
  write_file(page, "<!DOCTYPE html><html><body><table><tr><td style=\"white-space:nowrap\">" + std::string(400, 'x') +
                       "</td><td><div style=\"width:50px;overflow:hidden;white-space:nowrap\">" + std::string(40, 'y') +
                       "</div></td></tr></table></body></html>");
  const auto by_width = measure_widths(page, temp_dir("width-shots"));
  ASSERT_TRUE(by_width.count(1280));
  EXPECT_GT(by_width.at(1280).scroll_width, 1280);
  ASSERT_EQ(by_width.at(1280).clipped.size(), 1u);
  EXPECT_EQ(by_width.at(1280).clipped[0].rfind("div.", 0), 0u) << by_width.at(1280).clipped[0];
}

// The panels of a file follow the model: an If before the Ifs inside it, then before else, the graph's nodes in the
// loader's order (an ONNX exporter stores else_branch first, so the loader meets the else branch first); a legend of
// the notations heads them; long paths may break after each '/'.
TEST(HtmlWidth, PanelsFollowTheModelUnderALegend) {
  condlint::RunResult r;
  condlint::FileResult f;
  f.path = "models/deep/model.onnx";
  f.format = "onnx";
  for (const char* p : {"main/a", "main/a/else/x", "main/a/else/x/then/z", "main/a/then/y", "main/b"}) {
    condlint::ConditionalSummary c;
    c.name = "If";
    c.path = c.exec_path = p;
    f.conditionals.push_back(c);
  }
  r.files.push_back(f);
  std::ostringstream os;
  condlint::write_html(os, r);
  const std::string html = os.str();
  std::vector<size_t> at;
  for (const char* p : {"main/a", "main/a/then/y", "main/a/else/x", "main/a/else/x/then/z", "main/b"})
    at.push_back(html.find(std::string("data-path=\"") + p + "\""));
  for (size_t i = 0; i < at.size(); ++i) ASSERT_NE(at[i], std::string::npos) << i;
  for (size_t i = 1; i < at.size(); ++i) EXPECT_LT(at[i - 1], at[i]) << "panel " << i << " out of model order";
  const size_t legend = html.find("<dl class=\"legend\"");
  ASSERT_NE(legend, std::string::npos);
  EXPECT_LT(legend, at[0]);
  for (const char* notation : {"<code>[...]</code>", "<code>[] or ?</code>", "<code>unknown</code>", "<code>?</code>"})
    EXPECT_NE(html.find(notation, legend), std::string::npos) << notation;
  EXPECT_NE(html.find("main/<wbr>a/<wbr>else/<wbr>x/<wbr>then/<wbr>z"), std::string::npos);
  // No conditionals, no legend.
  r.files[0].conditionals.clear();
  std::ostringstream empty;
  condlint::write_html(empty, r);
  EXPECT_EQ(empty.str().find("<dl class=\"legend\""), std::string::npos);
}

}  // namespace
