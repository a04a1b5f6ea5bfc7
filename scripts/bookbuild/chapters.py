"""Executing and publishing one chapter: its cache key, its nbclient run, its media and results.

A chapter is executed headless by nbclient, cell by cell, in its own folder and its own
kernel, unless its execution record still holds. The record (``_build/exec/<name>.json``)
keeps the execution key (a hash of the notebook's code cells, ``simkit/``, ``utils.py``,
``course/``, the dependency lock and the video encoder), the run time, and the digests of
the media the chapter published, which must still be in ``media/`` unchanged.

A chapter writes into a staging folder (``SIMKIT_MEDIA_DIR`` and ``SIMKIT_RESULTS_DIR``,
honoured by ``utils``, set in its kernel's environment only). Only when every cell
succeeded do the files move into ``media/`` and ``results/``. A chapter owns the media
files named with its number (``011_*``), and only ever deletes a file its own previous run
wrote. A new rendering of a published file passes the media rule (``course.filesystem.media_rule``):
when a reader would see no difference, the published bytes stay.
"""
import asyncio
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import nbformat
import yaml
from jupyter_cache.base import CacheBundleIn
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from traitlets.config import Config

from course.filesystem import media_rule
from .tree import KERNEL_DIR, STAGING, BuildError, signals_deferred

