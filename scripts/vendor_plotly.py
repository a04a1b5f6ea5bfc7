"""Vendor plotly.js's 3D bundle for the chapters' interactive views: ``python scripts/vendor_plotly.py``.

Fetches the pinned npm package ``plotly.js-gl3d-dist-min`` with ``npm pack`` (the registry's
ordinary client), checks the tarball against the pinned integrity hash, and writes
``book/_static/vendor/plotly-gl3d-<version>.min.js`` and its licence beside it. The site
serves that folder as ``_static/vendor/`` (``html_static_path``), where
``utils.mesh_viewer_html`` points its pages.

The files are committed, so building and testing the site needs no network and no Node.js;
run this script only to move to another plotly.js. Its version must be the one the pinned
plotly wheel (``requirements.lock``) writes figures for, which the script checks.

Why the gl3d partial bundle and not the wheel's full ``plotly.min.js``: it holds the 3D
traces and the layout components the views use (sliders, buttons) in 1.7 MB instead of
4.8 MB, and the browser parses it in about a third of the time, which keeps a chapter page
with its 3D view loading in under 2 s on the course's 2-core machine.
"""
import argparse
import base64
import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "plotly.js-gl3d-dist-min"
VERSION = "4.1.1"
# `npm view plotly.js-gl3d-dist-min@4.1.1 dist.integrity`
INTEGRITY = "sha512-HNdhOi/mVr29u6BbzJvz1kAjEzCxwfaZNLipjNCxg33JE3RmRHhPDUd0LCuQMDcRR5LLFFfaSMMdtOWl0bERZA=="
VENDOR = ROOT / "book" / "_static" / "vendor"
BUNDLE = f"plotly-gl3d-{VERSION}.min.js"
LICENSE = f"plotly-gl3d-{VERSION}.LICENSE.txt"


def integrity(data):
    """The npm (subresource) integrity string of `data`: ``sha512-<base64 digest>``."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def fetch(workdir):
    """``npm pack`` the pinned package into `workdir`; return the tarball's path, integrity checked."""
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm not found: install Node.js and npm (Debian: apt-get install npm)")
    subprocess.run([npm, "pack", f"{PACKAGE}@{VERSION}", "--silent"], cwd=workdir, check=True,
                   stdout=subprocess.DEVNULL)
    tarball = Path(workdir) / f"{PACKAGE}-{VERSION}.tgz"
    found = integrity(tarball.read_bytes())
    if found != INTEGRITY:
        raise SystemExit(f"{tarball.name}: integrity {found} does not match the pinned {INTEGRITY}")
    return tarball


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.parse_args(argv)
    from plotly.offline import get_plotlyjs_version

    if get_plotlyjs_version() != VERSION:
        raise SystemExit(f"the plotly wheel writes figures for plotly.js {get_plotlyjs_version()}, "
                         f"this script vendors {VERSION}: pin matching versions")
    with tempfile.TemporaryDirectory() as workdir:
        with tarfile.open(fetch(workdir)) as tar:
            bundle = tar.extractfile("package/plotly-gl3d.min.js").read()
            licence = tar.extractfile("package/LICENSE").read()
    VENDOR.mkdir(parents=True, exist_ok=True)
    for old in VENDOR.glob("plotly-gl3d-*"):
        old.unlink()
    (VENDOR / BUNDLE).write_bytes(bundle)
    (VENDOR / LICENSE).write_bytes(licence)
    print(f"wrote {(VENDOR / BUNDLE).relative_to(ROOT)} ({len(bundle) / 2 ** 20:.2f} MB) and its licence")
    return 0


if __name__ == "__main__":
    sys.exit(main())
