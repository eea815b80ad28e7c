"""scripts/tidy_changed_sources.py on a two-source project built by ninja: a changed header
selects exactly the source that includes it, a changed source itself, an unknown revision or a
changed .clang-tidy everything (ALL); a build directory without compile_commands.json exits 2.
The build directory sits in the repository and names its sources relative to itself
(`../a.cc`), as CMake's does, and the script runs from the repository root, as CI runs it."""
import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "tidy_changed_sources.py")

pytestmark = pytest.mark.skipif(not shutil.which("ninja") or not shutil.which("g++"),
                                reason="needs ninja and g++")

BUILD_NINJA = """rule cxx
  command = g++ -MD -MF $out.d -c $in -o $out
  depfile = $out.d
  deps = gcc
build a.o: cxx ../a.cc
build b.o: cxx ../b.cc
"""


def git(repo, *args):
    subprocess.run(["git", "-C", str(repo)] + list(args), check=True, capture_output=True)


@pytest.fixture
def project(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "shared.h").write_text("inline int shared() { return 1; }\n")
    (repo / "a.cc").write_text('#include "shared.h"\nint a() { return shared(); }\n')
    (repo / "b.cc").write_text("int b() { return 2; }\n")
    (repo / ".clang-tidy").write_text("Checks: '-*'\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")
    build = repo / "build"  # as CI's: in the repository, untracked
    build.mkdir()
    (build / "build.ninja").write_text(BUILD_NINJA)
    subprocess.run(["ninja", "-C", str(build)], check=True, capture_output=True)
    (build / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(build), "command": "g++ -c", "file": str(repo / name)}
         for name in ("a.cc", "b.cc")]))
    return repo, build


def run(build, rev, repo):
    return subprocess.run([sys.executable, SCRIPT, str(build), rev, str(repo)],
                          capture_output=True, text=True, timeout=60, cwd=str(repo))


def test_nothing_changed_selects_nothing(project):
    repo, build = project
    result = run(build, "HEAD", repo)
    assert result.returncode == 0 and result.stdout == ""


def test_a_changed_header_selects_its_includer_only(project):
    repo, build = project
    (repo / "shared.h").write_text("inline int shared() { return 3; }\n")
    assert run(build, "HEAD", repo).stdout.split() == [os.path.realpath(repo / "a.cc")]


def test_a_changed_source_selects_itself(project):
    repo, build = project
    (repo / "b.cc").write_text("int b() { return 4; }\n")
    assert run(build, "HEAD", repo).stdout.split() == [os.path.realpath(repo / "b.cc")]


def test_unknown_revision_or_changed_config_selects_all(project):
    repo, build = project
    assert run(build, "0123456789abcdef0123456789abcdef01234567", repo).stdout == "ALL\n"
    (repo / ".clang-tidy").write_text("Checks: 'bugprone-*'\n")
    assert run(build, "HEAD", repo).stdout == "ALL\n"


def test_missing_compile_commands_exits_2(project, tmp_path):
    repo, _ = project
    result = run(tmp_path, "HEAD", repo)
    assert result.returncode == 2
    assert "compile_commands.json" in result.stderr
