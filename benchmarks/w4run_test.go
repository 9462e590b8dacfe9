package benchmarks

import "testing"

// RunW4 is what the report's W4 child runs: it takes the steps asked
// for (the first alone, then the others: Work counts the later ones),
// two runs end in the same bits, the error against the modal solution
// is measured (finite; at N = 5 and four steps backward Euler damps the
// mode it tracks, so the error is of the order of the amplitude), and
// names it does not know, or an explicit method, are refused.
func TestRunW4(t *testing.T) {
	r, err := RunW4(5, "backward-euler", "banded", 4)
	if err != nil || r.Failed != "" {
		t.Fatalf("RunW4: %v %s", err, r.Failed)
	}
	if r.Stats.Steps != 3 || r.N != 5 || r.Method != "backward-euler" || r.Solver != "banded" || len(r.State) != 30 {
		t.Errorf("RunW4: %d later steps, N %d, %s %s, %d state values; want 3, 5, backward-euler banded, 30", r.Stats.Steps, r.N, r.Method, r.Solver, len(r.State))
	}
	again, _ := RunW4(5, "backward-euler", "banded", 4)
	for i := range r.State {
		if r.State[i] != again.State[i] {
			t.Fatalf("two runs differ at %d: %v, %v", i, r.State[i], again.State[i])
		}
	}
	if !(r.Err.State > 0 && r.Err.State < 10) {
		t.Errorf("error against the modal solution %g, want finite and positive", r.Err.State)
	}
	for _, c := range [][2]string{{"rk4", "banded"}, {"nope", "banded"}, {"backward-euler", "nope"}} {
		if _, err := RunW4(5, c[0], c[1], 4); err == nil {
			t.Errorf("RunW4(%s, %s): no error", c[0], c[1])
		}
	}
}
