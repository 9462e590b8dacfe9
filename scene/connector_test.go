package scene_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// tether is a connector type defined only here: a zero-rest-length
// linear spring of stiffness k between two ends, pulling body 0 by
// k(p1 − p0) and body 1 by the opposite. It exists to show that a
// connector type registered later needs no change in scene.
type tether struct{ k float64 }

var tetherParams = []node.Param{{Name: "stiffness", Kind: node.Real, Default: 1.0, Units: "N/m", Range: node.NonNegative(), Description: "k"}}

func newTether(m map[string]any) (node.Connector, error) {
	v, err := node.Resolve("tether", tetherParams, nil, m)
	if err != nil {
		return nil, err
	}
	return tether{k: v.Float("stiffness")}, nil
}

func (tether) ConnectorType() string { return "tether" }

func (c tether) Attach(name string, ends [2]node.Attachment) (node.Node, []node.Link, error) {
	n := &tetherNode{k: c.k, ends: ends}
	var ins []node.Input
	var outs []node.Field
	for k, e := range ends {
		if e.Body == nil {
			continue
		}
		if len(e.Body.MarkerFields()) != 2 || len(e.Body.MarkerLoads()) != 1 {
			return nil, nil, &node.EndError{Type: "tether", Connector: name, End: k, Err: errors.New("tethers attach to point bodies only")}
		}
		for i, f := range e.Body.MarkerFields() {
			p := fmt.Sprintf("m%d_%s", k, f)
			ins = append(ins, node.Input{Name: p, Shape: node.Vec(3), Units: []string{"m", "m/s"}[i], Description: p, Combine: node.Replacing})
			n.links = append(n.links, node.Link{End: k, BodyField: f, Port: p})
		}
		l := e.Body.MarkerLoads()[0]
		p := fmt.Sprintf("m%d_%s", k, l)
		outs = append(outs, node.Field{Name: p, Shape: node.Vec(3), Units: "N", Description: p})
		n.links = append(n.links, node.Link{End: k, BodyField: l, Port: p, Load: true})
	}
	n.spec = node.NewSpec(node.Spec{Type: "tether", Params: tetherParams, Inputs: ins, Outputs: outs, Feedthrough: true,
		Meta: node.Metadata{AlgorithmID: "TEST-TETHER", Version: "1.0.0", Summary: "test connector"}})
	return n, n.links, nil
}

type tetherNode struct {
	node.Stateless
	k     float64
	ends  [2]node.Attachment
	links []node.Link
	spec  *node.Spec
}

func (n *tetherNode) Spec() *node.Spec { return n.spec }

func (n *tetherNode) Attachments() ([2]node.Attachment, []node.Link) { return n.ends, n.links }

func (n *tetherNode) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	var p [2][3]float64
	u := in.Values
	for k, e := range n.ends {
		if e.Body == nil {
			p[k] = e.Local
			continue
		}
		copy(p[k][:], u[:3])
		u = u[6:]
	}
	y := dst
	for k, e := range n.ends {
		if e.Body == nil {
			continue
		}
		s := 1.0 - 2*float64(k)
		for i := range 3 {
			y[i] = s * n.k * (p[1][i] - p[0][i])
		}
		y = y[3:]
	}
	return nil
}

func (n *tetherNode) Params() node.Values { return node.Values{"stiffness": n.k} }

func (n *tetherNode) SetParams(m map[string]any) error {
	v, err := node.Resolve("tether", tetherParams, n.Params(), m)
	if err != nil {
		return err
	}
	n.k = v.Float("stiffness")
	return nil
}

func tetherRegistry(t *testing.T) *node.Registry {
	t.Helper()
	tt := node.Type{Name: "tether", Connector: newTether,
		New: func(m map[string]any) (node.Node, error) {
			c, err := newTether(m)
			if err != nil {
				return nil, err
			}
			n, _, err := c.Attach("", [2]node.Attachment{{}, {Local: [3]float64{1, 0, 0}}})
			return n, err
		}}
	reg, err := node.NewRegistry(append(nodes.Types(), tt)...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

const tetherScene = `{
  "nodes": [{"name": "m", "type": "masspoint", "params": {"mass": 1, "initial_position": [1, 0, 0]}}],
  "connectors": [{"name": "t", "type": "tether", "params": {"stiffness": 4}, "bodies": ["ground", "m"]}],
  "run": {"mode": "monolithic", "integrator": {"method": "dormand-prince", "adaptive": true, "rtol": 1e-10, "atol": 1e-12}, "dt": 0.5, "end": 1},
  "record": {"fields": ["m.position[0]"]}
}`

// A connector type defined in this test package, registered with a
// Connector constructor, is attached from a scene file by the registry
// alone: Build wires its links, the run follows the analytic solution,
// FromGraph saves it back as a connector, and its per-end errors land at
// connectors[i].bodies[k]. Reference: a unit mass on a zero-length spring
// of k = 4 N/m from x0 = 1 m at rest: x(t) = cos(2t); tolerance 1e-8 m,
// a hundred times the adaptive run's rtol 1e-10 for the accumulated
// error over one second.
func TestSceneAttachesAnyRegisteredConnector(t *testing.T) {
	reg := tetherRegistry(t)
	if got := reg.ConnectorTypes(); strings.Join(got, ",") != "spring,springdamper,tether" {
		t.Errorf("ConnectorTypes() = %v", got)
	}
	sc, err := scene.Load(strings.NewReader(tetherScene), reg)
	if err != nil {
		t.Fatal(err)
	}
	g, err := sc.Build(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var edges []string
	for _, e := range g.Edges() {
		edges = append(edges, e.From+"->"+e.To)
	}
	if want := "m.position->t.m1_position m.velocity->t.m1_velocity t.m1_force->m.force"; strings.Join(edges, " ") != want {
		t.Errorf("edges %v, want %s", edges, want)
	}
	res, err := sc.Simulate(context.Background(), reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := res.Sim.Value("m.position[0]")
	t.Logf("x(1) - cos(2) = %.3g", x[0]-math.Cos(2))
	if want := math.Cos(2); !numtest.Within(x[0], want, 1e-8) {
		t.Errorf("x(1) = %v, want cos(2) = %v", x[0], want)
	}
	back, err := scene.FromGraph(g, sc.Run, sc.Record)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Connectors) != 1 || back.Connectors[0].Type != "tether" || back.Connectors[0].Bodies[1] != "m" || len(back.Edges) != 0 {
		t.Errorf("FromGraph: connectors %+v, edges %+v", back.Connectors, back.Edges)
	}

	bad := strings.Replace(tetherScene, `["ground", "m"]`, `["m", "mm"]`, 1)
	sc, err = scene.Decode(strings.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc.Build(reg, nil)
	if err == nil || !strings.Contains(err.Error(), `connectors[0].bodies[1]: tether: connector "t": body 1: no node "mm"`) {
		t.Errorf("bad body: %v", err)
	}
	var ee *node.EndError
	if !errors.As(err, &ee) || ee.End != 1 || ee.Connector != "t" {
		t.Errorf("bad body: not a *node.EndError for end 1: %#v", ee)
	}
}
