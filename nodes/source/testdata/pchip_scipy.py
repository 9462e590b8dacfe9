# Reference values for TestLookupPCHIPAgainstSciPy (nodes/source/lookup_test.go),
# computed with SciPy's PchipInterpolator, an implementation independent of
# the lookup source's. Run with a Python that has SciPy (Debian's
# python3-scipy; the values in the test were made with SciPy 1.10.1,
# NumPy 1.24.2):
#
#   /usr/bin/python3 nodes/source/testdata/pchip_scipy.py
#
# It prints the Go literal pasted into the test. Inside the table the
# reference is the PCHIP interpolant; outside it, the lookup with
# outside = "extrapolate" continues linearly with the interpolant's end
# derivative (scipy's own extrapolation continues the cubic), so the
# reference there is v_end + d_end·(t − t_end) with SciPy's end derivative.
import numpy as np
from scipy.interpolate import PchipInterpolator

t = np.array([0.5, 1.25, 2, 3.5, 4, 6, 6.75])
v = np.array([
    [0, 1, 0],
    [0.5, 3, 0.075],
    [1.2, 3, -3.675],
    [2.2, -2, -1],
    [5, 0.5, -2],
    [5.5, 4, 22],
    [9, 1, 22.75],
])
p = PchipInterpolator(t, v, axis=0)
d = np.column_stack([PchipInterpolator._find_derivatives(t, v[:, i]) for i in range(v.shape[1])])
print("// end derivatives: first", list(d[0]), "last", list(d[-1]))
for k in range(69):
    x = -0.5 + 0.125 * k
    if x < t[0]:
        y = v[0] + d[0] * (x - t[0])
    elif x > t[-1]:
        y = v[-1] + d[-1] * (x - t[-1])
    else:
        y = p(x)
    print("{%r, %r, %r, %r}," % (x, y[0], y[1], y[2]))
