r"""The time loop: a potential term stepped with Backward Euler (or BDF2), recording what a chapter plots.

Each step ``n -> n+1`` calls ``potential.update(x_n)`` (friction lags its normal forces, a moving
target moves), then minimizes ``potential + inertia`` with Newton from the inertial target,
filtered by ``potential.max_step`` (contact's continuous collision detection), exactly as
``backward_euler(x_n, x_{n-1}, potential, M, h, ...)`` (``bdf2``) does. It records the states
of chosen frames, the energy of named terms and the kinetic energy there, and Newton's
iterations and convergence per step.
"""
from dataclasses import dataclass

import numpy as np

from .. import _validate
from ..energies.kinetic import BDF2_COEFFICIENT, bdf2_target, be_target, velocity_bdf2
from ..terms.base import Sum, is_term, line_search_filter
from ..terms.inertia import Inertia
from ..terms.map import Map
from ._implicit import inertial_target, solve_step, solver_options

INTEGRATORS = ("backward_euler", "bdf2")


@dataclass
class Trajectory:
    """What ``simulate`` recorded.

    Attributes
    ----------
    states : (F, N) float array
        The state of each recorded frame, in the full coordinates ``potential.full(z)`` when the
        potential is a ``simkit.terms.Map``, else the loop's own (``states[f].reshape(-1, dim)``
        gives the positions).
    frames : (F,) int array
        The recorded step indices, increasing (0 is the start).
    times : (F,) float array
        ``frames * h``.
    energies : dict of str to (F,) float arrays
        ``"kinetic"`` (``1/2 v^T M v``, v the scheme's velocity) and each named term's energy at
        each recorded frame.
    iterations : (steps,) int array
        Newton iterations of each step.
    converged : (steps,) bool array
        Whether each step's Newton solve met its tolerance within ``max_iter``.
    x, v : (n, 1) float arrays
        Position and velocity after the last step, in the loop's coordinates (to continue a run).
    """

    states: np.ndarray
    frames: np.ndarray
    times: np.ndarray
    energies: dict
    iterations: np.ndarray
    converged: np.ndarray
    x: np.ndarray
    v: np.ndarray

    @property
    def unconverged(self):
        """Number of steps whose Newton solve stopped at ``max_iter`` before its tolerance: int."""
        return int(np.count_nonzero(~self.converged))


def _frames(frames, steps):
    if frames is None:
        return np.arange(steps + 1)
    arr = np.unique(_validate.index_vector(np.reshape(frames, -1), "frames", steps + 1))
    if arr.size == 0:
        raise ValueError("frames: expected at least one step index to record, got none")
    return arr


def _named_terms(energies, size):
    if energies is None:
        return {}
    if not isinstance(energies, dict):
        raise TypeError(f"energies: expected a dict of names to terms, got {type(energies).__name__}")
    for name, term in energies.items():
        if not isinstance(name, str) or name == "kinetic":
            raise ValueError(f"energies: expected names other than 'kinetic' (recorded anyway), got {name!r}")
        if not is_term(term):
            raise TypeError(f"energies[{name!r}]: expected an energy term, got {type(term).__name__}")
        term_size = getattr(term, "size", None)
        if term_size is not None and term_size != size:
            raise ValueError(f"energies[{name!r}]: the term acts on {term_size} coordinates, the recorded states "
                             f"have {size}")
    return dict(energies)


