package graph

import (
	"context"
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// csrSystem gives a System a sparse assembly of ∂f/∂y, as the sparse
// Jacobian work does: the pattern of the non-zeros of the dense Jacobian
// at a probe state (fixed, columns ascending), and the values in it.
type csrSystem struct {
	*System
	rowPtr, col []int
	dense       []float64
	calls       int
}

func newCSR(t *testing.T, m *System, y []float64) *csrSystem {
	n := len(y)
	c := &csrSystem{System: m, dense: make([]float64, n*n)}
	if err := m.Jacobian(0, y, c.dense); err != nil {
		t.Fatal(err)
	}
	c.rowPtr = []int{0}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if c.dense[i*n+j] != 0 || i == j {
				c.col = append(c.col, j)
			}
		}
		c.rowPtr = append(c.rowPtr, len(c.col))
	}
	return c
}

func (c *csrSystem) JacobianPattern() (rowPtr, col []int) { return c.rowPtr, c.col }

func (c *csrSystem) SparseJacobian(t float64, y, val []float64) error {
	c.calls++
	n := len(y)
	if err := c.System.Jacobian(t, y, c.dense); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		for p := c.rowPtr[i]; p < c.rowPtr[i+1]; p++ {
			val[p] = c.dense[i*n+c.col[p]]
		}
	}
	return nil
}

// chainNode is a linear unit mass-spring chain as one node: x” = −K x
// with K tridiagonal (2, −1), written as a first-order system; its
// "stiffness" parameter scales K. Its Jacobian is sparse.
type chainNode struct {
	spec *node.Spec
	k    float64
}

func newChainNode(n int) *chainNode {
	return &chainNode{k: 3, spec: node.NewSpec(node.Spec{
		Type: "testchain",
		State: []node.Field{
			{Name: "q", Shape: node.Vec(n), Units: "m", Description: "positions", Role: node.Position, Rate: "v"},
			{Name: "v", Shape: node.Vec(n), Units: "m/s", Description: "velocities", Role: node.Velocity},
		},
		Params: []node.Param{{Name: "stiffness", Kind: node.Real, Default: 3.0, Units: "N/m", Description: "k", Range: node.Finite()}},
	})}
}

func (c *chainNode) Spec() *node.Spec { return c.spec }
func (c *chainNode) InitialState(dst []float64) {
	n := len(dst) / 2
	for i := 0; i < n; i++ {
		dst[i] = 0.1 * float64(i+1)
	}
}
func (c *chainNode) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	return nil
}
func (c *chainNode) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	n := len(x) / 2
	for i := 0; i < n; i++ {
		a := -2 * x[i]
		if i > 0 {
			a += x[i-1]
		}
		if i+1 < n {
			a += x[i+1]
		}
		dst[i], dst[n+i] = x[n+i], c.k*a
	}
	return nil
}
func (c *chainNode) Params() node.Values { return node.Values{"stiffness": c.k} }
func (c *chainNode) SetParams(p map[string]any) error {
	c.k = p["stiffness"].(float64)
	return nil
}

// The sparse product (∂f/∂y)·S gives the dense one's sensitivities (to
// rounding, 1e-12 relative), and is the one used when the System has
// a sparse assembly.
func TestSensitivitiesSparseJacobian(t *testing.T) {
	run := func(sparse bool) (*Sensitivity, int) {
		g := New()
		g.Add("c", newChainNode(6))
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		m, err := s.System()
		if err != nil {
			t.Fatal(err)
		}
		var jac stateJacobian = m
		var csr *csrSystem
		if sparse {
			csr = newCSR(t, m, s.State(nil))
			jac = csr
		}
		res, err := s.sensitivities(context.Background(), m, jac, []string{"c.stiffness"}, &SensitivityOptions{End: 2, Output: []float64{2}})
		if err != nil {
			t.Fatal(err)
		}
		if csr != nil {
			return res, csr.calls
		}
		return res, 0
	}
	dense, _ := run(false)
	sparse, calls := run(true)
	if calls == 0 {
		t.Fatal("the sparse assembly was not used")
	}
	if len(sparse.Columns) != 12 {
		t.Fatalf("columns %v", sparse.Columns)
	}
	for k := range dense.D[0] {
		a, b := dense.D[0][k], sparse.D[0][k]
		if !numtest.Within(a, b, 1e-12*math.Max(1, math.Abs(a))) {
			t.Errorf("component %d: dense %v, sparse %v", k, a, b)
		}
	}
}
