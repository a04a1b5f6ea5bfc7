"""Execute the course chapters and build the site: ``python scripts/build_book.py [--force]``.

Every notebook in ``_toc.yml`` is executed headless with nbclient, cell by cell, in its
own folder, unless its execution record still holds. The record's key hashes the
notebook's code cells, ``simkit/``, ``utils.py``, the dependency lock and the video
encoder; the record also lists the media files the chapter wrote, which must still be in
``media/`` unchanged.

Nothing half-done is ever published:

- A chapter writes its media and results into a staging folder (``SIMKIT_MEDIA_DIR`` and
  ``SIMKIT_RESULTS_DIR``, honoured by ``utils``). Only when every cell succeeded do they
  move into ``media/`` and ``results/``. A chapter owns the media files named with its
  number (``011_*``), which no other chapter in the table of contents may claim (checked
  before anything runs), and it only ever deletes a file its own previous run wrote.
- The site is built into a staging folder (a copy of the current one, so the build stays
  incremental) and swapped in only when the strict build succeeded: a failed build leaves
  ``_build/html`` as it was.
- One build at a time per tree: a second build waits for the first (a lock in ``_build``).
- SIGTERM and Ctrl-C stop the build cleanly: the kernel is killed, staging folders and
  kernel sockets are removed, then the process ends by the signal.

Executed notebooks go into the jupyter-cache that myst-nb reads (``_config.yml``), so
``jb build`` renders them without executing anything itself; a copy of each is kept in
``_build/exec/`` for the tests.
"""

import argparse
import contextlib
import fcntl
import hashlib
import json
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
import yaml
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from traitlets.config import Config

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))                  # this tree's simkit, whatever is installed
from simkit.filesystem._atomic import process_alive  # noqa: E402
from simkit.filesystem._encoder import find_encoder  # noqa: E402

BUILD = ROOT / "_build"
RECORDS = BUILD / "exec"
MEDIA = ROOT / "media"
RESULTS = ROOT / "results"
SITE_STAMP = RECORDS / "site.ok"
LOCK = BUILD / ".lock"
STAGING = ".staging-"                      # every staging folder in _build starts with this
KERNEL_DIR = "simkit-kernel-"              # + pid: private folder of a kernel's sockets, in the temp dir
KERNEL_OWNER = re.compile(re.escape(KERNEL_DIR) + r"(?P<pid>[0-9]+)-[0-9a-z_]+")
SITE_PARTS = ["html", ".doctrees", "jupyter_execute"]     # what `jb build` writes into _build
CODE_INPUTS = ["simkit/**/*.py", "utils.py", "requirements.lock"]
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# Figures plot round-off (Newton residuals near 1e-10), and AVX-512 code sums in another order
# than AVX2: kernels run numpy's and OpenBLAS's AVX2 paths on one thread, so published media
# are the same bytes on every x86-64 machine with AVX2 (an Intel AVX-512 run matched an AMD one).
NUMPY_AVX512_TARGETS = "X86_V4 AVX512_ICL AVX512_SPR"      # numpy 2.4's dispatch targets above AVX2


class BuildError(RuntimeError):
    """A chapter or the site failed; the message says which, where and why."""


class Terminated(SystemExit):
    """SIGTERM arrived: unwind (kernel, staging folders), then end by the signal."""


def _on_sigterm(signum, frame):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)     # let the clean-up finish
    raise Terminated(128 + signum)


@contextlib.contextmanager
def signals_deferred():
    """Hold SIGINT and SIGTERM until the block is done, so a swap of folders is never left half-way."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


@contextlib.contextmanager
def build_lock():
    """Hold the tree's build lock; wait, saying so, while another build holds it."""
    BUILD.mkdir(parents=True, exist_ok=True)
    with open(LOCK, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "another build"
            print(f"another build of this tree is running ({holder}); waiting for it to finish "
                  "(Ctrl-C to give up) ...", flush=True)
            fcntl.flock(fh, fcntl.LOCK_EX)
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()}, started {time.strftime('%H:%M:%S')}\n")
        fh.flush()
        yield


def sweep_leftovers():
    """Remove what killed builds left: any staging folder of this tree (the lock is ours, so
    no build is using one) and kernel-socket folders of dead build processes."""
    for stale in BUILD.glob(STAGING + "*"):
        shutil.rmtree(stale, ignore_errors=True)
    for stale in Path(tempfile.gettempdir()).glob(KERNEL_DIR + "*"):
        owner = KERNEL_OWNER.fullmatch(stale.name)
        if owner and not process_alive(int(owner["pid"])):
            shutil.rmtree(stale, ignore_errors=True)


def load_config():
    with open(ROOT / "_config.yml") as f:
        return yaml.safe_load(f)


