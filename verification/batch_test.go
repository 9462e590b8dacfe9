package verification

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/constant"
	"github.com/cosimgo/cosim/nodes/control"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/rigidbody"
	"github.com/cosimgo/cosim/nodes/rigidbody2d"
	"github.com/cosimgo/cosim/nodes/source"
	"github.com/cosimgo/cosim/nodes/spring"
	"github.com/cosimgo/cosim/nodes/springdamper"
	"github.com/cosimgo/cosim/nodes/table"
)

// The batch kernels of every shipped node type, held bit for bit to the
// nodes' own methods by CheckBatch.

// batchSizes are the family sizes every kernel is checked at: 1 and 2,
// sizes that are no multiple of any unroll or block (5, 17, 129, 300),
// and the graph's block of 128 rows.
var batchSizes = []int{1, 2, 5, 17, 128, 129, 300}

// batchFamily builds n members of one family with parameters varied per
// row from rng.
type batchFamily struct {
	name  string
	build func(t testing.TB, rng *rand.Rand, n int) []node.Node
}

// must returns v, panicking on err: the test builds valid nodes only, so
// an error is a bug in the test.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func vec3(rng *rand.Rand, scale float64) [3]float64 {
	return [3]float64{scale * rng.NormFloat64(), scale * rng.NormFloat64(), scale * rng.NormFloat64()}
}

func newBall(t testing.TB, rng *rand.Rand) *ball.Node {
	p := ball.Params{
		InitialPosition: rng.NormFloat64(), InitialVelocity: rng.NormFloat64(),
		Elasticity: rng.Float64(), Gravity: -20 * rng.Float64(),
		Mass: 0.5 + rng.Float64(),
	}
	switch rng.IntN(8) {
	case 0:
		p.Elasticity = 0
	case 1:
		p.Elasticity = 1
	case 2:
		p.Gravity = 5 * rng.Float64() // upwards: Derivatives' resting contact does not apply
	case 3:
		p.Gravity = 0
	}
	return must(ball.New(p))
}

func newMass(t testing.TB, rng *rand.Rand) *masspoint.Node {
	return must(masspoint.New(masspoint.Params{
		Mass: 0.1 + 10*rng.Float64(), Gravity: vec3(rng, 10),
		InitialPosition: vec3(rng, 1), InitialVelocity: vec3(rng, 1),
	}))
}

