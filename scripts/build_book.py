"""Execute the course chapters and build the site: ``python scripts/build_book.py [--force] [--no-site]``.

This file is the command line and the orchestration; the jobs live in ``scripts/bookbuild/``:
executing and publishing a chapter (``chapters``) and the site (``site``); the media rule is
``course.filesystem.media_rule``, which the chapters' publisher applies as well.

- Every notebook in ``_toc.yml`` whose execution record no longer holds is executed; up to
  one chapter per core runs at once, each in its own kernel, longest (by its last run) first.
  Kernels running side by side split the cores between their BLAS threads.
- Nothing half-done is published: a chapter's media and results are staged and only move
  into place when every cell succeeded; the first failing chapter stops the others (their
  kernels are killed, their staging folders removed). The site is built into a staging
  folder and swapped in only when the strict build succeeded.
- One build at a time per tree: a second build waits for the first (a lock in ``_build``).
- SIGTERM and Ctrl-C stop the build cleanly: kernels are killed, staging folders and kernel
  sockets are removed, then the process ends by the signal.
- The summary lists each chapter's execution time (or its last one, when cached).
"""
import argparse
import asyncio
import contextlib
import fcntl
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))                  # this tree's simkit, whatever is installed
sys.path.insert(0, str(ROOT / "scripts"))
import yaml  # noqa: E402
from bookbuild.chapters import Chapter, check_media_claims, toc_notebooks  # noqa: E402
from bookbuild.site import build_site  # noqa: E402
from bookbuild.tree import KERNEL_DIR, STAGING, BuildError, Tree  # noqa: E402
from jupyter_cache import get_cache  # noqa: E402
from course.filesystem import find_encoder, process_alive  # noqa: E402

KERNEL_OWNER = re.compile(re.escape(KERNEL_DIR) + r"(?P<pid>[0-9]+)-[0-9a-z_]+")


class Terminated(SystemExit):
    """SIGTERM arrived: unwind (kernels, staging folders), then end by the signal."""


def _on_sigterm(signum, frame):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)     # let the clean-up finish
    raise Terminated(128 + signum)


@contextlib.contextmanager
def build_lock(tree):
    """Hold the tree's build lock; wait, saying so, while another build holds it."""
    tree.build.mkdir(parents=True, exist_ok=True)
    with open(tree.lock, "a+") as fh:
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


def sweep_leftovers(tree):
    """Remove what killed builds left: any staging folder of this tree (the lock is ours, so
    no build is using one) and kernel-socket folders of dead build processes."""
    for stale in tree.build.glob(STAGING + "*"):
        shutil.rmtree(stale, ignore_errors=True)
    for stale in Path(tempfile.gettempdir()).glob(KERNEL_DIR + "*"):
        owner = KERNEL_OWNER.fullmatch(stale.name)
        if owner and not process_alive(int(owner["pid"])):
            shutil.rmtree(stale, ignore_errors=True)


