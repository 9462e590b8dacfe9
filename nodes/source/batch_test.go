package source_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/source"
	"github.com/cosimgo/cosim/verification"
)

// The batch kernels of every source type against the members' own
// Outputs, in this package's tests so that mutation testing (go run
// ./internal/mutation -pkgs nodes/source) sees batch.go exercised.
// verification.CheckBatch draws times in [0, 10), strided and broadcast
// output layouts, Need masks and chunkings, and overrides the members'
// parameters after NewBatch (a kernel must see SetParams). The reference
// is each member's own Outputs; the tolerance is zero (bit for bit), as
// node.Batch requires: a graph may run either path. Members differ in
// their parameters (per component or shared), event times inside the
// drawn times, and, for lookups, in table length, interpolation and
// outside behaviour, including "error" tables that end before t = 10.
func TestBatchKernelsMatchMembers(t *testing.T) {
	for _, kind := range []string{"sine", "step", "ramp", "pulse", "lookup"} {
		for _, nc := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/%d", kind, nc), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(len(kind)), uint64(nc)))
				members := make([]node.Node, 9)
				for i := range members {
					m, err := newSource(rng, kind, nc)
					if err != nil {
						t.Fatal(err)
					}
					members[i] = m
				}
				for _, err := range verification.CheckBatch(members, verification.BatchOptions{Seed: uint64(17 * nc)}) {
					t.Error(err)
				}
			})
		}
	}
}

// newSource draws a source of the given kind with nc components; one
// per-component parameter has nc values, the others one or nc.
func newSource(rng *rand.Rand, kind string, nc int) (node.Node, error) {
	full := rng.IntN(2)
	pc := func(k int, s float64) []float64 {
		if nc == 1 || k != full && rng.IntN(2) == 0 {
			return []float64{s * rng.NormFloat64()}
		}
		v := make([]float64, nc)
		for i := range v {
			v[i] = s * rng.NormFloat64()
		}
		return v
	}
	switch kind {
	case "sine":
		return source.NewSine(source.SineParams{Amplitude: pc(0, 2), Omega: pc(1, 10), Phase: pc(2, 3), Offset: pc(3, 1)})
	case "step":
		return source.NewStep(source.StepParams{Time: 10 * rng.Float64(), Initial: pc(0, 1), Final: pc(1, 1)})
	case "ramp":
		return source.NewRamp(source.RampParams{Start: 10*rng.Float64() - 1, Slope: pc(0, 2), Offset: pc(1, 1)})
	case "pulse":
		period := 0.05 + 3*rng.Float64()
		return source.NewPulse(source.PulseParams{Period: period, Width: period * (0.01 + 0.98*rng.Float64()), Delay: 4*rng.Float64() - 1,
			Amplitude: pc(0, 2), Offset: pc(1, 1)})
	}
	m := 1 + rng.IntN(12)
	lo, hi := 4*rng.Float64()-1, 7+4*rng.Float64()
	outside := []string{source.OutsideHold, source.OutsideExtrapolate, source.OutsideError}[rng.IntN(3)]
	if outside == source.OutsideError {
		lo, hi, m = -rng.Float64()-0.01, 7+2*rng.Float64(), max(m, 2)
	}
	times := make([]float64, m)
	for j := range times {
		times[j] = lo + (hi-lo)*(float64(j)+0.5*rng.Float64())/float64(m)
	}
	values := make([]float64, m*nc)
	for j := range values {
		values[j] = rng.NormFloat64()
	}
	interp := []string{source.InterpolationHold, source.InterpolationLinear, source.InterpolationPCHIP}[rng.IntN(3)]
	return source.NewLookup(source.LookupParams{Times: times, Values: values, Interpolation: interp, Outside: outside})
}