func newRigid(t testing.TB, rng *rand.Rand, constraints string) *rigidbody.Node {
	p := rigidbody.DefaultParams()
	p.Mass = 0.1 + 10*rng.Float64()
	// Principal moments of some body: each at most the sum of the others.
	p.Inertia = [3]float64{1 + rng.Float64(), 1 + rng.Float64(), 1 + rng.Float64()}
	if rng.IntN(3) == 0 {
		// Diagonally dominant, hence positive definite, with eigenvalues
		// in [1.8, 3.2] (Gershgorin): a body's moments.
		d, e, f := 0.2*(rng.Float64()-0.5), 0.2*(rng.Float64()-0.5), 0.2*(rng.Float64()-0.5)
		p.InertiaMatrix = &[9]float64{2 + rng.Float64(), d, e, d, 2 + rng.Float64(), f, e, f, 2 + rng.Float64()}
	}
	p.Gravity = vec3(rng, 10)
	p.InitialPosition, p.InitialVelocity, p.InitialAngularVelocity = vec3(rng, 1), vec3(rng, 1), vec3(rng, 1)
	p.InitialOrientation = [4]float64{1 + rng.Float64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	p.Constraints = must(rigidbody.ParseConstraints(constraints))
	return must(rigidbody.New(p))
}

func newRigid2D(t testing.TB, rng *rand.Rand) *rigidbody2d.Node {
	return must(rigidbody2d.New(rigidbody2d.Params{
		Mass: 0.1 + 10*rng.Float64(), Inertia: 0.1 + 3*rng.Float64(),
		Gravity:  [2]float64{rng.NormFloat64(), -10 * rng.Float64()},
		InitialX: rng.NormFloat64(), InitialVY: rng.NormFloat64(), InitialAngle: rng.NormFloat64(),
		Logger: slog.New(slog.DiscardHandler),
	}))
}

func sdParams(rng *rand.Rand) springdamper.Params {
	p := springdamper.DefaultParams()
	p.Stiffness, p.Damping, p.Offset = vec3(rng, 100), vec3(rng, 10), vec3(rng, 1)
	p.Active = rng.IntN(8) != 0
	return p
}

// userForce is a nonlinear user force law that fails (NaN) on the
// connector with item number 7 when its displacement's x is positive
// after t = 1, so that the kernels' error path is exercised on one row
// (and the benchmarks, at t = 0, never fail).
func userForce(t float64, item int, dp, dv, k, d, off [3]float64) [3]float64 {
	f := [3]float64{k[0]*dp[0]*dp[0] - d[0]*dv[0], k[1]*math.Sin(dp[1]) + t, k[2]*dp[2]*dv[2] + off[0]}
	if item == 7 && dp[0] > 0 && t > 1 {
		f[1] = math.NaN()
	}
	return f
}

// markerMaker returns marker k (0 or 1) of connector i.
type markerMaker func(t testing.TB, rng *rand.Rand, i int) node.Attachment

func groundMarker(t testing.TB, rng *rand.Rand, i int) node.Attachment {
	return node.GroundAt(vec3(rng, 1))
}

func pointMarker(t testing.TB, rng *rand.Rand, i int) node.Attachment {
	return node.At(newMass(t, rng), vec3(rng, 1))
}

func rigidMarker(t testing.TB, rng *rand.Rand, i int) node.Attachment {
	return node.At(newRigid(t, rng, ""), vec3(rng, 1))
}

func rigid2DMarker(t testing.TB, rng *rand.Rand, i int) node.Attachment {
	return node.At(newRigid2D(t, rng), vec3(rng, 1))
}

func ballMarker(t testing.TB, rng *rand.Rand, i int) node.Attachment {
	a := vec3(rng, 1)
	l := math.Sqrt(a[0]*a[0] + a[1]*a[1] + a[2]*a[2])
	return node.At(newBall(t, rng), [3]float64{a[0] / l, a[1] / l, a[2] / l})
}

func connectors(m0, m1 markerMaker, uf bool) func(t testing.TB, rng *rand.Rand, n int) []node.Node {
	return func(t testing.TB, rng *rand.Rand, n int) []node.Node {
		out := make([]node.Node, n)
		for i := range out {
			p := sdParams(rng)
			if uf {
				p.ForceFunc, p.ItemNumber = userForce, i
			}
			out[i] = must(springdamper.New(p, m0(t, rng, i), m1(t, rng, i)))
		}
		return out
	}
}

func each[T node.Node](f func(t testing.TB, rng *rand.Rand, i int) T) func(t testing.TB, rng *rand.Rand, n int) []node.Node {
	return func(t testing.TB, rng *rand.Rand, n int) []node.Node {
		out := make([]node.Node, n)
		for i := range out {
			out[i] = f(t, rng, i)
		}
		return out
	}
}

// rigidModes are constraints per rotation mode, cycled through by the
// members of a family (so that hinges about different axes, held
// translations and held angles share a kernel).
var rigidModes = map[string][]string{
	"free":   {"", "x=0.5", "y=1,z=-1"},
	"hinge":  {"z=0,rx=0,ry=0", "rx=0.3,rz=0.1", "x=1,ry=0.2,rz=-0.5"},
	"fixed":  {"rx=0.1,ry=0.2,rz=0.3", "z=2,rx=-1,ry=0.5,rz=3"},
	"gimbal": {"rx=0.2", "ry=0.3,z=1", "rz=-0.4"},
}

func rigidFamily(mode string) func(t testing.TB, rng *rand.Rand, n int) []node.Node {
	return each(func(t testing.TB, rng *rand.Rand, i int) *rigidbody.Node {
		cs := rigidModes[mode]
		return newRigid(t, rng, cs[i%len(cs)])
	})
}

// perComp draws a per-component parameter of an n-component source:
// n values when full, otherwise one value for every component in one
// draw of three.
func perComp(rng *rand.Rand, n int, full bool, draw func() float64) []float64 {
	if n == 1 || !full && rng.IntN(3) == 0 {
		return []float64{draw()}
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = draw()
	}
	return v
}

// sources builds n sources of one type with nc output components each,
// their parameters varied per row; CheckBatch draws times in [0, 10), so
// event times are drawn there too (both sides of each are visited).
func sources(kind string, nc int) func(t testing.TB, rng *rand.Rand, n int) []node.Node {
	norm := func(rng *rand.Rand, s float64) func() float64 { return func() float64 { return s * rng.NormFloat64() } }
	return each(func(t testing.TB, rng *rand.Rand, i int) node.Node {
		units := []string{"N", "m", "1"}[i%3] // specs differ, layouts do not
		// One per-component parameter, chosen per row, has nc values,
		// which sets the output size; the others may have one.
		full := rng.IntN(2)
		pc := func(k int, draw func() float64) []float64 { return perComp(rng, nc, k == full, draw) }
		switch kind {
		case "sine":
			return must(source.NewSine(source.SineParams{
				Amplitude: pc(0, norm(rng, 2)), Omega: pc(1, norm(rng, 10)),
				Phase: pc(2, norm(rng, 3)), Offset: pc(3, norm(rng, 1)), Units: units,
			}))
		case "step":
			return must(source.NewStep(source.StepParams{
				Time: 10 * rng.Float64(), Initial: pc(0, norm(rng, 1)), Final: pc(1, norm(rng, 1)), Units: units,
			}))
		case "ramp":
			return must(source.NewRamp(source.RampParams{
				Start: 10*rng.Float64() - 1, Slope: pc(0, norm(rng, 2)), Offset: pc(1, norm(rng, 1)), Units: units,
			}))
		case "pulse":
			period := 0.05 + 3*rng.Float64()
			return must(source.NewPulse(source.PulseParams{
				Period: period, Width: period * (0.01 + 0.98*rng.Float64()), Delay: 4*rng.Float64() - 1,
				Amplitude: pc(0, norm(rng, 2)), Offset: pc(1, norm(rng, 1)), Units: units,
			}))
		}
		// lookup: tables of 1 to 40 breakpoints starting in [−1, 3] and
		// ending in [7, 11], every interpolation and outside behaviour.
		// "error" on one row in eight, whose table starts before t = 0
		// (the benchmarks evaluate at t = 0) and ends in [7, 9]:
		// CheckBatch's times in [0, 10) fall past its end often enough
		// to exercise the error path, while most calls of a few rows
		// still evaluate.
		m := 1 + rng.IntN(40)
		lo, hi := 4*rng.Float64()-1, 7+4*rng.Float64()
		outside := []string{source.OutsideHold, source.OutsideExtrapolate}[rng.IntN(2)]
		if rng.IntN(8) == 0 {
			outside = source.OutsideError
			lo, hi = -rng.Float64()-0.01, 7+2*rng.Float64()
			m = max(m, 2)
		}
		times := make([]float64, m)
		for j := range times {
			times[j] = lo + (hi-lo)*float64(j)/float64(m)
			if j > 0 {
				times[j] += (hi - lo) * 0.5 * rng.Float64() / float64(m)
			}
		}
		values := make([]float64, m*nc)
		for j := range values {
			values[j] = rng.NormFloat64()
		}
		interp := []string{source.InterpolationHold, source.InterpolationLinear, source.InterpolationPCHIP}[rng.IntN(3)]
		return must(source.NewLookup(source.LookupParams{Times: times, Values: values, Interpolation: interp, Outside: outside, Units: units}))
	})
}

// springMarker returns marker k (0 or 1) of spring i.
type springMarker func(t testing.TB, rng *rand.Rand, i int) node.Attachment

// asSpring turns a springdamper marker maker into a spring one.
func asSpring(f markerMaker) springMarker {
	return func(t testing.TB, rng *rand.Rand, i int) node.Attachment {
		m := f(t, rng, i)
		return node.Attachment{Body: m.Body, Local: m.Local}
	}
}

// springs builds n geometric springs between markers m0 and m1 with
// parameters varied per row. The coincident-markers error is exercised
// row by row by CheckBatch's non-finite inputs (a NaN length is below
// any min_length) and by its SetParams overrides, which raise min_length
// to the order of the drawn positions; here min_length stays small, so
// that the benchmarks (positions of order 0.1, t = 0) never fail.
func springs(m0, m1 springMarker) func(t testing.TB, rng *rand.Rand, n int) []node.Node {
	return func(t testing.TB, rng *rand.Rand, n int) []node.Node {
		out := make([]node.Node, n)
		for i := range out {
			p := spring.DefaultParams()
			p.Stiffness, p.Damping, p.RestLength = 200*rng.Float64(), 5*rng.Float64(), 2*rng.Float64()
			if rng.IntN(4) == 0 {
				p.MinLength = 1e-3 * rng.Float64()
			}
			for {
				// Redraw markers that start closer than min_length.
				s, err := spring.New(p, m0(t, rng, i), m1(t, rng, i))
				if err == nil {
					out[i] = s
					break
				}
				if !errors.Is(err, spring.ErrCoincident) {
					panic(err)
				}
			}
		}
		return out
	}
}

// batchFamilies lists a family of every node type, and of every marker
// configuration and rotation mode that selects a different kernel path.
func batchFamilies() []batchFamily {
	return []batchFamily{
		{"ball", each(func(t testing.TB, rng *rand.Rand, i int) *ball.Node { return newBall(t, rng) })},
		{"table", each(func(t testing.TB, rng *rand.Rand, i int) *table.Node {
			return must(table.New(table.Params{Position: rng.NormFloat64()}))
		})},
		{"constant", each(func(t testing.TB, rng *rand.Rand, i int) *constant.Node {
			units := []string{"N", "m", "1"}[i%3] // specs differ, layouts do not
			return must(constant.New(constant.Params{Value: vec3(rng, 5), Units: units}))
		})},
		{"masspoint", each(func(t testing.TB, rng *rand.Rand, i int) *masspoint.Node { return newMass(t, rng) })},
		{"rigidbody/free", rigidFamily("free")},
		{"rigidbody/hinge", rigidFamily("hinge")},
		{"rigidbody/fixed", rigidFamily("fixed")},
		{"rigidbody/gimbal", rigidFamily("gimbal")},
		{"rigidbody2d", each(func(t testing.TB, rng *rand.Rand, i int) *rigidbody2d.Node { return newRigid2D(t, rng) })},
		{"springdamper/ground-ground", connectors(groundMarker, groundMarker, false)},
		{"springdamper/ground-point", connectors(groundMarker, pointMarker, false)},
		{"springdamper/point-ground", connectors(pointMarker, groundMarker, false)},
		{"springdamper/point-point", connectors(pointMarker, pointMarker, false)},
		{"springdamper/point-point-userforce", connectors(pointMarker, pointMarker, true)},
		{"springdamper/rigid-ground", connectors(rigidMarker, groundMarker, false)},
		{"springdamper/rigid-rigid", connectors(rigidMarker, rigidMarker, false)},
		{"springdamper/rigid-point-userforce", connectors(rigidMarker, pointMarker, true)},
		{"springdamper/ball-point", connectors(ballMarker, pointMarker, false)},
		{"springdamper/rigid2d-ground", connectors(rigid2DMarker, groundMarker, false)},
		{"sine/1", sources("sine", 1)},
		{"sine/3", sources("sine", 3)},
		{"step/1", sources("step", 1)},
		{"step/3", sources("step", 3)},
		{"ramp/1", sources("ramp", 1)},
		{"ramp/3", sources("ramp", 3)},
		{"pulse/1", sources("pulse", 1)},
		{"pulse/3", sources("pulse", 3)},
		{"lookup/1", sources("lookup", 1)},
		{"lookup/3", sources("lookup", 3)},
		{"spring/ground-ground", springs(asSpring(groundMarker), asSpring(groundMarker))},
		{"spring/ground-point", springs(asSpring(groundMarker), asSpring(pointMarker))},
		{"spring/point-ground", springs(asSpring(pointMarker), asSpring(groundMarker))},
		{"spring/point-point", springs(asSpring(pointMarker), asSpring(pointMarker))},
		{"spring/rigid-ground", springs(asSpring(rigidMarker), asSpring(groundMarker))},
		{"spring/point-rigid", springs(asSpring(pointMarker), asSpring(rigidMarker))},
		{"spring/rigid-rigid", springs(asSpring(rigidMarker), asSpring(rigidMarker))},
		{"spring/ball-point", springs(asSpring(ballMarker), asSpring(pointMarker))},
		{"spring/rigid2d-ground", springs(asSpring(rigid2DMarker), asSpring(groundMarker))},
		{"gain/1", controls("gain", 1)},
		{"gain/3", controls("gain", 3)},
		{"gain/matrix", controls("gain-matrix", 3)},
		{"sum/3", controls("sum", 3)},
		{"product/1", controls("product", 1)},
		{"saturation/3", controls("saturation", 3)},
		{"deadzone/1", controls("deadzone", 1)},
		{"switch/3", controls("switch", 3)},
		{"lag/1", controls("lag", 1)},
		{"derivative/3", controls("derivative", 3)},
		{"integrator/1", controls("integrator", 1)},
		{"integrator/3", controls("integrator", 3)},
		{"ratelimiter/3", controls("ratelimiter", 3)},
		{"pid/1", controls("pid", 1)},
		{"pid/3", controls("pid", 3)},
		{"transferfunction/2", controls("transferfunction", 1)},
		{"transferfunction/4", controls("transferfunction", 3)},
		{"statespace/2x3", controls("statespace", 3)},
	}
}

// controls builds n control blocks of one type with signals of nc
// components (a transfer function of order nc + 1, a state space of two
// states, nc inputs and two outputs), their parameters drawn per row so
// that every branch of the block's arithmetic is taken by some rows:
// limits on and off, every switch criterion, signs and operators per
// row, biproper and strictly proper transfer functions.
func controls(kind string, nc int) func(t testing.TB, rng *rand.Rand, n int) []node.Node {
	return each(func(t testing.TB, rng *rand.Rand, i int) node.Node {
		pc := func(lo, scale float64) []float64 {
			return perComp(rng, nc, i%2 == 0, func() float64 { return lo + scale*rng.Float64() })
		}
		normal := func(k int) []float64 {
			v := make([]float64, k)
			for j := range v {
				v[j] = rng.NormFloat64()
			}
			return v
		}
		signs := func(set string) string {
			return string([]byte{set[rng.IntN(2)], set[rng.IntN(2)], set[rng.IntN(2)]})
		}
		switch kind {
		case "gain":
			return must(control.NewGain(control.GainParams{Size: nc, Gain: pc(-3, 6)}))
		case "gain-matrix":
			return must(control.NewGain(control.GainParams{Size: nc, Outputs: 2, Gain: normal(2 * nc)}))
		case "sum":
			return must(control.NewSum(control.SumParams{Size: nc, Signs: signs("+-")}))
		case "product":
			return must(control.NewProduct(control.ProductParams{Size: nc, Ops: signs("*/"), InputUnits: "1,1,1"}))
		case "saturation":
			return must(control.NewSaturation(control.LimitParams{Size: nc, Lower: pc(-2, 1.9), Upper: pc(0, 2)}))
		case "deadzone":
			return must(control.NewDeadZone(control.LimitParams{Size: nc, Lower: pc(-2, 1.9), Upper: pc(0, 2)}))
		case "switch":
			crit := []string{control.CriterionAtLeast, control.CriterionAbove, control.CriterionNonZero}[i%3]
			return must(control.NewSwitch(control.SwitchParams{Size: nc, Criterion: crit, Threshold: rng.NormFloat64()}))
		case "lag", "derivative":
			p := control.FirstOrderParams{Size: nc, Gain: pc(-2, 4), TimeConstant: pc(0.01, 2), Initial: pc(-1, 2)}
			if kind == "lag" {
				return must(control.NewLag(p))
			}
			return must(control.NewDerivative(p))
		case "integrator":
			return must(control.NewIntegrator(control.IntegratorParams{Size: nc, Gain: pc(-2, 4), Limit: i%2 == 0,
				Lower: pc(-1, 0.9), Upper: pc(0.1, 1), Initial: []float64{0}}))
		case "ratelimiter":
			return must(control.NewRateLimiter(control.RateLimiterParams{Size: nc, Rising: pc(0.1, 5), Falling: pc(0.1, 5),
				TimeConstant: pc(0.001, 0.5), Initial: pc(-1, 2)}))
		case "pid":
			return must(control.NewPID(control.PIDParams{Size: nc, Kp: pc(-5, 10), Ki: pc(-2, 4), Kd: pc(-1, 2), Tf: pc(0.005, 0.1),
				SetpointWeight: pc(0, 1), DerivativeWeight: pc(0, 1), Limit: i%3 != 0, Lower: pc(-2, 1.9), Upper: pc(0, 2),
				Kb: pc(0, 3), RetuneTime: pc(0.01, 1), InitialIntegral: pc(-1, 2), InitialFilterInput: pc(-1, 2)}))
		case "transferfunction":
			den := append([]float64{0.5 + rng.Float64()}, pc(0.1, 3)...)
			for len(den) < nc+2 {
				den = append(den, 0.1+3*rng.Float64())
			}
			return must(control.NewTransferFunction(control.TransferFunctionParams{Numerator: normal(1 + rng.IntN(nc+2)), Denominator: den[:nc+2]}))
		}
		a := normal(4)
		a[0], a[3] = -1-rng.Float64(), -2-rng.Float64()
		return must(control.NewStateSpace(control.StateSpaceParams{A: a, B: normal(2 * nc), C: normal(4), D: normal(2 * nc), Initial: normal(2)}))
	})
}

// withoutKernels are the node types that have no batch kernel, and why:
// a graph steps their nodes one by one (loose nodes), which the graph
// tests cover. A type that gains a kernel fails TestBatchKernelsEveryType
// until it leaves this list.
var withoutKernels = map[string]string{
	// The sampled control blocks change state only at their sample
	// instants, which each declares as time events and events of its
	// own; the graph asks each node for those, and a family would save
	// only the per-node call of an Update that mostly copies its state.
	"zoh":            "sampled: state changes only at sample events",
	"unitdelay":      "sampled: state changes only at sample events",
	"transportdelay": "sampled: a history buffer per node, changed at sample events",
}

// TestBatchKernelsEveryType runs CheckBatch on a family of every node type
// in the registry (and of every kernel path of springdamper and
// rigidbody) at every size in batchSizes. The reference is each member's
// own Update, Outputs and Derivatives; the tolerance is zero (bit for
// bit), since a graph may run either path and must give the same bits.
func TestBatchKernelsEveryType(t *testing.T) {
	fams := batchFamilies()
	covered := map[string]bool{}
	for fi, fam := range fams {
		for _, n := range batchSizes {
			t.Run(fmt.Sprintf("%s/%d", fam.name, n), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(fi), uint64(n)))
				members := fam.build(t, rng, n)
				covered[members[0].Spec().Type] = true
				opt := BatchOptions{Seed: uint64(1000*fi + n), Trials: 6}
				if n > 129 && testing.Short() {
					opt.Trials = 3
				}
				for _, err := range CheckBatch(members, opt) {
					t.Error(err)
				}
			})
		}
	}
	for _, typ := range nodes.Types() {
		n, err := typ.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, without := withoutKernels[typ.Name]; without {
			if _, ok := n.(node.Batcher); ok {
				t.Errorf("node type %s has a batch kernel: take it off withoutKernels and add its families to batchFamilies", typ.Name)
			}
			continue
		}
		if _, ok := n.(node.Batcher); !ok {
			t.Errorf("node type %s has no batch kernel (node.Batcher)", typ.Name)
		}
		if !covered[typ.Name] {
			t.Errorf("node type %s: no family in batchFamilies", typ.Name)
		}
	}
}

