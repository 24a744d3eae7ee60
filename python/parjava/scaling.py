"""Scalability fits: Amdahl, Amdahl with a communication term, Gustafson, Karp-Flatt.

Give process counts and run times, measured or predicted::

    >>> import parjava as pj
    >>> fit = pj.scaling.fit([1, 2, 4, 8, 16, 32], times)        # model="auto"
    >>> fit.serial_fraction, fit.limit, fit.knee, fit.loo_smape
    >>> fit.extrapolate([256, 1024])                              # times with a band
    >>> fit.plot()                                                # a matplotlib Figure

Models of the run time T(p) on p processes (all parameters >= 0):

=================  ================================  =========================================
``amdahl``         T(p) = a + b/p                    Amdahl: sequential fraction f = a/(a+b),
                                                     speedup limit 1/f (seed 000 §3.8)
``amdahl_log``     T(p) = a + b/p + c·log2 p         plus a tree-like communication cost
``amdahl_linear``  T(p) = a + b/p + c·p              plus a linear communication cost
``gustafson``      T(p) = t1·p / (α + (1-α)·p)       weak scaling (problem size ∝ p): scaled
                                                     speedup p·T(1)/T(p) = α + (1-α)·p
=================  ================================  =========================================

**Residual weighting.** Every fit minimises the sum of squared *relative* residuals
``(T_model(p) - T(p)) / T(p)``. Run times over a scaling study span orders of magnitude
(T(1) may be 1000 × T(1024)); absolute residuals would let the few slowest runs decide the fit
and ignore the large-p points that matter for extrapolation. Timing noise is roughly
proportional to the run time, and SMAPE, the error the fits are judged by, is relative too.

**Validation.** ``loo_smape`` is the leave-one-out symmetric mean absolute percentage error
as Extra-P reports it (Calotoiu et al., SC'13; Extra-P's ``compute_cost_leave_one_out``):
each point is predicted by the model fitted to the other points, and
``SMAPE = 100/n · Σ 2|T̂ - T| / (|T| + |T̂|)``. ``model="auto"`` picks the Amdahl variant with
the lowest LOO SMAPE (fewer parameters on a tie), as Extra-P selects its hypotheses.

**Knee.** The process count that maximises speedup × efficiency = S(p)²/p, Eager, Zahorjan and
Lazowska, "Speedup versus efficiency in parallel systems", IEEE Trans. Computers 38(3), 1989:
the point where the benefit per unit of cost is largest; there efficiency is still >= 50 %.
For Amdahl it is p = (1-f)/f, where the speedup is half its limit 1/f.

**Extrapolation band.** By default the envelope of the n leave-one-out models and the full
model (how much the extrapolation depends on any single point; no distributional assumption,
meaningful for the 5-10 points of a scaling study); ``band="covariance"`` gives ±2σ from the
parameter covariance of the relative-residual fit (delta method) instead.

**Speedup.** S(p) = T(1)/T(p) with the measured T(1) when p = 1 was measured, else the
model's T(1) (stated in ``speedup_reference``). The Karp-Flatt metric (Karp & Flatt, CACM
33(5), 1990), the experimentally determined serial fraction
``e(p) = (1/S(p) - 1/p) / (1 - 1/p)``, is given per measured point with p > 1; a value that
grows with p reveals overhead that Amdahl's constant f does not explain.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import UsageError

ArrayLike = Any
Array = np.ndarray  # annotation alias: ScalingFit has a field named `np`

AMDAHL_MODELS = ("amdahl", "amdahl_log", "amdahl_linear")
MODELS = (*AMDAHL_MODELS, "gustafson")

WEIGHTING = (
    "relative residuals (T_model - T)/T: every point counts equally whatever its run time; "
    "noise is proportional to run time, and SMAPE is relative too"
)

_FORMULAS = {
    "amdahl": "T(p) = a + b/p",
    "amdahl_log": "T(p) = a + b/p + c·log2(p)",
    "amdahl_linear": "T(p) = a + b/p + c·p",
    "gustafson": "T(p) = t1·p / (alpha + (1 - alpha)·p)",
}
_PARAMETERS = {
    "amdahl": ("a", "b"),
    "amdahl_log": ("a", "b", "c"),
    "amdahl_linear": ("a", "b", "c"),
    "gustafson": ("t1", "alpha"),
}


# ---- input checks ------------------------------------------------------------------------


def _check_inputs(np_: ArrayLike, times: ArrayLike) -> tuple[Array, Array]:
    p = np.asarray(np_, dtype=float).ravel()
    t = np.asarray(times, dtype=float).ravel()
    if p.size != t.size:
        raise UsageError(f"np and times differ in length ({p.size} process counts, {t.size} times)")
    if p.size == 0:
        raise UsageError("no measurements: np and times are empty")
    if not np.all(np.isfinite(p)) or np.any(p < 1) or np.any(p != np.round(p)):
        raise UsageError(f"np must hold whole process counts >= 1, got {p.tolist()}")
    diffs = np.diff(p)
    if np.any(diffs == 0):
        dup = p[1:][diffs == 0][0]
        raise UsageError(
            f"np has duplicate process count {int(dup)}: give one time per count (e.g. the "
            "median of repeated runs)"
        )
    if np.any(diffs < 0):
        raise UsageError(f"np must be sorted in increasing order, got {p.astype(int).tolist()}")
    if not np.all(np.isfinite(t)) or np.any(t <= 0):
        bad = [float(x) for x in t if not (np.isfinite(x) and x > 0)]
        raise UsageError(f"times must be positive and finite, got {bad}")
    return p, t


def _need_points(model: str, n: int) -> None:
    k = len(_PARAMETERS[model])
    if n < k + 1:
        raise UsageError(
            f"model {model!r} has {k} parameters: fitting it with leave-one-out validation needs "
            f"at least {k + 1} points, got {n}"
        )


# ---- models ------------------------------------------------------------------------------


def _basis(model: str, p: Array) -> Array:
    columns = [np.ones_like(p), 1.0 / p]
    if model == "amdahl_log":
        columns.append(np.log2(p))
    elif model == "amdahl_linear":
        columns.append(p.copy())
    return np.column_stack(columns)


def _evaluate(model: str, theta: Array, p: ArrayLike) -> Array:
    q = np.asarray(p, dtype=float)
    if model == "gustafson":
        t1, alpha = theta
        return t1 * q / (alpha + (1.0 - alpha) * q)
    return _basis(model, q.ravel()).dot(theta).reshape(q.shape)


def _solve(model: str, p: Array, t: Array) -> tuple[Array, Array]:
    """Least squares on relative residuals; returns (parameters, covariance)."""
    from scipy.optimize import least_squares, nnls

    n = p.size
    if model != "gustafson":
        design = _basis(model, p) / t[:, None]
        theta, _ = nnls(design, np.ones(n))
        residual = design.dot(theta) - 1.0
        return theta, _covariance(design, residual, n)
    # Gustafson: 1/T = u/p + v is linear in (u, v) >= 0; start there, then minimise the true
    # relative residuals of T.
    start, _ = nnls(np.column_stack([t / p, t]), np.ones(n))
    u0, v0 = (start if start[1] > 0 else np.array([0.0, 1.0 / t[0]])).tolist()

    def residuals(x: Array) -> Array:
        return 1.0 / ((x[0] / p + x[1]) * t) - 1.0

    sol = least_squares(residuals, x0=[u0, max(v0, 1e-300)], bounds=([0.0, 1e-300], np.inf))
    u, v = sol.x
    theta = np.array([1.0 / (u + v), u / (u + v)])
    # Covariance of (t1, alpha) from that of (u, v) by the delta method.
    cov_uv = _covariance(sol.jac, sol.fun, n)
    s = u + v
    jac = np.array([[-1.0 / s**2, -1.0 / s**2], [v / s**2, -u / s**2]])
    return theta, jac.dot(cov_uv).dot(jac.T)


def _covariance(jac: Array, residual: Array, n: int) -> Array:
    k = jac.shape[1]
    if n <= k:
        return np.full((k, k), np.nan)
    sigma2 = float(residual.dot(residual)) / (n - k)
    try:
        return sigma2 * np.linalg.inv(jac.T.dot(jac))
    except np.linalg.LinAlgError:
        return np.full((k, k), np.nan)


def smape(predicted: ArrayLike, actual: ArrayLike) -> float:
    """Symmetric mean absolute percentage error in percent, as Extra-P computes it."""
    f = np.asarray(predicted, dtype=float)
    a = np.asarray(actual, dtype=float)
    denom = np.abs(a) + np.abs(f)
    terms = np.where(denom > 0, 2.0 * np.abs(f - a) / np.where(denom > 0, denom, 1.0), 0.0)
    return float(100.0 * terms.mean())


# ---- results -----------------------------------------------------------------------------


@dataclass
class ScalingFit:
    """One fitted scalability model, its validation and what it implies.

    ``parameters`` are in the units of the times given (seconds for measurements).
    """

    model: str
    np: Array
    times: Array
    parameters: dict[str, float]
    covariance: Array
    smape: float  # in-sample SMAPE, percent
    loo_smape: float  # leave-one-out SMAPE, percent (Extra-P's cross-validation)
    loo_predictions: Array  # each point predicted by the fit to the others
    _theta: Array = field(repr=False)
    _loo_thetas: list[Array] = field(repr=False)
    weighting: str = WEIGHTING
    data_label: str = "measured"  # what the points are, for plots: "measured" or "predicted"

    @property
    def formula(self) -> str:
        """The model's formula, e.g. ``T(p) = a + b/p + c·log2(p)``."""
        return _FORMULAS[self.model]

    # -- the model's implications ---------------------------------------------------------
    @property
    def t1(self) -> float:
        """The model's single-process time T(1)."""
        return float(_evaluate(self.model, self._theta, 1.0))

    @property
    def speedup_reference(self) -> str:
        """Which T(1) speedups divide: ``"measured"`` (p = 1 in the data) or ``"model"``."""
        return "measured" if self.np[0] == 1 else "model"

    @property
    def reference_time(self) -> float:
        """The T(1) speedups are relative to (see :attr:`speedup_reference`)."""
        return float(self.times[0]) if self.np[0] == 1 else self.t1

    @property
    def serial_fraction(self) -> float:
        """Sequential fraction: f = a/(a+b) for Amdahl models, alpha for Gustafson.

        For the Amdahl models f is the sequential fraction of the computation a + b/p; for
        Gustafson alpha is the serial fraction of the scaled run.
        """
        if self.model == "gustafson":
            return self.parameters["alpha"]
        a, b = self.parameters["a"], self.parameters["b"]
        return a / (a + b) if a + b > 0 else float("nan")

    @property
    def peak(self) -> tuple[float, float]:
        """(p, speedup) where the model's speedup is largest; p may be ``inf``.

        Amdahl: (inf, 1/f). With a communication term c > 0 the speedup peaks at a finite p:
        p* = b·ln2/c for c·log2 p, p* = sqrt(b/c) for c·p. Gustafson's scaled speedup grows
        without bound: (inf, inf).
        """
        if self.model == "gustafson":
            return (math.inf, math.inf)
        a, b = self.parameters["a"], self.parameters["b"]
        c = self.parameters.get("c", 0.0)
        if c <= 0.0:
            return (math.inf, self.t1 / a if a > 0 else math.inf)
        p_star = b * math.log(2.0) / c if self.model == "amdahl_log" else math.sqrt(b / c)
        p_star = max(p_star, 1.0)
        return (p_star, self.t1 / float(_evaluate(self.model, self._theta, p_star)))

    @property
    def limit(self) -> float:
        """Largest speedup the model allows: 1/f for Amdahl, the peak with communication.

        For Gustafson (weak scaling) it is the limit of the efficiency, 1 - alpha.
        """
        if self.model == "gustafson":
            return 1.0 - self.parameters["alpha"]
        return self.peak[1]

    @property
    def knee(self) -> float:
        """Process count maximising speedup × efficiency (Eager, Zahorjan, Lazowska 1989).

        ``inf`` when S²/p keeps growing (no serial part), ``nan`` for Gustafson.
        """
        if self.model == "gustafson":
            return math.nan
        a, b = self.parameters["a"], self.parameters["b"]
        c = self.parameters.get("c", 0.0)
        if c <= 0.0:
            return b / a if a > 0 else math.inf
        from scipy.optimize import minimize_scalar

        # maximise S^2/p = T(1)^2 / (p T(p)^2), i.e. minimise log(p) + 2 log T(p), over log2 p.
        def cost(x: float) -> float:
            p = 2.0**x
            return x * math.log(2.0) + 2.0 * math.log(float(_evaluate(self.model, self._theta, p)))

        best = minimize_scalar(cost, bounds=(0.0, 60.0), method="bounded", options={"xatol": 1e-9})
        return float(2.0**best.x)

    # -- evaluation -----------------------------------------------------------------------
    def time(self, p: ArrayLike) -> Array:
        """Model run time at process counts ``p``."""
        return np.asarray(_evaluate(self.model, self._theta, p), dtype=float)

    def speedup(self, p: ArrayLike) -> Array:
        """Model speedup T(1)/T(p) (relative to :attr:`reference_time`)."""
        return self.reference_time / self.time(p)

    def efficiency(self, p: ArrayLike) -> Array:
        """Model parallel efficiency S(p)/p."""
        return self.speedup(p) / np.asarray(p, dtype=float)

    def band(self, p: ArrayLike, method: str = "loo") -> tuple[Array, Array]:
        """Return lower and upper model times at ``p``.

        ``method="loo"``: the envelope of the leave-one-out fits and the full fit;
        ``method="covariance"``: ±2σ from the parameter covariance (delta method).
        """
        q = np.asarray(p, dtype=float)
        if method == "loo":
            curves = [self.time(q)] + [
                np.asarray(_evaluate(self.model, th, q), dtype=float) for th in self._loo_thetas
            ]
            stack = np.vstack([c.ravel() for c in curves])
            return stack.min(axis=0).reshape(q.shape), stack.max(axis=0).reshape(q.shape)
        if method == "covariance":
            center = self.time(q)
            grad = self._gradient(q.ravel())
            var = np.einsum("ij,jk,ik->i", grad, self.covariance, grad)
            sd = np.sqrt(np.maximum(var, 0.0)).reshape(q.shape)
            return np.maximum(center - 2.0 * sd, 0.0), center + 2.0 * sd
        raise UsageError(f"band method must be 'loo' or 'covariance', got {method!r}")

    def _gradient(self, q: Array) -> Array:
        if self.model != "gustafson":
            return _basis(self.model, q)
        t1, alpha = self._theta
        d = alpha + (1.0 - alpha) * q
        return np.column_stack([q / d, -t1 * q * (1.0 - q) / d**2])

    def extrapolate(self, p: ArrayLike, method: str = "loo") -> dict[str, Array]:
        """Model times, their band and speedups at (larger) process counts ``p``."""
        q = np.asarray(p, dtype=float).ravel()
        if q.size == 0 or np.any(q < 1):
            raise UsageError("extrapolate needs process counts >= 1")
        lo, hi = self.band(q, method)
        return {
            "np": q,
            "time": self.time(q),
            "time_low": lo,
            "time_high": hi,
            "speedup": self.speedup(q),
            "speedup_low": self.reference_time / hi,
            "speedup_high": self.reference_time / lo,
        }

    def karp_flatt(self) -> Array:
        """Return the Karp-Flatt serial fraction e(p) at each measured p (NaN at p = 1).

        Uses the measured T(1) when available, else the model's.
        """
        return karp_flatt(self.np, self.times, t1=self.reference_time)

    # -- presentation ---------------------------------------------------------------------
    def plot(self, kind: str = "both", extrapolate_to: float | None = None) -> Any:
        """Plot speedup and/or efficiency; returns a :class:`matplotlib.figure.Figure`.

        Shows the measurements, the fit, its band, the limit and the knee. ``kind`` is
        ``"speedup"``, ``"efficiency"`` or ``"both"``; the curves extend to
        ``extrapolate_to`` (default 4 × the largest measured p).
        """
        return _plot([self], kind, extrapolate_to)

    def summary(self) -> str:
        """Describe the model, its parameters and what they imply in a few lines."""
        params = ", ".join(f"{k}={v:.4g}" for k, v in self.parameters.items())
        lines = [f"{self.model}: {self.formula} with {params}"]
        if self.model == "gustafson":
            lines.append(
                f"scaled serial fraction alpha={self.serial_fraction:.4g}, efficiency limit "
                f"{self.limit:.4g}"
            )
        else:
            p_star, s_star = self.peak
            where = "p -> inf" if math.isinf(p_star) else f"p = {p_star:.4g}"
            lines.append(
                f"serial fraction f={self.serial_fraction:.4g}, speedup limit {s_star:.4g} "
                f"({where}), knee p = {self.knee:.4g}"
            )
        lines.append(
            f"SMAPE {self.smape:.3g} %, leave-one-out SMAPE {self.loo_smape:.3g} %; "
            f"weighting: relative residuals"
        )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<ScalingFit {self.summary().replace(chr(10), '; ')}>"


