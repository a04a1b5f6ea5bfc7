"""Sphinx extension: serve plotly.js from the site itself, for the chapters' interactive views.

The pinned plotly wheel (``requirements.lock``) ships the plotly.js bundle it was built
with. After every HTML build this copies that file to ``_static/vendor/plotly-<version>.min.js``
in the output, the URL ``utils.mesh_viewer_html`` points a chapter page to, so the
interactive views load nothing from the network. The file is generated, not committed:
it follows the lock (a new plotly pin re-executes the chapters, whose pages then name the
new version) and keeps 4.8 MB out of the repository.
"""
import filecmp
import shutil
from pathlib import Path


def _copy_plotly(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    import plotly
    from plotly.offline import get_plotlyjs_version

    source = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    target = Path(app.outdir) / "_static" / "vendor" / f"plotly-{get_plotlyjs_version()}.min.js"
    if target.is_file() and filecmp.cmp(source, target, shallow=False):
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


def setup(app):
    app.connect("build-finished", _copy_plotly)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
