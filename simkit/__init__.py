"""simkit: the companion simulation library of the physics-based animation course.

Stacked position vectors x are (n*dim, 1) columns, node-major (``x.reshape(n, dim)`` gives the
positions). Energies return floats, gradients (n*dim, 1) columns and Hessians
``scipy.sparse.csc_matrix`` (the constant ones, ``quadratic_hessian`` and ``kinetic_hessian_*``,
keep the type of the matrix they are given, as upstream simkit 0.1.8). Functions shared with
upstream follow its conventions; the API page lists the deliberate differences. ``import
simkit`` needs only numpy and scipy.
"""
from . import energies, filesystem, integrators, solvers
from .dihedral_angles import dihedral_angles
from .dirichlet_penalty import dirichlet_penalty
from .discrete_shells_stiffness import discrete_shells_stiffness
from .edge_displacement_jacobian import edge_displacement_jacobian
from .edge_lengths import edge_lengths
from .edges import edges
from .gradient_cfd import gradient_cfd, hessian_cfd
from .gravity_force import gravity_force
from .grid_sheet import grid_sheet
from .hinge_quads import hinge_quads
from .massmatrix import massmatrix
from .psd_project import psd_project
from . import ccd, terms

__all__ = [
    "energies", "filesystem", "integrators", "solvers",
    "dihedral_angles", "dirichlet_penalty", "discrete_shells_stiffness", "edge_displacement_jacobian",
    "edge_lengths", "edges", "gradient_cfd", "hessian_cfd", "gravity_force", "grid_sheet", "hinge_quads",
    "massmatrix", "psd_project",
    "ccd", "terms",
]
