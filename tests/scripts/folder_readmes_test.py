"""Every folder of experiments/, sim/ and data/ opens with a README, and the READMEs match the
tree: each source file a README names (as `name`, `name.h`, `name.cc`, `name.sh`, `name.py`)
exists in its folder or where the path says, and every C++ source of an experiments/ library
folder is named in its README (subcommands and studies are named by pattern)."""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FOLDERS = sorted([p for p in (ROOT / "experiments").iterdir() if p.is_dir()]
                 + [ROOT / "experiments", ROOT / "sim", ROOT / "sim" / "backend", ROOT / "data"],
                 key=str)
# Library folders whose every C++ source the README names; a pattern the README states
# stands for a family (one file per subcommand, one per study).
LIBRARIES = {"cli": r"_command\.cc$|^compopt_main\.cc$", "scenario": None, "train": None,
             "launch": None, "run_directory": None, "reproduce": r"^study_"}
CODE = re.compile(r"`([A-Za-z0-9_./<>*-]+)`")


def names(readme):
    return {m.group(1) for m in CODE.finditer(readme.read_text(encoding="utf-8"))}


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_folder_has_a_readme_naming_files_that_exist(folder):
    readme = folder / "README.md"
    assert readme.is_file(), "%s has no README.md" % folder.relative_to(ROOT)
    stems = {p.name.split(".")[0] for p in folder.rglob("*")}
    for name in names(readme):
        if "<" in name or "*" in name or not re.fullmatch(r"[\w./-]+", name):
            continue  # a pattern or a command, not a file
        if name.startswith("compopt_") and "." not in name:
            continue  # a CMake target
        if "/" in name:
            assert any((base / name).exists() for base in (ROOT, folder, folder.parent)), \
                "%s names %s, which does not exist" % (readme.relative_to(ROOT), name)
        elif re.fullmatch(r"[a-z0-9_]+(\.(h|cc|sh|py|in|cmake))?", name) and "_" in name:
            assert name.split(".")[0] in stems, \
                "%s names %s, not in %s" % (readme.relative_to(ROOT), name,
                                            folder.relative_to(ROOT))


@pytest.mark.parametrize("folder", sorted(LIBRARIES))
def test_library_readme_names_every_source(folder):
    path = ROOT / "experiments" / folder
    text = (path / "README.md").read_text(encoding="utf-8")
    family = LIBRARIES[folder]
    for source in sorted(path.glob("*.cc")) + sorted(path.glob("*.h")):
        if family and re.search(family, source.name):
            continue
        stem = source.name.split(".")[0]
        assert re.search(r"`%s(\.(h|cc))?`" % re.escape(stem), text), \
            "experiments/%s/README.md does not name %s" % (folder, source.name)
