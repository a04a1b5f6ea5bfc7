"""Shared test set-up: headless matplotlib, the two builds the chapter and site tests read (each run
once per test session, however many xdist workers share it), and process helpers for the tests that
signal a render or a build."""
import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

ROOT = Path(__file__).resolve().parent.parent
BUILD_SCRIPT = ROOT / "scripts" / "build_book.py"
sys.path.insert(0, str(ROOT / "scripts"))
from bookbuild.chapters import toc_notebooks  # noqa: E402
from bookbuild.tree import Tree  # noqa: E402

# the browser tests are grouped by the page they read (`--dist loadgroup`): one worker loads a page
# once and runs every read-only check of it (test_site.LoadedPages), and the pages spread over workers
SITE_MODULES = {"test_site", "test_site_cloth"}


@pytest.fixture(autouse=True)
def _close_figures():
    """Every test starts without the figures earlier tests left open."""
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


def site_page(item):
    """(page, width) a browser test reads: its xdist group and its place in the order of the site tests."""
    params = item.callspec.params if hasattr(item, "callspec") else {}
    width = params.get("width", 1280)
    if item.module.__name__ == "test_site_cloth":
        return "book/015_cloth.html (view)", width
    if "chapter" in params:
        return f"book/{params['chapter']}.html", width
    if "path" in params:
        return params["path"], width
    if "search_box" in item.name:
        return f"book/{toc_chapters()[0]}.html", width
    return "site", width


# first: xdist's own hook turns the xdist_group marks into node ids right after, and it runs before a
# conftest's plain hook (registered later, called earlier: the groups would be missed)
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    site = [i for i, item in enumerate(items) if item.module.__name__ in SITE_MODULES]
    for i in site:
        items[i].add_marker(pytest.mark.xdist_group(f"site:{site_page(items[i])[0]}"))
    # a page's checks one after another, at one width then the other: each page is loaded once per width
    ordered = sorted((items[i] for i in site), key=lambda item: (site_page(item)[0], -site_page(item)[1]))
    for i, item in zip(site, ordered):
        items[i] = item


def toc_chapters():
    """Names of the chapter notebooks listed in _toc.yml, in reading order (as the build finds them)."""
    return [path.stem for path in toc_notebooks(Tree(ROOT))]


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


def once_per_session(name, tmp_path_factory, *args):
    """`run_build(*args)`, run by the first xdist worker that asks and reused by the others.

    The workers of one session share the parent of their temp folders: a lock there lets one
    worker build while the others wait, and a marker file hands them its outcome.
    """
    if "PYTEST_XDIST_WORKER" not in os.environ:   # no xdist: this process is the whole session
        return run_build(*args)
    shared = tmp_path_factory.getbasetemp().parent
    marker = shared / f"{name}.json"
    with open(shared / f"{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not marker.exists():
            result = run_build(*args)
            marker.write_text(json.dumps([result.args, result.returncode, result.stdout, result.stderr]))
        return subprocess.CompletedProcess(*json.loads(marker.read_text()))


@pytest.fixture(scope="session")
def chapter_run(tmp_path_factory):
    """Every chapter executed from scratch, headless, by the build's nbclient runner (once per session)."""
    result = once_per_session("chapter_run", tmp_path_factory, "--force", "--no-site")
    assert result.returncode == 0, f"chapter execution failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="session")
def site_run(chapter_run, tmp_path_factory):
    """The site built right after `chapter_run`: a build of an unchanged tree (once per session)."""
    result = once_per_session("site_run", tmp_path_factory)
    assert result.returncode == 0, f"site build failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="session")
def site_dir(site_run):
    return ROOT / "_build" / "html"