// TestBatchRigidModeChange overrides the constraints of a gimbal
// family's members after NewBatch so that the rows run every rotation
// mode: the kernel's per-row dispatch keeps it exact.
func TestBatchRigidModeChange(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	members := rigidFamily("gimbal")(t, rng, 17)
	modes := []string{"", "z=0,rx=0,ry=0", "rx=0.1,ry=0.2,rz=0.3", "rz=1"}
	errs := CheckBatch(members, BatchOptions{Seed: 3, Perturb: func(i int, n node.Node) error {
		return n.(node.Tunable).SetParams(map[string]any{"constraints": modes[i%len(modes)], "mass": 2.5})
	}})
	for _, err := range errs {
		t.Error(err)
	}
}

// TestCheckBatchRefusesNonFamily: members of different kernels are not
// a family, which is a caller's error, not a violation.
func TestCheckBatchRefusesNonFamily(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for name, members := range map[string][]node.Node{
		"keys":  {newRigid(t, rng, ""), newRigid(t, rng, "rx=0.2")},
		"types": {newMass(t, rng), newBall(t, rng)},
		"none":  nil,
	} {
		errs := CheckBatch(members, BatchOptions{})
		var v Violation
		if len(errs) != 1 || errors.As(errs[0], &v) {
			t.Errorf("%s: CheckBatch = %v, want one error that is not a Violation", name, errs)
		}
	}
}