@dataclass
class ModelSelection:
    """Candidate fits ordered by leave-one-out SMAPE; ``best`` is the first."""

    fits: list[ScalingFit]

    @property
    def best(self) -> ScalingFit:
        """The fit with the lowest leave-one-out SMAPE (fewer parameters on a tie)."""
        return self.fits[0]

    def table(self) -> list[dict[str, Any]]:
        """One row per candidate: model, LOO SMAPE, SMAPE, f, limit, knee."""
        return [
            {
                "model": f.model,
                "loo_smape": f.loo_smape,
                "smape": f.smape,
                "serial_fraction": f.serial_fraction,
                "limit": f.limit,
                "knee": f.knee,
            }
            for f in self.fits
        ]

    def plot(self, kind: str = "speedup", extrapolate_to: float | None = None) -> Any:
        """All candidates on one figure; returns a :class:`matplotlib.figure.Figure`."""
        return _plot(self.fits, kind, extrapolate_to)

    def __repr__(self) -> str:
        rows = "; ".join(f"{f.model} LOO SMAPE {f.loo_smape:.3g} %" for f in self.fits)
        return f"<ModelSelection best={self.best.model}: {rows}>"


# ---- public functions ----------------------------------------------------------------------


def _fit_one(model: str, p: Array, t: Array) -> ScalingFit:
    if model not in MODELS:
        raise UsageError(f"unknown model {model!r}; choose one of {', '.join(MODELS)} or 'auto'")
    _need_points(model, p.size)
    theta, cov = _solve(model, p, t)
    loo_thetas = []
    loo_pred = np.empty_like(t)
    for i in range(p.size):
        keep = np.arange(p.size) != i
        th, _ = _solve(model, p[keep], t[keep])
        loo_thetas.append(th)
        loo_pred[i] = float(_evaluate(model, th, p[i]))
    return ScalingFit(
        model=model,
        np=p.astype(np.int64),
        times=t,
        parameters=dict(zip(_PARAMETERS[model], (float(x) for x in theta))),
        covariance=cov,
        smape=smape(_evaluate(model, theta, p), t),
        loo_smape=smape(loo_pred, t),
        loo_predictions=loo_pred,
        _theta=theta,
        _loo_thetas=loo_thetas,
    )