CODE_INPUTS = ["simkit/**/*.py", "utils.py", "course/**/*.py", "requirements.lock"]
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def toc_notebooks(tree):
    """Notebooks listed in the tree's _toc.yml, in reading order, each once."""
    with open(tree.root / "_toc.yml") as f:
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
    paths = [tree.root / f"{Path(f).with_suffix('')}.ipynb" for f in [toc["root"], *files]]
    return [p for p in dict.fromkeys(paths) if p.exists()]


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def execution_key(nb, tree, encoder=""):
    """Hash of everything an execution depends on: code cells, kernel, library, course package, lock, encoder."""
    h = hashlib.sha256()
    h.update(nb.metadata.get("kernelspec", {}).get("name", "").encode())
    h.update(b"\0encoder\0" + encoder.encode())
    for cell in nb.cells:
        if cell.cell_type == "code":
            h.update(b"\0cell\0" + cell.source.encode())
    for pattern in CODE_INPUTS:
        for path in sorted(tree.root.glob(pattern)):
            h.update(b"\0file\0" + str(path.relative_to(tree.root)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def media_prefix(name):
    """Media files of chapter '011_mass_springs' are named '011_*'."""
    return name.split("_", 1)[0] + "_"


def check_media_claims(notebooks, tree):
    """Raise BuildError when two chapters would publish media under the same prefix."""
    claims = {}
    for path in notebooks:
        claims.setdefault(media_prefix(path.stem), []).append(path.relative_to(tree.root))
    clashes = [(prefix, paths) for prefix, paths in claims.items() if len(paths) > 1]
    if clashes:
        lines = [f"chapters {', '.join(map(str, paths[:-1]))} and {paths[-1]} "
                 f"{'both' if len(paths) == 2 else 'all'} publish their media as media/{prefix}*"
                 for prefix, paths in clashes]
        raise BuildError("\n".join(lines) + "\na chapter may only replace the media it wrote itself, so every "
                         "chapter in _toc.yml needs a number of its own: rename one of them (and its media "
                         "names) to a free number. Nothing was executed.")


def read_record(tree, name):
    try:
        return json.loads((tree.records / f"{name}.json").read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None


def is_fresh(nb, name, key, tree, cache):
    """True when the stored execution still stands for this notebook."""
    record = read_record(tree, name)
    if record is None or record.get("key") != key:
        return False
    for file, digest in record["media"].items():
        path = tree.media / file
        if not path.is_file() or sha256(path.read_bytes()) != digest:
            return False
    try:
        cache.match_cache_notebook(nb)
    except KeyError:
        return False
    return True


async def execute(nb, nb_path, timeout, sockets, env, progress=None):
    """Run every cell in the notebook's folder, in a kernel of its own with environment `env`.

    Raise BuildError on the first failing cell; `progress(number, total)` after each cell.
    On cancellation (another chapter failed, or a signal) the kernel is killed at once.
    """
    name = nb_path.stem
    # local IPC sockets and the connection file in the private folder `sockets`, not TCP on localhost
    ipc = Config({"KernelManager": {"transport": "ipc", "ip": str(Path(sockets) / "kernel"),
                                    "connection_file": str(Path(sockets) / "kernel.json")}})
    client = NotebookClient(nb, kernel_name="python3", config=ipc, timeout=timeout, record_timing=False,
                            resources={"metadata": {"path": str(nb_path.parent)}})
    code_cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    # the kernel is set up by hand, not with `async_setup_kernel`: that one installs signal handlers of
    # its own on the loop, which would take SIGTERM away from the build running several chapters
    client.km = client.create_kernel_manager()
    try:
        await client.async_start_new_kernel(env=env)
        await client.async_start_new_kernel_client()
        for number, index in enumerate(code_cells, start=1):
            cell = nb.cells[index]
            try:
                await client.async_execute_cell(cell, index)
            except CellExecutionError as err:
                trace = ANSI.sub("", err.traceback).strip()[-3000:]
                failure = f"{err.ename}: {err.evalue}\n\n{trace}"
            except (CellTimeoutError, DeadKernelError) as err:
                if asyncio.current_task().cancelling():
                    # nbclient reports any cancellation of a running cell as a dead kernel; this was ours
                    raise asyncio.CancelledError from None
                failure = f"{type(err).__name__}: {err}"
            else:
                failure = None
            if failure:
                first_line = next((s for s in cell.source.splitlines() if s.strip()), "")
                raise BuildError(
                    f"chapter {name} failed in cell {index + 1} (code cell {number} of {len(code_cells)}), "
                    f"which starts with:\n    {first_line}\n{failure}")
            if progress:
                progress(number, len(code_cells))
    except (asyncio.CancelledError, KeyboardInterrupt, SystemExit):
        client.shutdown_kernel = "immediate"      # the kernel is busy: do not wait for it to stop
        raise
    finally:
        if client.km is not None:
            await asyncio.shield(client._async_cleanup_kernel())


def unchanged_media(tree, staging, ffmpeg=None):
    """``{file: reason}`` of the staged files whose published copy in media/ shows the same (media rule)."""
    kept = {}
    for path in sorted(p for p in staging.iterdir() if p.is_file()):
        published = tree.media / path.name
        if published.is_file():
            verdict = media_rule.compare(path, published, ffmpeg)
            if verdict.same:
                kept[path.name] = verdict.reason
    return kept


def publish_media(tree, prefix, staging, owned=(), kept=None, ffmpeg=None):
    """Move the staged media into media/, except the files `kept` (default: `unchanged_media`),
    whose published bytes stay; delete the files of `owned` (the chapter's previous run) that
    this run did not write. Return ``({file: sha256}, kept)`` of the chapter's files now in media/.
    """
    staged = {p.name: p for p in staging.iterdir() if p.is_file()}
    wrong = [f for f in staged if not f.startswith(prefix)]
    if wrong:
        raise BuildError(f"media files must be named {prefix}*, got {', '.join(sorted(wrong))}")
    tree.media.mkdir(exist_ok=True)
    if kept is None:
        kept = unchanged_media(tree, staging, ffmpeg)
    with signals_deferred():
        for file in set(owned) - set(staged):
            (tree.media / file).unlink(missing_ok=True)
        for file, path in staged.items():
            if file not in kept:
                shutil.move(path, tree.media / file)
    digests = {file: sha256((tree.media / file).read_bytes()) for file in sorted(staged)}
    return digests, kept


def publish_results(tree, staging):
    """Move the staged results/<chapter>/ files over results/, file by file (others stay)."""
    with signals_deferred():
        for path in sorted(staging.rglob("*")):
            if path.is_file():
                target = tree.results / path.relative_to(staging)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(path, target)


def kernel_environment(staged_media, staged_results, blas_threads=None):
    """The environment a chapter's kernel starts with: its staging folders, and optionally a BLAS
    thread count (kernels running side by side share the cores instead of oversubscribing them)."""
    env = dict(os.environ, SIMKIT_MEDIA_DIR=str(staged_media), SIMKIT_RESULTS_DIR=str(staged_results))
    if blas_threads is not None and "OPENBLAS_NUM_THREADS" not in os.environ:
        env["OPENBLAS_NUM_THREADS"] = env["OMP_NUM_THREADS"] = str(blas_threads)
    return env


class Chapter:
    """One chapter of the table of contents: is it fresh, and executing and publishing it."""

    def __init__(self, nb_path, tree, encoder=""):
        self.path, self.tree, self.name = nb_path, tree, nb_path.stem
        self.nb = nbformat.read(nb_path, as_version=4)
        self.key = execution_key(self.nb, tree, encoder)
        self.record = read_record(tree, self.name) or {}

    def fresh(self, cache):
        return is_fresh(self.nb, self.name, self.key, self.tree, cache)

    @property
    def media_bytes(self):
        """Size of the chapter's tracked media: the scheduler's guess of its length when it never ran."""
        return sum(p.stat().st_size for p in self.tree.media.glob(media_prefix(self.name) + "*") if p.is_file())

    @property
    def last_seconds(self):
        """Duration of the last recorded run (None when never run): the scheduler starts long chapters first."""
        return self.record.get("seconds")

    async def run(self, cache, timeout, ffmpeg=None, blas_threads=None, progress=None):
        """Execute, then publish under the media rule; return the seconds the execution took."""
        tree, name = self.tree, self.name
        tree.site_stamp.unlink(missing_ok=True)   # the pages must be re-rendered from the new outputs
        with tempfile.TemporaryDirectory(prefix=f"{STAGING}{name}-", dir=tree.build) as staging, \
                tempfile.TemporaryDirectory(prefix=f"{KERNEL_DIR}{os.getpid()}-") as sockets:
            staged_media, staged_results = Path(staging, "media"), Path(staging, "results")
            staged_media.mkdir()
            env = kernel_environment(staged_media, staged_results, blas_threads)
            start = time.perf_counter()
            await execute(self.nb, self.path, timeout, sockets, env, progress)
            seconds = time.perf_counter() - start
            # decoding videos takes a moment: off the loop, so the other kernels are served meanwhile;
            # the files move on the loop's thread, where a signal cannot cut a move in half
            kept = await asyncio.to_thread(unchanged_media, tree, staged_media, ffmpeg)
            digests, kept = publish_media(tree, media_prefix(name), staged_media, self.record.get("media", {}), kept)
            if staged_results.is_dir():
                publish_results(tree, staged_results)

        cache.cache_notebook_bundle(CacheBundleIn(self.nb, str(self.path), data={"execution_seconds": seconds}),
                                    check_validity=False, overwrite=True)
        nbformat.write(self.nb, tree.records / f"{name}.ipynb")
        (tree.records / f"{name}.json").write_text(
            json.dumps({"key": self.key, "seconds": seconds, "media": digests}, indent=1))
        changed = len(digests) - len(kept)
        print(f"  {name}: executed in {seconds:.1f} s, {len(digests)} media files "
              f"({changed} new or visibly changed, {len(kept)} kept: no visible change)", flush=True)
        unowned = sorted(p.name for p in tree.media.glob(media_prefix(name) + "*") if p.name not in digests)
        if unowned:
            print(f"  note: media/{', media/'.join(unowned)} carry {name}'s prefix but its last run did not "
                  "write them; they were left in place (delete them if they are stale)")
        return seconds