// wrongMass is a mass point whose kernel has one deliberate bug, for
// the negative tests: CheckBatch must catch each.
type wrongMass struct {
	*masspoint.Node
	bug string
	// held are the batches the member keeps alive (bug "holds its
	// batches", the way hand-written mirrors once did).
	held []node.Batch
}

func (n *wrongMass) NewBatch(members []node.Node) node.Batch {
	inner := make([]node.Node, len(members))
	for i, m := range members {
		inner[i] = m.(*wrongMass).Node
		if n.bug == "no write-through" {
			// The kernel copies its members' parameters from clones, so
			// SetParams on a member does not reach it.
			c, err := masspoint.FromMap(m.(*wrongMass).Params())
			if err != nil {
				panic(err)
			}
			inner[i] = c
		}
	}
	b := inner[0].(*masspoint.Node).NewBatch(inner)
	wb := &wrongMassBatch{b: b.(node.BatchUpdater), d: b.(node.BatchDeriver), bug: n.bug}
	switch n.bug {
	case "holds its batches":
		for _, m := range members {
			m.(*wrongMass).held = append(m.(*wrongMass).held, wb)
		}
	case "no update":
		return wrongMassDerivsOnly{wb}
	case "plan keeps its buffers":
		return wrongMassPlanner{wb}
	}
	return wb
}

