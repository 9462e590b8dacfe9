package main

import (
	"path/filepath"
	"testing"
)

// An adaptive run to a huge end time keeps every contact: the located
// bouncing ball run to t = 1e15 s with output every 1e14 s ended at
// −4.9e30 m with exit 0, its step after each bounce having grown until it
// jumped over the next ones. Now every recorded row after the first is
// the ball at rest on the table, exactly [0, 0] (it comes to rest after
// about 27 s), and none is below it.
func TestHugeEndTimeKeepsContacts(t *testing.T) {
	for _, m := range []string{"dormand-prince", "esdirk43", "bdf"} {
		out := filepath.Join(t.TempDir(), "h.csv")
		code, stdout, errs := cosim(t, "run", eventsScene, "--set", "run.end=1e15", "--set", "run.dt=1e14",
			"--set", "run.integrator.method="+m, "-o", out, "-q")
		if code != 0 {
			t.Fatalf("%s: exit %d; stdout %q, stderr %q", m, code, stdout, errs)
		}
		h, err := readHistoryFile(out)
		if err != nil {
			t.Fatal(err)
		}
		x, v := h.Column("ball.position"), h.Column("ball.velocity")
		if len(h.Times) != 11 || h.Times[10] != 1e15 {
			t.Fatalf("%s: %d rows to t = %v, want 11 to 1e15", m, len(h.Times), h.Times[len(h.Times)-1])
		}
		for k := 1; k < len(x); k++ {
			if x[k] != 0 || v[k] != 0 {
				t.Errorf("%s: at t = %g the ball is at %v m, %v m/s; want at rest on the table", m, h.Times[k], x[k], v[k])
			}
		}
	}
}

// A ball that has come to rest on the table in co-simulation stays there
// with velocity 0 (COSIM-ANO-004, resolved): with e = 0.5 and dt = 0.01 s
// it chattered at 0.0327 m/s from t ≈ 4.2 s to the end, exit 0. The ball
// dropped from 10 m comes to rest by 4.3 s (the closed form of its
// bounces: 4.2835 s; verification.TestAnomalyCOSIMANO004 bounds the
// difference), so every row from 4.5 s on must be exactly [0, 0].
func TestBallRestsInCoSimulation(t *testing.T) {
	out := filepath.Join(t.TempDir(), "h.csv")
	code, stdout, errs := cosim(t, "run", "../../examples/scenes/bouncing-ball.json", "--set", "ball.elasticity=0.5",
		"--set", "run.dt=0.01", "--set", "record.every=1", "-o", out, "-q")
	if code != 0 {
		t.Fatalf("exit %d; stdout %q, stderr %q", code, stdout, errs)
	}
	h, err := readHistoryFile(out)
	if err != nil {
		t.Fatal(err)
	}
	x, v := h.Column("ball.position"), h.Column("ball.velocity")
	rows := 0
	for k, tk := range h.Times {
		if tk < 4.5 {
			continue
		}
		rows++
		if x[k] != 0 || v[k] != 0 {
			t.Fatalf("at t = %v the ball is at %v m, %v m/s; want at rest on the table", tk, x[k], v[k])
		}
	}
	if rows < 500 {
		t.Errorf("%d rows from 4.5 s to 10 s, want 551", rows)
	}
}
