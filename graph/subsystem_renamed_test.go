package graph_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes/masspoint"
)

// An output port whose inner field is named by its former name
// (node.Field.Formerly: springdamper's outputs were CamelCase, Force and
// Displacement, before they were snake_case) resolves to the renamed
// field as an edge does, with the deprecation warning naming the new
// name: the port stands for the field by its current name, and a run
// through it is bit for bit the flat graph wired from the current name.
// A name the field never had is still refused, with a suggestion.
func TestSubsystemPortFormerFieldName(t *testing.T) {
	var logs bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))

	probe := func(t *testing.T) *masspoint.Node {
		m, err := masspoint.New(masspoint.Params{Mass: 3})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	sub := corner(t, 2e4)
	sub.ExposeOutput("force", "suspension.Force")
	sub.ExposeOutput("stretch", "suspension.Displacement")
	ports, err := sub.Ports()
	if err != nil {
		t.Fatalf("ports naming former field names: %v", err)
	}
	var got []string
	for _, p := range ports[3:5] {
		got = append(got, p.Kind.String()+" "+p.Name+" "+p.Shape.String()+" "+p.Units+" "+strings.Join(p.Leaf, ","))
	}
	want := []string{"output force (3,) N suspension.force", "output stretch (3,) m suspension.displacement"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ports (-want +got):\n%s", diff)
	}
	for _, w := range []string{`field \"Force\" of springdamper was renamed \"force\"`, `field \"Displacement\" of springdamper was renamed \"displacement\"`} {
		if !strings.Contains(logs.String(), w) {
			t.Errorf("no warning %s; the log:\n%s", w, logs.String())
		}
	}

	nested, flat := graph.New(), graph.New()
	nested.AddSubsystem("c", sub)
	quarterCar(t, flat, "c_", 2e4)
	nested.Add("probe", probe(t))
	flat.Add("probe", probe(t))
	nested.Add("w", newLoad([3]float64{0, 0, -2000}))
	flat.Add("w", newLoad([3]float64{0, 0, -2000}))
	nested.Connect("w.f", "c.load")
	flat.Connect("w.f", "c_body.force")
	nested.Connect("c.force", "probe.force")
	flat.Connect("c_suspension.force", "probe.force")
	set := graph.Settings{Dt: 1e-4, Steps: 500}
	var state [2][]float64
	for i, g := range []*graph.Graph{nested, flat} {
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(context.Background(), set); err != nil {
			t.Fatal(err)
		}
		state[i] = s.State(nil)
	}
	sameBits(t, "a port through a former name against the flat graph", state[1], state[0])
	if v := state[0]; len(v) == 0 {
		t.Fatal("no state")
	}

	bad := corner(t, 2e4)
	bad.ExposeOutput("force", "suspension.Forc")
	_, err = bad.Ports()
	var pe *graph.PortError
	if !errors.As(err, &pe) || !errors.Is(err, graph.ErrUnknownField) || !strings.Contains(err.Error(), `did you mean "force"`) {
		t.Errorf("a port naming a field the node never had: %v, want ErrUnknownField suggesting force", err)
	}
}