// wrongMassPlanner compiles its methods (node.BatchPlanner) into kernels
// that read the state and inputs Plan saw — buffers a graph replaces
// between calls — instead of each call's.
type wrongMassPlanner struct{ *wrongMassBatch }

func (w wrongMassPlanner) Plan(ph node.BatchPhase, a *node.BatchArgs) node.BatchKernel {
	kept := *a
	return func(a *node.BatchArgs) error {
		b := kept
		b.T, b.Dt, b.Dst = a.T, a.Dt, a.Dst
		if ph == node.PhaseDerivatives {
			return w.d.Derivatives(&b)
		}
		return w.b.Update(&b)
	}
}

// wrongMassDerivsOnly is a stateful family's kernel without Update.
type wrongMassDerivsOnly struct{ w *wrongMassBatch }

func (w wrongMassDerivsOnly) Derivatives(a *node.BatchArgs) error { return w.w.Derivatives(a) }

type wrongMassBatch struct {
	b   node.BatchUpdater
	d   node.BatchDeriver
	bug string
}

func (w *wrongMassBatch) Update(a *node.BatchArgs) error {
	switch w.bug {
	case "stride":
		// Reads the state as if rows were packed.
		a2 := *a
		a2.X.Stride = 6
		return w.b.Update(&a2)
	case "spurious error":
		if a.Lo == 0 && a.Hi == 1 {
			return errors.New("spurious")
		}
	case "swallowed error":
		_ = w.b.Update(a)
		return nil
	}
	if err := w.b.Update(a); err != nil {
		return err
	}
	d := a.Dst
	switch w.bug {
	case "ulp":
		if a.Lo <= 3 && 3 < a.Hi {
			p := &d.Buf[d.Off+3*d.Stride+1]
			*p = math.Nextafter(*p, math.Inf(1))
		}
	case "outside":
		if o := d.Off + a.Hi*d.Stride; o < len(d.Buf) {
			d.Buf[o] = 0
		}
	}
	return nil
}

