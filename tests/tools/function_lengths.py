#!/usr/bin/env python3
"""Fails when a function body in the given C++ files is longer than the limit.

A function's length is the number of lines from the line of its opening brace to the line of its closing brace.
Bodies are found by brace matching on the text with comments, string and character literals and preprocessor
lines blanked out (their braces do not count). A brace at namespace or class scope opens a function body when the
text before it (back to the previous ';', '{' or '}') holds a parameter list and is not an initializer (`x = {`);
a lambda assigned at namespace scope counts as a function too. Braces inside a body (blocks, lambdas, nested
classes) belong to the function that holds them.

usage: function_lengths.py [--max N] FILE.cpp...    exit 0: every function within the limit, 1: some are longer
       function_lengths.py --self-test              checks the measurement on small examples
"""
import re
import sys

DEFAULT_MAX = 120
KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof", "noexcept"}


def matching_brace(t, i):
    """The index of the brace that closes the one at t[i] (len(t) when none does)."""
    d, j = 0, i
    while j < len(t):
        if t[j] == "{":
            d += 1
        elif t[j] == "}":
            d -= 1
            if d == 0:
                break
        j += 1
    return j

def blank(text):
    """The text with comments, literals and preprocessor lines replaced by spaces (newlines kept)."""
    out = list(text)
    n = len(text)
    i = 0
    line_start = True

    def wipe(a, b):
        for j in range(a, b):
            if out[j] != "\n":
                out[j] = " "

    while i < n:
        c = text[i]
        if line_start and c == "#":
            j = i
            while j < n and text[j] != "\n":
                j += 2 if text[j] == "\\" and j + 1 < n else 1
            wipe(i, j)
            i = j
            continue
        if c == "\n":
            line_start = True
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            wipe(i, j)
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^()\\ ]{0,16})\(', text[i:])
            if not m:
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i + m.end())
            end = n if end < 0 else end + len(m.group(1)) + 2
            wipe(i, end)
            i = end
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):  # 250'000 is a digit separator
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            wipe(i, min(j + 1, n))
            i = j + 1
        else:
            i += 1
    return "".join(out)


def depth0(header):
    """The header with everything inside parentheses, brackets and angle-free nesting removed."""
    out, d = [], 0
    for c in header:
        if c in "([":
            d += 1
        elif c in ")]":
            d -= 1
        elif d == 0:
            out.append(c)
    return "".join(out)


def kind_of(header):
    """What a brace at namespace or class scope opens: 'function', 'scope' (namespace, class) or 'other'."""
    h = " ".join(header.split())
    top = depth0(h)
    if re.search(r"\b(namespace|extern)\b", top) and "(" not in h:
        return "scope"
    if "=" in top.replace("==", "").replace("!=", "").replace("<=", "").replace(">=", "").replace("operator=", ""):
        # an initializer: a lambda's body is a function, anything else (a table, an aggregate) is data
        return "function" if re.search(r"\[[^\]]*\]\s*(\([^)]*\))?[^=]*$", h) else "other"
    if re.search(r"\b(class|struct|union|enum)\b", top):
        return "scope"
    m = re.search(r"([A-Za-z_~][\w:~<>]*|operator\s*\S+)\s*\(", h)
    if m and m.group(1) not in KEYWORDS:
        return "function"
    return "other"


def function_name(header):
    h = " ".join(header.split())
    lam = re.match(r"(.*?)([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*=\s*\[", h)
    if lam:  # a lambda: the name it is assigned to
        return lam.group(2)
    m = re.search(r"(operator\s*[^\s(]+|[A-Za-z_~][\w:~]*)\s*(<[^()]*>)?\s*\(", h)
    return m.group(1) if m else h[-40:]


def functions(text):
    """(name, first line, line count) of every function body in the text."""
    t = blank(text)
    found = []
    stack = []  # kinds of the open braces at namespace or class scope
    header_start = 0
    i, n = 0, len(t)
    while i < n:
        c = t[i]
        if c in ";}":
            if c == "}" and stack:
                stack.pop()
            header_start = i + 1
        elif c == "{":
            header = t[header_start:i]
            kind = kind_of(header)
            if kind == "function":
                j = matching_brace(t, i)
                first = t.count("\n", 0, i) + 1
                last = t.count("\n", 0, j) + 1
                found.append((function_name(header), first, last - first + 1))
                i = j
                header_start = i + 1
            elif kind == "scope":
                stack.append(kind)
                header_start = i + 1
            else:  # data braces: skip to the matching one
                j = matching_brace(t, i)
                i = j
        i += 1
    return found


def self_test():
    def body(lines):
        return "int f(int x) {\n" + "  x++;\n" * (lines - 2) + "}\n"

    cases = [
        (body(120), [("f", 1, 120)]),
        (body(121), [("f", 1, 121)]),
        ('namespace a {\nstruct S {\n  int g() const {\n    return 1;\n  }\n};\n}\n', [("g", 3, 3)]),
        ('void h() {\n  const char* s = "}}}";\n  // }\n  char c = \'{\';\n}\n', [("h", 1, 5)]),
        ("const int kT[] = {1, 2};\nvoid k() {\n  if (1) {\n  }\n}\n", [("k", 2, 4)]),
        ("const auto kL = [](int a) {\n  return a;\n};\n", [("kL", 1, 3)]),
        ("constexpr int kN = 250'000;\nvoid m() {\n}\n", [("m", 2, 2)]),
        ('auto s = R"x(}{)x";\nvoid r() {\n}\n', [("r", 2, 2)]),
    ]
    ok = True
    for text, want in cases:
        got = functions(text)
        if got != want:
            print(f"self-test: {text!r}: measured {got}, want {want}")
            ok = False
    if over(functions(body(121)), 120) != 1 or over(functions(body(120)), 120) != 0:
        print("self-test: the limit of 120 lines is not applied as 'more than 120 fails'")
        ok = False
    print("self-test: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


def over(found, limit):
    return sum(1 for _, _, count in found if count > limit)


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    limit = DEFAULT_MAX
    if len(argv) >= 2 and argv[0] == "--max":
        limit = int(argv[1])
        argv = argv[2:]
    if not argv:
        print(__doc__)
        return 2
    bad = 0
    longest = (0, "")
    for path in argv:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for name, line, count in functions(text):
            if count > longest[0]:
                longest = (count, f"{path}:{line}: {name}")
            if count > limit:
                print(f"{path}:{line}: function {name} is {count} lines long (limit {limit})")
                bad += 1
    print(f"{len(argv)} files, longest function {longest[0]} lines ({longest[1]}); {bad} over {limit}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
