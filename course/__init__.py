"""The course package: everything a chapter draws or publishes, one module per concern.

Chapters import it through the ``utils`` facade (``import utils``; ``utils.Chapter``). Where a
new helper goes:

- ``course.publish``: results and media folders, ``Chapter`` (save, publish, show), video embedding;
- ``course.filesystem``: the deterministic, atomic PNG and MP4 writers and ``BlitAnimation``
  (upstream's ``simkit.filesystem.save_figure`` and ``save_animation`` call them), and the media
  rule (``course.filesystem.media_rule``: whether a new rendering shows what the published file
  shows; the publisher and the site build keep the published bytes when it does);
- ``course.style``: colours, sizes, the rc style and the frame every plot shares;
- ``course.plots2d``: static 2D plots (spring networks, curves, residuals, convergence, profiles);
- ``course.anim2d``: 2D animations, ``(fig, anim)`` pairs for ``Chapter.video``;
- ``course.mesh3d``: triangle meshes in 3D by a fixed camera (figures, animations, hinges);
- ``course.viewer``: the interactive (plotly) view of a mesh trajectory.

Drawings that belong to one chapter's scenes get a module named after them (chapter 016's
solids in ``course.solids``, 017's contact scenes in ``course.contact_scenes``), re-exported by
one line at the end of ``utils.py``. Energy terms are not here: they live in ``simkit.terms``
(the library), and ``utils`` re-exports the four the early chapters use.
"""
