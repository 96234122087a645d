"""`make run` on a fresh Debian machine, the first time (README, Quick start).

The Makefile lists llhttp's C sources (Debian's node-llhttp, /usr/share/llhttp) when it is read.
On a fresh machine they are not there yet: `deps` installs them, after the listing. A Makefile
that then links in the same make links without llhttp (`undefined reference to llhttp_init`);
the second `make run` worked, so nobody who had run it once saw it, and CI (which installs
packages before make) never did.

The fresh machine, simulated: a copy of the tree whose Makefile reads llhttp from an empty
directory, and whose deps step is a stand-in for apt-get that only then copies llhttp's
sources there. Nothing else of the Makefile changes. `make run ARGS=--version` must build and
start the daemon in one go.
"""

import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LLHTTP = "/usr/share/llhttp"


def tracked_files():
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=REPO, capture_output=True, check=True).stdout
    return [f for f in out.decode().split("\0") if f]


def test_first_make_run_builds_and_starts(tmp_path):
    assert os.path.isdir(LLHTTP), "node-llhttp is not installed (make deps)"
    tree = tmp_path / "tree"
    for f in tracked_files():
        src = REPO / f
        if src.is_file():
            (tree / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, tree / f)
    fresh = tmp_path / "llhttp"   # empty, as on a machine where node-llhttp is not installed
    fresh.mkdir()
    makefile = (tree / "Makefile").read_text()
    assert LLHTTP in makefile and "scripts/install-deps" in makefile
    install = f"cp {LLHTTP}/*.c {fresh}/"  # what apt-get would do, at the same point
    (tree / "Makefile").write_text(makefile.replace(LLHTTP + "\n", f"{fresh}\n")
                                   .replace("scripts/install-deps", install))
    p = subprocess.run(["make", "-j2", "run", "ARGS=--version"], cwd=tree, capture_output=True,
                       text=True, timeout=1200)
    assert p.returncode == 0, f"first `make run` failed:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    assert "llhttp_init" not in p.stderr
    assert any(f.endswith(".c") for f in os.listdir(fresh)), "the stand-in install did not run"
    assert "0.1.0" in p.stdout + p.stderr, p.stdout[-500:]
