"""simkit: the companion simulation library of the physics-based animation course.

Stacked position vectors x are (n*dim, 1) columns, node-major (``x.reshape(n, dim)`` gives the
positions). Energies return floats, gradients (n*dim, 1) columns and Hessians
``scipy.sparse.csc_matrix`` (the constant ones, ``quadratic_hessian`` and ``kinetic_hessian_*``,
keep the type of the matrix they are given, as upstream simkit 0.1.8). Functions shared with
upstream follow its conventions; the API page lists the deliberate differences. ``import
simkit`` needs only numpy and scipy.
"""
from . import ccd, checks, contact, energies, filesystem, integrators, solvers, terms
from .affine_body_jacobian import affine_body_jacobian
from .boundary_edges import boundary_edges
from .boundary_faces import boundary_faces
from .combine_meshes import combine_meshes
from .deformation_jacobian import deformation_jacobian
from .dihedral_angles import dihedral_angles
from .dihedral_angles_2d import (dihedral_angles_2d, dihedral_angles_2d_gradient_element,
                                 dihedral_angles_2d_hessian_element)
from .dihedral_angles_3d import (dihedral_angles_3d, dihedral_angles_3d_gradient_element,
                                 dihedral_angles_3d_hessian_element)
from .dihedral_angles_element import dihedral_angles_gradient_element, dihedral_angles_hessian_element
from .dirichlet_laplacian import dirichlet_laplacian
from .dirichlet_penalty import dirichlet_penalty
from .discrete_shells_stiffness import discrete_shells_stiffness
from .edge_displacement_jacobian import edge_displacement_jacobian
from .edge_lengths import edge_lengths
from .edges import edges
from .gradient_cfd import gradient_cfd, hessian_cfd
from .gravity_force import gravity_force
from .grid_box import grid_box
from .grid_rectangle import grid_rectangle
from .grid_sheet import grid_sheet
from .hinge_quads import hinge_quads
from .lbs_jacobian import lbs_jacobian
from .linear_modal_analysis import linear_modal_analysis
from .massmatrix import massmatrix
from .modal_training_poses import modal_training_poses
from .optimized_cubature import optimized_cubature
from .project_into_subspace import project_into_subspace
from .psd_project import psd_project
from .skinning_eigenmodes import skinning_eigenmodes
from .spectral_cubature import spectral_cubature
from .volume import volume
from .ympr_to_lame import ympr_to_lame

__all__ = [
    "ccd", "checks", "contact", "energies", "filesystem", "integrators", "solvers", "terms",
    "affine_body_jacobian", "boundary_edges", "boundary_faces", "combine_meshes", "deformation_jacobian",
    "dihedral_angles", "dihedral_angles_2d", "dihedral_angles_2d_gradient_element",
    "dihedral_angles_2d_hessian_element", "dihedral_angles_3d", "dihedral_angles_3d_gradient_element",
    "dihedral_angles_3d_hessian_element", "dihedral_angles_gradient_element", "dihedral_angles_hessian_element",
    "dirichlet_laplacian", "dirichlet_penalty", "discrete_shells_stiffness", "edge_displacement_jacobian",
    "edge_lengths", "edges", "gradient_cfd", "gravity_force", "grid_box", "grid_rectangle", "grid_sheet",
    "hessian_cfd", "hinge_quads", "lbs_jacobian", "linear_modal_analysis", "massmatrix", "modal_training_poses",
    "optimized_cubature", "project_into_subspace", "psd_project", "skinning_eigenmodes", "spectral_cubature",
    "volume", "ympr_to_lame",
]