def toc_notebooks():
    """Notebooks listed in _toc.yml, in reading order, each once."""
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
    return [p for p in dict.fromkeys(paths) if p.exists()]


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def execution_key(nb, encoder=""):
    """Hash of everything an execution depends on: code cells, kernel, library, lock, video encoder."""
    h = hashlib.sha256()
    h.update(nb.metadata.get("kernelspec", {}).get("name", "").encode())
    h.update(b"\0encoder\0" + encoder.encode())
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


def check_media_claims(notebooks):
    """Raise BuildError when two chapters would publish media under the same prefix."""
    claims = {}
    for path in notebooks:
        claims.setdefault(media_prefix(path.stem), []).append(path.relative_to(ROOT))
    clashes = [(prefix, paths) for prefix, paths in claims.items() if len(paths) > 1]
    if clashes:
        lines = [f"chapters {', '.join(map(str, paths[:-1]))} and {paths[-1]} "
                 f"{'both' if len(paths) == 2 else 'all'} publish their media as media/{prefix}*"
                 for prefix, paths in clashes]
        raise BuildError("\n".join(lines) + "\na chapter may only replace the media it wrote itself, so every "
                         "chapter in _toc.yml needs a number of its own: rename one of them (and its media "
                         "names) to a free number. Nothing was executed.")


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
    # local IPC sockets and the connection file in the private folder `sockets`, not TCP on localhost
    ipc = Config({"KernelManager": {"transport": "ipc", "ip": str(Path(sockets) / "kernel"),
                                    "connection_file": str(Path(sockets) / "kernel.json")}})
    client = NotebookClient(nb, kernel_name="python3", config=ipc, timeout=timeout, record_timing=False,
                            resources={"metadata": {"path": str(nb_path.parent)}})
    code_cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    with client.setup_kernel():
        try:
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
        except (KeyboardInterrupt, SystemExit):
            client.shutdown_kernel = "immediate"      # the kernel is busy: do not wait for it to stop
            raise
    if sys.stdout.isatty():
        print("\r\033[K", end="")


def publish_media(prefix, staging, owned=()):
    """Move the staged media into media/; delete the files of `owned` (the chapter's previous
    run) that this run did not write. Return {file: sha256} of the published files."""
    staged = {p.name: p for p in staging.iterdir() if p.is_file()}
    wrong = [f for f in staged if not f.startswith(prefix)]
    if wrong:
        raise BuildError(f"media files must be named {prefix}*, got {', '.join(sorted(wrong))}")
    MEDIA.mkdir(exist_ok=True)
    digests = {file: sha256(path.read_bytes()) for file, path in sorted(staged.items())}
    with signals_deferred():
        for file in set(owned) - set(staged):
            (MEDIA / file).unlink(missing_ok=True)
        for file, path in staged.items():
            shutil.move(path, MEDIA / file)
    return digests


def publish_results(staging):
    """Move the staged results/<chapter>/ files over results/, file by file (others stay)."""
    with signals_deferred():
        for path in sorted(staging.rglob("*")):
            if path.is_file():
                target = RESULTS / path.relative_to(staging)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(path, target)


def run_chapter(nb_path, cache, timeout, force, encoder):
    """Execute one chapter unless its record is fresh; return (status, seconds)."""
    name = nb_path.stem
    nb = nbformat.read(nb_path, as_version=4)
    key = execution_key(nb, encoder)
    if not force and is_fresh(nb, name, key, cache):
        print(f"  {name}: unchanged, reusing the cached execution")
        return "cached", read_record(name)["seconds"]

    print(f"  {name}: executing ...", flush=True)
    SITE_STAMP.unlink(missing_ok=True)   # the pages must be re-rendered from the new outputs
    with tempfile.TemporaryDirectory(prefix=f"{STAGING}{name}-", dir=BUILD) as staging, \
            tempfile.TemporaryDirectory(prefix=f"{KERNEL_DIR}{os.getpid()}-") as sockets:
        staged_media, staged_results = Path(staging, "media"), Path(staging, "results")
        os.environ["SIMKIT_MEDIA_DIR"], os.environ["SIMKIT_RESULTS_DIR"] = str(staged_media), str(staged_results)
        staged_media.mkdir()
        start = time.perf_counter()
        try:
            execute(nb, nb_path, timeout, sockets)
        finally:
            del os.environ["SIMKIT_MEDIA_DIR"], os.environ["SIMKIT_RESULTS_DIR"]
        seconds = time.perf_counter() - start
        previous = read_record(name) or {}
        digests = publish_media(media_prefix(name), staged_media, previous.get("media", {}))
        if staged_results.is_dir():
            publish_results(staged_results)

    cache.cache_notebook_bundle(CacheBundleIn(nb, str(nb_path), data={"execution_seconds": seconds}),
                                check_validity=False, overwrite=True)
    nbformat.write(nb, RECORDS / f"{name}.ipynb")
    record_path(name).write_text(json.dumps({"key": key, "seconds": seconds, "media": digests}, indent=1))
    print(f"  {name}: executed in {seconds:.1f} s, {len(digests)} media files")
    unowned = sorted(p.name for p in MEDIA.glob(media_prefix(name) + "*") if p.name not in digests)
    if unowned:
        print(f"  note: media/{', media/'.join(unowned)} carry {name}'s prefix but its last run did not write "
              "them; they were left in place (delete them if they are stale)")
    return "executed", seconds


