package graph_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// fieldFail is a mass whose Update reports its own non-finite velocity
// as a node.FieldError from step 3 on.
type fieldFail struct{ *mass }

func (f fieldFail) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	if t >= 3*dt-1e-12 {
		return &node.FieldError{Field: "v", Err: fmt.Errorf("v = NaN: %w", node.ErrNonFinite)}
	}
	return f.mass.Update(t, dt, x, in, dst)
}

// A node that names the field in its error gets it named in the graph's
// StateError, with the step and time of the failing step.
func TestNodeFieldErrorLifted(t *testing.T) {
	g := graph.New()
	g.Add("m", fieldFail{newMass(1, 0)})
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Run(context.Background(), graph.Settings{Dt: 0.5, Steps: 10})
	var se *node.StateError
	if !errors.As(err, &se) || se.Node != "m" || se.Field != "v" || se.Step != 3 || se.Time != 1.5 || !errors.Is(err, node.ErrNonFinite) {
		t.Fatalf("err = %v (%#v), want node m, field v, step 3, t = 1.5, wrapping ErrNonFinite", err, se)
	}
	if want := "node m.v: step 3 at t=1.5: v = NaN: value is not finite"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}

// jacPanic is a mass whose analytic Jacobian panics: the implicit
// methods' Jacobian assembly must recover it as an error naming the node.
type jacPanic struct{ *mass }

func (j jacPanic) DerivativesJacobian(t float64, x []float64, in node.Inputs, A, B []float64) error {
	panic("jacobian exploded")
}

func TestJacobianPanicRecovered(t *testing.T) {
	for _, name := range []string{"backward-euler", "implicit-trapezoid"} {
		g := graph.New()
		g.Add("m", jacPanic{newMass(1, 1)})
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		m, err := integrators.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.RunMonolithic(context.Background(), m, nil, graph.Settings{Dt: 0.1, Steps: 3})
		var se *node.StateError
		if !errors.As(err, &se) || se.Node != "m" || !strings.Contains(err.Error(), "panic: jacobian exploded") {
			t.Errorf("%s: err = %v, want a StateError naming m with the panic", name, err)
		}
	}
}
