# scipy_rk45_h0.py prints the initial step SciPy's RK45 chooses (its
# h_abs after construction: Hairer, Nørsett & Wanner's starting step, as
# scipy.integrate._ivp.common.select_initial_step computes it) for the
# problems of TestDormandPrinceInitialStepMatchesSciPy (dopri_reference_test.go).
# Run with SciPy 1.10 (Debian python3-scipy): /usr/bin/python3 scipy_rk45_h0.py
import numpy as np
from scipy.integrate import RK45

def vdp2(t, y): return [y[1], 2*(1-y[0]**2)*y[1]-y[0]]
def forced(t, y): return [-50*(y[0]-t*t), y[0]*y[1]*0.1-y[1]]
def zero(t, y): return [0.0, 0.0]

for f, y0, t0, tb, rt, at in [
        (vdp2, [2, 0.5], 0, 10, 1e-6, 1e-8),
        (forced, [0, 1], 0, 3, 1e-6, 1e-9),
        (forced, [0.5, 1], 5, 6, 1e-3, 1e-4),
        (vdp2, [2, 0], 0, 20, 1e-8, 1e-10),
        (forced, [0, 0], 1, 3, 1e-6, 1e-9),
        (zero, [1, 2], 0, 1, 1e-6, 1e-9)]:
    s = RK45(f, t0, np.array(y0, float), tb, rtol=rt, atol=at)
    print(repr(s.h_abs))
