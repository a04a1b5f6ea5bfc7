"""Shared test set-up: headless matplotlib, the two builds the chapter and site tests read, and
process helpers for the tests that signal a render or a build."""
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(autouse=True)
def _close_figures():
    """Every test starts without the figures earlier tests left open."""
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")

ROOT = Path(__file__).resolve().parent.parent
BUILD_SCRIPT = ROOT / "scripts" / "build_book.py"


def toc_chapters():
    """Names of the chapter notebooks listed in _toc.yml, in reading order (as the build finds them)."""
    spec = importlib.util.spec_from_file_location("build_book", BUILD_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [path.stem for path in module.toc_notebooks()]


def run_build(*args, root=ROOT):
    """Run the site build script of the tree at `root`; return the CompletedProcess."""
    return subprocess.run([sys.executable, str(root / "scripts" / "build_book.py"), *args],
                          cwd=root, capture_output=True, text=True)


def descendants(pid):
    """PIDs of every process below process `pid` (Linux /proc)."""
    found, queue = [], [pid]
    while queue:
        parent = queue.pop()
        for task in os.listdir(f"/proc/{parent}/task"):
            with open(f"/proc/{parent}/task/{task}/children") as fh:
                children = [int(c) for c in fh.read().split()]
            found += children
            queue += children
    return found


def running(pid):
    """True while process `pid` exists and has not exited (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.fixture(scope="session")
def chapter_run():
    """Every chapter executed from scratch, headless, by the build's nbclient runner."""
    result = run_build("--force", "--no-site")
    assert result.returncode == 0, f"chapter execution failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="session")
def site_run(chapter_run):
    """The site built right after `chapter_run`: a build of an unchanged tree."""
    result = run_build()
    assert result.returncode == 0, f"site build failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="session")
def site_dir(site_run):
    return ROOT / "_build" / "html"
