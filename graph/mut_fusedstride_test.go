package graph_test

import (
	"fmt"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes/masspoint"
	src "github.com/cosimgo/cosim/nodes/source"
)

// evenOddRamps builds 2n ramp sources (one family) and two families of
// n masses: mass a_i is driven by ramp 2i, mass b_i by ramp 2i+1, so
// each mass family reads the ramps at rows 2i + c, a slope of 2: a
// block of 128 masses reads a span of 255 ramp rows.
func evenOddRamps(n int) (*graph.Sim, error) {
	g := graph.New()
	for i := range 2 * n {
		s := 0.01 * float64(i+1)
		r, err := src.NewRamp(src.RampParams{Slope: []float64{s, -s, 0.5 * s}, Offset: []float64{0, 0, 0}, Units: "N"})
		if err != nil {
			return nil, err
		}
		g.Add(fmt.Sprintf("r%d", i), r)
	}
	for _, side := range []int{0, 1} {
		for i := range n {
			m, err := masspoint.New(masspoint.Params{Mass: 1 + 0.1*float64(i), InitialPosition: [3]float64{float64(i), float64(side), 0}})
			if err != nil {
				return nil, err
			}
			name := fmt.Sprintf("%c%d", 'a'+side, i)
			g.Add(name, m)
			g.Connect(fmt.Sprintf("r%d.value", 2*i+side), name+".force")
		}
	}
	return g.Build()
}

// A consumer family that reads its producer at rows 2i + c steps fused
// like any other (graph/fused.go: dependences affine in the consumer's
// row; in window mode a window as wide as the widest span a block
// reads), and fusion changes only the order of the rows, so the masses'
// states after 20 steps must equal the per-node path's bit for bit, with
// windows on and off and 1 to 3 workers (Grain 1), without a step
// replayed per node (a kernel view past its window fails the call and
// replays the step). At n = 150 a block of 128 masses reads 255 ramp
// rows, more than a block.
func TestFusedStrideTwoBitIdentical(t *testing.T) {
	fusedMatchesPerNode(t, func() (*graph.Sim, error) { return evenOddRamps(150) }, 20)
}
