"""Design of experiments: the sweep's parameter vectors, from scipy.stats.qmc.

Sobol points are a sequence: the first n of a longer run are the same points, so a dataset can
grow by raising n_samples. A Latin hypercube is drawn for its n and changes with it.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.stats import qmc

from surrogate.sweep_config import Range


def design_points(ranges: list[Range], method: str, n_samples: int, seed: int) -> np.ndarray:
    """[n_samples, len(ranges)] parameter values in their units: the open ranges sampled by
    `method` (sobol: scrambled Sobol, Owen 1998; lhs: Latin hypercube, McKay et al. 1979), the
    fixed ones held."""
    open_axes = [i for i, r in enumerate(ranges) if r.high > r.low]
    if method == "sobol":
        with (
            warnings.catch_warnings()
        ):  # a count that is not a power of 2 loses balance, not validity
            warnings.simplefilter("ignore", UserWarning)
            unit = qmc.Sobol(d=len(open_axes), scramble=True, seed=seed).random(n_samples)
    elif method == "lhs":
        unit = qmc.LatinHypercube(d=len(open_axes), seed=seed).random(n_samples)
    else:
        raise ValueError(f"unknown sampler {method}")
    points = np.array([[r.low for r in ranges]] * n_samples, dtype=float)
    low = np.array([ranges[i].low for i in open_axes])
    high = np.array([ranges[i].high for i in open_axes])
    points[:, open_axes] = low + unit * (high - low)
    return points
