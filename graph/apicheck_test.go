package graph_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// Mistakes a Go caller can make without a type error are errors naming
// the argument, never a nil-pointer panic or a run that silently does
// nothing: a nil connector, context or checkpoint, a connector with both
// ends on one body, Settings with neither Steps nor End, and driver
// options naming state indices the graph does not have (which RK4 and
// Dormand–Prince, having no use for them, ignored).
func TestGoAPIMistakes(t *testing.T) {
	masses := func() *graph.Graph {
		g := graph.New()
		for _, name := range []string{"m", "m2"} {
			m, err := masspoint.New(masspoint.DefaultParams())
			if err != nil {
				t.Fatal(err)
			}
			g.Add(name, m)
		}
		return g
	}
	sim := func() *graph.Sim {
		s, err := masses().Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ctx := context.Background()
	check := func(what string, err error, want ...string) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", what)
			return
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v\nwant it to contain %q", what, err, w)
			}
		}
	}
	_, err := masses().AddConnector("s", nil, "", [3]float64{}, "m", [3]float64{})
	check("AddConnector(nil)", err, `graph: AddConnector "s": the connector is nil`)
	g := masses()
	_, err = g.AddConnector("s", springdamper.DefaultParams(), "m", [3]float64{}, "m", [3]float64{})
	var ee *node.EndError
	if !errors.As(err, &ee) {
		t.Errorf("connector on one body: %v, want a *node.EndError", err)
	}
	check("connector on one body", err, `both ends are on node "m"`)
	if _, ok := g.Node("s"); ok {
		t.Error("the refused connector was added")
	}
	//lint:ignore SA1012 the nil context is the mistake under test
	_, err = sim().Run(nil, graph.Settings{Dt: 0.1, Steps: 2}) //nolint:staticcheck
	check("Run(nil)", err, "graph: Run: the context is nil")
	//lint:ignore SA1012 the nil context is the mistake under test
	_, err = sim().Sensitivities(nil, []string{"m.mass"}, &graph.SensitivityOptions{End: 1}) //nolint:staticcheck
	check("Sensitivities(nil)", err, "graph: Sensitivities: the context is nil")
	check("Restore(nil)", sim().Restore(nil), "graph: Restore: the checkpoint is nil")
	_, err = sim().Run(ctx, graph.Settings{Dt: 0.1})
	check("neither Steps nor End", err, "graph: Settings has neither Steps nor End")
	for _, m := range []integrators.Method{integrators.RK4{}, integrators.DormandPrince{}} {
		for _, c := range []struct {
			opts *integrators.DriverOptions
			want string
		}{
			{&integrators.DriverOptions{Positions: []int{99}, Velocities: []int{3}}, "Settings.Options.Positions[0] = 99 is outside the state, which has 12 values"},
			{&integrators.DriverOptions{Positions: []int{0}, Velocities: []int{-1}}, "Settings.Options.Velocities[0] = -1 is outside the state"},
			{&integrators.DriverOptions{Positions: []int{0, 1}, Velocities: []int{3}}, "2 Positions and 1 Velocities"},
			{&integrators.DriverOptions{Positions: []int{0}, Velocities: []int{0}}, "Velocities[0] = 0 is also Positions[0]"},
		} {
			mode := graph.Mode(graph.Monolithic{Method: m, Options: c.opts})
			if am, ok := m.(integrators.AdaptiveMethod); ok {
				mode = graph.MonolithicAdaptive{Method: am, Options: c.opts}
			}
			_, err = sim().Run(ctx, graph.Settings{Mode: mode, Dt: 0.1, Steps: 2})
			check(m.Name()+" options", err, c.want)
		}
	}
}

// An error wrapped by Sensitivities names the package once:
// "graph: Sensitivities: …", not "graph: Sensitivities: graph: …".
func TestSensitivitiesErrorPrefix(t *testing.T) {
	s := sensBall(t, 1, 0.8)
	_, err := s.Sensitivities(context.Background(), []string{"ball.elasticity"}, &graph.SensitivityOptions{End: 1, Record: []string{"ball.nothing"}})
	if err == nil {
		t.Fatal("no error for an unknown recorded field")
	}
	if !strings.HasPrefix(err.Error(), "graph: Sensitivities: ") || strings.Count(err.Error(), "graph: ") != 1 {
		t.Errorf("error %q: want one \"graph: \" prefix, with Sensitivities", err)
	}
}
