"""Shared test set-up: headless matplotlib, and the two builds the chapter and site tests read."""
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

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
