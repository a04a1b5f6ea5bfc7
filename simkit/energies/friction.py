r"""IPC's smoothed Coulomb friction, with the normal force and tangent basis lagged.

Each friction contact k moves its points by the lagged linear map of the step's displacement::

    u_k = T_k^T sum_a c_ka (x_a - x_a^start)        (dim - 1 components)

with ``T_k`` (dim, dim - 1) an orthonormal basis of the contact's tangent plane and ``c_ka`` the
contact's coefficients on its nodes (1 for a vertex against a fixed half-space; ``1, -(1 - s),
-s`` for a vertex against a segment at closest-point parameter s). The dissipative potential
of a step of length h is (Li et al. 2020, Sec. 5)::

    D(x) = sum_k mu lambda_k f0(|u_k|)

where ``lambda_k`` is the contact's normal force magnitude. ``f0`` smooths ``|u|`` below the
displacement ``t = eps_v h`` (a speed ``eps_v``), with ``f1 = f0'`` IPC's C1 ramp from static
to kinetic friction (upstream simkit's ``stick_slip_friction_interpolant``)::

    f0(y) = -y^3 / (3 t^2) + y^2 / t + t / 3,   f1(y) = -y^2 / t^2 + 2 y / t   (y < t)
    f0(y) = y,                                  f1(y) = 1                       (y >= t)

Force ``-grad_u D = -mu lambda f1(|u|) u / |u|``: Coulomb's ``mu lambda`` opposing the
tangential motion above the speed ``eps_v``, a viscous ramp below it (so a "sticking" contact
creeps at a speed set by ``eps_v``).

Lagging. ``lambda_k``, ``T_k``, ``c_k`` and ``x^start`` are frozen at the start of the step
(``x^start = x_n``), so D is a smooth function of x alone and the step stays a minimization.
They are updated once per step (the ``Friction`` term's ``update(x_n)``); iterating the update
within a step (re-solve with the frame of the new solution) converges to the fully implicit
friction, and is left to the caller.

Hessian. In u, the Hessian of ``f0(|u|)`` has eigenvalue ``f1'(y) >= 0`` along u and
``f1(y) / y > 0`` across it (``2 / t`` for both at u = 0), so the exact Hessian of the lagged
potential is positive semi-definite: it is its own projection.
"""
import numpy as np

from .. import _assembly, _validate


def _threshold(epsilon_v, h):
    """The smoothing displacement ``eps_v h``, validated."""
    return _validate.positive_scalar(epsilon_v, "epsilon_v") * _validate.time_step(h)


def _speeds(y):
    y = _validate.finite_array(y, "y")
    if y.ndim > 2 or (y.ndim == 2 and y.shape[1] != 1):
        raise ValueError(f"y: expected tangential displacements of shape (m,) or (m, 1), got {y.shape}")
    if y.size and np.minimum.reduce(y.reshape(-1)) < 0:
        raise ValueError(f"y: expected norms |u| >= 0, found min {y.min():g}")
    return y.reshape(-1)


def _f0(y, t):
    r = np.minimum(y / t, 1.0)
    return np.where(y < t, t * (-r ** 3 / 3 + r ** 2 + 1.0 / 3), y)


def _f1(y, t):
    r = np.minimum(y / t, 1.0)
    return r * (2.0 - r)


def _df1(y, t):
    return np.where(y < t, (2.0 / t) * (1.0 - y / t), 0.0)


def _f1_over_y(y, t):
    """f1(y) / y, finite at y = 0 (2 / t)."""
    small = y < t
    with np.errstate(divide="ignore"):
        return np.where(small, (2.0 - y / t) / t, 1.0 / np.where(small, 1.0, y))


def _per_contact(kernel, y, epsilon_v, h):
    """`kernel` (``_f0``, ``_f1``, ``_df1``) of the validated speeds y and threshold epsilon_v h, as (m, 1)."""
    t = _threshold(epsilon_v, h)
    return kernel(_speeds(y), t).reshape(-1, 1)


