"""The layer check (scripts/check-layers, docs/hacking.md "The map") holds on this tree, and fails
on a tree that breaks the map: an include pointing the wrong way, a folder the map does not name,
and a circle of calls between object files.

The broken trees are small copies of the source folders with one change each, so each failure
is the check's answer to that change alone.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHECK = REPO / "scripts" / "check-layers"


def run(*args):
    return subprocess.run([sys.executable, str(CHECK), *args], capture_output=True, text=True)


def copy_sources(tmp_path):
    tree = tmp_path / "tree"
    for folder in ("protocol", "rules", "server"):
        shutil.copytree(REPO / folder, tree / folder)
    return tree


def test_this_tree_keeps_the_map():
    r = run()
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 pointing the wrong way" in r.stdout


WRONG_WAY = [
    # (file, include added at its top, what the check must say)
    ("rules/ruleset.h", "server/core/log.h",
     "rules/ruleset.h includes server/core/log.h: server/core/ (rank 4) is not below rules/ (rank 1)"),
    ("server/store/writer.c", "server/api/api.h",
     "server/store/writer.c includes server/api/api.h"),
    ("rules/vis_magica/morale.c", "rules/horse_and_musket/hm.h",
     "rules/vis_magica/morale.c includes rules/horse_and_musket/hm.h"),
    ("server/http/http_server.c", "server/audit/chain.h",
     "server/http/http_server.c includes server/audit/chain.h"),
    ("protocol/jcs.c", "rules/ruleset.h", "protocol/jcs.c includes rules/ruleset.h"),
]


@pytest.mark.parametrize("path,include,message", WRONG_WAY)
def test_an_include_pointing_the_wrong_way_fails(tmp_path, path, include, message):
    """Rules including the server, a lower server layer including a higher one, one ruleset
    including another, two folders of the same rank, the protocol including the rules."""
    tree = copy_sources(tmp_path)
    source = tree / path
    source.write_text(f'#include "{include}"\n' + source.read_text())
    r = run("--top", str(tree))
    assert r.returncode == 1
    assert message in r.stdout
    assert "1 pointing the wrong way" in r.stdout


def test_a_folder_off_the_map_fails(tmp_path):
    tree = copy_sources(tmp_path)
    (tree / "server" / "misc").mkdir()
    (tree / "server" / "misc" / "helper.c").write_text("int helper(void) { return 1; }\n")
    r = run("--top", str(tree))
    assert r.returncode == 1
    assert "server/misc/helper.c: its folder is not on the map" in r.stdout


def test_a_circle_of_calls_fails(tmp_path):
    """Two object files that call each other: an include graph cannot see it, nm can."""
    tree = tmp_path / "tree"
    core = tree / "server" / "core"
    core.mkdir(parents=True)
    (core / "a.c").write_text("int b(int);\nint a(int n) { return n ? b(n - 1) : 0; }\n")
    (core / "b.c").write_text("int a(int);\nint b(int n) { return n ? a(n - 1) : 1; }\n")
    (core / "c.c").write_text("int a(int);\nint c(void) { return a(3); }\n")
    objs = tmp_path / "obj" / "server" / "core"
    objs.mkdir(parents=True)
    for name in ("a", "b", "c"):
        subprocess.run(["cc", "-c", str(core / f"{name}.c"), "-o", str(objs / f"{name}.o")],
                       check=True)
    r = run("--top", str(tree), "--objects", str(tmp_path / "obj"))
    assert r.returncode == 1
    assert "call circle: server/core/a <-> server/core/b" in r.stdout
    assert "1 circle" in r.stdout and "1 circles" not in r.stdout
    # Without the circle (b no longer calls a), the same tree passes.
    (core / "b.c").write_text("int b(int n) { return n; }\n")
    subprocess.run(["cc", "-c", str(core / "b.c"), "-o", str(objs / "b.o")], check=True)
    r = run("--top", str(tree), "--objects", str(tmp_path / "obj"))
    assert r.returncode == 0, r.stdout
