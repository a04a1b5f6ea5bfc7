"""Unwinding a write on SIGTERM or Ctrl-C (SIGINT), so nothing half-written stays behind.

Python's default SIGTERM action ends the process at once: no ``finally`` clause runs, so a
render would leave its temporary file and a running ffmpeg behind. Inside
``signals_unwind()`` SIGTERM raises ``Terminated`` instead, which unwinds the write like
``KeyboardInterrupt`` does (ffmpeg killed, temporary file removed); the previous handler is
then restored and the signal delivered again, so the process still ends as the sender asked.

A signal's exception can be replaced on its way out: it is raised wherever Python next runs
bytecode, which may be inside an extension that turns any error into its own (matplotlib's Agg
renderer reports a ``KeyboardInterrupt`` raised while it converts a clip box as
``ValueError: Invalid bounding box``). So the block records the signals it receives, and after
the unwinding delivers the first again, whatever exception came out.
"""
import contextlib
import signal
import threading


class Terminated(SystemExit):
    """SIGTERM arrived while a file was being written; raised in the main thread."""


@contextlib.contextmanager
def signals_unwind():
    """For the duration of the block, SIGTERM raises ``Terminated`` and SIGINT its usual exception;
    a block ended by either is unwound, then the signal is delivered again to the previous handler.

    Only the main thread can install signal handlers, and an ignored signal stays ignored (as
    does SIGINT without a Python handler): then the block runs unchanged for that signal.
    Nested blocks unwind innermost first.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received = []
    previous = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGINT)}

    def on_sigterm(signum, frame):
        received.append(signum)
        raise Terminated(128 + signum)

    def on_sigint(signum, frame):
        received.append(signum)
        previous[signal.SIGINT](signum, frame)

    handlers = {}
    if previous[signal.SIGTERM] not in (signal.SIG_IGN, None):
        handlers[signal.SIGTERM] = on_sigterm
    if callable(previous[signal.SIGINT]):
        handlers[signal.SIGINT] = on_sigint
    for signum, handler in handlers.items():
        signal.signal(signum, handler)
    try:
        yield
    except BaseException:
        # The block has cleaned up. Hand the signal to whoever handled it before: SIGTERM's default
        # action ends the process here, SIGINT's handler raises KeyboardInterrupt in place of an
        # exception that replaced it; a Python handler that returns lets the exception carry on.
        for signum in handlers:
            signal.signal(signum, previous[signum])
        if received:
            signal.raise_signal(received[0])
        raise
    finally:
        for signum in handlers:
            signal.signal(signum, previous[signum])
