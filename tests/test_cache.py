"""The small-call caches: validated arguments are reused only while their content is unchanged."""
import numpy as np
import pytest
import scipy.sparse as sps

import simkit
from simkit._cache import RecentArguments
from simkit.energies import mass_springs_energy_z, mass_springs_gradient_z


@pytest.fixture
def cable():
    n = 21
    X = np.column_stack([np.linspace(0.0, 4.0, n), np.zeros(n)])
    E = np.column_stack([np.arange(n - 1), np.arange(1, n)])
    J = sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(2)).tocsc()
    x = (X + 0.05 * np.column_stack([np.zeros(n), -np.sin(np.linspace(0.0, np.pi, n))])).reshape(-1, 1)
    return x, J, np.full((n - 1, 1), 400.0), np.ones((n - 1, 1)), simkit.edge_lengths(X, E).reshape(-1, 1)


def test_a_hit_returns_the_validated_value_without_validating_again():
    recent, calls = RecentArguments(), []
    a = np.arange(3.0)
    validate = lambda: calls.append(1) or len(calls)   # noqa: E731
    assert recent.get((a, None, 2), validate) == 1
    assert recent.get((a, None, 2), validate) == 1
    assert len(calls) == 1
    assert recent.get((a.copy(), None, 2), validate) == 2        # another object: validated
    a[0] = 7.0                                                   # changed in place: validated
    assert recent.get((a, None, 2), validate) == 3


def test_large_or_unknown_arguments_are_validated_every_time():
    recent, calls = RecentArguments(), []
    validate = lambda: calls.append(1) or len(calls)   # noqa: E731
    big, listed = np.zeros(10_000), [1.0, 2.0]
    for args in ((big,), (listed,)):
        recent.get(args, validate)
        recent.get(args, validate)
    assert len(calls) == 4


def test_operator_and_parameters_changed_in_place_are_seen(cable):
    x, J, ym, vol, l0 = cable
    e = mass_springs_energy_z(x, J, ym, vol, l0)
    g = mass_springs_gradient_z(x, J, ym, vol, l0)
    ym *= 2.0
    assert mass_springs_energy_z(x, J, ym, vol, l0) == pytest.approx(2.0 * e, rel=1e-14)
    J.data *= -1.0                       # d -> -d: the energy is even, the gradient keeps its sign
    assert mass_springs_energy_z(x, J, ym, vol, l0) == pytest.approx(2.0 * e, rel=1e-14)
    assert np.allclose(mass_springs_gradient_z(x, J, ym, vol, l0), 2.0 * g, rtol=1e-14, atol=0)
    J.data[0] = np.nan
    with pytest.raises(ValueError, match="J: expected finite values"):
        mass_springs_energy_z(x, J, ym, vol, l0)
    J.data[0] = -1.0
    vol[3] = -1.0
    with pytest.raises(ValueError, match="vol: expected non-negative values"):
        mass_springs_gradient_z(x, J, ym, vol, l0)


def test_a_tiny_operator_applied_dense_gives_the_sparse_values(cable, monkeypatch):
    from simkit import _assembly
    from simkit.energies import mass_springs
    x, J, ym, vol, l0 = cable
    dense = mass_springs_energy_z(x, J, ym, vol, l0), mass_springs_gradient_z(x, J, ym, vol, l0)
    monkeypatch.setattr(_assembly, "DENSE_ENTRIES", 0)
    monkeypatch.setattr(_assembly, "_operators", type(_assembly._operators)())
    monkeypatch.setattr(mass_springs, "_recent_z_args", RecentArguments())
    sparse = mass_springs_energy_z(x, J, ym, vol, l0), mass_springs_gradient_z(x, J, ym, vol, l0)
    assert not isinstance(_assembly.operator_pattern(J, x.shape[0])._apply, np.ndarray)
    # an edge operator has entries +-1: both products round once per entry, to the same bits
    assert dense[0] == sparse[0]
    assert np.array_equal(dense[1], sparse[1])
