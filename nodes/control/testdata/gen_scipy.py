#!/usr/bin/python3
"""Reference responses of cosim's linear control blocks, from scipy.signal.

Run once from the repository root with Debian's python3-scipy:

    /usr/bin/python3 nodes/control/testdata/gen_scipy.py > nodes/control/testdata/scipy.json

The output is committed; the tests read it and never run Python. It records
the scipy, numpy and Python versions that produced it. For every case it
holds:

  t, step       the step response y(t_k) from rest (scipy.signal.lsim with a
                unit input on each input in turn; lsim propagates the state
                with the matrix exponential, exact for a constant input),
  w, freq       the frequency response H(jw) (scipy.signal.freqresp),
  zoh           the frequency response of the zero-order-hold discretization
                at the step dt, H_d(exp(j w dt)) (scipy.signal.cont2discrete
                with method "zoh", evaluated in state-space form by numpy):
                what a co-simulation with step dt computes for a sampled
                sinusoid.

Complex numbers are written as [re, im]; floats with repr (17 digits).
"""

import json
import platform
import sys
import warnings

import numpy as np
import scipy
from scipy import signal

DT = 0.01
T_END = 5.0
W = np.logspace(-1, 2, 13)  # 0.1 ... 100 rad/s


def tf(num, den):
    return {"kind": "tf", "num": num, "den": den}


def ss(a, b, c, d):
    return {"kind": "ss", "a": a, "b": b, "c": c, "d": d}


def pid_reference(kp, ki, kd, tf_, b, c):
    """u/r of the PID at rest: kp b + ki/s + kd c s/(tf s + 1)."""
    # Over the common denominator s (tf s + 1) = tf s^2 + s.
    num = [kp * b * tf_ + kd * c, kp * b + ki * tf_, ki]
    return tf(num, [tf_, 1.0, 0.0])


def closed_loop(m, cdamp, k, kp, ki, kd, tf_, b, c):
    """x/r of a mass-spring-damper 1/(m s^2 + c s + k) under the PID.

    u = C_r r - C_y x with C_r = kp b + ki/s + kd c s/(tf s + 1) and
    C_y = kp + ki/s + kd s/(tf s + 1); x/r = P C_r / (1 + P C_y).
    With D0 = s (tf s + 1): C_r = Nr/D0, C_y = Ny/D0, P = 1/Dp, so
    x/r = Nr / (Dp D0 + Ny).
    """
    d0 = np.array([tf_, 1.0, 0.0])
    nr = np.array([kp * b * tf_ + kd * c, kp * b + ki * tf_, ki])
    ny = np.array([kp * tf_ + kd, kp + ki * tf_, ki])
    dp = np.array([m, cdamp, k])
    den = np.polyadd(np.polymul(dp, d0), ny)
    if ki == 0:
        # Without integral action numerator and denominator share the
        # factor s of D0: cancel it (exactly: both end in a zero).
        nr, den = nr[:-1], den[:-1]
    return tf(list(nr), list(den))


CASES = {
    # lag K/(T s + 1), K = 2, T = 0.5
    "lag": tf([2.0], [0.5, 1.0]),
    # filtered derivative K s/(T s + 1), K = 1.5, T = 0.05
    "derivative": tf([1.5, 0.0], [0.05, 1.0]),
    # integrator K/s, K = 3
    "integrator": tf([3.0], [1.0, 0.0]),
    # an underdamped second-order transfer function (2 s + 3)/(s^2 + 0.8 s + 4)
    "tf2": tf([2.0, 3.0], [1.0, 0.8, 4.0]),
    # a biproper one (feedthrough): (s^2 + 2 s + 5)/(2 s^2 + 3 s + 2)
    "tf2_biproper": tf([1.0, 2.0, 5.0], [2.0, 3.0, 2.0]),
    # third order 1/(s^3 + 2 s^2 + 3 s + 1)
    "tf3": tf([1.0], [1.0, 2.0, 3.0, 1.0]),
    # a two-input, two-output state space with D != 0
    "ss2x2": ss([[-1.0, 2.0], [-3.0, -4.0]], [[1.0, 0.0], [0.5, 1.0]], [[1.0, -1.0], [0.0, 2.0]], [[0.3, 0.0], [0.0, 0.0]]),
    # the PID from the reference (measurement held at zero), at rest
    "pid_reference": pid_reference(2.0, 1.5, 0.3, 0.05, 0.8, 0.5),
    # a PID position loop on a mass-spring-damper (m = 1, c = 0.4, k = 4):
    # kp = 20, ki = 10, kd = 4, tf = 0.01, derivative on the measurement
    "pid_loop": closed_loop(1.0, 0.4, 4.0, 20.0, 10.0, 4.0, 0.01, 1.0, 0.0),
    # the same loop without integral action and with tf = 0.001: the PD
    # loop whose second-order closed form the tests compare with
    "pd_loop": closed_loop(1.0, 0.4, 4.0, 20.0, 0.0, 4.0, 0.001, 1.0, 0.0),
}


