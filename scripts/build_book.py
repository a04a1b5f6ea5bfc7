"""Execute the course chapters and build the site: ``python scripts/build_book.py [--force]``.

Every notebook in ``_toc.yml`` is executed headless with nbclient, cell by cell, in its
own folder, unless its execution record still holds. The record's key hashes the
notebook's code cells, ``simkit/``, ``utils.py`` and the dependency lock; the record also
lists the media files the chapter wrote, which must still be in ``media/`` unchanged.

A chapter writes its media into a staging folder (``SIMKIT_MEDIA_DIR``, honoured by
``utils.media_dir``); only when every cell succeeded do they replace the chapter's files
in ``media/`` (stale ones removed). A failing chapter stops the build with its name,
cell and error, and leaves ``media/`` as it was.

Executed notebooks go into the jupyter-cache that myst-nb reads (``_config.yml``), so
``jb build`` renders them without executing anything itself; a copy of each is kept in
``_build/exec/`` for the tests.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import yaml
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from traitlets.config import Config

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build"
RECORDS = BUILD / "exec"
MEDIA = ROOT / "media"
SITE_STAMP = RECORDS / "site.ok"
CODE_INPUTS = ["simkit/**/*.py", "utils.py", "requirements.lock"]
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class BuildError(RuntimeError):
    """A chapter or the site failed; the message says which, where and why."""


def load_config():
    with open(ROOT / "_config.yml") as f:
        return yaml.safe_load(f)


def toc_notebooks():
    """Notebooks listed in _toc.yml, in reading order."""
    with open(ROOT / "_toc.yml") as f:
        toc = yaml.safe_load(f)
    files = []

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                files.append(node["file"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(toc)
    paths = [ROOT / f"{Path(f).with_suffix('')}.ipynb" for f in [toc["root"], *files]]
    return [p for p in paths if p.exists()]


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def execution_key(nb):
    """Hash of everything an execution depends on: code cells, kernel, library, lock."""
    h = hashlib.sha256()
    h.update(nb.metadata.get("kernelspec", {}).get("name", "").encode())
    for cell in nb.cells:
        if cell.cell_type == "code":
            h.update(b"\0cell\0" + cell.source.encode())
    for pattern in CODE_INPUTS:
        for path in sorted(ROOT.glob(pattern)):
            h.update(b"\0file\0" + str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def media_prefix(name):
    """Media files of chapter '011_mass_springs' are named '011_*'."""
    return name.split("_", 1)[0] + "_"


def record_path(name):
    return RECORDS / f"{name}.json"


def read_record(name):
    try:
        return json.loads(record_path(name).read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None


def is_fresh(nb, name, key, cache):
    """True when the stored execution still stands for this notebook."""
    record = read_record(name)
    if record is None or record.get("key") != key:
        return False
    for file, digest in record["media"].items():
        path = MEDIA / file
        if not path.is_file() or sha256(path.read_bytes()) != digest:
            return False
    try:
        cache.match_cache_notebook(nb)
    except KeyError:
        return False
    return True


def execute(nb, nb_path, timeout, sockets):
    """Run every cell in the notebook's folder; raise BuildError on the first failure."""
    name = nb_path.stem
    # local IPC sockets (in the private folder `sockets`) rather than TCP on localhost
    ipc = Config({"KernelManager": {"transport": "ipc", "ip": str(Path(sockets) / "kernel")}})
    client = NotebookClient(nb, kernel_name="python3", config=ipc, timeout=timeout, record_timing=False,
                            resources={"metadata": {"path": str(nb_path.parent)}})
    code_cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    with client.setup_kernel():
        for number, index in enumerate(code_cells, start=1):
            cell = nb.cells[index]
            try:
                client.execute_cell(cell, index)
            except CellExecutionError as err:
                trace = ANSI.sub("", err.traceback).strip()[-3000:]
                failure = f"{err.ename}: {err.evalue}\n\n{trace}"
            except (CellTimeoutError, DeadKernelError) as err:
                failure = f"{type(err).__name__}: {err}"
            else:
                failure = None
            if failure:
                first_line = next((s for s in cell.source.splitlines() if s.strip()), "")
                raise BuildError(
                    f"chapter {name} failed in cell {index + 1} (code cell {number} of {len(code_cells)}), "
                    f"which starts with:\n    {first_line}\n{failure}")
            if sys.stdout.isatty():
                print(f"\r\033[K  {name}: code cell {number}/{len(code_cells)}", end="", flush=True)
    if sys.stdout.isatty():
        print("\r\033[K", end="")


