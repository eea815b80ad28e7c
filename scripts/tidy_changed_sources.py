#!/usr/bin/env python3
"""Lists the translation units clang-tidy has to look at again since a commit: every source of
BUILD_DIR/compile_commands.json whose own file, or any project file it includes (ninja's
dependency log), changed between REV and the working tree. Prints one absolute path per line,
or the single word ALL when everything must be checked: REV is not in this clone's history,
or .clang-tidy itself changed.

Usage: scripts/tidy_changed_sources.py BUILD_DIR REV [REPO_DIR (default: this script's repo)]
Exit 2 with a message for a build directory without compile_commands.json or ninja's log.
"""
import json
import os
import subprocess
import sys


def fail(message):
    print("tidy_changed_sources: %s" % message, file=sys.stderr)
    sys.exit(2)


def changed_files(root, rev):
    """Absolute paths changed since rev (committed or not), or None when rev is unknown."""
    known = subprocess.run(["git", "-C", root, "cat-file", "-e", rev + "^{commit}"],
                           capture_output=True)
    if known.returncode != 0:
        return None
    listed = subprocess.run(["git", "-C", root, "diff", "--name-only", rev, "--"],
                            capture_output=True, text=True, check=True)
    return {os.path.join(root, line) for line in listed.stdout.splitlines() if line}


def dependencies(build_dir):
    """Object -> the files it was compiled from (source first), from ninja's log. Ninja prints
    them relative to the build directory (CMake's `../core/x.cc`), not to this process's."""
    log = subprocess.run(["ninja", "-C", build_dir, "-t", "deps"], capture_output=True,
                         text=True)
    if log.returncode != 0:
        fail("no ninja dependency log in %s (build it first): %s" % (build_dir, log.stderr))
    deps, current = {}, None
    for line in log.stdout.splitlines():
        if line and not line[0].isspace():
            current = deps.setdefault(line.split(":")[0], [])
        elif line.strip() and current is not None:
            current.append(os.path.realpath(os.path.join(build_dir, line.strip())))
    return deps


def main(build_dir, rev, root):
    root = os.path.realpath(root)
    commands = os.path.join(build_dir, "compile_commands.json")
    if not os.path.isfile(commands):
        fail("no %s; configure and build first" % commands)
    changed = changed_files(root, rev)
    if changed is None or os.path.join(root, ".clang-tidy") in changed:
        print("ALL")
        return
    with open(commands) as f:
        sources = {os.path.realpath(entry["file"]) for entry in json.load(f)}
    selected = set()
    for files in dependencies(build_dir).values():
        if files and files[0] in sources and any(path in changed for path in files):
            selected.add(files[0])
    for path in sorted(selected):
        print(path)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        fail("usage: tidy_changed_sources.py BUILD_DIR REV [REPO_DIR]")
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else here)
