package twomass

import (
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/mat"
)

// Params are the parameters of the Newmark family for the independent
// reference, with old-state weights αm, αf. They are computed here, not
// read from package integrators.
type Params struct {
	AlphaM, AlphaF, Beta, Gamma float64
}

// Classical returns the classical generalized-alpha parameters for ρ∞
// (Chung & Hulbert 1993, as printed in the MADDENING two-mass guide):
//
//	αm = (2ρ∞ − 1)/(1 + ρ∞), αf = ρ∞/(1 + ρ∞), γ = ½ − αm + αf, β = ¼(1 − αm + αf)².
func Classical(rhoInf float64) Params {
	am := (2*rhoInf - 1) / (1 + rhoInf)
	af := rhoInf / (1 + rhoInf)
	return Params{AlphaM: am, AlphaF: af, Gamma: 0.5 - am + af, Beta: 0.25 * (1 - am + af) * (1 - am + af)}
}

// AverageAcceleration returns Newmark's average-acceleration rule,
// β = ¼, γ = ½, no alpha weights.
func AverageAcceleration() Params { return Params{Beta: 0.25, Gamma: 0.5} }

// Amplification returns the one-step map A (3n × 3n) of the recurrence
// for M = I and the n × n stiffness k: x_{n+1} = A·x_n with
// x = (q, v, a), obtained by solving L·A = R (LU, gonum mat) for the
// block matrices of the package documentation.
func Amplification(k mat.Matrix, p Params, dt float64) *mat.Dense {
	L, R := blocks(k, p, dt)
	var A mat.Dense
	if err := A.Solve(L, R); err != nil {
		panic("twomass: singular reference system: " + err.Error())
	}
	return &A
}

// blocks returns L and R of the recurrence L·x_{n+1} = R·x_n.
func blocks(k mat.Matrix, p Params, dt float64) (L, R *mat.Dense) {
	n, _ := k.Dims()
	L = mat.NewDense(3*n, 3*n, nil)
	R = mat.NewDense(3*n, 3*n, nil)
	for i := range n {
		q, v, a := i, n+i, 2*n+i
		// q_{n+1} − β·dt²·a_{n+1} = q_n + dt·v_n + (½ − β)·dt²·a_n
		L.Set(q, q, 1)
		L.Set(q, a, -p.Beta*dt*dt)
		R.Set(q, q, 1)
		R.Set(q, v, dt)
		R.Set(q, a, (0.5-p.Beta)*dt*dt)
		// v_{n+1} − γ·dt·a_{n+1} = v_n + (1 − γ)·dt·a_n
		L.Set(v, v, 1)
		L.Set(v, a, -p.Gamma*dt)
		R.Set(v, v, 1)
		R.Set(v, a, (1-p.Gamma)*dt)
		// (1 − αf)·K·q_{n+1} + (1 − αm)·a_{n+1} = −αf·K·q_n − αm·a_n
		for j := range n {
			L.Set(a, j, (1-p.AlphaF)*k.At(i, j))
			R.Set(a, j, -p.AlphaF*k.At(i, j))
		}
		L.Set(a, a, 1-p.AlphaM)
		R.Set(a, a, -p.AlphaM)
	}
	return L, R
}

// Recurrence is the reference recurrence for one constant stiffness: L
// factorized once (LU), and R.
type Recurrence struct {
	lu  mat.LU
	r   *mat.Dense
	rhs mat.VecDense
}

// NewRecurrence returns the recurrence of the n × n stiffness k at dt.
func NewRecurrence(k mat.Matrix, p Params, dt float64) *Recurrence {
	L, R := blocks(k, p, dt)
	rc := &Recurrence{r: R}
	rc.lu.Factorize(L)
	return rc
}

// Step overwrites x = (q, v, a) with the solution of L·x' = R·x.
func (rc *Recurrence) Step(x *mat.VecDense) {
	rc.rhs.MulVec(rc.r, x)
	if err := rc.lu.SolveVecTo(x, false, &rc.rhs); err != nil {
		panic("twomass: singular reference system: " + err.Error())
	}
}

// ReferenceRun runs the reference for pb n times with dt from pb.Start()
// and the physical initial acceleration (what the driver does with an
// empty history), in closed modal form: each mode z_j is the 3×3
// recurrence of q̈ = −ω_j²q, from z_j = A_j, ż_j = 0, z̈_j = −ω_j²A_j, and
// the displacement is mapped back with FromModal. It returns the
// displacement after every step, the start included.
//
// The modal form and the per-step solve keep the reference an order of
// magnitude more accurate than the quantities it checks: in physical
// coordinates K·q cancels 800.5·q₀ against 799.5·q₁ (q₀ ≈ q₁) and loses
// about 1e-13 per evaluation, and powers of a computed A = L⁻¹R carry its
// rounding error systematically, linearly in the number of steps (both
// reach 1e-12 over 120 steps; see DenseRun).
func ReferenceRun(pb Problem, p Params, dt float64, n int) [][2]float64 {
	var z [2][]float64
	for j := range 2 {
		w2 := pb.Omega[j] * pb.Omega[j]
		rc := NewRecurrence(mat.NewDense(1, 1, []float64{w2}), p, dt)
		x := mat.NewVecDense(3, []float64{pb.Amp[j], 0, -w2 * pb.Amp[j]})
		z[j] = append(z[j], x.AtVec(0))
		for range n {
			rc.Step(x)
			z[j] = append(z[j], x.AtVec(0))
		}
	}
	out := make([][2]float64, n+1)
	for i := range out {
		out[i][0], out[i][1] = FromModal(z[0][i], z[1][i])
	}
	return out
}

// DenseRun is the same recurrence in physical coordinates: the dense 6×6
// system of the 2×2 stiffness, solved every step (LU once). It is the
// reference's cross-check, limited by the cancellation in K·q.
func DenseRun(pb Problem, p Params, dt float64, n int) [][2]float64 {
	k := pb.Stiffness()
	K := mat.NewDense(2, 2, k[:])
	rc := NewRecurrence(K, p, dt)
	st := pb.Start()
	var a0 mat.VecDense
	a0.MulVec(K, mat.NewVecDense(2, st.Q))
	x := mat.NewVecDense(6, []float64{st.Q[0], st.Q[1], st.V[0], st.V[1], -a0.AtVec(0), -a0.AtVec(1)})
	out := [][2]float64{{x.AtVec(0), x.AtVec(1)}}
	for range n {
		rc.Step(x)
		out = append(out, [2]float64{x.AtVec(0), x.AtVec(1)})
	}
	return out
}

// SpectralRadius returns the spectral radius of the reference map of one
// mode q̈ = −ω²q at ω·dt = omegaDt.
func SpectralRadius(p Params, omegaDt float64) float64 {
	return Radius(Amplification(mat.NewDense(1, 1, []float64{omegaDt * omegaDt}), p, 1))
}

// Radius returns the largest eigenvalue modulus of the square matrix a.
func Radius(a mat.Matrix) float64 {
	var eig mat.Eigen
	if !eig.Factorize(a, mat.EigenNone) {
		return math.NaN()
	}
	r := 0.0
	for _, v := range eig.Values(nil) {
		r = math.Max(r, cmplx.Abs(v))
	}
	return r
}