def select(
    np: ArrayLike,
    times: ArrayLike,
    models: Sequence[str] = AMDAHL_MODELS,
) -> ModelSelection:
    """Fit every model in ``models`` and order them by leave-one-out SMAPE (Extra-P's rule).

    Models that need more points than given are skipped; if none can be fitted the error of
    the first is raised.
    """
    p, t = _check_inputs(np, times)
    fits = []
    first_error: UsageError | None = None
    for model in models:
        try:
            fits.append(_fit_one(model, p, t))
        except UsageError as exc:
            if model not in MODELS:
                raise
            first_error = first_error or exc
    if not fits:
        assert first_error is not None
        raise first_error
    fits.sort(key=lambda f: (round(f.loo_smape, 9), len(f.parameters)))
    return ModelSelection(fits)


def fit(
    np: ArrayLike,
    times: ArrayLike,
    model: str = "auto",
    *,
    data_label: str = "measured",
) -> ScalingFit:
    """Fit a scalability model to run times at process counts ``np`` (sorted, distinct).

    ``model`` is ``"amdahl"``, ``"amdahl_log"``, ``"amdahl_linear"``, ``"gustafson"`` (weak
    scaling data) or ``"auto"``: the Amdahl variant with the lowest leave-one-out SMAPE. Works
    the same for measured times and for predictions (e.g. a ``Prediction``'s program times);
    ``data_label`` names the points in plots.
    """
    if model == "auto":
        best = select(np, times).best
    else:
        p, t = _check_inputs(np, times)
        best = _fit_one(model, p, t)
    return dataclasses.replace(best, data_label=data_label)