func (w *wrongMassBatch) Derivatives(a *node.BatchArgs) error {
	err := w.d.Derivatives(a)
	if w.bug == "unchecked dst" {
		return nil // claims to check Dst (ChecksDst) but lets a non-finite dx/dt through
	}
	return err
}

// ChecksDst: the wrapped kernel checks what it writes
// (node.BatchDstChecker).
func (w *wrongMassBatch) ChecksDst() bool { return true }

// wrongConst is a constant whose Outputs kernel gets Need wrong.
type wrongConst struct {
	*constant.Node
	bug string
}

func (n *wrongConst) NewBatch(members []node.Node) node.Batch {
	inner := make([]node.Node, len(members))
	for i, m := range members {
		inner[i] = m.(*wrongConst).Node
	}
	b := inner[0].(*constant.Node).NewBatch(inner)
	return &wrongConstBatch{b: b, o: b.(node.BatchOutputter), bug: n.bug}
}

type wrongConstBatch struct {
	b   node.Batch
	o   node.BatchOutputter
	bug string
}

func (w *wrongConstBatch) Outputs(a *node.BatchArgs) error {
	switch w.bug {
	case "nil need is none":
		if a.Need == nil {
			return nil
		}
	case "garbage when not needed":
		if !a.Needs(0) {
			o := a.Out[0]
			for i := a.Lo; i < a.Hi; i++ {
				o.Buf[o.Off+i*o.Stride] = 42
			}
			return nil
		}
	}
	return w.o.Outputs(a)
}

