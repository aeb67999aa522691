"""The sphere at Re 100 built in Python, no YAML: Cd beside Clift et al.'s 1.09 (docs/validation.md,
"Sphere at Re 100"), the wake's largest reversed speed and Cp at the front stagnation point.

    python examples/sphere.py [CELLS_PER_DIAMETER] [MAX_STEPS]    # default 12 8000 (25 s)
"""

import sys

import numpy as np

import slipstream as ss


def sphere_case(cells: int, steps: int) -> ss.Case:
    """cases/sphere.yaml in Python: free-slip walls, a sponge before the outflow."""
    case = ss.Case(
        name="sphere_re100",
        flow=ss.Flow(speed_m_s=1.0, reynolds=100.0),
        domain=ss.Domain(size_m=[1.2, 0.6, 0.6], sponge=ss.Sponge(length_m=0.2)),
        body=ss.Body(shape="sphere", center_m=[0.3, 0.3, 0.3], radius_m=0.05),
        resolution=ss.Resolution(cells_per_length=cells),
        run=ss.Run(max_steps=steps, check_every=200, average_steps=steps // 8),
    )
    case.domain.boundaries.z_min = "freeslip"  # the default floor is a rolling road
    return case


if __name__ == "__main__":
    cells, steps = (int(a) for a in (sys.argv[1:] or ["12", "8000"]))
    sim = ss.simulation(sphere_case(cells, steps))
    every_1000 = ss.Callback(lambda r: print("step", r.state.step), ss.IterationInterval(1000))
    result = ss.run(sim, [every_1000])
    field, skin = ss.flow_field(sim, result), ss.surface_cp(sim, result)
    front = skin.cp[np.argmin(skin.vertices_m[:, 0])]
    print(
        f"Cd {result.cd:.3f} (Clift et al.: 1.09)  wake u_x min {field.velocity_m_s[0].min():.2f} "
        f"m/s  Cp at the front {front:.2f}  grid {field.velocity_m_s.shape[1:]} cells"
    )
