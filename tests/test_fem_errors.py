"""FEM robustness: inverted neo-Hookean elements and bad input get clear errors, never NaN."""
import numpy as np
import pytest

import simkit
import simkit.energies as en
from simkit.energies.elastic import MATERIALS


def mesh2():
    X, T = simkit.grid_rectangle(3, 3)
    return X, T, simkit.deformation_jacobian(X, T), simkit.volume(X, T)


def test_inverted_neo_hookean_is_inf_energy_and_a_named_error():
    X, T, J, vol = mesh2()
    x = X.copy()
    x[4] = [1.2, 1.2]                                      # the centre node pushed past a corner: inverts
    F = (J @ x.reshape(-1, 1)).reshape(-1, 2, 2)
    inverted = np.flatnonzero(np.linalg.det(F) <= 0)
    assert inverted.size > 0
    assert en.elastic_energy_x(x, J, 1.0, 1.0, vol, "neo-hookean") == np.inf
    psi = en.neo_hookean_energy_element_F(F, 1.0, 1.0)
    assert np.isinf(psi[inverted]).all() and np.isfinite(np.delete(psi, inverted)).all()
    shown = ", ".join(str(i) for i in inverted)
    for call in (lambda: en.elastic_gradient_x(x, J, 1.0, 1.0, vol, "neo-hookean"),
                 lambda: en.elastic_hessian_x(x, J, 1.0, 1.0, vol, "neo-hookean"),
                 lambda: en.neo_hookean_hessian_x(x, J, 1.0, 1.0, vol, psd=False)):
        with pytest.raises(ValueError, match=rf"X: neo-hookean .*det F <= 0.*\[{shown}\]"):
            call()
    with pytest.raises(ValueError, match="F: neo-hookean"):
        en.neo_hookean_gradient_element_F(F, 1.0, 1.0)
    term = simkit.terms.ElasticEnergy(X, T, 1.0, 1.0, "neo-hookean")
    assert term.energy(x.reshape(-1, 1)) == np.inf
    collapsed = np.zeros_like(X)                          # det F = 0 exactly
    assert en.elastic_energy_x(collapsed, J, 1.0, 1.0, vol, "neo-hookean") == np.inf


@pytest.mark.parametrize("material", [m for m in MATERIALS if m != "neo-hookean"])
def test_other_materials_stay_finite_on_inverted_elements(material):
    X, T, J, vol = mesh2()
    x = X.copy()
    x[4] = [1.2, 1.3]
    assert np.isfinite(en.elastic_energy_x(x, J, 1.0, 1.0, vol, material))
    assert np.isfinite(en.elastic_gradient_x(x, J, 1.0, 1.0, vol, material)).all()
    assert np.isfinite(en.elastic_hessian_x(x, J, 1.0, 1.0, vol, material).data).all()


def test_unknown_material_lists_the_known_ones():
    X, T, J, vol = mesh2()
    with pytest.raises(ValueError, match="material: expected one of 'linear-elasticity', 'arap', 'fcr'"):
        en.elastic_energy_x(X, J, 1.0, 1.0, vol, "neohookean")
    with pytest.raises(ValueError, match="material"):
        simkit.terms.ElasticEnergy(X, T, 1.0, 1.0, "stvk")
    with pytest.raises(ValueError, match="material"):
        en.elastic_gradient_element_F(np.eye(2)[None], 1.0, 1.0, None)


@pytest.mark.parametrize("call, error, name", [
    (lambda X, J, vol: en.elastic_energy_x(X[:, :1], J, 1.0, 1.0, vol, "arap"), ValueError, "X"),
    (lambda X, J, vol: en.elastic_energy_x(X[:-1], J, 1.0, 1.0, vol, "arap"), ValueError, "J"),
    (lambda X, J, vol: en.elastic_energy_x(X, J, np.ones(3), 1.0, vol, "fcr"), ValueError, "mu"),
    (lambda X, J, vol: en.elastic_energy_x(X, J, -1.0, 1.0, vol, "fcr"), ValueError, "mu"),
    (lambda X, J, vol: en.elastic_energy_x(X, J, 1.0, np.nan, vol, "fcr"), ValueError, "lam"),
    (lambda X, J, vol: en.elastic_gradient_x(X, J, 1.0, 0.0, vol, "stable-neo-hookean"), ValueError, "lam"),
    (lambda X, J, vol: en.elastic_energy_x(X, J, 1.0, 1.0, vol[:-1], "fcr"), ValueError, "vol"),
    (lambda X, J, vol: en.elastic_gradient_x(X * np.nan, J, 1.0, 1.0, vol, "fcr"), ValueError, "X"),
    (lambda X, J, vol: en.elastic_hessian_x(X, J, 1.0, 1.0, vol, "fcr", psd=1), TypeError, "psd"),
    (lambda X, J, vol: en.elastic_energy_element_F(np.ones((2, 2, 3)), 1.0, 1.0, "fcr"), ValueError, "F"),
    (lambda X, J, vol: en.elastic_energy_element_F("F", 1.0, 1.0, "fcr"), TypeError, "F"),
    (lambda X, J, vol: simkit.terms.ElasticEnergy(X, np.array([[0, 1, 9]]), 1.0, 1.0), ValueError, "T"),
    (lambda X, J, vol: simkit.terms.ElasticEnergy(X, np.array([[0, 1, 3]]), 1.0, 1.0).energy(np.ones(5)),
     ValueError, "x"),
])
def test_bad_input_names_the_argument(call, error, name):
    X, T, J, vol = mesh2()
    with pytest.raises(error, match=rf"^{name}\b"):
        call(X, J, vol)


def test_nan_in_the_operator_is_reported():
    X, T, J, vol = mesh2()
    J = J.copy()
    J.data[0] = np.nan
    with pytest.raises(ValueError, match="^J: "):
        en.elastic_energy_x(X, J, 1.0, 1.0, vol, "fcr")
