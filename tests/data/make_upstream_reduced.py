"""Write ``upstream_reduced_0_1_8.json``: upstream simkit 0.1.8's reduced-model outputs on small meshes.

Run from the repository root with the project's environment, giving a throw-away environment
that holds upstream with its eigensolver extra (``python3 -m venv /tmp/up && /tmp/up/bin/pip
install simkit==0.1.8 cvxopt``)::

    .venv/bin/python tests/data/make_upstream_reduced.py /tmp/up/bin/python

The meshes are built here (``MESHES``, the same calls ``tests/reduced_cases.py`` makes) and
handed to upstream as one ``.npz``; upstream is never imported into this environment.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [TESTS, os.path.dirname(TESTS)]
from reduced_cases import upstream_meshes  # noqa: E402

UPSTREAM_SCRIPT = r"""
import json, sys, warnings
import numpy as np
warnings.simplefilter("ignore")
from simkit.linear_modal_analysis import linear_modal_analysis
from simkit.skinning_eigenmodes import skinning_eigenmodes
from simkit.spectral_cubature import spectral_cubature
d = np.load(sys.argv[1])
X3, T3, X2, T2, W3, mu2 = d["X3"], d["T3"], d["X2"], d["T2"], d["W3"], d["mu2"]
bI3, bI2 = np.flatnonzero(X3[:, 0] == 0), np.flatnonzero(X2[:, 0] == 0)
lI, mc = spectral_cubature(X3, T3, W3, 6)
print(json.dumps({
    "modal_3d_clamped_k8": linear_modal_analysis(X3, T3, 8, bI3)[0].tolist(),
    "modal_3d_free_k10": linear_modal_analysis(X3, T3, 10)[0].tolist(),
    "modal_2d_clamped_k6": linear_modal_analysis(X2, T2, 6, bI2)[0].tolist(),
    "skinning_3d_free_k5": skinning_eigenmodes(X3, T3, 5)[1].tolist(),
    "skinning_3d_clamped_k4": skinning_eigenmodes(X3, T3, 4, bI=bI3)[1].tolist(),
    "skinning_2d_mu_k4": skinning_eigenmodes(X2, T2, 4, mu=mu2)[1].tolist(),
    "cubature_3d_k6": {"lI": lI.tolist(), "mc": mc.tolist()},
}))
"""


def main(python):
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "meshes.npz")
        np.savez(data, **upstream_meshes())
        out = subprocess.run([python, "-c", UPSTREAM_SCRIPT, data], capture_output=True, text=True, cwd=tmp,
                             check=True).stdout
    result = {"source": "upstream simkit 0.1.8 (with cvxopt) on tests/reduced_cases.upstream_meshes(); "
                        "written by tests/data/make_upstream_reduced.py", **json.loads(out)}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "upstream_reduced_0_1_8.json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
