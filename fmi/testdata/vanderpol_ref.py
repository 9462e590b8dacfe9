# Generates vanderpol_ref.csv: the Van der Pol oscillator of the Reference
# FMU VanDerPol (x0' = x1, x1' = mu (1 - x0^2) x1 - x0, mu = 1, x0(0) = 2,
# x1(0) = 0) integrated by SciPy's DOP853 (an 8th-order Runge-Kutta
# independent of cosim's integrators) with rtol = 1e-13, atol = 1e-14,
# sampled at t = 0, 0.5, ..., 20. Run (Debian python3-scipy 1.10): /usr/bin/python3 vanderpol_ref.py > vanderpol_ref.csv
import numpy as np
from scipy.integrate import solve_ivp

mu = 1.0
def f(t, x):
    return [x[1], mu * ((1.0 - x[0] * x[0]) * x[1]) - x[0]]

ts = np.arange(0, 20.0001, 0.5)
sol = solve_ivp(f, (0, 20), [2.0, 0.0], method="DOP853", rtol=1e-13, atol=1e-14, t_eval=ts)
print("time,x0,x1")
for t, a, b in zip(sol.t, sol.y[0], sol.y[1]):
    print(f"{t!r},{a!r},{b!r}")
