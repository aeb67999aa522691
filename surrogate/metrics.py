"""Accuracy figures of a surrogate on held-out shapes.

Drag counts: 1 count = 0.001 in Cd (SAE usage). Spearman's rho ranks shapes the way an
optimizer does; the ensemble's coverage is the share of samples whose LBM value lies within
two predicted standard deviations (about 95% for calibrated Gaussian errors).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import spearmanr

DRAG_COUNT = 1e-3


def r2(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Coefficient of determination over the whole set, 1 - SS_res / SS_tot."""
    ss_tot = float(np.sum((y_true - y_true.mean()) ** 2))
    return 1.0 - float(np.sum((y_true - y_pred) ** 2)) / ss_tot if ss_tot > 0 else float("nan")


def coefficient_metrics(
    name: str, y_true: np.ndarray, y_pred: np.ndarray, sigma: np.ndarray | None = None
) -> dict[str, float]:
    """R^2, MAE and max error (absolute, in drag counts and relative), Spearman rho, and with sigma
    the share within 2 sigma and the mean sigma, keyed '<name>_...'."""
    err = np.abs(y_pred - y_true)
    out = {
        f"{name}_r2": r2(y_true, y_pred),
        f"{name}_mae_counts": float(err.mean() / DRAG_COUNT),
        f"{name}_max_error_counts": float(err.max() / DRAG_COUNT),
        f"{name}_mean_relative_error": float(np.mean(err / np.abs(y_true))),
        f"{name}_spearman": float(spearmanr(y_true, y_pred).statistic)
        if len(y_true) > 2
        else float("nan"),
    }
    if sigma is not None:
        out[f"{name}_within_2sigma"] = float(np.mean(err <= 2 * sigma))
        out[f"{name}_mean_sigma_counts"] = float(np.mean(sigma) / DRAG_COUNT)
    return out


def cp_relative_l2(cp_true: np.ndarray, cp_pred: np.ndarray) -> float:
    """||Cp_pred - Cp||_2 / ||Cp||_2 over the points where Cp is known (not NaN)."""
    known = np.isfinite(cp_true)
    return float(np.linalg.norm(cp_pred[known] - cp_true[known]) / np.linalg.norm(cp_true[known]))
