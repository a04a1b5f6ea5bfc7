"""Upstream simkit 0.1.8 in a worker subprocess, for the benchmarks that time it against simkit.

Upstream is never a dependency: the worker is this interpreter running a script that imports
only upstream's ``simkit`` package from the given site-packages folder (numpy and scipy stay
this environment's), through a temporary folder holding a link to it. The benchmark sends the
arrays as one ``.npz`` file; the worker's body builds ``kernels`` (key -> kernel name ->
callable) and ``energies`` (key -> float, printed first as a check that both sides compute the
same numbers), then answers one request per line, ``key|kernel|calls``, with the fastest of
`calls` consecutive calls, in seconds.
"""
import json
import os
import platform
import subprocess
import sys
import tempfile

import numpy as np
import scipy

PREAMBLE = r"""
import json, os, sys, tempfile, time
import numpy as np
folder, data = sys.argv[1], sys.argv[2]
link = tempfile.mkdtemp()
os.symlink(os.path.join(folder, "simkit"), os.path.join(link, "simkit"))
sys.path.insert(0, link)
import warnings
warnings.simplefilter("ignore")
d = np.load(data)
kernels, energies = {}, {}
"""

SERVE = r"""
print(json.dumps(energies), flush=True)
for line in sys.stdin:
    key, kernel, calls = line.rstrip("\n").rsplit("|", 2)
    best = float("inf")
    for _ in range(int(calls)):
        t = time.perf_counter()
        kernels[key][kernel]()
        best = min(best, time.perf_counter() - t)
    print(best, flush=True)
"""


class Worker:
    """Upstream in a subprocess running `body` (worker script text, see the module docstring) on `arrays`."""

    def __init__(self, folder, body, arrays):
        self.tmp = tempfile.TemporaryDirectory()
        data = os.path.join(self.tmp.name, "problems.npz")
        np.savez(data, **arrays)
        self.proc = subprocess.Popen([sys.executable, "-c", PREAMBLE + body + SERVE, folder, data],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.energies = json.loads(self._reply())

    def _reply(self):
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the upstream worker stopped:\n{self.proc.stderr.read()}")
        return line

    def time(self, key, kernel, calls):
        """Fastest of `calls` consecutive upstream calls of kernels[key][kernel], seconds."""
        self.proc.stdin.write(f"{key}|{kernel}|{calls}\n")
        self.proc.stdin.flush()
        return float(self._reply())

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()
        self.tmp.cleanup()


def start(folder, body, arrays):
    """A Worker, or None (with a note) when `folder` holds no upstream ``simkit`` package."""
    if folder and os.path.isdir(os.path.join(folder, "simkit")):
        return Worker(folder, body, arrays)
    print("note: upstream simkit not given (--upstream or SIMKIT_UPSTREAM); upstream columns skipped")
    return None


def add_upstream_argument(parser):
    parser.add_argument("--upstream", default=os.environ.get("SIMKIT_UPSTREAM"),
                        help="site-packages folder holding upstream simkit (default: $SIMKIT_UPSTREAM)")


def print_machine():
    """One line: CPU, cores, Python, numpy, scipy and the load average (the benchmarks share the machine)."""
    cpu = platform.processor()
    if os.path.exists("/proc/cpuinfo"):
        cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
                   cpu)
    print(f"machine: {cpu}, {os.cpu_count()} cores; Python {platform.python_version()}, "
          f"numpy {np.__version__}, scipy {scipy.__version__}; load average {os.getloadavg()[0]:.1f}")
