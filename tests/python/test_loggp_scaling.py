"""parjava.scaling: Amdahl & co. fitted to synthetic data of known parameters."""

from __future__ import annotations

import math

import numpy as np
import pytest
from matplotlib.figure import Figure

import parjava
from parjava import scaling

P = np.array([1, 2, 4, 8, 16, 32, 64])


def amdahl_log_times(p: np.ndarray, t1: float = 100.0, f: float = 0.01, c: float = 0.5):
    return t1 * (f + (1 - f) / p) + c * np.log2(p)


def test_amdahl_recovers_parameters_limit_and_knee() -> None:
    f_true = 0.02
    times = 50.0 * (f_true + (1 - f_true) / P)
    fit = scaling.fit(P, times, model="amdahl")
    assert fit.serial_fraction == pytest.approx(f_true, rel=1e-9)
    assert fit.limit == pytest.approx(1 / f_true, rel=1e-9)
    # Eager et al.: the knee of Amdahl's law is at p = (1-f)/f, where S = limit/2.
    assert fit.knee == pytest.approx((1 - f_true) / f_true, rel=1e-9)
    assert fit.speedup(fit.knee) == pytest.approx(fit.limit / 2, rel=1e-9)
    assert fit.t1 == pytest.approx(50.0)
    assert fit.loo_smape < 1e-8 and fit.smape < 1e-8
    assert fit.speedup_reference == "measured"
    assert "relative residuals" in fit.weighting and "relative residuals" in fit.summary()


def test_noisy_amdahl_is_recovered_within_noise() -> None:
    rng = np.random.default_rng(1)
    p = np.array([1, 2, 4, 8, 16, 32, 64, 128])
    times = 10.0 * (0.05 + 0.95 / p) * rng.normal(1.0, 0.02, p.size)
    fit = scaling.fit(p, times, model="amdahl")
    assert fit.serial_fraction == pytest.approx(0.05, rel=0.1)
    assert 0.5 < fit.loo_smape < 6.0
    lo, hi = fit.band(np.array([1024.0]), method="covariance")
    assert lo[0] < fit.time(1024.0) < hi[0]


def test_communication_terms_are_recovered_and_selected() -> None:
    times = amdahl_log_times(P)
    fit = scaling.fit(P, times, model="amdahl_log")
    assert fit.parameters == pytest.approx({"a": 1.0, "b": 99.0, "c": 0.5}, rel=1e-8)
    p_star, s_star = fit.peak
    assert p_star == pytest.approx(99.0 * math.log(2) / 0.5, rel=1e-8)
    assert s_star == pytest.approx(fit.limit)
    assert s_star == pytest.approx(100.0 / amdahl_log_times(np.array([p_star]))[0], rel=1e-8)
    linear = 3.0 + 200.0 / P + 0.05 * P
    lin_fit = scaling.fit(P, linear, model="amdahl_linear")
    assert lin_fit.parameters == pytest.approx({"a": 3.0, "b": 200.0, "c": 0.05}, rel=1e-8)
    assert lin_fit.peak[0] == pytest.approx(math.sqrt(200.0 / 0.05), rel=1e-8)
    # Model selection by leave-one-out SMAPE picks the generating model.
    assert scaling.fit(P, times).model == "amdahl_log"
    assert scaling.fit(P, linear).model == "amdahl_linear"
    selection = scaling.select(P, times)
    assert selection.table()[0]["model"] == "amdahl_log"
    assert "best=amdahl_log" in repr(selection)


def test_known_trap_plain_amdahl_misses_256_communication_fit_does_not() -> None:
    # A code with a log2(p) communication cost, measured (with 1 % noise) up to 64 processes.
    rng = np.random.default_rng(7)
    times = amdahl_log_times(P) * rng.normal(1.0, 0.01, P.size)
    truth_256 = float(amdahl_log_times(np.array([256]))[0])
    plain = scaling.fit(P, times, model="amdahl")
    with_comm = scaling.fit(P, times, model="amdahl_log")
    plain_error = abs(float(plain.time(256)) - truth_256) / truth_256
    comm_error = abs(float(with_comm.time(256)) - truth_256) / truth_256
    assert plain_error > 0.17  # the 17-85 % miss
    assert comm_error < 0.05
    # Plain Amdahl even predicts the run keeps getting faster; it is actually past its peak.
    assert plain.time(256) < plain.time(64)
    assert with_comm.peak[0] < 256
    # Its leave-one-out error already says so on the np <= 64 data.
    assert with_comm.loo_smape < plain.loo_smape
    # And the band of the communication fit contains the truth at 256.
    ext = with_comm.extrapolate([256])
    assert ext["time_low"][0] * 0.98 <= truth_256 <= ext["time_high"][0] * 1.02


