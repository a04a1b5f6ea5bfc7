"""Energies: each module is one energy family, element tier plus assembled global tiers."""
from .bending import (bending_energy_element_theta, bending_energy_x, bending_gradient_element_theta,
                      bending_gradient_x, bending_hessian_element_theta, bending_hessian_x)
from .discrete_shells import (discrete_shells_bending_energy, discrete_shells_bending_gradient,
                              discrete_shells_bending_hessian)
from .kinetic import (bdf2_target, be_target, kinetic_energy_bdf2, kinetic_energy_be, kinetic_gradient_bdf2,
                      kinetic_gradient_be, kinetic_hessian_bdf2, kinetic_hessian_be, velocity_bdf2, velocity_be)
from .mass_springs import (mass_springs_energy_element_d, mass_springs_energy_x, mass_springs_energy_z,
                           mass_springs_gradient_element_d, mass_springs_gradient_x, mass_springs_gradient_z,
                           mass_springs_hessian_element_d, mass_springs_hessian_x, mass_springs_hessian_z)
from .quadratic import quadratic_energy, quadratic_gradient, quadratic_hessian
from .ipc_barrier import ipc_barrier_energy, ipc_barrier_gradient, ipc_barrier_hessian
from .contact_barrier import (half_space_barrier_energy, half_space_barrier_gradient, half_space_barrier_hessian,
                              half_space_friction_frame)
from .friction import (friction_energy, friction_frame, friction_gradient, friction_hessian,
                       stick_slip_friction_interpolant, stick_slip_friction_interpolant_gradient,
                       stick_slip_friction_interpolant_hessian)

__all__ = [
    "bending_energy_element_theta", "bending_gradient_element_theta", "bending_hessian_element_theta",
    "bending_energy_x", "bending_gradient_x", "bending_hessian_x",
    "discrete_shells_bending_energy", "discrete_shells_bending_gradient", "discrete_shells_bending_hessian",
    "be_target", "bdf2_target", "velocity_be", "velocity_bdf2",
    "kinetic_energy_be", "kinetic_gradient_be", "kinetic_hessian_be",
    "kinetic_energy_bdf2", "kinetic_gradient_bdf2", "kinetic_hessian_bdf2",
    "mass_springs_energy_element_d", "mass_springs_gradient_element_d", "mass_springs_hessian_element_d",
    "mass_springs_energy_z", "mass_springs_gradient_z", "mass_springs_hessian_z",
    "mass_springs_energy_x", "mass_springs_gradient_x", "mass_springs_hessian_x",
    "quadratic_energy", "quadratic_gradient", "quadratic_hessian",
    "ipc_barrier_energy", "ipc_barrier_gradient", "ipc_barrier_hessian",
    "half_space_barrier_energy", "half_space_barrier_gradient", "half_space_barrier_hessian",
    "half_space_friction_frame", "friction_frame", "friction_energy", "friction_gradient", "friction_hessian",
    "stick_slip_friction_interpolant", "stick_slip_friction_interpolant_gradient",
    "stick_slip_friction_interpolant_hessian",
]
from .arap import (arap_energy_element_F, arap_energy_x, arap_gradient_element_F, arap_gradient_x,
                   arap_hessian_element_F, arap_hessian_x)
from .elastic import (elastic_energy_element_F, elastic_energy_x, elastic_gradient_element_F, elastic_gradient_x,
                      elastic_hessian_element_F, elastic_hessian_x)
from .fcr import (fcr_energy_element_F, fcr_energy_x, fcr_gradient_element_F, fcr_gradient_x,
                  fcr_hessian_element_F, fcr_hessian_x)
from .linear_elasticity import (linear_elasticity_energy_element_F, linear_elasticity_energy_x,
                                linear_elasticity_gradient_element_F, linear_elasticity_gradient_x,
                                linear_elasticity_hessian_element_F, linear_elasticity_hessian_x)
from .neo_hookean import (neo_hookean_energy_element_F, neo_hookean_energy_x, neo_hookean_gradient_element_F,
                          neo_hookean_gradient_x, neo_hookean_hessian_element_F, neo_hookean_hessian_x)
from .stable_neo_hookean import (stable_neo_hookean_energy_element_F, stable_neo_hookean_energy_x,
                                 stable_neo_hookean_gradient_element_F, stable_neo_hookean_gradient_x,
                                 stable_neo_hookean_hessian_element_F, stable_neo_hookean_hessian_x)

__all__ += [
    f"{m}_{q}_{tier}" for m in ("elastic", "arap", "fcr", "linear_elasticity", "neo_hookean", "stable_neo_hookean")
    for q in ("energy", "gradient", "hessian") for tier in ("element_F", "x")
]
