"""Unwinding a write on SIGTERM the way Ctrl-C (SIGINT) does, so nothing half-written stays behind.

Python's default SIGTERM action ends the process at once: no ``finally`` clause runs, so a
render would leave its temporary file and a running ffmpeg behind. Inside
``sigterm_unwinds()`` SIGTERM raises ``Terminated`` instead, which unwinds the write like
``KeyboardInterrupt`` does (ffmpeg killed, temporary file removed); the previous handler is
then restored and the signal delivered again, so the process still ends as the sender asked.
"""
import contextlib
import signal
import threading


class Terminated(SystemExit):
    """SIGTERM arrived while a file was being written; raised in the main thread."""


def _raise_terminated(signum, frame):
    raise Terminated(128 + signum)


@contextlib.contextmanager
def sigterm_unwinds():
    """Turn SIGTERM into ``Terminated`` for the duration of the block, then re-deliver it.

    Only the main thread can install signal handlers, and an ignored SIGTERM stays
    ignored: in both cases the block runs unchanged. Nested blocks unwind innermost first.
    """
    previous = signal.getsignal(signal.SIGTERM)
    if threading.current_thread() is not threading.main_thread() or previous in (signal.SIG_IGN, None):
        yield
        return
    signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    except Terminated:
        # The block has cleaned up. Hand the signal to whoever handled it before: the
        # default action ends the process here; a Python handler that returns lets the
        # exception carry on.
        signal.signal(signal.SIGTERM, previous)
        signal.raise_signal(signal.SIGTERM)
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
