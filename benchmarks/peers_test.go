package benchmarks

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"testing"

	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/numtest"
)

// TestW4PeersSolveW4 builds every C peer of W4 (PETSc, ARKODE) and checks
// that it integrates the same problem as cosim: at N = 20 after 21 steps
// of 1 ms, the peer's state and cosim's with the same solver family
// (RunStiff, backward Euler) agree to
//
//	|y_peer − y_cosim| ≤ 2·21·1e-10·(1 + max|y|)
//
// per component. Both iterate Newton until the update is at most
// 1e-10·(1 + max|x|) (benchmarks/peers/w4_*.c say how the peers do it);
// each step's result is then within about one such update of the exact
// backward-Euler step, backward Euler does not amplify earlier errors on
// this damped linear system (|R(z)| ≤ 1), so over 21 steps the two
// differ by at most 21 updates each. Their errors against the modal
// solution, which the report compares, must agree to the same bound over
// the amplitude.
//
// Without gcc or the peers' Debian packages (petsc-dev, libsundials-dev)
// the test is skipped, except under CI=true: .ci/run installs them there.
func TestW4PeersSolveW4(t *testing.T) {
	if testing.Short() {
		t.Skip("builds C programs")
	}
	const n, steps = 20, 21
	dir := t.TempDir()
	cosim := map[string]StiffRun{}
	for _, p := range W4Peers() {
		t.Run(p.Name, func(t *testing.T) {
			exe, err := BuildW4Peer(context.Background(), p, dir)
			if errors.Is(err, ErrPeerUnavailable) {
				if os.Getenv("CI") == "true" {
					t.Fatalf("%v (CI installs it: .ci/run, section peers)", err)
				}
				t.Skip(err)
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range p.Configs {
				out, err := W4PeerCommand(context.Background(), exe, c, n, steps).Output()
				if err != nil {
					t.Fatalf("%s %s: %v", p.Name, c.Solver, err)
				}
				var got struct {
					Lib    string
					Steps  int
					Time   float64
					State  []float64
					Errors StiffErrors
				}
				if err := json.Unmarshal(out, &got); err != nil {
					t.Fatalf("%s %s: %v in %s", p.Name, c.Solver, err, out)
				}
				want, ok := cosim[c.Twin]
				if !ok {
					want, err = RunStiff(n, integrators.BackwardEuler{}, c.Twin, steps, true)
					if err != nil {
						t.Fatal(err)
					}
					cosim[c.Twin] = want
				}
				if got.Steps != steps || !numtest.Within(got.Time, float64(steps)*StiffDt, 1e-15) || len(got.State) != len(want.State) {
					t.Fatalf("%s %s: %d steps to t = %v with %d states, want %d to %v with %d", p.Name, c.Solver, got.Steps, got.Time, len(got.State), steps, float64(steps)*StiffDt, len(want.State))
				}
				ymax := 0.0
				for _, v := range want.State {
					ymax = math.Max(ymax, math.Abs(v))
				}
				tol := 2 * steps * 1e-10 * (1 + ymax)
				worst := 0.0
				for i, v := range got.State {
					worst = math.Max(worst, math.Abs(v-want.State[i]))
				}
				if worst > tol {
					t.Errorf("%s %s against cosim %s: max |Δy| = %.3g > %.3g", p.Name, c.Solver, c.Twin, worst, tol)
				}
				if d := math.Abs(got.Errors.State - want.Errors.State); d > tol/StiffAmplitude {
					t.Errorf("%s %s: error against the modal solution %.6g, cosim's %.6g", p.Name, c.Solver, got.Errors.State, want.Errors.State)
				}
				t.Logf("%s (%s) %s: max |Δy| = %.2g against cosim %s (tolerance %.2g)", p.Name, got.Lib, c.Solver, worst, c.Twin, tol)
			}
		})
	}
}