def test_gustafson_weak_scaling() -> None:
    p = np.array([1, 2, 4, 8, 16, 32])
    alpha = 0.1
    times = 2.0 * p / (alpha + (1 - alpha) * p)
    fit = scaling.fit(p, times, model="gustafson")
    assert fit.parameters == pytest.approx({"t1": 2.0, "alpha": alpha}, rel=1e-6)
    assert fit.limit == pytest.approx(1 - alpha, rel=1e-6)
    # Scaled speedup p*T(1)/T(p) = alpha + (1-alpha) p.
    assert p * 2.0 / fit.time(p) == pytest.approx(alpha + (1 - alpha) * p, rel=1e-6)
    assert math.isnan(fit.knee)


def test_karp_flatt_per_point() -> None:
    times = 100.0 * (0.03 + 0.97 / P)
    e = scaling.karp_flatt(P, times)
    assert math.isnan(e[0])
    assert e[1:] == pytest.approx(0.03, rel=1e-9)  # constant for pure Amdahl
    growing = scaling.karp_flatt(P, amdahl_log_times(P))
    assert np.all(np.diff(growing[1:]) > 0)  # overhead grows with p
    assert scaling.fit(P, times).karp_flatt()[1:] == pytest.approx(0.03, rel=1e-9)
    assert scaling.speedup(P, times)[-1] == pytest.approx(100.0 / times[-1])
    assert scaling.efficiency(P, times)[0] == pytest.approx(1.0)
    with pytest.raises(parjava.UsageError, match="no time at p = 1"):
        scaling.karp_flatt(P[1:], times[1:])
    assert scaling.karp_flatt(P[1:], times[1:], t1=100.0)[0] == pytest.approx(0.03)


def test_without_p1_speedups_use_the_model_t1() -> None:
    p = P[2:]
    fit = scaling.fit(p, 100.0 * (0.03 + 0.97 / p), model="amdahl")
    assert fit.speedup_reference == "model"
    assert fit.reference_time == pytest.approx(100.0)


def test_bad_input_is_rejected() -> None:
    with pytest.raises(parjava.UsageError, match="at least 4 points, got 3"):
        scaling.fit([1, 2, 4], [3.0, 2.0, 1.5], model="amdahl_log")
    with pytest.raises(parjava.UsageError, match="at least 3 points, got 2"):
        scaling.fit([1, 2], [3.0, 2.0])
    with pytest.raises(parjava.UsageError, match="positive and finite"):
        scaling.fit([1, 2, 4, 8], [3.0, 0.0, 1.5, 1.0])
    with pytest.raises(parjava.UsageError, match="positive and finite"):
        scaling.fit([1, 2, 4, 8], [3.0, float("nan"), 1.5, 1.0])
    with pytest.raises(parjava.UsageError, match="sorted in increasing order"):
        scaling.fit([1, 4, 2, 8], [3.0, 2.0, 1.5, 1.0])
    with pytest.raises(parjava.UsageError, match="duplicate process count 2"):
        scaling.fit([1, 2, 2, 8], [3.0, 2.0, 1.5, 1.0])
    with pytest.raises(parjava.UsageError, match="whole process counts"):
        scaling.fit([0.5, 2, 4, 8], [3.0, 2.0, 1.5, 1.0])
    with pytest.raises(parjava.UsageError, match="differ in length"):
        scaling.fit([1, 2, 4], [3.0, 2.0])
    with pytest.raises(parjava.UsageError, match="unknown model"):
        scaling.fit(P, amdahl_log_times(P), model="roofline")
    with pytest.raises(parjava.UsageError, match="band method"):
        scaling.fit(P, amdahl_log_times(P)).band([128], method="bootstrap")


def test_plots_return_figures() -> None:
    fit = scaling.fit(P, amdahl_log_times(P))
    fig = fit.plot()
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2
    speedup_ax = fig.axes[0]
    labels = [line.get_label() for line in speedup_ax.get_lines()]
    assert "measured" in labels and any("amdahl_log" in label for label in labels)
    assert speedup_ax.get_xscale() == "log"
    assert isinstance(fit.plot("efficiency", extrapolate_to=1024), Figure)
    assert isinstance(scaling.select(P, amdahl_log_times(P)).plot(), Figure)
    with pytest.raises(parjava.UsageError, match="kind must be"):
        fit.plot("roofline")
    # A fit of a model's predictions says so in the legend.
    predicted = scaling.fit(P, amdahl_log_times(P), data_label="predicted")
    labels = [line.get_label() for line in predicted.plot("speedup").axes[0].get_lines()]
    assert "predicted" in labels and "measured" not in labels
