package benchmarks

import (
	"math"

	"github.com/cosimgo/cosim/integrators"
)

// W3 is the two-mass problem of MADDENING's generalized-alpha guide ("Two masses, two known modes"):
// M = I, K = [[800.5, −799.5], [−799.5, 800.5]], modes of 1 and 40 rad/s
// with amplitudes 1 and 0.05, at rest; dt = 0.1 s, 120 steps. Its
// accuracy table (energy retained, phase lag) belongs to
// benchmarks/structuralmodes; here only the cost is measured.
const (
	TwoMassDt    = 0.1
	TwoMassSteps = 120
)

// twoMassK is the stiffness matrix, row-major.
var twoMassK = [4]float64{800.5, -799.5, -799.5, 800.5}

// TwoMassInitial returns q(0) = 1·φ_slow + 0.05·φ_fast with the
// normalised modes φ_slow = (1, 1)/√2 and φ_fast = (1, −1)/√2.
func TwoMassInitial() [2]float64 {
	s := 1 / math.Sqrt2
	return [2]float64{s * (1 + 0.05), s * (1 - 0.05)}
}

// twoMass is the problem as an integrators.SecondOrder with its
// acceleration Jacobian: a = −K·q.
type twoMass struct{}

func (twoMass) Dims() (int, int) { return 2, 0 }

func (twoMass) Accel(t float64, q, v, z, a, zdot []float64) error {
	a[0] = -(twoMassK[0]*q[0] + twoMassK[1]*q[1])
	a[1] = -(twoMassK[2]*q[0] + twoMassK[3]*q[1])
	return nil
}

func (twoMass) AccelJacobian(t float64, q, v, z, dadq, dadv []float64) error {
	for i, k := range twoMassK {
		dadq[i] = -k
	}
	clear(dadv)
	return nil
}

// TwoMassRun is one W3 run.
type TwoMassRun struct {
	Method string
	Stats  integrators.Work
	Q      [2]float64 // state after the last step
}

// RHSPerStep and NewtonPerStep are the counted work per step.
func (r TwoMassRun) RHSPerStep() float64 {
	return float64(r.Stats.FuncEvals) / float64(r.Stats.Steps)
}

// NewtonPerStep is the Newton iterations per step.
func (r TwoMassRun) NewtonPerStep() float64 {
	return float64(r.Stats.NewtonIters) / float64(r.Stats.Steps)
}

// TwoMass runs W3 with m (Newmark or generalized-alpha) through the
// second-order runner (SecondOrderMethod.NewSecondOrder), carrying the
// memory from step to step as the MADDENING two-mass guide prescribes.
func TwoMass(m integrators.SecondOrderMethod) (TwoMassRun, error) {
	r, err := m.NewSecondOrder(twoMass{}, nil)
	if err != nil {
		return TwoMassRun{}, err
	}
	q0 := TwoMassInitial()
	st := integrators.State{Q: q0[:], V: []float64{0, 0}, Z: []float64{}}
	var h integrators.Memory
	var stats integrators.Work
	for range TwoMassSteps {
		res, err := r.Advance(st, h, TwoMassDt)
		if err != nil {
			return TwoMassRun{}, err
		}
		h = res.Memory
		st = h.Latest.State
	}
	stats = r.Work()
	return TwoMassRun{Method: m.Name(), Stats: stats, Q: [2]float64{st.Q[0], st.Q[1]}}, nil
}