def speedup(np: ArrayLike, times: ArrayLike, t1: float | None = None) -> Array:
    """Measured speedup T(1)/T(p); ``t1`` defaults to the time at p = 1 (which must exist)."""
    p, t = _check_inputs(np, times)
    return _reference(p, t, t1) / t


def efficiency(np: ArrayLike, times: ArrayLike, t1: float | None = None) -> Array:
    """Measured parallel efficiency T(1)/(p·T(p))."""
    p, t = _check_inputs(np, times)
    return _reference(p, t, t1) / (p * t)


def karp_flatt(
    np: ArrayLike,
    times: ArrayLike,
    t1: float | None = None,
) -> Any:
    """Return the Karp-Flatt experimentally determined serial fraction per point.

    e(p) = (1/S - 1/p)/(1 - 1/p), NaN where p = 1. ``t1`` defaults to the time measured at
    p = 1.
    """
    p, t = _check_inputs(np, times)
    s = _reference(p, t, t1) / t
    with np_errstate():
        e = (1.0 / s - 1.0 / p) / (1.0 - 1.0 / p)
    e[p == 1] = math.nan
    return e


def _reference(p: Array, t: Array, t1: float | None) -> float:
    if t1 is not None:
        if not (math.isfinite(t1) and t1 > 0):
            raise UsageError(f"t1 must be a positive time, got {t1}")
        return float(t1)
    if p[0] != 1:
        raise UsageError(
            "no time at p = 1: pass t1= (e.g. fit(np, times).t1, the model's single-process time)"
        )
    return float(t[0])


