"""Is a process still running? The writers' and the build's test for leftovers of dead processes."""
import os


def process_alive(pid):
    """True unless no process ``pid`` exists (one owned by another user counts as alive).

    Parameters
    ----------
    pid : int
        Process id.

    Returns
    -------
    alive : bool
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
