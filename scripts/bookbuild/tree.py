"""Where a build reads and writes, the one error it reports, and holding signals during a swap."""
import contextlib
import signal
from pathlib import Path

STAGING = ".staging-"                      # every staging folder in _build starts with this
KERNEL_DIR = "simkit-kernel-"              # + pid: private folder of a kernel's sockets, in the temp dir


class BuildError(RuntimeError):
    """A chapter or the site failed; the message says which, where and why."""


class Tree:
    """The folders of one course tree (the repository root, or a copy of it in a test)."""

    def __init__(self, root):
        self.root = Path(root)
        self.build = self.root / "_build"
        self.records = self.build / "exec"          # per chapter: execution record and executed notebook
        self.media = self.root / "media"
        self.results = self.root / "results"
        self.site_stamp = self.records / "site.ok"  # the site was rendered from the current records
        self.lock = self.build / ".lock"

    def __repr__(self):
        return f"Tree({str(self.root)!r})"


@contextlib.contextmanager
def signals_deferred():
    """Hold SIGINT and SIGTERM until the block is done, so a swap of folders is never left half-way."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
