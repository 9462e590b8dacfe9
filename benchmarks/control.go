package benchmarks

import (
	"fmt"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/control"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/source"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// W6 loop parameters: examples/scenes/pid-mass-spring.json, with a
// sensor lag on the measurement and a saturating actuator.
const (
	LoopMass     = 1.0  // kg
	LoopSpringK  = 4.0  // N/m on every axis
	LoopSpringC  = 0.4  // N·s/m
	LoopKp       = 20.0 // N/m
	LoopKi       = 10.0 // N/(m·s)
	LoopKd       = 4.0  // N·s/m
	LoopTf       = 0.01 // s
	LoopSensorT  = 5e-3 // s: the sensor lag's time constant
	LoopForceMax = 30.0 // N: the actuator's limit
	LoopStepTime = 0.5  // s: the reference steps from 0 to 1 m in x
	LoopDt       = 1e-3 // s
)

// PerNode hides a node's batch kernel: a graph finds the node's
// capabilities through Unwrap, as for any decorator, but steps it one by
// one (graph families hold undecorated nodes only). W6 wraps its control
// blocks in it to measure them without their kernels while the plant
// keeps its own.
type PerNode struct{ node.Node }

// Unwrap returns the wrapped node.
func (p PerNode) Unwrap() node.Node { return p.Node }

// withKernel returns n, or n wrapped in PerNode when kernels is false.
func withKernel(n node.Node, kernels bool) node.Node {
	if kernels {
		return n
	}
	return PerNode{n}
}

// loopNodes adds loop pre to g: "mass" (masspoint) on "spring"
// (springdamper to the ground), "ref" (step), "sensor" (lag), "pid",
// "actuator" (saturation). The control blocks keep their kernels only
// when kernels is true.
func loopNodes(g *graph.Graph, pre string, kernels bool) error {
	mass, err := masspoint.New(masspoint.Params{Mass: LoopMass})
	if err != nil {
		return err
	}
	ref, err := source.NewStep(source.StepParams{Time: LoopStepTime, Initial: []float64{0, 0, 0}, Final: []float64{1, 0, 0}, Units: "m"})
	if err != nil {
		return err
	}
	sensor, err := control.NewLag(control.FirstOrderParams{Size: 3, TimeConstant: []float64{LoopSensorT}, InputUnits: "m", OutputUnits: "m"})
	if err != nil {
		return err
	}
	pid, err := control.NewPID(control.PIDParams{Size: 3, Kp: []float64{LoopKp}, Ki: []float64{LoopKi}, Kd: []float64{LoopKd},
		Tf: []float64{LoopTf}, DerivativeWeight: []float64{0}, InputUnits: "m", OutputUnits: "N"})
	if err != nil {
		return err
	}
	act, err := control.NewSaturation(control.LimitParams{Size: 3, Lower: []float64{-LoopForceMax}, Upper: []float64{LoopForceMax}, Units: "N"})
	if err != nil {
		return err
	}
	g.Add(pre+"mass", mass)
	g.Add(pre+"ref", ref)
	g.Add(pre+"sensor", withKernel(sensor, kernels))
	g.Add(pre+"pid", withKernel(pid, kernels))
	g.Add(pre+"actuator", withKernel(act, kernels))
	sp := springdamper.DefaultParams()
	sp.Stiffness = [3]float64{LoopSpringK, LoopSpringK, LoopSpringK}
	sp.Damping = [3]float64{LoopSpringC, LoopSpringC, LoopSpringC}
	if _, err := springdamper.Connect(g, pre+"spring", sp, node.GroundAt([3]float64{}), node.Body(pre+"mass")); err != nil {
		return err
	}
	g.Connect(pre+"ref.value", pre+"pid.reference")
	g.Connect(pre+"mass.position", pre+"sensor.in")
	g.Connect(pre+"sensor.out", pre+"pid.measurement")
	g.Connect(pre+"pid.out", pre+"actuator.in")
	g.Connect(pre+"actuator.out", pre+"mass.force")
	return nil
}

// PIDLoops builds W6: n independent position loops (loopNodes), names
// prefixed "l0_", "l1_", …, with the control blocks' kernels or without
// them. Both graphs hold the same nodes with the same edges, so they end
// in the same bits; the ratio of their step times is what the control
// kernels save.
func PIDLoops(n int, kernels bool) (*graph.Sim, error) {
	g := graph.New()
	for i := range n {
		if err := loopNodes(g, fmt.Sprintf("l%d_", i), kernels); err != nil {
			return nil, err
		}
	}
	return g.Build()
}

// ControlBlockType is a control block type ControlFamily builds, with
// the parameters it builds it with.
type ControlBlockType struct {
	Name   string
	Params map[string]any
}

// ControlBlockTypes returns the control block types ControlFamily builds
// (a fresh slice): three components where the type has a size; a
// transfer function of order 2; a state space of two states, three
// inputs and two outputs.
func ControlBlockTypes() []ControlBlockType {
	return []ControlBlockType{
		{"gain", map[string]any{"size": 3, "gain": 2.5}},
		{"sum", map[string]any{"size": 3, "signs": "+-"}},
		{"product", map[string]any{"size": 3, "ops": "*/", "input_units": "1,1"}},
		{"saturation", map[string]any{"size": 3, "lower": -0.5, "upper": 0.5}},
		{"deadzone", map[string]any{"size": 3, "lower": -0.5, "upper": 0.5}},
		{"switch", map[string]any{"size": 3, "threshold": 0.1}},
		{"lag", map[string]any{"size": 3, "time_constant": 0.05}},
		{"derivative", map[string]any{"size": 3, "time_constant": 0.05}},
		{"integrator", map[string]any{"size": 3, "limit_output": true}},
		{"ratelimiter", map[string]any{"size": 3, "rising": 2.0, "falling": 2.0}},
		{"pid", map[string]any{"size": 3, "kp": 2.0, "ki": 1.0, "kd": 0.1, "limit_output": true}},
		{"transferfunction", map[string]any{"numerator": []float64{1, 2}, "denominator": []float64{1, 3, 2}}},
		{"statespace", map[string]any{"a": []float64{-1, 2, -3, -4}, "b": []float64{1, 0, 0.5, 0, 1, 1}, "c": []float64{1, -1, 0, 2}}},
	}
}

// ControlFamily builds n blocks of the control type typ (one of
// ControlBlockTypes, built through reg), with the blocks' kernels or
// without them: the per-type measure of what a kernel saves. One sine
// source per input, offset away from 0 (a product's divisor never
// crosses it), feeds that input of every block, and a lag per block
// reads its output (so that the output is evaluated and its bits reach
// the state); the sources and the lags keep their kernels in both
// graphs. The sources come first, then the blocks, then the lags, so
// that the blocks form one family and the lags another.
func ControlFamily(reg *node.Registry, typ string, n int, kernels bool) (*graph.Sim, error) {
	var params map[string]any
	for _, c := range ControlBlockTypes() {
		if c.Name == typ {
			params = c.Params
		}
	}
	if params == nil {
		return nil, fmt.Errorf("benchmarks: no control block type %q", typ)
	}
	g := graph.New()
	blocks := make([]node.Node, n)
	for i := range blocks {
		b, err := reg.New(typ, params)
		if err != nil {
			return nil, err
		}
		blocks[i] = b
	}
	spec := blocks[0].Spec()
	for j, in := range spec.Inputs {
		if in.Absent {
			continue
		}
		off := make([]float64, in.Shape.Len()) // the sine's size
		for k := range off {
			off[k] = 2
		}
		s, err := source.NewSine(source.SineParams{Amplitude: []float64{1}, Omega: []float64{float64(1 + j)}, Offset: off, Units: in.Units})
		if err != nil {
			return nil, err
		}
		g.Add("src_"+in.Name, s)
	}
	for i, b := range blocks {
		name := fmt.Sprintf("b%d", i)
		g.Add(name, withKernel(b, kernels))
		for _, in := range spec.Inputs {
			if !in.Absent {
				g.Connect("src_"+in.Name+".value", name+"."+in.Name)
			}
		}
	}
	out := spec.Outputs[0]
	for i := range blocks {
		sink, err := control.NewLag(control.FirstOrderParams{Size: out.Shape.Len(), TimeConstant: []float64{0.1}, InputUnits: out.Units, OutputUnits: out.Units})
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("b%d", i)
		g.Add(name+"_sink", sink)
		g.Connect(name+".out", name+"_sink.in")
	}
	return g.Build()
}