def stick_slip_friction_interpolant(y, epsilon_v, h):
    r"""IPC's smoothed ``|u|``, f0, per contact (upstream simkit's name and arguments).

    :math:`f_0(y) = -\frac{y^3}{3 t^2} + \frac{y^2}{t} + \frac{t}{3}` for :math:`y < t = \epsilon_v h`, :math:`y` beyond

    Parameters
    ----------
    y : (m,) or (m, 1) float array
        Tangential displacement norms ``|u|`` over the step, >= 0.
    epsilon_v : float
        Smoothing speed, > 0.
    h : float
        Time step, > 0.

    Returns
    -------
    f0 : (m, 1) float array
    """
    return _per_contact(_f0, y, epsilon_v, h)


def stick_slip_friction_interpolant_gradient(y, epsilon_v, h):
    r"""f1 = f0', the static-to-kinetic ramp, per contact.

    :math:`f_1(y) = -\frac{y^2}{t^2} + \frac{2 y}{t}` for :math:`y < t = \epsilon_v h`, 1 beyond

    Parameters
    ----------
    y, epsilon_v, h
        As ``stick_slip_friction_interpolant``.

    Returns
    -------
    f1 : (m, 1) float array
        In [0, 1].
    """
    return _per_contact(_f1, y, epsilon_v, h)


def stick_slip_friction_interpolant_hessian(y, epsilon_v, h):
    r"""f1' = f0'', per contact.

    :math:`f_1'(y) = \frac{2}{t} \left(1 - \frac{y}{t}\right)` for :math:`y < t = \epsilon_v h`, 0 beyond

    Parameters
    ----------
    y, epsilon_v, h
        As ``stick_slip_friction_interpolant``.

    Returns
    -------
    df1 : (m, 1) float array
        >= 0.
    """
    return _per_contact(_df1, y, epsilon_v, h)


# --- assembled: lagged friction frames -------------------------------------------------------

def _tangent_basis(normals):
    k, dim = normals.shape
    if dim == 2:
        return np.stack([-normals[:, 1], normals[:, 0]], axis=1)[:, :, None]
    helper = np.where((np.abs(normals[:, 0]) < 0.9)[:, None], np.eye(3)[0], np.eye(3)[1])
    t1 = np.cross(normals, helper)
    t1 /= np.linalg.norm(t1, axis=1, keepdims=True)
    return np.stack([t1, np.cross(normals, t1)], axis=2)


def tangent_basis(normals):
    r"""An orthonormal basis of the plane orthogonal to each unit normal.

    :math:`T^\top T = I_{d-1}`, :math:`T^\top n = 0`: 2D :math:`T = (-n_y, n_x)^\top`; 3D :math:`t_1 = n \times e / \lVert n \times e \rVert`, :math:`t_2 = n \times t_1`

    Parameters
    ----------
    normals : (k, dim) float array
        Unit normals, dim 2 or 3.

    Returns
    -------
    T : (k, dim, dim - 1) float array
        Column j of ``T[i]`` is tangent j of contact i.
    """
    N = _validate.finite_array(normals, "normals")
    if N.ndim != 2 or N.shape[1] not in (2, 3):
        raise ValueError(f"normals: expected shape (k, dim) with dim 2 or 3, got {N.shape}")
    length = np.sqrt(np.einsum("ij,ij->i", N, N))
    if N.size and np.abs(length - 1.0).max() > 1e-9:
        bad = int(np.argmax(np.abs(length - 1.0)))
        raise ValueError(f"normals: expected unit vectors, normal {bad} has length {length[bad]:.12g}")
    return _tangent_basis(N)


