"""The compopt command lines a Markdown document shows, one per output line.

Read from fenced code blocks (a line, with its backslash continuations, that starts
`compopt` or `build/experiments/compopt`, after an optional `$ ` prompt) and from inline
code (a backtick span of a paragraph or table, its line breaks read as blanks). Only the
subcommands given with --subcommands are kept (default: profile, sweep, train, validate).

Not command lines, so left out: a bare subcommand name (`compopt sweep`), and templates,
which hold `...`, an option group in brackets (`[--set key=value]`), a placeholder in
capitals (CONFIG, FILE, RUN_DIR, CONFIG.toml) or in angle brackets (<new>), or a shell
variable ($C). A template that should run is written out in
full instead.

    doc_commands.py [--subcommands a,b] DOC.md...
"""

import argparse
import re
import sys

PREFIXES = ("build/experiments/compopt ", "compopt ")
DEFAULT_SUBCOMMANDS = ("profile", "sweep", "train", "validate")
PLACEHOLDER = re.compile(r"^[A-Z][A-Z_]*(\.[a-z]+)?$")
INLINE_CODE = re.compile(r"`([^`]+)`")


def is_template(command):
    """True for a command that only shows a form: `...`, [--options], PLACEHOLDERS (also
    optional ones, [CONFIG.toml])."""
    if any(mark in command for mark in ("...", "[-", "<", "$")):
        return True
    return any(PLACEHOLDER.match(token.strip("[]")) for token in re.split(r"[\s=]+", command))


def subcommand_of(command):
    """The subcommand of a compopt command line, or None when it is none."""
    for prefix in PREFIXES:
        if command.startswith(prefix):
            words = command[len(prefix):].split()
            return words[0] if words else None
    return None


def fenced_lines(text):
    """The lines of fenced code blocks, continuations joined; and the text outside."""
    commands, outside, fence, pending = [], [], None, ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```") or stripped.startswith("~~~"):
            marker = stripped[:3]
            fence = None if fence == marker else (fence or marker)
            outside.append("")
            continue
        if fence is None:
            outside.append(line)
            continue
        outside.append("")
        pending += stripped[:-1].rstrip() + " " if stripped.endswith("\\") else stripped
        if not stripped.endswith("\\"):
            commands.append(pending.removeprefix("$ ").strip())
            pending = ""
    return commands, "\n".join(outside)


def inline_spans(text):
    """The backtick spans of each paragraph (blank-line separated), blanks normalized."""
    spans = []
    for paragraph in re.split(r"\n\s*\n", text):
        joined = " ".join(line.strip() for line in paragraph.splitlines())
        spans.extend(" ".join(span.split()) for span in INLINE_CODE.findall(joined))
    return spans


def doc_commands(text, subcommands):
    """The runnable command lines of one document, in order, without duplicates."""
    fenced, outside = fenced_lines(text)
    out = []
    for command in fenced + inline_spans(outside):
        sub = subcommand_of(command)
        if sub not in subcommands or len(command.split()) == 2:
            continue  # another subcommand, or a bare name such as `compopt sweep`
        if not is_template(command) and command not in out:
            out.append(command)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subcommands", default=",".join(DEFAULT_SUBCOMMANDS))
    parser.add_argument("docs", nargs="+")
    args = parser.parse_args()
    subcommands = set(args.subcommands.split(","))
    for path in args.docs:
        with open(path, encoding="utf-8") as f:
            for command in doc_commands(f.read(), subcommands):
                print(command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