def as_ss(case):
    if case["kind"] == "tf":
        return signal.StateSpace(*signal.tf2ss(case["num"], case["den"]))
    return signal.StateSpace(np.array(case["a"]), np.array(case["b"]), np.array(case["c"]), np.array(case["d"]))


def responses(case, a, b, c, d, i, j):
    """H(jw) and H_d(exp(j w dt)) of output i to input j.

    H(jw) is scipy.signal.freqresp: of (num, den) for a transfer function,
    evaluated from its own coefficients; of the state space otherwise,
    which scipy converts to a transfer function and warns that the
    numerator's leading coefficient is zero when D = 0 (dropping that
    exact zero is harmless, so the warning is silenced there only).

    H_d is C_d (zI - A_d)^-1 B_d + D_d with (A_d, B_d, C_d, D_d) from
    scipy.signal.cont2discrete(method="zoh"), solved by numpy. It is not
    dfreqresp: that evaluates the discrete transfer function's polynomials,
    whose roots crowd near z = 1 at these low frequencies (w dt = 1e-3),
    which loses up to about 1e-9 of relative accuracy for the third-order
    case; the state-space form does not.
    """
    if case["kind"] == "tf":
        _, h = signal.freqresp((case["num"], case["den"]), W)
    else:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=signal.BadCoefficients)
            _, h = signal.freqresp(signal.StateSpace(a, b[:, j:j + 1], c[i:i + 1, :], d[i:i + 1, j:j + 1]), W)
    ad, bd, cd, dd, _ = signal.cont2discrete((a, b, c, d), DT, method="zoh")
    n = ad.shape[0]
    hd = []
    for w in W:
        z = np.exp(1j * w * DT)
        x = np.linalg.solve(z * np.eye(n) - ad, bd[:, j])
        hd.append(cd[i, :] @ x + dd[i, j])
    return h, np.array(hd)


def cpx(z):
    return [float(np.real(z)), float(np.imag(z))]


def main():
    t = np.arange(0, round(T_END / DT) + 1) * DT
    out = {
        "generator": "nodes/control/testdata/gen_scipy.py",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "dt": DT,
        "w": [float(x) for x in W],
        "t": [float(x) for x in t],
        "cases": {},
    }
    for name, case in CASES.items():
        sys_ = as_ss(case)
        a, b, c, d = sys_.A, sys_.B, sys_.C, sys_.D
        m, q = b.shape[1], c.shape[0]
        # step[i][j] is output i's response to a unit step on input j.
        step = [[None] * m for _ in range(q)]
        freq = [[None] * m for _ in range(q)]
        zoh = [[None] * m for _ in range(q)]
        for j in range(m):
            u = np.zeros((len(t), m))
            u[:, j] = 1.0
            _, y, _ = signal.lsim(sys_, U=u if m > 1 else u[:, 0], T=t)
            y = np.asarray(y).reshape(len(t), q)
            for i in range(q):
                step[i][j] = [float(v) for v in y[:, i]]
                h, hd = responses(case, a, b, c, d, i, j)
                freq[i][j] = [cpx(z) for z in h]
                zoh[i][j] = [cpx(z) for z in hd]
        entry = dict(case)
        entry.update({"step": step, "freq": freq, "zoh": zoh})
        out["cases"][name] = entry
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
