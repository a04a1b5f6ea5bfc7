"""A chapter run outside the build, as Jupyter Lab or nbclient runs it, under another OpenBLAS kernel, leaves
``git status`` clean: its publisher keeps every tracked medium whose new rendering differs by round-off only.

Chapter 016 is re-rendered with other bytes under the SandyBridge kernel (its crank and soft-body videos and
its deformation-gradient figure, on the 2-core AMD EPYC this was written on; where a machine happens to
render every byte as committed, the test shows less). The run writes into the real ``media/`` folder, as
a student's would; the files are restored byte for byte afterwards if it changed them. The rule itself is
checked on synthetic renders in test_media_rule.py.
"""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT

CHAPTER = "016_elasticity"
KERNEL = "SandyBridge"          # an OpenBLAS kernel other than this machine's default (Haswell or newer)


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def test_a_chapter_run_outside_the_build_leaves_git_status_clean(tmp_path):
    media = sorted(git("ls-files", f"media/{CHAPTER[:3]}_*").split())
    assert media, "the chapter's media are tracked"
    if git("status", "--porcelain", "--", *media):
        pytest.skip(f"media/{CHAPTER[:3]}_* have uncommitted changes; the test needs them as committed")
    before = {path: (ROOT / path).read_bytes() for path in media}
    results = tmp_path / "results"
    run = textwrap.dedent(f"""
        import nbformat
        from nbclient import NotebookClient
        nb = nbformat.read({str(ROOT / "book" / f"{CHAPTER}.ipynb")!r}, as_version=4)
        NotebookClient(nb, timeout=900, kernel_name="python3",
                       resources={{"metadata": {{"path": {str(ROOT / "book")!r}}}}}).execute()
    """)
    env = {key: value for key, value in os.environ.items() if key != "SIMKIT_MEDIA_DIR"}
    env.update(OPENBLAS_CORETYPE=KERNEL, SIMKIT_RESULTS_DIR=str(results), MPLBACKEND="Agg")
    try:
        done = subprocess.run([sys.executable, "-c", run], cwd=ROOT / "book", env=env, capture_output=True,
                              text=True, timeout=1200)
        assert done.returncode == 0, done.stderr[-3000:]
        assert git("status", "--porcelain", "--", "media/") == "", "the run changed tracked media"
        renderings = [results / CHAPTER / Path(path).name[len(CHAPTER[:3]) + 1:] for path in media]
        assert all(r.is_file() for r in renderings), "every published medium was rendered again"
    finally:
        for path, data in before.items():
            if (ROOT / path).read_bytes() != data:
                (ROOT / path).write_bytes(data)
