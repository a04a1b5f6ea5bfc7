"""A chapter run outside the build, as Jupyter Lab or nbclient runs it, on another CPU, leaves ``git status``
clean: its publisher keeps every tracked medium whose new rendering differs by round-off only.

Chapter 014 stands for another machine: it runs under another OpenBLAS kernel with every Newton step
perturbed at 1e-12 relative (the cell is inserted into the notebook in memory, so the file on disk stays
as committed). Its renderings then differ from the tracked media in bytes, and the test checks that they
do, so the publisher's rule really decided. The run writes into the real ``media/`` folder, as a student's
would; the files are restored byte for byte afterwards if it changed them. The rule itself is checked on
synthetic renders in test_media_rule.py, and the build's side of it in test_build.py.
"""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import chapter_checks as checks
from conftest import ROOT

CHAPTER = "014_bending_stiffness"
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
        first = next(i for i, cell in enumerate(nb.cells) if cell.cell_type == "code")
        nb.cells.insert(first + 1, nbformat.v4.new_code_cell({checks.ROUND_OFF_CELL!r}))
        NotebookClient(nb, timeout=900, kernel_name="python3",
                       resources={{"metadata": {{"path": {str(ROOT / "book")!r}}}}}).execute()
    """)
    env = {key: value for key, value in os.environ.items() if key != "SIMKIT_MEDIA_DIR"}
    env.update(OPENBLAS_CORETYPE=checks.other_blas_kernel(), SIMKIT_RESULTS_DIR=str(results), MPLBACKEND="Agg")
    try:
        done = subprocess.run([sys.executable, "-c", run], cwd=ROOT / "book", env=env, capture_output=True,
                              text=True, timeout=1200)
        assert done.returncode == 0, done.stderr[-3000:]
        assert git("status", "--porcelain", "--", "media/") == "", "the run changed tracked media"
        renderings = {path: results / CHAPTER / Path(path).name[len(CHAPTER[:3]) + 1:] for path in media}
        assert all(r.is_file() for r in renderings.values()), "every published medium was rendered again"
        other_bytes = [path for path, rendering in renderings.items() if rendering.read_bytes() != before[path]]
        assert other_bytes, "no rendering differs from its tracked bytes: the rule was never put to the test"
    finally:
        for path, data in before.items():
            if (ROOT / path).read_bytes() != data:
                (ROOT / path).write_bytes(data)