def build_site():
    """Strict Sphinx build of the site (warnings fail it) in a staging folder, swapped in on success.

    The staging folder starts as a copy of the current build (modification times kept), so
    Sphinx rewrites only what changed; all pages after a new execution or a failed build.
    """
    full = not SITE_STAMP.exists()
    print("building the site" + (" (all pages)" if full else ""), flush=True)
    SITE_STAMP.unlink(missing_ok=True)
    # a fixed path (the lock makes it ours): Sphinx and myst-nb re-read every notebook when it moves
    stage = BUILD / f"{STAGING}site"
    shutil.rmtree(stage, ignore_errors=True)
    try:
        staged = stage / "_build"
        staged.mkdir(parents=True)
        for part in SITE_PARTS if not full else []:
            if (BUILD / part).is_dir():
                shutil.copytree(BUILD / part, staged / part, symlinks=True)
        jb = Path(sys.executable).with_name("jb")
        cmd = [str(jb), "build", str(ROOT), "--path-output", str(stage), "--warningiserror", "--nitpick",
               "--keep-going", "--quiet"]
        if full:
            cmd.append("--all")
        # stdout only carries jb's banner, which names the staging folder; warnings go to stderr
        result = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        if result.returncode != 0:
            print(result.stdout)
            raise BuildError(f"the site build failed (exit code {result.returncode}); see the warnings above. "
                             "The published site in _build/html was left as it was.")
        with signals_deferred():
            for part in SITE_PARTS:
                if (staged / part).exists():
                    if (BUILD / part).exists():
                        os.rename(BUILD / part, stage / f"previous{part}")
                    os.rename(staged / part, BUILD / part)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    SITE_STAMP.touch()


def pin_numerics(environ=os.environ, cpu_flags=None):
    """Make chapter kernels compute the same floating-point results on every x86-64 machine."""
    if cpu_flags is None:
        try:
            cpu_flags = next((line.split(":", 1)[1].split() for line in open("/proc/cpuinfo")
                              if line.startswith("flags")), [])
        except OSError:
            cpu_flags = []
    environ["OPENBLAS_NUM_THREADS"] = "1"
    if {"avx2", "fma"} <= set(cpu_flags):
        environ["OPENBLAS_CORETYPE"] = "Haswell"
        environ["NPY_DISABLE_CPU_FEATURES"] = NUMPY_AVX512_TARGETS


def build(args):
    """The whole build under the lock; return the summary rows."""
    config = load_config()
    timeout = config["execute"]["timeout"]
    sweep_leftovers()
    RECORDS.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("MPLBACKEND", "Agg")
    pin_numerics()
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    cache = get_cache(str(ROOT / config["execute"]["cache"]))

    notebooks = toc_notebooks()
    check_media_claims(notebooks)
    try:
        encoder = find_encoder()
    except RuntimeError as err:
        encoder = None
        print(f"warning: no video encoder, chapters that write videos will fail: {err}")
    else:
        print(("videos: " if encoder.pinned else "warning: videos are encoded with the ") + encoder.description)
    summary = []
    print(f"executing {len(notebooks)} chapters")
    for nb_path in notebooks:
        summary.append((nb_path.stem, *run_chapter(nb_path, cache, timeout, args.force,
                                                   encoder.description if encoder else "")))
    if not args.no_site:
        site_start = time.perf_counter()
        build_site()
        summary.append(("site", "built", time.perf_counter() - site_start))
    return summary


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--force", action="store_true", help="re-execute every chapter")
    parser.add_argument("--no-site", action="store_true", help="execute the chapters only")
    args = parser.parse_args(argv)

    signal.signal(signal.SIGTERM, _on_sigterm)
    start = time.perf_counter()
    try:
        with build_lock():
            summary = build(args)
    except BuildError as err:
        print(f"\nerror: {err}", file=sys.stderr)
        return 1
    except (Terminated, KeyboardInterrupt) as err:
        signum = signal.SIGTERM if isinstance(err, Terminated) else signal.SIGINT
        print(f"\nstopped by {signum.name}: kernel and staging folders removed, nothing half-done published",
              file=sys.stderr, flush=True)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)           # end by the signal, as the sender expects
        return 128 + signum

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
