# hairer_dopri5_vdp5.py prints every accepted step (time, y0) of Hairer's
# DOPRI5 (the Fortran code of Hairer, Nørsett & Wanner, as SciPy's
# scipy.integrate.ode "dopri5" wraps it, with a solout callback) on van der
# Pol μ = 5 from (2, 0.5) over [0, 20], RTol 1e-6, ATol 1e-8, for
# TestDormandPrinceStepsMatchHairer (dopri_reference_test.go). The last line is
# the number of points. Run with SciPy 1.10 (Debian python3-scipy):
#
#	/usr/bin/python3 hairer_dopri5_vdp5.py > hairer_dopri5_vdp5.txt
import numpy as np
from scipy.integrate import ode

def vdp(t, y): return [y[1], 5*(1-y[0]**2)*y[1]-y[0]]

ts = []
def solout(t, y):
    ts.append((t, y[0]))

r = ode(vdp).set_integrator('dopri5', rtol=1e-6, atol=1e-8, nsteps=100000)
r.set_solout(solout)
r.set_initial_value([2, 0.5], 0)
r.integrate(20)
for t, y in ts:
    print(repr(t), repr(y))
print(len(ts))
