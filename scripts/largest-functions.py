#!/usr/bin/env python3
"""The largest functions in a C++ tree, by lines from the name to the closing brace.

    python3 scripts/largest-functions.py              # the 15 largest in src/
    python3 scripts/largest-functions.py --most 30 src/memory
    python3 scripts/largest-functions.py --rev main   # the same at a git revision

How it finds a function: comments, string and character literals (raw strings too) are
blanked out, then braces are matched. A `{` opened at namespace or class scope whose text
since the last `;`, `{` or `}` ends in `)` plus qualifiers (`const`, `noexcept`, `override`,
`-> T`, a constructor's initialiser list) is a function body; everything inside it, lambdas
included, counts toward that function. Lambdas assigned at namespace scope and macro bodies
are not counted. It is a measuring stick for the closing notes of clean-ups, not a parser:
a figure is right to a line or two.
"""

import argparse
import os
import re
import subprocess
import sys

CONTROL = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignas"}
QUALIFIERS = re.compile(
    r"\)\s*(?:(?:const|volatile|noexcept(?:\s*\([^)]*\))?|override|final|mutable|&&|&)\s*)*"
    r"(?:->\s*[\w:<>,\s*&]+)?\s*$")


def blank_literals(text):
    """Returns text with comments and literals replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i + m.end())
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def function_name(head):
    """The name before the first top-level parenthesis of a signature, or None."""
    depth = 0
    for k, ch in enumerate(head):
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif ch == "(" and depth == 0:
            m = re.search(r"([~\w:]+(?:operator\s*[^\s(]+)?)\s*$", head[:k])
            if not m:
                return None
            name = m.group(1)
            return None if name.split("::")[-1] in CONTROL else name
    return None


def split_init_list(head):
    """For `Ctor(args) : a_(x), b_{y}`, the part before ` : `; else head."""
    depth = 0
    for k, ch in enumerate(head):
        if ch in "(<[":
            depth += 1
        elif ch in ")>]":
            depth -= 1
        elif ch == ":" and depth == 0 and head[k - 1:k] != ":" and head[k + 1:k + 2] != ":":
            return head[:k].rstrip(), True
    return head, False


def functions(path, text):
    src = blank_literals(text)
    src = re.sub(r"(?m)^[ \t]*#.*(?:\\\n.*)*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), src)
    found = []
    stack = []  # "scope" (namespace/class/extern), "function", "other"
    head_start = 0
    i, n = 0, len(src)
    while i < n:
        ch = src[i]
        if ch in ";}":
            if ch == "}" and stack:
                kind = stack.pop()
                if kind[0] == "function":
                    _, name, start = kind
                    found.append((src.count("\n", start, i) + 1, name, path, src.count("\n", 0, start) + 1))
            head_start = i + 1
        elif ch == "{":
            inside = any(k[0] != "scope" for k in stack)
            head = src[head_start:i]
            flat = " ".join(head.split())
            if inside:
                stack.append(("other",))
            elif re.search(r"\b(namespace|class|struct|union|enum)\b", flat) and "(" not in flat.split("{")[0] \
                    or flat.startswith('extern ""'):
                stack.append(("scope",))
            else:
                signature, has_init = split_init_list(flat)
                if has_init and not re.search(r"\)\s*$", flat):
                    # a brace initialiser inside a constructor's initialiser list: skip it
                    depth, j = 1, i + 1
                    while j < n and depth:
                        depth += {"{": 1, "}": -1}.get(src[j], 0)
                        j += 1
                    i = j
                    continue
                name = function_name(signature) if QUALIFIERS.search(signature) and "=" not in signature.split("(")[0] else None
                if name:
                    offset = head.find(name.split("::")[0]) if name else 0
                    stack.append(("function", name, head_start + max(offset, 0)))
                else:
                    stack.append(("other",))
            head_start = i + 1
        i += 1
    return found


def sources(root, rev):
    if rev:
        names = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "--", root],
                               capture_output=True, text=True, check=True).stdout.split()
        for name in names:
            if name.endswith((".cpp", ".h", ".cc", ".hpp")):
                yield name, subprocess.run(["git", "show", f"{rev}:{name}"], capture_output=True,
                                           text=True, check=True).stdout
        return
    for folder, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith((".cpp", ".h", ".cc", ".hpp")):
                p = os.path.join(folder, f)
                with open(p, encoding="utf-8", errors="replace") as fh:
                    yield p, fh.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", nargs="?", default="src")
    ap.add_argument("--most", type=int, default=15)
    ap.add_argument("--rev", help="read the files at this git revision instead of the work tree")
    args = ap.parse_args()
    rows = []
    for path, text in sources(args.root, args.rev):
        rows.extend(functions(path, text))
    rows.sort(key=lambda r: (-r[0], r[2], r[3]))
    for lines, name, path, line in rows[:args.most]:
        print(f"{lines:5d}  {name}  {path}:{line}")
    total = sum(r[0] for r in rows)
    print(f"{len(rows)} functions, {total} lines in them", file=sys.stderr)


if __name__ == "__main__":
    main()
