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
from .segment_barrier import segment_barrier_energy, segment_barrier_gradient, segment_barrier_hessian
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
    "segment_barrier_energy", "segment_barrier_gradient", "segment_barrier_hessian",
    "half_space_friction_frame", "friction_frame", "friction_energy", "friction_gradient", "friction_hessian",
    "stick_slip_friction_interpolant", "stick_slip_friction_interpolant_gradient",
    "stick_slip_friction_interpolant_hessian",
]