def schedule(stale, cpus=None):
    """Order in which to start the stale chapters, how many run at once (one per core, at most one
    per chapter) and BLAS threads per kernel.

    Longest first, so the last to finish is a short one: by the last run's time; chapters never run
    here (a fresh clone) come first, by the size of their tracked media (measured: 015's 2.1 MB took
    250 s, 011's 1.4 MB 62 s, 014's 0.5 MB 51 s; rendering dominates).
    """
    cpus = cpus or os.cpu_count() or 1
    workers = max(1, min(cpus, len(stale)))
    order = sorted(stale, key=lambda c: (0, -c.media_bytes) if c.last_seconds is None else (1, -c.last_seconds))
    return order, workers, max(1, cpus // workers)


class Progress:
    """On a terminal, one status line with each running chapter's current cell."""

    def __init__(self):
        self.cells = {}

    def __call__(self, name):
        def update(number, total):
            self.cells[name] = f"{name}: code cell {number}/{total}"
            if sys.stdout.isatty():
                print("\r\033[K  " + "   ".join(self.cells.values()), end="", flush=True)
        return update

    def done(self, name):
        self.cells.pop(name, None)
        if sys.stdout.isatty():
            print("\r\033[K", end="", flush=True)


async def execute_stale(stale, cache, timeout, ffmpeg):
    """Execute the stale chapters, up to one per core at once; {name: seconds}. The first failure
    (or a cancellation by a signal) cancels every other chapter, which kills its kernel."""
    order, workers, blas_threads = schedule(stale)
    if workers > 1:
        print(f"  {workers} chapters at a time, {blas_threads} BLAS thread(s) each", flush=True)
    slots, progress, seconds = asyncio.Semaphore(workers), Progress(), {}

    async def one(chapter):
        async with slots:
            print(f"  {chapter.name}: executing ...", flush=True)
            try:
                seconds[chapter.name] = await chapter.run(cache, timeout, ffmpeg, blas_threads,
                                                          progress(chapter.name))
            finally:
                progress.done(chapter.name)

    tasks = [asyncio.create_task(one(c)) for c in order]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            if not task.done() and not task.cancelling():   # once: a second cancel would cut a kernel's clean-up
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    return seconds


def run_async(coroutine):
    """Run `coroutine` to the end; SIGTERM and SIGINT cancel it (which kills the kernels) and are
    then re-raised as Terminated and KeyboardInterrupt."""
    received = []

    async def main():
        loop, task = asyncio.get_running_loop(), asyncio.current_task()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, lambda s=signum: (received.append(s), task.cancel()))
        try:
            return await coroutine
        finally:
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(signum)

    held = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    try:
        return asyncio.run(main())
    except asyncio.CancelledError:
        if received and received[0] == signal.SIGTERM:
            raise Terminated(128 + signal.SIGTERM) from None
        raise KeyboardInterrupt from None
    finally:
        signal.signal(signal.SIGTERM, held[0])
        signal.signal(signal.SIGINT, held[1])


def build(args, tree):
    """The whole build under the lock; return the summary rows (name, status, seconds)."""
    with open(tree.root / "_config.yml") as f:
        config = yaml.safe_load(f)
    timeout = config["execute"]["timeout"]
    sweep_leftovers(tree)
    tree.records.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree.root), os.environ.get("PYTHONPATH")]))
    cache = get_cache(str(tree.root / config["execute"]["cache"]))

    notebooks = toc_notebooks(tree)
    check_media_claims(notebooks, tree)
    try:
        encoder = find_encoder()
    except RuntimeError as err:
        encoder = None
        print(f"warning: no video encoder, chapters that write videos will fail: {err}")
    else:
        print(("videos: " if encoder.pinned else "warning: videos are encoded with the ") + encoder.description)
    chapters = [Chapter(path, tree, encoder.description if encoder else "") for path in notebooks]
    print(f"executing {len(chapters)} chapters")
    stale = []
    for chapter in chapters:
        if not args.force and chapter.fresh(cache):
            print(f"  {chapter.name}: unchanged, reusing the cached execution")
        else:
            stale.append(chapter)
    seconds = run_async(execute_stale(stale, cache, timeout, encoder.exe if encoder else None)) if stale else {}
    summary = [(c.name, "executed", seconds[c.name]) if c.name in seconds else (c.name, "cached", c.last_seconds)
               for c in chapters]
    if not args.no_site:
        site_start = time.perf_counter()
        build_site(tree)
        summary.append(("site", "built", time.perf_counter() - site_start))
    return summary


def main(argv=None, tree=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--force", action="store_true", help="re-execute every chapter")
    parser.add_argument("--no-site", action="store_true", help="execute the chapters only")
    args = parser.parse_args(argv)
    tree = tree or Tree(ROOT)

    signal.signal(signal.SIGTERM, _on_sigterm)
    start = time.perf_counter()
    try:
        with build_lock(tree):
            summary = build(args, tree)
    except BuildError as err:
        print(f"\nerror: {err}", file=sys.stderr)
        return 1
    except (Terminated, KeyboardInterrupt) as err:
        signum = signal.SIGTERM if isinstance(err, Terminated) else signal.SIGINT
        print(f"\nstopped by {signum.name}: kernels and staging folders removed, nothing half-done published",
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
        print(f"site: {tree.build / 'html' / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