def simulate(potential, M, x0, h, steps, *, v0=None, integrator="backward_euler", frames=None, energies=None,
             tolerance=1e-6, max_iter=1, do_line_search=True, step_norm=None):
    r"""Step a potential term through time with Backward Euler or BDF2; record states, energies and Newton's work.

    :math:`x_{n+1} = \operatorname{argmin}_x \tfrac{c}{2h^2} \lVert x - \tilde x_n \rVert_M^2 + \Psi(x)`, ``potential.update(x_n)`` first

    Parameters
    ----------
    potential : term
        The potential Psi (``simkit.terms``, e.g. a ``Sum`` of springs, gravity, contact and
        friction), in the loop's coordinates: stacked positions, or the z of a ``Map`` / ``Held``.
        Its ``update(x_n)`` is called at the start of every step and its ``max_step`` filters
        Newton's line search.
    M : (n, n) sparse or dense float matrix
        Mass matrix of the loop's coordinates: symmetric, positive diagonal (``Map.project(M)``
        for a map, e.g. the dense ``B^T M B`` of a reduced basis).
    x0 : (n, 1) or (n,) float array
        Start positions.
    h : float
        Time step, > 0.
    steps : int
        Number of time steps, >= 0.
    v0 : (n, 1) or (n,) float array, optional, keyword-only
        Start velocity (default zero): the history is ``x0 - k h v0``, k = 1 (BE) or 1, 2, 3 (BDF2).
    integrator : {'backward_euler', 'bdf2'}, optional, keyword-only
        The scheme (default Backward Euler).
    frames : (F,) int array, optional, keyword-only
        Step indices in [0, steps] whose state and energies are recorded (default every one).
    energies : dict of str to term, optional, keyword-only
        Named terms whose energy is recorded at each frame, evaluated on the recorded states
        (full coordinates for a map); ``"kinetic"`` is always recorded.
    tolerance, max_iter, do_line_search, step_norm : optional, keyword-only
        Newton's options for every step, as ``backward_euler`` (same defaults).

    Returns
    -------
    trajectory : Trajectory
        ``states``, ``frames``, ``times``, ``energies``, ``iterations``, ``converged``,
        ``unconverged``, and the final ``x``, ``v``.

    Raises
    ------
    FloatingPointError
        A step produced a non-finite state.

    Notes
    -----
    Every argument is checked once, before the first step (the mass matrix, the terms, the
    options); the steps then run the same Newton solve as ``backward_euler`` / ``bdf2`` with
    only the O(N) checks of the states left, so a tiny system (a 21-node cable) pays little per
    step.
    """
    if not is_term(potential):
        raise TypeError(f"potential: expected an energy term with energy(x), gradient(x) and hessian(x), got "
                        f"{type(potential).__name__}")
    x = _validate.stacked(x0, "x0").copy()
    N = x.shape[0]
    size = getattr(potential, "size", None)
    if size is not None and size != N:
        raise ValueError(f"x0: expected {size} rows, the potential's coordinates, got {N}")
    v = np.zeros_like(x) if v0 is None else _validate.stacked(v0, "v0", size=N)
    integrator = _validate.choice(integrator, "integrator", INTEGRATORS)
    steps = _validate.integer(steps, "steps", low=0)
    frames = _frames(frames, steps)
    options = solver_options(tolerance, max_iter, do_line_search)
    if step_norm is not None:
        _validate.callables(step_norm=step_norm)
    bdf = integrator == "bdf2"
    inertia = Inertia(_validate.mass_matrix(M, "M", N)[0], h, coefficient=BDF2_COEFFICIENT if bdf else 1.0)
    h = inertia.h
    full = potential.full if isinstance(potential, Map) else None
    named = _named_terms(energies, N if full is None else potential.B.shape[0])
    objective, max_step = Sum(potential, inertia), line_search_filter(potential)
    update = potential.update if callable(getattr(potential, "update", None)) else None

    history = [x] + [x - (k * h) * v for k in range(1, 4 if bdf else 2)]      # newest first
    target = bdf2_target if bdf else be_target
    recorded = {"kinetic": []}
    recorded.update({name: [] for name in named})
    states, iterations, converged = [], np.zeros(steps, dtype=int), np.zeros(steps, dtype=bool)
    wanted = set(frames.tolist())

    def record(x, v):
        state = x if full is None else full(x)
        states.append(state[:, 0].copy())
        recorded["kinetic"].append(0.5 * (v.T @ (inertia.M @ v)).item())
        for name, term in named.items():
            recorded[name].append(term.energy(state))

    if 0 in wanted:
        record(x, v)
    for step in range(1, steps + 1):
        if update is not None:
            update(x)
        x_tilde = inertial_target("simulate", target, history, h)
        x, info = solve_step("simulate", objective, inertia, history[0], x_tilde, options, max_step, step_norm)
        iterations[step - 1], converged[step - 1] = info["iterations"], info["converged"]
        history = [x] + history[:-1]
        v = velocity_bdf2(*history[:3], h) if bdf else (history[0] - history[1]) / h
        if step in wanted:
            record(x, v)
    return Trajectory(states=np.array(states), frames=frames, times=frames * h,
                      energies={name: np.array(values) for name, values in recorded.items()},
                      iterations=iterations, converged=converged, x=x, v=v)
