package benchmarks

import (
	"fmt"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// W5 corner parameters: a wheel-suspension corner (quarter car).
const (
	CornerWheelMass  = 40.0   // kg, unsprung
	CornerBodyMass   = 400.0  // kg, sprung
	CornerTireK      = 2e5    // N/m on every axis
	CornerTireC      = 100.0  // N·s/m
	CornerSuspK      = 2e4    // N/m
	CornerSuspC      = 1500.0 // N·s/m
	CornerDrop       = 0.05   // m: the body starts this far above its rest height
	CornerDt         = 1e-3   // s
	CornerSteps      = 1000
	CornerRideHeight = 0.8 // m: the body's rest height (no gravity)
)

// cornerNodes adds one corner to g, every name prefixed by pre: "wheel"
// and "body" (masspoint), "tire" (springdamper from the ground to the
// wheel) and "suspension" (springdamper from the wheel to the body).
func cornerNodes(g *graph.Graph, pre string) error {
	wheel, err := masspoint.New(masspoint.Params{Mass: CornerWheelMass, InitialPosition: [3]float64{0, 0, 0.3}})
	if err != nil {
		return err
	}
	body, err := masspoint.New(masspoint.Params{Mass: CornerBodyMass, InitialPosition: [3]float64{0, 0, CornerRideHeight + CornerDrop}})
	if err != nil {
		return err
	}
	g.Add(pre+"wheel", wheel)
	g.Add(pre+"body", body)
	tire := springdamper.DefaultParams()
	tire.Stiffness = [3]float64{CornerTireK, CornerTireK, CornerTireK}
	tire.Damping = [3]float64{CornerTireC, CornerTireC, CornerTireC}
	tire.Offset = [3]float64{0, 0, 0.3}
	if _, err := springdamper.Connect(g, pre+"tire", tire, node.GroundAt([3]float64{}), node.Body(pre+"wheel")); err != nil {
		return err
	}
	susp := springdamper.DefaultParams()
	susp.Stiffness = [3]float64{CornerSuspK, CornerSuspK, CornerSuspK}
	susp.Damping = [3]float64{CornerSuspC, CornerSuspC, CornerSuspC}
	susp.Offset = [3]float64{0, 0, CornerRideHeight - 0.3}
	_, err = springdamper.Connect(g, pre+"suspension", susp, node.Body(pre+"wheel"), node.Body(pre+"body"))
	return err
}

// Corner returns one wheel-suspension corner as a subsystem: output ports
// "body" and "wheel" (positions), input port "load" (the body's additive
// force), parameter "stiffness" (the suspension's).
func Corner() (*graph.Subsystem, error) {
	g := graph.New()
	if err := cornerNodes(g, ""); err != nil {
		return nil, err
	}
	s := graph.NewSubsystem(g)
	s.ExposeInput("load", "body.force")
	s.ExposeOutput("body", "body.position")
	s.ExposeOutput("wheel", "wheel.position")
	s.PromoteParam("stiffness", "suspension.stiffness")
	return s, nil
}

// Corners builds W5: n independent corners, as n subsystems "c0".."c<n-1>"
// (nested) or as the same nodes wired by hand with names "c0_wheel", …
// (flat). Both graphs hold the same nodes in the same order with the same
// edges, so they run the same arithmetic and end in the same bits; the
// ratio of their step times is the cost of composing with subsystems.
func Corners(n int, nested bool) (*graph.Sim, error) {
	g := graph.New()
	for i := range n {
		name := fmt.Sprintf("c%d", i)
		if !nested {
			if err := cornerNodes(g, name+"_"); err != nil {
				return nil, err
			}
			continue
		}
		c, err := Corner()
		if err != nil {
			return nil, err
		}
		g.AddSubsystem(name, c)
	}
	return g.Build()
}
