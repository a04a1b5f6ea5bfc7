"""The build script: failures are loud and harmless, unchanged chapters are not re-executed,
nothing half-done is published, and builds never trip over each other or over signals."""
import fcntl
import hashlib
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest
from bookbuild import chapters
from bookbuild.tree import BuildError, Tree

import chapter_checks as checks
from conftest import BUILD_SCRIPT, ROOT, descendants, run_build, running

TREE = ["book", "simkit", "course", "scripts", "utils.py", "_config.yml", "_toc.yml", "requirements.lock", "media"]
IGNORE = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints")


def load_build_book():
    spec = importlib.util.spec_from_file_location("build_book", BUILD_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def tree(tmp_path):
    """A copy of the course sources under tmp_path (no build, results or venv)."""
    for item in TREE:
        src = ROOT / item
        if src.is_dir():
            shutil.copytree(src, tmp_path / item, ignore=IGNORE)
        elif src.exists():
            shutil.copy2(src, tmp_path / item)
    return tmp_path


def digests(folder):
    """{relative path: sha256} of every file under `folder`."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def staging_folders(tree):
    return list((tree / "_build").glob(".staging-*"))


def test_failing_chapter_names_chapter_cell_and_error_and_keeps_media(tree):
    path = tree / "book" / "011_mass_springs.ipynb"
    nb = nbformat.read(path, as_version=4)
    # fail right after the first cell that publishes a figure, so media were already staged
    first_save = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and "ch.figure(" in c.source)
    nb.cells.insert(first_save + 1, nbformat.v4.new_code_cell('raise RuntimeError("deliberate failure")'))
    nbformat.write(nb, path)
    # 011 and 014 only, so 011 starts at once (longest first would start 015 and 016 before it)
    (tree / "_toc.yml").write_text("format: jb-book\nroot: book/011_mass_springs\n"
                                   "chapters:\n  - file: book/014_bending_stiffness\n")
    (tree / "media" / "011_meshes.png").write_bytes(b"the previous figure")
    previous_results = tree / "results" / "011_mass_springs"
    previous_results.mkdir(parents=True)
    (previous_results / "meshes.png").write_bytes(b"the previous run's figure")
    before = digests(tree / "media")

    result = run_build("--no-site", root=tree)

    assert result.returncode != 0
    assert f"chapter 011_mass_springs failed in cell {first_save + 2}" in result.stderr
    assert "RuntimeError: deliberate failure" in result.stderr
    # the first failure stops the build: 014, running beside 011, is cancelled and publishes nothing
    assert "014_bending_stiffness: executed in" not in result.stdout
    assert digests(tree / "media") == before
    # chapters that finished before the failure keep their (untracked) results; the failed one's stay as they were
    failed_results = {k: v for k, v in digests(tree / "results").items() if k.startswith("011_mass_springs/")}
    assert failed_results == {"011_mass_springs/meshes.png": hashlib.sha256(
        b"the previous run's figure").hexdigest()}, "the failed run's partial outputs look like results"
    assert not staging_folders(tree), "a staging folder was left behind"


def test_cell_over_its_time_limit_fails_the_build(tree):
    config = tree / "_config.yml"
    config.write_text(config.read_text().replace("timeout: 300", "timeout: 2"))
    path = tree / "book" / "014_bending_stiffness.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(1, nbformat.v4.new_code_cell("import time\ntime.sleep(30)"))
    nbformat.write(nb, path)
    (tree / "_toc.yml").write_text("format: jb-book\nroot: book/014_bending_stiffness\n")
    before = digests(tree / "media")

    result = run_build("--no-site", root=tree)

    assert result.returncode != 0
    assert "chapter 014_bending_stiffness failed in cell 2 (code cell 1 of" in result.stderr
    assert "CellTimeoutError" in result.stderr
    assert digests(tree / "media") == before


def test_014_rerendered_keeps_what_round_off_moved_and_replaces_what_a_1_percent_change_moved(tree):
    """The media rule on a real chapter, in the build: 014 with EI 1 % stiffer, every Newton step
    perturbed at 1e-12 relative and another OpenBLAS kernel republishes exactly the figures that draw
    the default beam, and keeps the bytes of the media that only round-off moved."""
    path = tree / "book" / "014_bending_stiffness.ipynb"
    (tree / "_toc.yml").write_text("format: jb-book\nroot: book/014_bending_stiffness\n")
    tracked = {k: v for k, v in digests(tree / "media").items() if k.startswith("014_")}
    nb = nbformat.read(path, as_version=4)
    first = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
    nb.cells.insert(first + 1, nbformat.v4.new_code_cell(checks.ROUND_OFF_CELL))
    cell = next(c for c in nb.cells if c.cell_type == "code" and "EI_DEFAULT = 50.0" in c.source)
    cell.source = cell.source.replace("EI_DEFAULT = 50.0", "EI_DEFAULT = 50.5")
    nbformat.write(nb, path)

    result = subprocess.run([sys.executable, str(tree / "scripts" / "build_book.py"), "--no-site"], cwd=tree,
                            env=dict(os.environ, OPENBLAS_CORETYPE=checks.other_blas_kernel()), capture_output=True,
                            text=True)

    assert result.returncode == 0, result.stderr
    now = {k: v for k, v in digests(tree / "media").items() if k.startswith("014_")}
    replaced = sorted(k for k in tracked if now[k] != tracked[k])
    # the figures of the default beam (measured: 0.26 to 2.7 % of their pixels move); the videos and the
    # sag sweep draw other stiffnesses and keep their bytes
    assert replaced == ["014_bending_energy.png", "014_convergence.png", "014_refinement.png"]
    assert f"{len(tracked)} media files (3 new or visibly changed" in result.stdout
    rendered = digests(tree / "results" / "014_bending_stiffness")
    kept_other_bytes = [k for k in tracked if k not in replaced and rendered[k[len("014_"):]] != tracked[k]]
    assert kept_other_bytes, "round-off changed no kept medium's bytes: keeping them put nothing to the test"


def test_execution_key_follows_code_library_utils_and_course(tree):
    path = tree / "book" / "014_bending_stiffness.ipynb"
    nb = nbformat.read(path, as_version=4)
    key = chapters.execution_key(nb, Tree(tree))

    prose = next(c for c in nb.cells if c.cell_type == "markdown")
    prose.source += "\n\nA clarified sentence."
    assert chapters.execution_key(nb, Tree(tree)) == key, "prose does not need a re-execution"

    code = next(c for c in nb.cells if c.cell_type == "code")
    code.source += "\n# changed"
    keys = [chapters.execution_key(nb, Tree(tree))]
    assert keys[-1] != key

    (tree / "course").mkdir(exist_ok=True)
    for changed in ["simkit/edge_lengths.py", "utils.py", "course/__init__.py"]:
        with open(tree / changed, "a") as f:
            f.write("\n")
        keys.append(chapters.execution_key(nb, Tree(tree)))
        assert keys[-1] != keys[-2], f"a change of {changed} must re-execute the chapters"


def test_publish_media_replaces_and_deletes_only_what_the_chapter_wrote(tmp_path):
    media, staging = tmp_path / "media", tmp_path / "staging"
    media.mkdir()
    staging.mkdir()
    (media / "011_old.png").write_bytes(b"stale: the chapter's last run wrote it, this one did not")
    (media / "011_kept.bin").write_bytes(b"old bytes")
    (media / "011_same.bin").write_bytes(b"same bytes")
    (media / "011_unknown.png").write_bytes(b"named like 011's media, but 011 never wrote it")
    (media / "014_other.png").write_bytes(b"another chapter")
    (staging / "011_kept.bin").write_bytes(b"new bytes")
    (staging / "011_same.bin").write_bytes(b"same bytes")
    (staging / "011_new.mp4").write_bytes(b"video")

    published, kept = chapters.publish_media(Tree(tmp_path), "011_", staging,
                                             owned={"011_old.png": "", "011_kept.bin": ""})

    assert sorted(published) == ["011_kept.bin", "011_new.mp4", "011_same.bin"]
    assert list(kept) == ["011_same.bin"]
    assert sorted(p.name for p in media.iterdir()) == ["011_kept.bin", "011_new.mp4", "011_same.bin",
                                                       "011_unknown.png", "014_other.png"]
    assert (media / "011_kept.bin").read_bytes() == b"new bytes"
    assert published["011_new.mp4"] == hashlib.sha256(b"video").hexdigest()


def test_leftovers_of_killed_builds_are_swept_and_nothing_else(tmp_path, monkeypatch):
    temp = tmp_path / "tmp"
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    stale = ["_build/.staging-011_mass_springs-x1y2/media", "_build/.staging-site/_build/html",
             f"tmp/simkit-kernel-{dead}-ab_c9"]
    kept = [f"tmp/simkit-kernel-{os.getpid()}-ab_c9",        # a live build's kernel sockets
            "tmp/simkit-kernel-12345678",                       # not named by this build: unknown owner
            "_build/html", "_build/exec"]
    for folder in stale + kept:
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "file").write_bytes(b"x")
    load_build_book().sweep_leftovers(Tree(tmp_path))
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("file")) == sorted(f"{k}/file" for k in kept)


def test_publish_media_rejects_files_of_another_chapter(tmp_path):
    media, staging = tmp_path / "media", tmp_path / "staging"
    media.mkdir()
    staging.mkdir()
    (staging / "14_springs.mp4").write_bytes(b"video")
    with pytest.raises(BuildError, match="014_"):
        chapters.publish_media(Tree(tmp_path), "014_", staging)
    assert not list(media.iterdir())


class _Stale:
    def __init__(self, name, seconds, media_bytes=0):
        self.name, self.last_seconds, self.media_bytes = name, seconds, media_bytes


def test_schedule_runs_one_chapter_per_core_longest_first():
    build_book = load_build_book()
    stale = [_Stale("011", 19.0), _Stale("014", 16.0), _Stale("015", 53.0), _Stale("016", None, 10),
             _Stale("017", None, 20)]
    order, workers, threads = build_book.schedule(stale, cpus=2)
    # never run here: first, the one with more media first; then by the last run's time
    assert [c.name for c in order] == ["017", "016", "015", "011", "014"]
    assert (workers, threads) == (2, 1)
    _, workers, threads = build_book.schedule(stale[:1], cpus=8)
    assert (workers, threads) == (1, 8), "a chapter running alone gets every core for its BLAS"
    _, workers, threads = build_book.schedule(stale, cpus=3)
    assert (workers, threads) == (3, 1)


@pytest.mark.roundoff
def test_kernels_are_not_pinned_to_one_blas_thread_or_kernel(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.delenv("NPY_DISABLE_CPU_FEATURES", raising=False)   # set by tests/other_cpu.py, say
    monkeypatch.setenv("OPENBLAS_CORETYPE", "SandyBridge")        # a user's choice passes through
    alone = chapters.kernel_environment(tmp_path / "m", tmp_path / "r")
    assert "OPENBLAS_NUM_THREADS" not in alone and "NPY_DISABLE_CPU_FEATURES" not in alone
    assert alone["OPENBLAS_CORETYPE"] == "SandyBridge"
    assert alone["SIMKIT_MEDIA_DIR"] == str(tmp_path / "m") and alone["SIMKIT_RESULTS_DIR"] == str(tmp_path / "r")
    assert chapters.kernel_environment(tmp_path, tmp_path, blas_threads=2)["OPENBLAS_NUM_THREADS"] == "2"
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    assert chapters.kernel_environment(tmp_path, tmp_path, blas_threads=2)["OPENBLAS_NUM_THREADS"] == "3"


def test_unchanged_tree_reexecutes_nothing(site_run):
    for name in ("011_mass_springs", "014_bending_stiffness"):
        assert f"{name}: unchanged, reusing the cached execution" in site_run.stdout
    assert "executing ..." not in site_run.stdout


def test_build_reports_each_chapter_and_the_site(chapter_run, site_run):
    for name in ("011_mass_springs", "014_bending_stiffness"):
        assert f"{name}: executed in" in chapter_run.stdout
        assert re.search(rf"^  {name} +executed +[0-9.]+ s$", chapter_run.stdout, re.M), "no time in the summary"
        assert re.search(rf"^  {name} +cached +\(last run [0-9.]+ s\)$", site_run.stdout, re.M)
    assert re.search(r"^  site +built +[0-9.]+ s$", site_run.stdout, re.M)
    assert "summary" in site_run.stdout
    assert "_build/html/index.html" in site_run.stdout


# ---------------------------------------------------------------------------------------
# a tiny book: one short page and one short chapter, so builds take seconds
# ---------------------------------------------------------------------------------------

TINY = "090_tiny"
TINY_TOC = f"format: jb-book\nroot: book/tiny\nchapters:\n  - file: book/{TINY}\n"


def notebook(*sources):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# A tiny chapter")]
                                  + [nbformat.v4.new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def tiny_chapter(*more_cells):
    """A chapter that publishes one figure and one result file the way the real chapters do."""
    return notebook(
        "import os\nimport utils\n"
        f"with open(os.path.join(utils.media_dir(), '{TINY[:3]}_figure.png'), 'wb') as f:\n"
        "    f.write(b'figure bytes')\n"
        f"with open(os.path.join(utils.notebook_results_path('{TINY}'), 'table.txt'), 'w') as f:\n"
        "    f.write('result')", *more_cells)


@pytest.fixture
def tiny(tree):
    (tree / "book" / "tiny.md").write_text("# Tiny book\n\nA page with nothing to execute.\n")
    nbformat.write(tiny_chapter(), tree / "book" / f"{TINY}.ipynb")
    (tree / "_toc.yml").write_text(TINY_TOC)
    return tree


def test_tiny_chapter_publishes_and_names_the_pinned_encoder(tiny):
    (tiny / "media" / "090_unowned.png").write_bytes(b"named like 090's media, never written by it")
    result = run_build("--no-site", root=tiny)
    assert result.returncode == 0, result.stderr
    assert "videos: pinned ffmpeg of imageio-ffmpeg" in result.stdout
    assert (tiny / "media" / "090_figure.png").read_bytes() == b"figure bytes"
    assert (tiny / "results" / TINY / "table.txt").read_text() == "result"
    assert (tiny / "media" / "090_unowned.png").exists()
    assert "note: media/090_unowned.png carry 090_tiny's prefix but its last run did not write them" in result.stdout
    assert not staging_folders(tiny)


def test_chapters_sharing_a_number_stop_the_build_before_anything_runs(tree):
    nbformat.write(notebook("print('an extra chapter that writes no media')"), tree / "book" / "011_extra.ipynb")
    toc = tree / "_toc.yml"
    toc.write_text(toc.read_text().replace("      - file: book/011_mass_springs",
                                           "      - file: book/011_extra\n      - file: book/011_mass_springs"))
    before = digests(tree / "media")
    assert sum(name.startswith("011_") for name in before) == 13

    result = run_build("--no-site", root=tree)

    assert result.returncode == 1
    assert ("chapters book/011_extra.ipynb and book/011_mass_springs.ipynb both publish their media as "
            "media/011_*") in result.stderr
    assert "Nothing was executed" in result.stderr
    assert "executing ..." not in result.stdout
    assert digests(tree / "media") == before


def test_failed_site_build_leaves_the_published_site_byte_identical(tiny):
    page = tiny / "book" / "tiny.md"
    assert run_build(root=tiny).returncode == 0
    site = tiny / "_build" / "html"
    published = digests(site)
    assert "A page with nothing to execute." in (site / "book" / "tiny.html").read_text()

    page.write_text("# Tiny book\n\nA new sentence, and a broken reference: {doc}`no_such_page`.\n")
    result = run_build(root=tiny)

    assert result.returncode == 1
    assert digests(site) == published, "the failed build changed the published site"
    assert "no_such_page" in result.stderr
    assert "_build/html was left as it was" in result.stderr
    assert not staging_folders(tiny)

    page.write_text("# Tiny book\n\nThe fixed page.\n")
    assert run_build(root=tiny).returncode == 0
    assert "The fixed page." in (site / "book" / "tiny.html").read_text()
    assert "A tiny chapter" in (site / "book" / f"{TINY}.html").read_text()


def test_second_build_waits_for_the_first(tiny):
    (tiny / "_build").mkdir()
    with open(tiny / "_build" / ".lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)           # a first build, running
        lock.write("pid 4242, started 12:00:00\n")
        lock.flush()
        second = subprocess.Popen([sys.executable, str(tiny / "scripts" / "build_book.py"), "--no-site"],
                                  cwd=tiny, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first_line = second.stdout.readline()
        assert first_line.startswith("another build of this tree is running (pid 4242, started 12:00:00); "
                                     "waiting for it to finish")
        time.sleep(1.0)
        assert second.poll() is None, "the second build did not wait"
        assert not (tiny / "_build" / "exec").exists(), "the second build started while the first held the lock"
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert f"{TINY}: executed in" in out


@pytest.fixture
def short_tmp():
    """A private temp folder with a short path: unix socket paths are limited to about 100 bytes."""
    folder = Path(tempfile.mkdtemp(prefix="sigterm-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_sigterm_during_a_build_leaves_no_staging_folder_kernel_or_socket(tiny, short_tmp):
    ready = tiny / "kernel-is-sleeping"
    nbformat.write(tiny_chapter(f"import time\nopen({str(ready)!r}, 'w').close()\ntime.sleep(300)"),
                   tiny / "book" / f"{TINY}.ipynb")
    media_before = digests(tiny / "media")
    private_tmp = short_tmp
    env = dict(os.environ, TMPDIR=str(private_tmp), JUPYTER_RUNTIME_DIR=str(private_tmp / "runtime"))
    build = subprocess.Popen([sys.executable, str(tiny / "scripts" / "build_book.py")], cwd=tiny, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not ready.exists():          # the first cell has written its outputs; the kernel sleeps
            assert build.poll() is None, build.communicate()
            assert time.monotonic() < deadline, "the chapter never started"
            time.sleep(0.1)
        processes = descendants(build.pid)
        assert processes, "no kernel process found"
        assert list(private_tmp.glob("simkit-kernel-*")), "the kernel's sockets are not where the test looks"
        build.send_signal(signal.SIGTERM)
        out, err = build.communicate(timeout=60)
    finally:
        if build.poll() is None:
            build.kill()
    assert build.returncode == -signal.SIGTERM, err
    deadline = time.monotonic() + 10
    while any(running(p) for p in processes) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in processes if running(p)], "the kernel outlived the build"
    left = {p.name for p in (tiny / "_build").iterdir()} - {".jupyter_cache", ".lock", "exec"}
    assert not left, f"staging folders were left behind: {left}"
    leftovers = [str(p.relative_to(private_tmp)) for p in private_tmp.rglob("*") if not p.is_dir()]
    assert leftovers == [], "kernel sockets or connection files were left behind"
    assert digests(tiny / "media") == media_before
    assert not (tiny / "results").exists()
    assert "stopped by SIGTERM" in err