def publish_media(prefix, staging):
    """Replace media/<prefix>* by the staged files; return {file: sha256}."""
    MEDIA.mkdir(exist_ok=True)
    staged = {p.name: p for p in staging.iterdir() if p.is_file()}
    wrong = [f for f in staged if not f.startswith(prefix)]
    if wrong:
        raise BuildError(f"media files must be named {prefix}*, got {', '.join(sorted(wrong))}")
    for old in MEDIA.glob(f"{prefix}*"):
        if old.name not in staged:
            old.unlink()
    digests = {}
    for file, path in sorted(staged.items()):
        digests[file] = sha256(path.read_bytes())
        shutil.move(str(path), str(MEDIA / file))
    return digests


def run_chapter(nb_path, cache, timeout, force):
    """Execute one chapter unless its record is fresh; return (status, seconds)."""
    name = nb_path.stem
    nb = nbformat.read(nb_path, as_version=4)
    key = execution_key(nb)
    if not force and is_fresh(nb, name, key, cache):
        print(f"  {name}: unchanged, reusing the cached execution")
        return "cached", read_record(name)["seconds"]

    print(f"  {name}: executing ...", flush=True)
    SITE_STAMP.unlink(missing_ok=True)   # the pages must be re-rendered from the new outputs
    with tempfile.TemporaryDirectory(prefix=f"{name}-media-", dir=BUILD) as staging, \
            tempfile.TemporaryDirectory(prefix="simkit-kernel-") as sockets:
        os.environ["SIMKIT_MEDIA_DIR"] = staging
        start = time.perf_counter()
        try:
            execute(nb, nb_path, timeout, sockets)
        finally:
            del os.environ["SIMKIT_MEDIA_DIR"]
        seconds = time.perf_counter() - start
        digests = publish_media(media_prefix(name), Path(staging))

    cache.cache_notebook_bundle(CacheBundleIn(nb, str(nb_path), data={"execution_seconds": seconds}),
                                check_validity=False, overwrite=True)
    nbformat.write(nb, RECORDS / f"{name}.ipynb")
    record_path(name).write_text(json.dumps({"key": key, "seconds": seconds, "media": digests}, indent=1))
    print(f"  {name}: executed in {seconds:.1f} s, {len(digests)} media files")
    return "executed", seconds


def build_site():
    """Strict Sphinx build of the site (warnings fail it); all pages after a new execution."""
    full = not SITE_STAMP.exists()
    print("building the site" + (" (all pages)" if full else ""), flush=True)
    jb = Path(sys.executable).with_name("jb")
    cmd = [str(jb), "build", str(ROOT), "--warningiserror", "--nitpick", "--keep-going", "--quiet"]
    if full:
        cmd.append("--all")
    SITE_STAMP.unlink(missing_ok=True)
    result = subprocess.run(cmd, cwd=ROOT)
    if result.returncode != 0:
        raise BuildError(f"the site build failed (exit code {result.returncode}); see the warnings above")
    SITE_STAMP.touch()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--force", action="store_true", help="re-execute every chapter")
    parser.add_argument("--no-site", action="store_true", help="execute the chapters only")
    args = parser.parse_args(argv)

    config = load_config()
    timeout = config["execute"]["timeout"]
    RECORDS.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    cache = get_cache(str(ROOT / config["execute"]["cache"]))

    start = time.perf_counter()
    summary = []
    try:
        notebooks = toc_notebooks()
        print(f"executing {len(notebooks)} chapters")
        for nb_path in notebooks:
            summary.append((nb_path.stem, *run_chapter(nb_path, cache, timeout, args.force)))
        if not args.no_site:
            site_start = time.perf_counter()
            build_site()
            summary.append(("site", "built", time.perf_counter() - site_start))
    except BuildError as err:
        print(f"\nerror: {err}", file=sys.stderr)
        return 1

    print("\nsummary")
    for name, status, seconds in summary:
        timing = f"(last run {seconds:.1f} s)" if status == "cached" else f"{seconds:.1f} s"
        print(f"  {name:24s} {status:9s} {timing}")
    print(f"  total {time.perf_counter() - start:.1f} s")
    if not args.no_site:
        print(f"site: {BUILD / 'html' / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
