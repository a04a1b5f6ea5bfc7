"""Output-path validation and atomic file replacement shared by the writers.

A file is written to a hidden temporary sibling in the target folder and moved over the
target with ``os.replace`` (atomic on POSIX and Windows within one file system), so a
reader never sees a truncated file and a failed write leaves the previous file intact.

Temporary files are named ``.<target>.simkit-<host>-<pid>-<token>.part``: recognisably
ours, with the writing process. A process killed outright (SIGKILL, power loss) cannot
remove its temporary file, so every write first sweeps the folder for temporary files of
this host whose process is gone; files of live writers and anybody else's are left alone.
SIGTERM unwinds a write like Ctrl-C, and either signal ends the process as sent (see ``_termination``).
"""
import contextlib
import hashlib
import os
import re
import secrets
import shutil
import socket

from ._termination import signals_unwind
from .process_alive import process_alive

# hosts sharing a folder (network drives) each judge only their own processes' files
_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]
_PART = re.compile(r"\..+\.simkit-(?P<host>[0-9a-f]{8})-(?P<pid>[0-9]+)-[0-9a-f]{12}\.part")


def check_output_path(path, suffix, name):
    """Validate an output path without touching the file system.

    Parameters
    ----------
    path : str or os.PathLike
        Target file.
    suffix : str
        Required extension, lower case with its dot (``".png"``); compared case-insensitively.
    name : str
        Argument name used in error messages.

    Returns
    -------
    path : str
        Absolute, normalized path.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name}: expected a str or os.PathLike, got {type(path).__name__}")
    path = os.path.abspath(os.fspath(path))
    if not path.lower().endswith(suffix):
        raise ValueError(f"{name}: expected a path ending in {suffix!r}, got {path!r}")
    if os.path.isdir(path):
        raise ValueError(f"{name}: expected a file path, got the existing directory {path!r}")
    folder = os.path.dirname(path)
    parent = folder
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise ValueError(f"cannot create the folder of {name}: {parent!r} is a file, not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{name}: folder {parent!r} is not writable; choose a writable location")
    return path


def make_parent(path, name):
    """Create the folder of ``path`` (and its parents), raising ValueError when that is impossible."""
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as err:
        raise ValueError(f"cannot create the folder of {name} ({folder!r}): {err}") from err


def sweep_stale_parts(folder):
    """Remove the temporary files in ``folder`` left by dead writers of this host.

    Parameters
    ----------
    folder : str
        Existing folder.

    Returns
    -------
    removed : list of str
        Names of the removed files.
    """
    removed = []
    with os.scandir(folder) as entries:
        for entry in entries:
            match = _PART.fullmatch(entry.name)
            if match is None or match["host"] != _HOST:
                continue
            pid = int(match["pid"])
            if pid == os.getpid() or process_alive(pid):
                continue
            with contextlib.suppress(FileNotFoundError):      # another writer swept it first
                os.remove(entry.path)
                removed.append(entry.name)
    return removed


def _temporary_sibling(path, name):
    """Create an empty, exclusively opened hidden file next to ``path`` and return its name."""
    folder, base = os.path.split(path)
    for _ in range(8):
        tmp = os.path.join(folder, f".{base}.simkit-{_HOST}-{os.getpid()}-{secrets.token_hex(6)}.part")
        try:
            # Plain open (not mkstemp) so the file gets the usual umask permissions, not 0600.
            with open(tmp, "xb"):
                return tmp
        except FileExistsError:
            continue
        except OSError as err:
            raise ValueError(f"{name}: cannot write in folder {folder!r}: {err}") from err
    raise RuntimeError(f"could not create a temporary file in {folder!r}")


@contextlib.contextmanager
def atomic_target(path, name="path"):
    """Yield a temporary file name next to ``path``; on success move it over ``path``.

    Stale temporary files of dead writers in the folder are swept first. On any exception,
    SIGTERM included, the temporary file is removed and the exception propagates, so
    ``path`` keeps its previous content (or stays absent).

    Parameters
    ----------
    path : str
        Absolute target path whose folder exists.
    name : str
        Argument name used in error messages.
    """
    sweep_stale_parts(os.path.dirname(path))
    with signals_unwind():
        tmp = _temporary_sibling(path, name)
        try:
            yield tmp
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.remove(tmp)
            raise


def atomic_copy(src, dst, name="copy_to"):
    """Copy file ``src`` to ``dst`` atomically (temporary sibling + ``os.replace``).

    Parameters
    ----------
    src : str
        Existing file.
    dst : str
        Absolute target path; its folder is created.
    name : str
        Argument name used in error messages.
    """
    if os.path.exists(dst) and os.path.samefile(src, dst):
        return
    make_parent(dst, name)
    with atomic_target(dst, name) as tmp:
        shutil.copyfile(src, tmp)
