#!/usr/bin/env python3
"""Guides C++/CUDA function length: lists functions over a guide, fails far above it.

Scans the tracked sources (git ls-files '*.cc' '*.h' '*.cu' '*.cuh') outside tests/.
A function's length counts from the first line of its signature to its closing
brace; lambdas and local classes count toward the function that holds them.
Bodies are found by brace matching after comments, strings and preprocessor
lines are blanked out.

Two thresholds. The guide (default 60 lines) is where a function is worth a second
look: it is listed as "guide:", and the check still passes. The limit (default 120
lines, twice the guide) fails the check. A hard cap at 60 made people split functions
at arbitrary lines to pass it (satellite helpers with one caller, state threaded
through parameters), which hurts reading more than a 70-line function that does one
thing; at 120 lines a function no longer fits on two screens, and nothing in this
repository comes near it. Exits 1 when a function is over the limit, listing each as
file:line name (length); 2 on bad arguments; 0 otherwise.
"""

import argparse
import re
import subprocess
import sys
from pathlib import Path

# Keywords whose brace block is not a function body.
NON_FUNCTION_HEADS = re.compile(
    r"\b(namespace|class|struct|union|enum|if|else|for|while|do|switch|try|catch)\b")
# Text just before '{' that opens a function body: ')' possibly followed by
# qualifiers, a trailing return type or a constructor's member initializers.
SIGNATURE_END = re.compile(
    r"\)\s*(const|noexcept|override|final|mutable|volatile|&|&&|\s|->[^;{}]*"
    r"|noexcept\([^)]*\))*$")
CODE_TOKEN = re.compile(
    r'//[^\n]*|/\*.*?\*/|R"([^(]*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"'
    r"|'(?:\\.|[^'\\\n])*'",
    re.S)


def blank(match):
    """Replaces a comment or literal by spaces, keeping its newlines."""
    return re.sub(r"[^\n]", " ", match.group(0))


def strip_code(text):
    """Blanks comments, string/char literals and preprocessor lines."""
    text = CODE_TOKEN.sub(blank, text)
    lines = text.split("\n")
    in_directive = False
    for i, line in enumerate(lines):
        if in_directive or line.lstrip().startswith("#"):
            in_directive = line.rstrip().endswith("\\")
            lines[i] = ""
    return "\n".join(lines)


def matching_brace(code, open_pos):
    """Index of the '}' that closes the '{' at open_pos."""
    depth = 0
    for pos in range(open_pos, len(code)):
        if code[pos] == "{":
            depth += 1
        elif code[pos] == "}":
            depth -= 1
            if depth == 0:
                return pos
    return len(code) - 1


def body_end(code, open_pos):
    """Closing brace of a body; skips braced member initializers ('b_{y}, c_{z} {')."""
    close = matching_brace(code, open_pos)
    while True:
        rest = code[close + 1:].lstrip()
        if not rest or rest[0] not in ",{":
            return close
        close = matching_brace(code, code.find("{", close + 1))


def head_before(code, open_pos):
    """The statement text between the previous ';', '{' or '}' and open_pos."""
    start = max(code.rfind(c, 0, open_pos) for c in ";{}") + 1
    return start, code[start:open_pos]


def strip_initializers(head):
    """Drops a constructor's member-initializer list (': a_(x), b_{y}')."""
    depth = 0
    for pos, char in enumerate(head):
        if char in "([<":
            depth += 1
        elif char in ")]>":
            depth -= 1
        elif char == ":" and depth == 0 and head[pos:pos + 2] != "::" \
                and head[pos - 1:pos + 1] != "::":
            return head[:pos]
    return head


def function_name(head):
    """The name before the parameter list of a signature, or None."""
    head = strip_initializers(head).rstrip()
    if not SIGNATURE_END.search(head) or NON_FUNCTION_HEADS.search(head.split("(")[0]):
        return None
    depth = 0
    for pos in range(len(head) - 1, -1, -1):
        if head[pos] == ")":
            depth += 1
        elif head[pos] == "(":
            depth -= 1
            if depth == 0:
                match = re.search(r"([~\w:<>]+|operator\s*\S+)\s*$", head[:pos])
                if match and not head[:pos].rstrip().endswith("]"):
                    return match.group(1)
                return None
    return None


def functions(path):
    """Yields (name, first line, length) for each top-level function body."""
    code = strip_code(path.read_text(encoding="utf-8"))
    pos = 0
    while True:
        open_pos = code.find("{", pos)
        if open_pos < 0:
            return
        start, head = head_before(code, open_pos)
        name = function_name(head)
        if name is None:
            pos = open_pos + 1
            continue
        close = body_end(code, open_pos)
        first = start + len(head) - len(head.lstrip())
        first_line = code.count("\n", 0, first) + 1
        yield name, first_line, code.count("\n", first, close) + 1
        pos = close + 1


def sources(root):
    """Tracked C++/CUDA files outside tests/."""
    listed = subprocess.run(
        ["git", "ls-files", "*.cc", "*.h", "*.cu", "*.cuh"],
        cwd=root, check=True, capture_output=True, text=True).stdout.split()
    return [root / f for f in listed if not f.startswith("tests/")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-lines", type=int, default=120,
                        help="fail above this many lines (default 120)")
    parser.add_argument("--guide-lines", type=int, default=60,
                        help="list functions above this many lines as a guide (default 60)")
    parser.add_argument("--all", action="store_true",
                        help="list every function with its length, longest first")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="git work tree to scan (default: this repository)")
    args = parser.parse_args()
    for flag, value in (("--max-lines", args.max_lines), ("--guide-lines", args.guide_lines)):
        if value < 1:
            parser.error(f"{flag} {value}, expected an integer >= 1")
    root = args.root.resolve()
    found = [(length, path.relative_to(root), line, name)
             for path in sources(root) for name, line, length in functions(path)]
    found.sort(key=lambda f: (-f[0], str(f[1]), f[2]))
    for length, path, line, name in found:
        if args.all or length > args.max_lines:
            print(f"{path}:{line} {name} ({length} lines)")
        elif length > args.guide_lines:
            print(f"guide: {path}:{line} {name} ({length} lines)")
    too_long = sum(1 for f in found if f[0] > args.max_lines)
    if too_long:
        print(f"check_function_length: {too_long} function(s) over {args.max_lines} lines",
              file=sys.stderr)
        return 1
    print(f"check_function_length: all {len(found)} functions within {args.max_lines} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
