package graph_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/benchmarks"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/ball"
	"github.com/cosimgo/cosim/nodes/constant"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/rigidbody"
	"github.com/cosimgo/cosim/nodes/rigidbody2d"
	src "github.com/cosimgo/cosim/nodes/source"
	gspring "github.com/cosimgo/cosim/nodes/spring"
	"github.com/cosimgo/cosim/nodes/springdamper"
	"github.com/cosimgo/cosim/nodes/table"
)

// The batched engine with the kernels of every shipped node type, held
// bit for bit to the per-node path (SetBatching(false), the reference)
// through Run, RunMonolithic and Integrate.

func kmust[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// tune overrides parameters of built nodes with SetParams, as a user
// may between Build and Run: the kernels must see the new values.
func tune(s *graph.Sim, err error, set map[string]map[string]any) (*graph.Sim, error) {
	if err != nil {
		return nil, err
	}
	for name, p := range set {
		n, ok := s.Node(name)
		if !ok {
			return nil, fmt.Errorf("no node %q", name)
		}
		if err := n.(interface{ SetParams(map[string]any) error }).SetParams(p); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// kernelGraph is a graph fixture and the families Build must form.
type kernelGraph struct {
	name     string
	build    func() (*graph.Sim, error)
	families []string // "type:first..last" per family, in order
}

// ballsOnTables: five balls each on its own table, three on one shared
// table, and two without a table (no contact).
func ballsOnTables() (*graph.Sim, error) {
	g := graph.New()
	for i := range 5 {
		g.Add(fmt.Sprintf("t%d", i), kmust(table.New(table.Params{Position: -0.1 * float64(i)})))
	}
	g.Add("shared", kmust(table.New(table.Params{Position: 0.2})))
	for i := range 10 {
		p := ball.DefaultParams()
		p.InitialPosition, p.InitialVelocity = 0.5+0.1*float64(i), 0.3*float64(i%3)
		p.Elasticity = 0.5 + 0.05*float64(i)
		g.Add(fmt.Sprintf("b%d", i), kmust(ball.New(p)))
		switch {
		case i < 5:
			g.Connect(fmt.Sprintf("t%d.position", i), fmt.Sprintf("b%d.table_position", i))
		case i < 8:
			g.Connect("shared.position", fmt.Sprintf("b%d.table_position", i))
		}
	}
	s, err := g.Build()
	return tune(s, err, map[string]map[string]any{
		"t1": {"position": 0.05}, "shared": {"position": 0.1},
		"b2": {"gravity": -5.0}, "b6": {"elasticity": 0.95}, "b9": {"gravity": -1.0},
	})
}

// rigidOnSprings: free rigid bodies each hung from the ground by a
// spring at a body point and chained body to body, hinged and gimbal
// bodies on springs to the ground, and planar bodies on springs.
func rigidOnSprings() (*graph.Sim, error) {
	g := graph.New()
	sp := func(k, d float64) springdamper.Params {
		p := springdamper.DefaultParams()
		p.Stiffness, p.Damping = [3]float64{k, k, 1.5 * k}, [3]float64{d, d, d}
		return p
	}
	cons := []string{"", "", "", "", "z=0,rx=0,ry=0", "rx=0.3,rz=0.1", "rx=0.2", "ry=0.3"}
	for i, c := range cons {
		p := rigidbody.DefaultParams()
		p.Mass = 1 + 0.25*float64(i)
		p.Inertia = [3]float64{1, 1.5 + 0.1*float64(i), 2}
		p.Gravity = [3]float64{0, 0, -9.81}
		p.InitialPosition = [3]float64{float64(i), 0.1 * float64(i), 0}
		p.InitialAngularVelocity = [3]float64{0.2 * float64(i), 0.5, -0.3}
		p.InitialOrientation = [4]float64{1, 0.1 * float64(i), 0.2, 0}
		p.Constraints = kmust(rigidbody.ParseConstraints(c))
		g.Add(fmt.Sprintf("r%d", i), kmust(rigidbody.New(p)))
	}
	for i := range cons {
		if _, err := springdamper.Connect(g, fmt.Sprintf("hang%d", i), sp(50+float64(i), 0.5), node.GroundAt([3]float64{float64(i), 0, 1}), node.BodyAt(fmt.Sprintf("r%d", i), [3]float64{0.1, 0.2, 0.3})); err != nil {
			return nil, err
		}
	}
	for i := range 3 {
		if _, err := springdamper.Connect(g, fmt.Sprintf("link%d", i), sp(20, 0.1), node.BodyAt(fmt.Sprintf("r%d", i), [3]float64{0.5, 0, 0}), node.BodyAt(fmt.Sprintf("r%d", i+1), [3]float64{-0.5, 0, 0})); err != nil {
			return nil, err
		}
	}
	for i := range 4 {
		g.Add(fmt.Sprintf("p%d", i), kmust(rigidbody2d.New(rigidbody2d.Params{
			Mass: 1 + float64(i), Inertia: 0.5, Gravity: [2]float64{0, -9.81},
			InitialX: float64(i), InitialOmega: 0.1 * float64(i), Logger: slog.New(slog.DiscardHandler),
		})))
		if _, err := springdamper.Connect(g, fmt.Sprintf("planar%d", i), sp(30, 0.2), node.GroundAt([3]float64{float64(i), 1, 0}), node.BodyAt(fmt.Sprintf("p%d", i), [3]float64{0.2, 0.1, 0})); err != nil {
			return nil, err
		}
	}
	s, err := g.Build()
	return tune(s, err, map[string]map[string]any{
		"r1": {"mass": 3.0, "inertia": []float64{2, 1, 1.5}}, "r5": {"gravity": []float64{0, -9.81, 0}},
		"r7": {"constraints": "ry=0.1"}, "hang2": {"stiffness": []float64{80, 80, 80}},
		"p2": {"inertia": 2.0}, "planar3": {"damping": []float64{1, 1, 1}},
	})
}

// constantsIntoMasses: constant loads on masses joined by springs.
func constantsIntoMasses() (*graph.Sim, error) {
	g := graph.New()
	for i := range 6 {
		g.Add(fmt.Sprintf("load%d", i), kmust(constant.New(constant.Params{Value: [3]float64{float64(i), -1, 0.5}, Units: "N"})))
	}
	for i := range 6 {
		g.Add(fmt.Sprintf("m%d", i), kmust(masspoint.New(masspoint.Params{
			Mass: 1 + 0.5*float64(i), Gravity: [3]float64{0, 0, -1},
			InitialPosition: [3]float64{float64(i), 0, 0}, InitialVelocity: [3]float64{0, 0.1 * float64(i), 0},
		})))
		g.Connect(fmt.Sprintf("load%d.value", i), fmt.Sprintf("m%d.force", i))
	}
	p := springdamper.DefaultParams()
	p.Stiffness, p.Damping = [3]float64{10, 10, 10}, [3]float64{0.1, 0.1, 0.1}
	for i := range 5 {
		if _, err := springdamper.Connect(g, fmt.Sprintf("s%d", i), p, node.Body(fmt.Sprintf("m%d", i)), node.Body(fmt.Sprintf("m%d", i+1))); err != nil {
			return nil, err
		}
	}
	// Two connectors with a nonlinear user force law: the kernel's
	// generic path on point markers.
	for i := range 2 {
		q := p
		q.ForceFunc = func(t float64, item int, dp, dv, k, d, off [3]float64) [3]float64 {
			return [3]float64{k[0] * dp[0] * (1 + dp[0]*dp[0]), k[1]*dp[1] + d[1]*dv[1], float64(item) * dv[2]}
		}
		q.ItemNumber = i
		if _, err := springdamper.Connect(g, fmt.Sprintf("u%d", i), q, node.Body(fmt.Sprintf("m%d", 3*i)), node.Body(fmt.Sprintf("m%d", 3*i+2))); err != nil {
			return nil, err
		}
	}
	s, err := g.Build()
	return tune(s, err, map[string]map[string]any{
		"load2": {"value": []float64{-3, 2, 1}}, "m3": {"mass": 0.7}, "s1": {"damping": []float64{0.5, 0.5, 0.5}},
		"u1": {"stiffness": []float64{7, 8, 9}},
	})
}

func chainW1() (*graph.Sim, error) { return benchmarks.Mode1(40).Build() }

// groundedChain: a chain of 300 masses between walls, each mass also
// held to the ground by its own connector, so that every mass's force
// sums three loads: the engine's general sum over several 128-row
// blocks (rows that do not start at 0), not the two-term pair the W1
// chain's masses add themselves.
func groundedChain() (*graph.Sim, error) {
	const n = 300
	g := graph.New()
	for i := range n {
		g.Add(fmt.Sprintf("m%d", i), kmust(masspoint.New(masspoint.Params{
			Mass: 1, InitialPosition: [3]float64{float64(i) + 0.01*math.Sin(float64(i)), 0, 0},
		})))
	}
	p := springdamper.DefaultParams()
	p.Stiffness, p.Damping = [3]float64{100, 100, 100}, [3]float64{0.5, 0.5, 0.5}
	p.Offset = [3]float64{1, 0, 0}
	name := func(i int) string {
		if i < 0 || i >= n {
			return ""
		}
		return fmt.Sprintf("m%d", i)
	}
	for i := 0; i <= n; i++ {
		// A wall's marker is a ground point; a mass's is the mass.
		var a, b [3]float64
		if i == 0 {
			a = [3]float64{-1, 0, 0}
		}
		if i == n {
			b = [3]float64{float64(n), 0, 0}
		}
		if _, err := springdamper.Connect(g, fmt.Sprintf("c%d", i), p, node.BodyAt(name(i-1), a), node.BodyAt(name(i), b)); err != nil {
			return nil, err
		}
	}
	q := p
	q.Stiffness, q.Offset = [3]float64{3, 3, 3}, [3]float64{}
	for i := range n {
		if _, err := springdamper.Connect(g, fmt.Sprintf("g%d", i), q, node.GroundAt([3]float64{float64(i), 0, 0}), node.Body(name(i))); err != nil {
			return nil, err
		}
	}
	return g.Build()
}

// sourcesOnSprings: a chain of masses hung from the ground by geometric
// springs and joined to two rigid bodies, pushed by vector sources of
// every kind (sine, step, ramp, pulse, lookup), and balls on tables
// moved by scalar sources. The sources' steps, ramp starts, pulse edges
// and breakpoints fall inside the runs, so Integrate lands on them as
// time events on the batched path too.
func sourcesOnSprings() (*graph.Sim, error) {
	g := graph.New()
	const nm = 6
	for i := range nm {
		g.Add(fmt.Sprintf("m%d", i), kmust(masspoint.New(masspoint.Params{
			Mass: 1 + 0.2*float64(i), Gravity: [3]float64{0, 0, -9.81},
			InitialPosition: [3]float64{float64(i), 0.1 * float64(i%2), 0}, InitialVelocity: [3]float64{0, 0.2, 0.1 * float64(i)},
		})))
	}
	for i := range 2 {
		p := rigidbody.DefaultParams()
		p.Mass, p.Inertia = 2+float64(i), [3]float64{0.5, 0.7, 0.9}
		p.Gravity = [3]float64{0, 0, -9.81}
		p.InitialPosition = [3]float64{float64(nm + i), 0, 0}
		p.InitialAngularVelocity = [3]float64{0.3, -0.2 * float64(i), 0.5}
		g.Add(fmt.Sprintf("r%d", i), kmust(rigidbody.New(p)))
	}
	sp := func(k, c, l0 float64) gspring.Params {
		p := gspring.DefaultParams()
		p.Stiffness, p.Damping, p.RestLength = k, c, l0
		return p
	}
	var errs []error
	add := func(_ *gspring.Node, err error) { errs = append(errs, err) }
	for i := range nm {
		// Ground to mass (ground–point).
		add(gspring.Connect(g, fmt.Sprintf("hang%d", i), sp(80+5*float64(i), 0.5, 0.8), node.GroundAt([3]float64{float64(i), 0, 1}), node.Body(fmt.Sprintf("m%d", i))))
	}
	for i := range nm - 1 {
		// Mass to mass (point–point).
		add(gspring.Connect(g, fmt.Sprintf("c%d", i), sp(40, 0.2, 0.9+0.02*float64(i)), node.Body(fmt.Sprintf("m%d", i)), node.Body(fmt.Sprintf("m%d", i+1))))
	}
	// Mass to rigid body, ground to rigid body, rigid to rigid: the
	// generic path.
	add(gspring.Connect(g, "mr", sp(60, 0.3, 1), node.Body(fmt.Sprintf("m%d", nm-1)), node.BodyAt("r0", [3]float64{-0.2, 0.1, 0})))
	for i := range 2 {
		add(gspring.Connect(g, fmt.Sprintf("gr%d", i), sp(100, 1, 0.7), node.GroundAt([3]float64{float64(nm + i), 0, 1}), node.BodyAt(fmt.Sprintf("r%d", i), [3]float64{0.1, 0.2, 0.3})))
	}
	add(gspring.Connect(g, "rr", sp(50, 0.1, 1), node.BodyAt("r0", [3]float64{0.3, 0, 0}), node.BodyAt("r1", [3]float64{-0.3, 0, 0.1})))
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	// Vector sources into the masses' and bodies' force inputs.
	for i := range nm {
		g.Add(fmt.Sprintf("sin%d", i), kmust(src.NewSine(src.SineParams{
			Amplitude: []float64{1 + 0.1*float64(i), 0.5, 0.2}, Omega: []float64{3 + float64(i)}, Phase: []float64{0.1 * float64(i), 0, 1}, Units: "N",
		})))
		g.Connect(fmt.Sprintf("sin%d.value", i), fmt.Sprintf("m%d.force", i))
	}
	for i := range 3 {
		g.Add(fmt.Sprintf("step%d", i), kmust(src.NewStep(src.StepParams{
			Time: 0.13 + 0.05*float64(i), Initial: []float64{0}, Final: []float64{2, -1, 0.5 * float64(i)}, Units: "N",
		})))
		g.Connect(fmt.Sprintf("step%d.value", i), fmt.Sprintf("m%d.force", i))
		g.Add(fmt.Sprintf("pulse%d", i), kmust(src.NewPulse(src.PulseParams{
			Period: 0.21 + 0.03*float64(i), Width: 0.07, Delay: 0.05 * float64(i), Amplitude: []float64{0, 1.5, -1}, Offset: []float64{0.1}, Units: "N",
		})))
		g.Connect(fmt.Sprintf("pulse%d.value", i), fmt.Sprintf("m%d.force", 3+i))
	}
	for i := range 2 {
		g.Add(fmt.Sprintf("ramp%d", i), kmust(src.NewRamp(src.RampParams{
			Start: 0.2 + 0.1*float64(i), Slope: []float64{1, 0, -2}, Offset: []float64{0.5 * float64(i)}, Units: "N",
		})))
		g.Connect(fmt.Sprintf("ramp%d.value", i), fmt.Sprintf("r%d.force", i))
		interp := []string{src.PCHIP, src.Linear}[i]
		g.Add(fmt.Sprintf("twist%d", i), kmust(src.NewLookup(src.LookupParams{
			Times: []float64{0, 0.15, 0.3, 0.55, 0.7}, Values: []float64{0, 0, 0, 0.4, 0.1, 0, -0.2, 0.3, 0.1, 0.5, 0, 0, 0, 0.1, 0.2},
			Interpolation: interp, Outside: src.OutsideExtrapolate, Units: "N m",
		})))
		g.Connect(fmt.Sprintf("twist%d.value", i), fmt.Sprintf("r%d.torque", i))
	}
	// Scalar sources moving tables under balls.
	for i := range 3 {
		p := ball.DefaultParams()
		p.InitialPosition, p.Elasticity = 0.3+0.1*float64(i), 0.8
		g.Add(fmt.Sprintf("b%d", i), kmust(ball.New(p)))
		g.Add(fmt.Sprintf("shake%d", i), kmust(src.NewSine(src.SineParams{Amplitude: []float64{0.05}, Omega: []float64{20 + float64(i)}, Units: "m"})))
		g.Connect(fmt.Sprintf("shake%d.value", i), fmt.Sprintf("b%d.table_position", i))
	}
	p := ball.DefaultParams()
	p.InitialPosition = 0.4
	g.Add("b3", kmust(ball.New(p)))
	g.Add("lift", kmust(src.NewLookup(src.LookupParams{Times: []float64{0, 0.1, 0.35, 0.6}, Values: []float64{0, 0.1, 0.05, 0.2}, Interpolation: src.Hold, Units: "m"})))
	g.Connect("lift.value", "b3.table_position")
	s, err := g.Build()
	return tune(s, err, map[string]map[string]any{
		"sin2": {"omega": []float64{7}}, "step1": {"time": 0.27}, "pulse0": {"width": 0.1},
		"ramp1": {"slope": []float64{-1, 0.5, 0}}, "twist0": {"interpolation": src.Hold},
		"shake1": {"phase": []float64{0.5}}, "lift": {"outside": src.OutsideExtrapolate},
		"c2": {"stiffness": 55.0}, "gr1": {"damping": 2.0}, "hang4": {"rest_length": 0.6},
	})
}

// kernelGraphs are the fixtures, with the families Build must form. A
// family is one node type, one BatchKey and one wiring pattern whose
// offsets are affine in the row: nodes with another number of edges into
// an input, another presence of an input, or a source that breaks the
// progression start or join another family.
var kernelGraphs = []kernelGraph{
	{"balls on tables", ballsOnTables, []string{
		"table:t0..shared(6)",
		"ball:b0..b5(6)", // b5 reads "shared", the sixth table: the progression continues
		"ball:b6..b7(2)", // the same table for both rows (stride 0)
		"ball:b8..b9(2)", // no table_position: another presence
	}},
	{"rigid bodies on springs", rigidOnSprings, []string{
		"rigidbody:r0..r3(2)", // free, two connectors each: the chain's ends
		"rigidbody:r1..r2(2)", // free, three connectors each: its middle
		"rigidbody:r4..r5(2)", // hinges
		"rigidbody:r6..r7(2)", // gimbals
		"springdamper:hang0..hang7(8)",
		"springdamper:link0..link2(3)",
		"rigidbody2d:p0..p3(4)",
		"springdamper:planar0..planar3(4)",
	}},
	{"grounded chain", groundedChain, []string{
		"masspoint:m0..m299(300)", // three load terms each, summed by the engine
		// The two walls, ground–point and point–ground: one BatchKey
		// (a one-ground connector has its mirror image's), two rows.
		// The ground springs (ground–point) share it and start the
		// next family where the walls' progression breaks.
		"springdamper:c0..c300(2)",
		"springdamper:c1..c299(299)",
		"springdamper:g0..g299(300)",
	}},
	{"constants into masses", constantsIntoMasses, []string{
		"constant:load0..load5(6)",
		// Each mass's force sums its load and its connectors: m0, m1,
		// m4 and m5 have three terms, m2 and m3 four. m1's sources lie
		// before m0's (kernels walk rows forwards: strides are never
		// negative), so m0 is alone and m1 continues with m4; m5 does
		// not continue m1 and m4's progression.
		"masspoint:m0..m0(1)",
		"masspoint:m1..m4(2)",
		"masspoint:m2..m3(2)",
		"masspoint:m5..m5(1)",
		"springdamper:s0..s4(5)",
		"springdamper:u0..u1(2)", // user force law: another BatchKey
	}},
	{"sources on springs", sourcesOnSprings, []string{
		// Each mass's force sums its hanging spring, its chain springs
		// and its sources: m0 has four terms, m1 and m2 five with a
		// step, m3 to m5 five with a pulse.
		"masspoint:m0..m0(1)",
		"masspoint:m1..m2(2)",
		"masspoint:m3..m5(3)",
		"rigidbody:r0..r0(1)", // five load terms
		"rigidbody:r1..r1(1)", // four
		"spring:hang0..hang5(6)",
		"spring:c0..c4(5)",
		"spring:mr..mr(1)",     // point–rigid: another BatchKey
		"spring:gr0..gr1(2)",   // ground–rigid
		"spring:rr..rr(1)",     // rigid–rigid
		"sine:sin0..sin5(6)",   // 3-vectors
		"step:step0..step2(3)", //
		"pulse:pulse0..pulse2(3)",
		"ramp:ramp0..ramp1(2)",
		"lookup:twist0..twist1(2)",
		"ball:b0..b3(4)",         // b3 reads "lift", which continues the progression of the shakers' outputs
		"sine:shake0..shake2(3)", // scalars: another BatchKey than sin0..sin5
		"lookup:lift..lift(1)",   // a scalar
	}},
	{"W1 chain", chainW1, []string{
		"masspoint:m1..m40(40)",
		"springdamper:s0..s40(2)", // the walls: wall to mass and mass to wall, mirror images
		"springdamper:s1..s39(39)",
	}},
}

// familyList describes s.Families() as "type:first..last(n)".
func familyList(s *graph.Sim) []string {
	var out []string
	for _, f := range s.Families() {
		out = append(out, fmt.Sprintf("%s:%s..%s(%d)", f.Type, f.Nodes[0], f.Nodes[len(f.Nodes)-1], len(f.Nodes)))
	}
	return out
}

// TestKernelGraphFamilies checks the families Build forms for graphs of
// every shipped node type: every node of every fixture is in a family.
func TestKernelGraphFamilies(t *testing.T) {
	for _, kg := range kernelGraphs {
		s, err := kg.build()
		if err != nil {
			t.Fatal(err)
		}
		got := familyList(s)
		if strings.Join(got, " ") != strings.Join(kg.families, " ") {
			t.Errorf("%s: families\n%s\nwant\n%s", kg.name, strings.Join(got, "\n"), strings.Join(kg.families, "\n"))
		}
		rows := 0
		for _, f := range s.Families() {
			rows += len(f.Nodes)
		}
		if rows != len(s.Names()) {
			t.Errorf("%s: %d of %d nodes in families", kg.name, rows, len(s.Names()))
		}
	}
}

// kernelRun is one way of advancing a fixture.
type kernelRun struct {
	name string
	run  func(s *graph.Sim, workers int) error
}

var kernelRuns = []kernelRun{
	{"Run", func(s *graph.Sim, workers int) error {
		// Grain 1 splits every phase across the workers.
		res, err := s.Run(context.Background(), graph.Settings{Mode: graph.CoSimulation{Workers: workers, Grain: 1}, Dt: 2e-3, Steps: 400})
		if err == nil && res.Workers != workers {
			err = fmt.Errorf("ran with %d workers, want %d", res.Workers, workers)
		}
		return err
	}},
	{"RunMonolithic RK4", func(s *graph.Sim, workers int) error {
		rk4, err := integrators.ByName(integrators.MethodRK4)
		if err != nil {
			return err
		}
		_, err = s.RunMonolithic(context.Background(), rk4, nil, graph.Settings{Mode: graph.CoSimulation{Workers: workers, Grain: 1}, Dt: 2e-3, Steps: 200})
		return err
	}},
	{"Integrate", func(s *graph.Sim, workers int) error {
		_, err := s.Integrate(context.Background(), 0.8, integrators.DormandPrince{RTol: 1e-8, ATol: 1e-10}, nil)
		return err
	}},
}

// TestKernelGraphsBitIdentical runs every fixture every way with the
// batched engine and on the per-node path (SetBatching(false), the
// reference), with one and two workers, and requires the same state bit
// for bit: a graph may run either path, and the result must not depend
// on it nor on the worker count. The batched runs must not have replayed
// a step per node (a kernel error or a non-finite value would make them
// fall back, hiding the kernels from the comparison).
func TestKernelGraphsBitIdentical(t *testing.T) {
	for _, kg := range kernelGraphs {
		for _, kr := range kernelRuns {
			t.Run(kg.name+"/"+kr.name, func(t *testing.T) {
				advance := func(batching, windows bool, workers int) []float64 {
					s, err := kg.build()
					if err != nil {
						t.Fatal(err)
					}
					s.SetBatching(batching)
					s.SetWindows(windows)
					if err := kr.run(s, workers); err != nil {
						t.Fatalf("batching %v, windows %v, %d workers: %v", batching, windows, workers, err)
					}
					if batching && s.Replays() != 0 {
						t.Errorf("batching, windows %v, %d workers: %d steps or evaluations replayed per node", windows, workers, s.Replays())
					}
					return s.State(nil)
				}
				ref := advance(false, false, 1)
				for _, batching := range []bool{true, false} {
					for _, windows := range []bool{true, false} {
						if !batching && !windows {
							continue
						}
						for _, workers := range []int{1, 2, 3} {
							got := advance(batching, windows, workers)
							if i, same := kernelFirstDiff(ref, got); !same {
								t.Errorf("batching %v, windows %v, %d workers: state[%d] = %v, per-node path %v", batching, windows, workers, i, got[i], ref[i])
							}
						}
					}
				}
			})
		}
	}
}

// Every fixture's step and derivatives evaluation run fused. Window mode
// (the connectors' loads in per-part windows, fused.go) is Build's choice
// from the size of the compact outputs: off for these small fixtures
// (their engine.packed stays in L1), on for a W1 chain whose engine.packed holds 4 Ki
// values or more (6 per mass), and forced either way by
// SetWindows, with which TestKernelGraphsBitIdentical exercises both.
func TestKernelGraphsWindowed(t *testing.T) {
	check := func(name string, s *graph.Sim, want bool) {
		t.Helper()
		if fs, fd := s.Fused(); !fs || !fd {
			t.Errorf("%s: fused step %v, derivatives %v; want both", name, fs, fd)
		}
		if ws, wd := s.Windowed(); ws != want || wd != want {
			t.Errorf("%s: windowed step %v, derivatives %v; want %v", name, ws, wd, want)
		}
	}
	for _, kg := range kernelGraphs {
		s, err := kg.build()
		if err != nil {
			t.Fatal(err)
		}
		check(kg.name, s, false)
		s.SetWindows(true)
		check(kg.name+", forced on", s, true)
		s.SetWindows(false)
		check(kg.name+", forced off", s, false)
	}
	for _, c := range []struct {
		n    int
		want bool
	}{{600, false}, {700, true}} { // engine.packed: 6·N values (the walls take one load)
		s, err := benchmarks.Mode1(c.n).Build()
		if err != nil {
			t.Fatal(err)
		}
		if got := s.CompactLen(); got != 6*c.n {
			t.Fatalf("W1 chain N = %d: engine.packed holds %d values, want %d", c.n, got, 6*c.n)
		}
		check(fmt.Sprintf("W1 chain N = %d", c.n), s, c.want)
	}
}

// kernelFirstDiff returns the first index where a and b differ in bits.
func kernelFirstDiff(a, b []float64) (int, bool) {
	if len(a) != len(b) {
		return min(len(a), len(b)), false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i, false
		}
	}
	return -1, true
}
