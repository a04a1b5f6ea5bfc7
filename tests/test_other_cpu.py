"""tests/other_cpu.py: the setting `make test` runs the round-off tests in a second time."""
import pytest

import other_cpu

DISPATCH = ["X86_V3", "X86_V4", "AVX512_ICL", "AVX512_SPR"]


def test_an_avx512_cpu_turns_off_avx512_and_keeps_avx2():
    icelake = {"X86_V2": True, "X86_V3": True, "X86_V4": True, "AVX512_ICL": True, "AVX512_SPR": False}
    assert other_cpu.disabled_targets(DISPATCH, icelake) == ["X86_V4", "AVX512_ICL"]


def test_an_avx2_cpu_turns_off_avx2():
    zen2 = {"X86_V2": True, "X86_V3": True, "X86_V4": False, "AVX512_ICL": False, "AVX512_SPR": False}
    assert other_cpu.disabled_targets(DISPATCH, zen2) == ["X86_V3"]


def test_a_baseline_cpu_changes_nothing_in_numpy():
    assert other_cpu.disabled_targets(DISPATCH, {"X86_V2": True}) == []
    assert other_cpu.disabled_targets(["ASIMDHP", "ASIMDDP"], {"ASIMDHP": True, "ASIMDDP": True}) == []


@pytest.mark.roundoff
def test_the_setting_takes_effect_here():
    env = other_cpu.other_environment({"PATH": "/usr/bin"})
    other_cpu.check(env)                       # raises if numpy still runs a disabled target
    assert env["PATH"] == "/usr/bin"