class FrictionFrame:
    """The lagged data of k friction contacts, each on q nodes, in dim dimensions.

    Attributes
    ----------
    nodes : (k, q) int array
        Node indices of each contact.
    coefficients : (k, q) float array
        ``c_ka``: the relative displacement of contact k is ``sum_a c_ka dx_{nodes[k, a]}``.
    tangents : (k, dim, dim - 1) float array
        Orthonormal tangent basis of each contact.
    normal_force : (k,) float array
        ``lambda_k >= 0``.
    x_start : (n, dim) float array
        Positions at the start of the step.
    """

    def __init__(self, nodes, coefficients, tangents, normal_force, x_start):
        self.nodes, self.coefficients, self.tangents = nodes, coefficients, tangents
        self.normal_force, self.x_start = normal_force, x_start
        n, dim = x_start.shape
        self.dofs = _assembly.node_dofs(nodes, dim)

    def displacements(self, X):
        """u (k, dim - 1) of positions X (n, dim)."""
        rel = np.einsum("kq,kqd->kd", self.coefficients, (X - self.x_start)[self.nodes])
        return np.einsum("kdt,kd->kt", self.tangents, rel)


def friction_frame(nodes, coefficients, tangents, normal_force, x_start):
    r"""A lagged friction frame from its parts, validated: the contacts ``friction_energy`` acts on.

    :math:`u_k = T_k^\top \sum_a c_{ka} (x_{n_{ka}} - x^{start}_{n_{ka}})`, force magnitude :math:`\mu \lambda_k`

    Parameters
    ----------
    nodes : (k, q) int array
        Node indices of each contact, in [0, n).
    coefficients : (k, q) float array
        Weights of the nodes' displacements in each contact's relative displacement.
    tangents : (k, dim, dim - 1) float array
        Orthonormal tangent basis of each contact (``tangent_basis``).
    normal_force : (k,) float array, or a scalar
        Lagged normal force magnitude of each contact, >= 0.
    x_start : (n, dim) float array
        Positions at the start of the step.

    Returns
    -------
    frame : FrictionFrame
    """
    X = _validate.positions(x_start, "x_start")
    n, dim = X.shape
    nodes = np.asarray(nodes)
    if nodes.ndim != 2:
        raise ValueError(f"nodes: expected shape (k, q), got {nodes.shape}")
    k, q = nodes.shape
    nodes = _validate.index_array(nodes, "nodes", q, n)
    c = _validate.finite_array(coefficients, "coefficients")
    if c.shape != (k, q):
        raise ValueError(f"coefficients: expected shape ({k}, {q}), like nodes, got {c.shape}")
    T = _validate.finite_array(tangents, "tangents")
    if T.shape != (k, dim, dim - 1):
        raise ValueError(f"tangents: expected shape ({k}, {dim}, {dim - 1}), got {T.shape}")
    gram = np.einsum("kdt,kds->kts", T, T)
    if k and np.abs(gram - np.eye(dim - 1)).max() > 1e-9:
        raise ValueError("tangents: expected an orthonormal basis per contact (T^T T = I)")
    lam = _validate.element_param(normal_force, "normal_force", k, what="contact")
    return FrictionFrame(nodes, c, T, lam, X)


def _friction_coefficient(mu):
    """A friction coefficient: a finite real >= 0."""
    mu = _validate.real_scalar(mu, "mu")
    if mu < 0:
        raise ValueError(f"mu: expected a friction coefficient >= 0, got {mu}")
    return mu


def _frame_args(x, frame, mu, epsilon_v, h):
    if not isinstance(frame, FrictionFrame):
        raise TypeError(f"frame: expected a FrictionFrame (from friction_frame), got {type(frame).__name__}")
    X = _validate.node_positions(x, frame.x_start.shape[1], dims=(2, 3))
    if X.shape != frame.x_start.shape:
        raise ValueError(f"x: expected positions of shape {frame.x_start.shape}, like x_start, got {np.shape(x)}")
    return X, frame, _friction_coefficient(mu), _threshold(epsilon_v, h)


def _energy(X, frame, mu, t):
    u = frame.displacements(X)
    y = np.sqrt(np.einsum("kt,kt->k", u, u))
    return mu * float(frame.normal_force @ _f0(y, t))


