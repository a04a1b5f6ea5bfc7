"""The build script: failures are loud and harmless, unchanged chapters are not re-executed."""
import hashlib
import importlib.util
import shutil

import nbformat
import pytest

from conftest import BUILD_SCRIPT, ROOT, run_build

TREE = ["book", "simkit", "scripts", "utils.py", "_config.yml", "_toc.yml", "requirements.lock", "media"]
IGNORE = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints")


@pytest.fixture
def build_book(monkeypatch, tmp_path):
    """The build script as a module, pointed at an empty tree under tmp_path."""
    spec = importlib.util.spec_from_file_location("build_book", BUILD_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "ROOT", tmp_path)
    monkeypatch.setattr(module, "MEDIA", tmp_path / "media")
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
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_failing_chapter_names_chapter_cell_and_error_and_keeps_media(tree):
    path = tree / "book" / "011_mass_springs.ipynb"
    nb = nbformat.read(path, as_version=4)
    # fail right after the first cell that publishes a figure, so media were already staged
    first_save = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and "ch.figure(" in c.source)
    nb.cells.insert(first_save + 1, nbformat.v4.new_code_cell('raise RuntimeError("deliberate failure")'))
    nbformat.write(nb, path)
    (tree / "media" / "011_meshes.png").write_bytes(b"the previous figure")
    before = digests(tree / "media")

    result = run_build("--no-site", root=tree)

    assert result.returncode != 0
    assert f"chapter 011_mass_springs failed in cell {first_save + 2}" in result.stderr
    assert "RuntimeError: deliberate failure" in result.stderr
    assert "014_bending_stiffness" not in result.stdout      # the build stopped at the first failure
    assert digests(tree / "media") == before
    assert not list((tree / "_build").glob("*-media-*")), "a staging folder was left behind"


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


def test_execution_key_follows_code_library_and_utils(build_book, tree):
    path = tree / "book" / "014_bending_stiffness.ipynb"
    nb = nbformat.read(path, as_version=4)
    key = build_book.execution_key(nb)

    prose = next(c for c in nb.cells if c.cell_type == "markdown")
    prose.source += "\n\nA clarified sentence."
    assert build_book.execution_key(nb) == key, "prose does not need a re-execution"

    code = next(c for c in nb.cells if c.cell_type == "code")
    code.source += "\n# changed"
    changed_code = build_book.execution_key(nb)
    assert changed_code != key

    with open(tree / "simkit" / "edge_lengths.py", "a") as f:
        f.write("\n")
    changed_library = build_book.execution_key(nb)
    assert changed_library != changed_code

    with open(tree / "utils.py", "a") as f:
        f.write("\n")
    assert build_book.execution_key(nb) != changed_library


def test_publish_media_replaces_only_the_chapters_files(build_book, tmp_path):
    media, staging = tmp_path / "media", tmp_path / "staging"
    media.mkdir()
    staging.mkdir()
    (media / "011_old.png").write_bytes(b"stale")
    (media / "011_kept.png").write_bytes(b"old bytes")
    (media / "014_other.png").write_bytes(b"another chapter")
    (staging / "011_kept.png").write_bytes(b"new bytes")
    (staging / "011_new.mp4").write_bytes(b"video")

    published = build_book.publish_media("011_", staging)

    assert sorted(published) == ["011_kept.png", "011_new.mp4"]
    assert sorted(p.name for p in media.iterdir()) == ["011_kept.png", "011_new.mp4", "014_other.png"]
    assert (media / "011_kept.png").read_bytes() == b"new bytes"
    assert published["011_new.mp4"] == hashlib.sha256(b"video").hexdigest()


def test_publish_media_rejects_files_of_another_chapter(build_book, tmp_path):
    media, staging = tmp_path / "media", tmp_path / "staging"
    media.mkdir()
    staging.mkdir()
    (staging / "14_springs.mp4").write_bytes(b"video")
    with pytest.raises(build_book.BuildError, match="014_"):
        build_book.publish_media("014_", staging)
    assert not list(media.iterdir())


def test_unchanged_tree_reexecutes_nothing(site_run):
    for name in ("011_mass_springs", "014_bending_stiffness"):
        assert f"{name}: unchanged, reusing the cached execution" in site_run.stdout
    assert "executing ..." not in site_run.stdout


def test_build_reports_each_chapter_and_the_site(chapter_run, site_run):
    for name in ("011_mass_springs", "014_bending_stiffness"):
        assert f"{name}: executed in" in chapter_run.stdout
    assert "summary" in site_run.stdout
    assert "_build/html/index.html" in site_run.stdout
