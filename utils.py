"""The course's helpers, one name for the chapters: ``import utils``.

A facade: every name lives in a module of the ``course`` package, by concern, and the
energy terms in ``simkit.terms``. Add a helper to the module of its concern and export it
here; the API reference documents each concern on its own page.

publishing (``course.publish``)
    ``ROOT``, ``notebook_results_path``, ``media_dir``, ``Chapter`` (one object per chapter
    that saves a figure or a video into ``results/<chapter>/``, publishes its copy
    ``media/<prefix>_<name>.png|mp4``, keeping the published bytes when a reader could see no
    difference, and returns what the page shows), ``check_frames_inside``, ``embed_video``,
    ``show_video`` (save an animation and embed it, as chapter 014's seed does).
look (``course.style``)
    Colour constants, ``DPI``, ``DENSITY``, the ``STYLE`` rc dict and the ``style()`` context
    manager. Helpers apply the look per figure, never by changing global rcParams.
static 2D plots (``course.plots2d``)
    ``setup_axes``, ``plot_spring_network``, ``line_plot``, ``phase_plot``,
    ``residual_plot``, ``loglog_plot``, ``profile_plot``.
2D animations (``course.anim2d``)
    ``animate_springs_energy``, ``animate_springs_grid``: ``(fig, anim)`` pairs whose
    ``anim`` is a ``course.filesystem.BlitAnimation``.
3D meshes (``course.mesh3d``)
    ``View``, ``view_basis``, ``plot_mesh_3d``, ``mesh_limits``, ``plot_meshes_3d``,
    ``animate_meshes_3d`` (flat-shaded triangle meshes by a fixed camera),
    ``plot_sheet_hinges``, ``plot_hinge_3d``.
depth-correct 3D scenes (``course.render3d``, ``course.scene3d``)
    ``Surface`` (a mesh of a scene with its colours), ``Lighting``, ``render_scene`` (a z-buffer
    renderer: pixels), ``scene_limits``; ``SceneArtist``, ``plot_scene_3d``, ``plot_scenes_3d``,
    ``animate_scene_3d`` (figures and videos of folds, drapes and piles).
interactive view (``course.viewer``)
    ``mesh_viewer_html``: an offline, interactive plotly view of a precomputed trajectory,
    drawn by Jupyter Lab's plotly renderer and by the site's vendored plotly.js.
energy terms (``simkit.terms``)
    ``SpringEnergy``, ``PenaltySpring``, ``Gravity``, ``Inertia``, re-exported: objects with
    ``energy(x) -> float``, ``gradient(x) -> (N, 1)``, ``hessian(x) -> sparse (N, N)``.
"""
import os
import sys

try:
    import course  # noqa: F401
except ModuleNotFoundError:
    # course/ sits beside this file; an editable install made before it existed maps only
    # simkit and utils (re-running `pip install -e .` fixes the environment for good)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# the names chapters use, by concern; each module's own docstring says what belongs there

from simkit.terms import Gravity, Inertia, PenaltySpring, SpringEnergy  # noqa: E402,F401

from course.publish import (  # noqa: E402,F401
    MEDIA_ENV, RESULTS_ENV, ROOT, Chapter, check_frames_inside, embed_video, media_dir, notebook_results_path,
    show_video)
from course.style import (  # noqa: E402,F401
    ANIM_Z, BOUNDARY_C, CLOTH_BACK, CLOTH_FRONT, DENSITY, DPI, ENERGY_COLORS, GRID_C, HINGE_C, INTEGRATOR_COLORS,
    PIN_C, REST_C, SPRING_EDGE, SPRING_NODE, STYLE, TRACK_C, style)
from course.plots2d import (  # noqa: E402,F401
    SpringNetworkArtists, line_plot, loglog_plot, phase_plot, plot_spring_network, profile_plot, residual_plot,
    setup_axes)
from course.anim2d import (  # noqa: E402,F401
    COUNTER_PLACES, REF_STYLES, animate_springs_energy, animate_springs_grid)
from course.mesh3d import (  # noqa: E402,F401
    AMBIENT, DIFFUSE, EDGE_SHADE, VIEW_3D, MeshArtists, View, animate_meshes_3d, mesh_limits, plot_hinge_3d,
    plot_mesh_3d, plot_meshes_3d, plot_sheet_hinges, view_basis)
from course.render3d import (  # noqa: E402,F401
    LIGHTING, LINE_SHADE, PIN_RIM, Lighting, Surface, render_scene, scene_limits)
from course.scene3d import SceneArtist, animate_scene_3d, plot_scene_3d, plot_scenes_3d  # noqa: E402,F401
from course.viewer import (  # noqa: E402,F401
    PLOTLY_MIME, PLOTLY_STATIC, MeshView, mesh_viewer_html, plotly_js_name)

# chapter-specific drawing modules (course/solids.py, course/contact_scenes.py, ...): one
# re-export line each, below this comment
from course.solids import (  # noqa: E402,F401
    SOLID_FACE, TriangleArtists, animate_triangles_2d, plot_triangles_2d, triangle_limits)
from course.particles import animate_particles_2d  # noqa: E402,F401
from course.contact_scenes import (  # noqa: E402,F401
    BODY_COLORS, GROUND_C, GROUND_EDGE, OBSTACLE_Z, block, draw_half_space, draw_segments, draw_slab, half_space_polygon)
