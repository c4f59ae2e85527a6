"""Regenerate the erff polynomial coefficients in mathf_min.c (needs numpy and mpmath).

Each polynomial is a weighted least-squares fit on Chebyshev nodes, in a variable shifted to
the middle of its interval so the monomial coefficients stay small, then rounded to float.
Run: python boards/common/mathf_fit.py  and paste the printed arrays into mathf_min.c.
"""
import mpmath as mp
import numpy as np

mp.mp.dps = 40


def fit(f, lo, hi, shift, degree, relative, nodes=600):
    """Coefficients c[k] of sum c[k] * (t - shift)^k approximating f on [lo, hi]."""
    t = (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (np.arange(nodes) + 0.5) / nodes)
    y = np.array([f(v) for v in t])
    v = np.vander(t - shift, degree + 1, increasing=True)
    w = 1 / np.abs(y) if relative else np.ones_like(y)
    c, *_ = np.linalg.lstsq(v * w[:, None], y * w, rcond=None)
    return c.astype(np.float32)


def erf_small(z):
    """erf(x)/x - 1 as a function of z = x^2: erff uses x + x * P(x^2) for |x| < 1."""
    if z == 0:
        return float(2 / mp.sqrt(mp.pi) - 1)
    x = mp.sqrt(z)
    return float(mp.erf(x) / x - 1)


def erfc_scaled(u):
    """erfc(x) * exp(x^2) as a function of u = 1/x: erff uses 1 - exp(-x^2) * P(1/x)."""
    x = 1 / mp.mpf(u)
    return float(mp.erfc(x) * mp.exp(x * x))


TABLES = {
    # name: (function, interval of the variable, shift, degree, relative weighting)
    "ERF_SMALL": (erf_small, (0.0, 1.0), 0.0, 6, False),  # |x| in [0, 1)
    "ERFC_MID": (erfc_scaled, (0.5, 1.0), 0.75, 7, True),  # |x| in [1, 2)
    "ERFC_FAR": (erfc_scaled, (0.25, 0.5), 0.375, 5, True),  # |x| in [2, 4)
}

if __name__ == "__main__":
    for name, (f, (lo, hi), shift, degree, relative) in TABLES.items():
        c = fit(f, lo, hi, shift, degree, relative)
        body = ", ".join(f"{float(v):.9g}f" for v in c)
        print(f"static const float {name}[{len(c)}] = {{{body}}};")