def np_errstate() -> Any:
    """Silence NumPy's division warnings for p = 1 (handled explicitly)."""
    return np.errstate(divide="ignore", invalid="ignore")


# ---- plotting ----------------------------------------------------------------------------


def _plot(fits: Sequence[ScalingFit], kind: str, extrapolate_to: float | None) -> Any:
    from matplotlib.figure import Figure

    if kind not in ("speedup", "efficiency", "both"):
        raise UsageError(f"kind must be 'speedup', 'efficiency' or 'both', got {kind!r}")
    kinds = ["speedup", "efficiency"] if kind == "both" else [kind]
    fig = Figure(figsize=(5.5 * len(kinds), 4.2), layout="constrained")
    axes = fig.subplots(1, len(kinds), squeeze=False)[0]
    data = fits[0]
    p_max = float(extrapolate_to or 4 * data.np[-1])
    grid = np.unique(np.geomspace(1.0, max(p_max, float(data.np[-1])), 200))
    reference = data.reference_time
    measured_s = reference / data.times
    for ax, what in zip(axes, kinds):
        y_meas = measured_s if what == "speedup" else measured_s / data.np
        ax.plot(data.np, y_meas, "o", color="black", label=data.data_label, zorder=5)
        for i, f in enumerate(fits):
            color = f"C{i}"
            lo, hi = f.band(grid)
            s, s_lo, s_hi = reference / f.time(grid), reference / hi, reference / lo
            if what == "efficiency":
                s, s_lo, s_hi = s / grid, s_lo / grid, s_hi / grid
            ax.plot(grid, s, color=color, label=f"{f.model} (LOO SMAPE {f.loo_smape:.2g} %)")
            ax.fill_between(grid, s_lo, s_hi, color=color, alpha=0.15, linewidth=0)
            if what == "speedup" and f.model != "gustafson" and math.isfinite(f.limit):
                ax.axhline(f.limit, color=color, linestyle="--", linewidth=0.8)
            if f.model != "gustafson" and math.isfinite(f.knee) and f.knee <= grid[-1]:
                ax.axvline(f.knee, color=color, linestyle=":", linewidth=0.8)
        if what == "speedup":
            ax.plot(grid, grid, color="grey", linewidth=0.6, label="ideal")
            ax.set_yscale("log", base=2)
            ax.set_ylabel(f"speedup (T(1) {data.speedup_reference})")
        else:
            ax.axhline(1.0, color="grey", linewidth=0.6)
            ax.set_ylabel("parallel efficiency")
            ax.set_ylim(bottom=0.0)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("processes p")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
    fig.suptitle(
        "dashed: speedup limit, dotted: knee (max S²/p), band: leave-one-out envelope",
        fontsize="small",
    )
    return fig


__all__ = [
    "AMDAHL_MODELS",
    "MODELS",
    "WEIGHTING",
    "ModelSelection",
    "ScalingFit",
    "efficiency",
    "fit",
    "karp_flatt",
    "select",
    "smape",
    "speedup",
]