def _gradient(X, frame, mu, t):
    u = frame.displacements(X)
    y = np.sqrt(np.einsum("kt,kt->k", u, u))
    gu = (mu * frame.normal_force * _f1_over_y(y, t))[:, None] * u                # (k, dim - 1)
    gd = np.einsum("kdt,kt->kd", frame.tangents, gu)                               # (k, dim)
    values = frame.coefficients[:, :, None] * gd[:, None, :]                       # (k, q, dim)
    k, q, dim = values.shape
    return _assembly.assemble_vector(values.reshape(k, q * dim), frame.dofs, X.size)


def _hessian_blocks(X, frame, mu, t):
    """(k, q*dim, q*dim) blocks ``mu lambda c c^T (x) T A T^T``, A = f1' uu^T/y^2 + f1/y (I - uu^T/y^2)."""
    u = frame.displacements(X)
    y = np.sqrt(np.einsum("kt,kt->k", u, u))
    across = _f1_over_y(y, t)
    with np.errstate(divide="ignore", invalid="ignore"):
        uhat = np.where(y[:, None] > 0, u / y[:, None], 0.0)
    m = u.shape[1]
    A = across[:, None, None] * np.eye(m) + (_df1(y, t) - across)[:, None, None] * uhat[:, :, None] * uhat[:, None, :]
    B = np.einsum("kdt,kts,kes->kde", frame.tangents, A, frame.tangents) * (mu * frame.normal_force)[:, None, None]
    k, q = frame.nodes.shape
    dim = X.shape[1]
    cc = frame.coefficients[:, :, None] * frame.coefficients[:, None, :]           # (k, q, q)
    blocks = cc[:, :, None, :, None] * B[:, None, :, None, :]                       # (k, q, dim, q, dim)
    blocks = blocks.reshape(k, q * dim, q * dim)
    return 0.5 * (blocks + blocks.transpose(0, 2, 1))


def _hessian(X, frame, mu, t):
    return _assembly.assemble_matrix(_hessian_blocks(X, frame, mu, t), frame.dofs, X.size)


def friction_energy(x, frame, mu, epsilon_v, h):
    r"""Lagged smoothed Coulomb friction potential of a step.

    :math:`D(x) = \sum_k \mu \lambda_k f_0(\lVert u_k \rVert)`, :math:`u_k = T_k^\top \sum_a c_{ka} (x_a - x_a^{start})`

    Parameters
    ----------
    x : (n, dim) float array, or (n*dim, 1)
        Positions at the end of the step.
    frame : FrictionFrame
        The lagged contacts (``friction_frame``, or a contact term's ``friction_frame(x_start)``).
    mu : float
        Friction coefficient, >= 0.
    epsilon_v : float
        Smoothing speed, > 0: below it friction ramps from 0 to ``mu lambda``.
    h : float
        Time step, > 0.

    Returns
    -------
    D : float
    """
    return _energy(*_frame_args(x, frame, mu, epsilon_v, h))


def friction_gradient(x, frame, mu, epsilon_v, h):
    r"""Gradient of ``friction_energy``: minus the friction forces.

    :math:`\partial D / \partial x_a = \sum_k \mu \lambda_k c_{ka}\, T_k \frac{f_1(\lVert u_k \rVert)}{\lVert u_k \rVert} u_k`

    Parameters
    ----------
    x, frame, mu, epsilon_v, h
        As ``friction_energy``.

    Returns
    -------
    g : (n*dim, 1) float array
    """
    return _gradient(*_frame_args(x, frame, mu, epsilon_v, h))


def friction_hessian(x, frame, mu, epsilon_v, h):
    r"""Hessian of ``friction_energy``: exact and positive semi-definite.

    :math:`H = \sum_k \mu \lambda_k (c_k c_k^\top) \otimes T_k \big[f_1' \hat u \hat u^\top + \tfrac{f_1}{\lVert u \rVert} (I - \hat u \hat u^\top)\big] T_k^\top`

    Parameters
    ----------
    x, frame, mu, epsilon_v, h
        As ``friction_energy``.

    Returns
    -------
    H : (n*dim, n*dim) scipy.sparse.csc_matrix
    """
    return _hessian(*_frame_args(x, frame, mu, epsilon_v, h))