// swallowingBall is a ball whose kernel reports no error.
type swallowingBall struct{ *ball.Node }

func (n *swallowingBall) NewBatch(members []node.Node) node.Batch {
	inner := make([]node.Node, len(members))
	for i, m := range members {
		inner[i] = m.(*swallowingBall).Node
	}
	b := inner[0].(*ball.Node).NewBatch(inner)
	return &swallowingBallBatch{b: b.(node.BatchUpdater), d: b.(node.BatchDeriver)}
}

type swallowingBallBatch struct {
	b node.BatchUpdater
	d node.BatchDeriver
}

func (w *swallowingBallBatch) Update(a *node.BatchArgs) error {
	_ = w.b.Update(a)
	return nil
}

func (w *swallowingBallBatch) Derivatives(a *node.BatchArgs) error { return w.d.Derivatives(a) }

// TestCheckBatchCatchesWrongKernels is the negative test: a kernel with
// each kind of bug is reported, with a message that names the bug.
func TestCheckBatchCatchesWrongKernels(t *testing.T) {
	const n = 17
	family := func(mk func(rng *rand.Rand) node.Node) []node.Node {
		rng := rand.New(rand.NewPCG(5, 5))
		out := make([]node.Node, n)
		for i := range out {
			out[i] = mk(rng)
		}
		return out
	}
	masses := func(bug string) []node.Node {
		return family(func(rng *rand.Rand) node.Node { return &wrongMass{Node: newMass(t, rng), bug: bug} })
	}
	consts := func(bug string) []node.Node {
		return family(func(rng *rand.Rand) node.Node {
			return &wrongConst{Node: must(constant.New(constant.Params{Value: vec3(rng, 1), Units: "N"})), bug: bug}
		})
	}
	for _, tc := range []struct {
		name    string
		members []node.Node
		want    string // in some violation's message
	}{
		{"one ulp off", masses("ulp"), "row 3, position[1]: kernel"},
		{"writes outside its rows", masses("outside"), "outside the call"},
		{"ignores the stride", masses("stride"), ": kernel"},
		{"spurious error", masses("spurious error"), "returned an error where no member's Update does"},
		{"swallowed error", masses("swallowed error"), "returned no error where member"},
		{"ball swallows its errors", family(func(rng *rand.Rand) node.Node { return &swallowingBall{newBall(t, rng)} }), "returned no error where member"},
		{"misses SetParams", masses("no write-through"), "after SetParams"},
		{"keeps its batches alive", masses("holds its batches"), "still reachable after garbage collection"},
		{"claims to check Dst", masses("unchecked dst"), "wrote a non-finite value to Dst and returned no error"},
		{"has state but no Update", masses("no update"), "not a node.BatchUpdater"},
		{"compiles calls that keep Plan's buffers", masses("plan keeps its buffers"), "compiled (Plan), blocks of 17"},
		{"skips needed outputs", consts("nil need is none"), "value[0] (needed): not written"},
		{"writes garbage into unneeded outputs", consts("garbage when not needed"), "not needed, so it may be left unwritten but not written wrong"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := CheckBatch(tc.members, BatchOptions{Seed: 11})
			found := false
			for _, err := range errs {
				var v Violation
				if !errors.As(err, &v) {
					t.Errorf("not a Violation: %v", err)
				}
				found = found || strings.Contains(err.Error(), tc.want)
			}
			if !found {
				t.Errorf("CheckBatch did not report %q; it reported %d violations: %v", tc.want, len(errs), errs)
			}
			if tc.want == "after SetParams" {
				for _, err := range errs {
					if !strings.Contains(err.Error(), "after SetParams") {
						t.Errorf("reported before SetParams: %v", err)
					}
				}
			}
		})
	}
}

// TestGraphStepsStatefulFamilyWithoutUpdater: a graph steps a family of
// stateful nodes whose kernel has no Update (node.BatchUpdater) one node
// at a time, with the per-node path's bits, rather than skip the update.
func TestGraphStepsStatefulFamilyWithoutUpdater(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	run := func(batching bool) []float64 {
		g := graph.New()
		for i := range 5 {
			g.Add(fmt.Sprintf("m%d", i), &wrongMass{Node: newMass(t, rng), bug: "no update"})
		}
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		s.SetBatching(batching)
		if _, err := s.Run(context.Background(), graph.Settings{Dt: 1e-3, Steps: 20}); err != nil {
			t.Fatal(err)
		}
		return s.State(nil)
	}
	rng = rand.New(rand.NewPCG(9, 9))
	want := run(false)
	rng = rand.New(rand.NewPCG(9, 9))
	got := run(true)
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("state %d: %v with batching, %v without", i, got[i], want[i])
		}
	}
}
