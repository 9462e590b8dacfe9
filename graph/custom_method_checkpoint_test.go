package graph

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/integrators"
)

// ckptEuler is forward Euler under another name, a caller's method.
type ckptEuler struct{}

func (ckptEuler) Name() string { return "graph-test-euler" }
func (ckptEuler) Order() int   { return 1 }
func (ckptEuler) New(sys integrators.System, o *integrators.DriverOptions) (integrators.Stepper, error) {
	return integrators.NewStepper(integrators.ForwardEuler{}, sys, o)
}

// A checkpoint of a user-defined method records its kind and is read
// back only where the method is registered, as the same method.
func TestCheckpointUserDefinedMethod(t *testing.T) {
	c := &Checkpoint{Version: CheckpointVersion, Dt: 0.1, N: 1, Steps: 1,
		Nodes:      []NodeCheckpoint{{Name: "m", Type: "mass", Layout: []FieldSize{{"x", 1}}, State: []float64{1}}},
		Integrator: &MethodCheckpoint{Method: ckptEuler{}, State: integrators.StepperState{Method: "graph-test-euler", Dim: 1, Y: []float64{1}}},
	}
	var buf bytes.Buffer
	if err := c.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"user-defined"`) {
		t.Errorf("the file does not record the kind user-defined:\n%s", buf.String())
	}
	file := buf.Bytes()
	if _, err := integrators.ByName("graph-test-euler"); err != nil {
		if _, err := DecodeCheckpoint(bytes.NewReader(file)); err == nil || !strings.Contains(err.Error(), "register it") {
			t.Errorf("unregistered user-defined method read: %v", err)
		}
		if err := integrators.Register(ckptEuler{}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := DecodeCheckpoint(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := got.Integrator.Method.(ckptEuler); !ok || !integrators.Same(m, c.Integrator.Method) {
		t.Errorf("read method %+v, wrote %+v", m, c.Integrator.Method)
	}
}
