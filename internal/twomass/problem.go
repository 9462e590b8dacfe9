package twomass

import (
	"fmt"
	"math"

	"github.com/cosimgo/cosim/integrators"
)

// Problem is a two-mass, two-mode problem: unit masses, modes (1, 1)/√2
// (slow, index 0) and (1, −1)/√2 (fast, index 1).
type Problem struct {
	Omega [2]float64 // modal frequencies ω₁ (slow) and ω₂ (fast), rad/s
	Amp   [2]float64 // initial modal displacement amplitudes A₁, A₂ (zero velocity)
}

// The MADDENING two-mass guide's behaviour run: dt = 0.1 s, 120 steps, 12 s.
const (
	SeedDt    = 0.1
	SeedSteps = 120
)

// Seed returns the MADDENING two-mass guide's problem: ω = 1 and 40 rad/s, amplitudes 1 and
// 0.05, K = [[800.5, −799.5], [−799.5, 800.5]].
func Seed() Problem { return Problem{Omega: [2]float64{1, 40}, Amp: [2]float64{1, 0.05}} }

// ResolvedEnd is the final time of the refinement study.
const ResolvedEnd = 2.0

// Resolved returns the refinement study's problem: ω = 1 and 3 rad/s,
// amplitudes 1 and 0.5, K = [[5, −4], [−4, 5]].
func Resolved() Problem { return Problem{Omega: [2]float64{1, 3}, Amp: [2]float64{1, 0.5}} }

// Stiffness returns K row-major: ground springs ω₁², coupling (ω₂² − ω₁²)/2.
func (p Problem) Stiffness() [4]float64 {
	g := p.Omega[0] * p.Omega[0]
	c := (p.Omega[1]*p.Omega[1] - g) / 2
	return [4]float64{g + c, -c, -c, g + c}
}

// Start returns the initial state at t = 0: q = Φ·A, v = 0.
func (p Problem) Start() integrators.State {
	q0, q1 := FromModal(p.Amp[0], p.Amp[1])
	return integrators.State{Q: []float64{q0, q1}, V: []float64{0, 0}, Z: []float64{}}
}

// Exact returns the exact modal displacements and velocities at t:
// z_j = A_j·cos(ω_j t), ż_j = −A_j·ω_j·sin(ω_j t).
func (p Problem) Exact(t float64) (z, zd [2]float64) {
	for j := range 2 {
		s, c := math.Sincos(p.Omega[j] * t)
		z[j], zd[j] = p.Amp[j]*c, -p.Amp[j]*p.Omega[j]*s
	}
	return z, zd
}

// Modal returns the modal coordinates of physical values x (positions or
// velocities): z₁ = (x₀ + x₁)/√2, z₂ = (x₀ − x₁)/√2.
func Modal(x []float64) (slow, fast float64) {
	return (x[0] + x[1]) / math.Sqrt2, (x[0] - x[1]) / math.Sqrt2
}

// FromModal is the inverse of Modal.
func FromModal(slow, fast float64) (x0, x1 float64) {
	return (slow + fast) / math.Sqrt2, (slow - fast) / math.Sqrt2
}

// EnergyRatios returns the slow and fast modal energies of st as fractions
// of their initial (exact, constant) values: E_j = ½ż_j² + ½ω_j²z_j².
func (p Problem) EnergyRatios(st integrators.State) (slow, fast float64) {
	var r [2]float64
	z0, z1 := Modal(st.Q)
	w0, w1 := Modal(st.V)
	z, w := [2]float64{z0, z1}, [2]float64{w0, w1}
	for j := range 2 {
		e := 0.5*w[j]*w[j] + 0.5*p.Omega[j]*p.Omega[j]*z[j]*z[j]
		r[j] = e / (0.5 * p.Omega[j] * p.Omega[j] * p.Amp[j] * p.Amp[j])
	}
	return r[0], r[1]
}

// SlowPhaseLag returns ω₁·t − φ, φ = atan2(−ż₁/ω₁, z₁) the phase of the
// slow mode at st, wrapped to [−π, π]: how far the numerical slow mode
// lags the exact one (positive: behind).
func (p Problem) SlowPhaseLag(st integrators.State) float64 {
	z, _ := Modal(st.Q)
	w, _ := Modal(st.V)
	return math.Remainder(p.Omega[0]*st.T-math.Atan2(-w/p.Omega[0], z), 2*math.Pi)
}

// linear is q̈ = −K·q with its analytic AccelJacobian.
type linear struct{ k [4]float64 }

func (l linear) Dims() (int, int) { return 2, 0 }

func (l linear) Accel(t float64, q, v, z, a, zdot []float64) error {
	a[0] = -(l.k[0]*q[0] + l.k[1]*q[1])
	a[1] = -(l.k[2]*q[0] + l.k[3]*q[1])
	return nil
}

func (l linear) AccelJacobian(t float64, q, v, z, dadq, dadv []float64) error {
	for i := range dadq {
		dadq[i], dadv[i] = -l.k[i], 0
	}
	return nil
}

// System returns q̈ = −K·q as an integrators.SecondOrder with an analytic
// AccelJacobian.
func (p Problem) System() integrators.SecondOrder { return linear{p.Stiffness()} }

// Variant is one row of the MADDENING two-mass guide's table: a label and a method.
type Variant struct {
	Label  string
	Method integrators.SecondOrderMethod
}

// Variants returns the MADDENING two-mass guide's table rows: registered Newmark (β = ¼,
// γ = ½) and generalized-alpha with ρ∞ = 1, 0.8, 0.5 and 0.
func Variants() []Variant {
	vs := []Variant{{"Newmark", integrators.Newmark{Beta: 0.25, Gamma: 0.5}}}
	for _, rho := range []float64{1, 0.8, 0.5, 0} {
		vs = append(vs, Variant{fmt.Sprintf("rho=%v", rho), integrators.GeneralizedAlpha{RhoInf: rho}})
	}
	return vs
}

// BadBeta is the MADDENING two-mass guide's negative control for the upstream β expression:
// generalized-alpha at ρ∞ = 1 with the cached β = 1/16 of the audited
// source instead of the classical ¼ (an integrators.NewmarkFamily, since
// no named method has these parameters).
func BadBeta() integrators.SecondOrderMethod {
	p := integrators.GeneralizedAlpha{RhoInf: 1}.Params()
	p.Beta = 1.0 / 16
	return integrators.NewmarkFamily{Alpha: p}
}
