package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// TestNeeds: the state components each drawn node's picture depends on,
// found by changing them: a rigid body's position and orientation (not
// its velocities), a spring-damper's through its body's marker, the ball's
// height; a table draws from its parameter, so it needs nothing.
func TestNeeds(t *testing.T) {
	for _, c := range []struct {
		scene string
		want  map[string][]string
	}{
		{"rigid-body-spring.json", map[string][]string{"bar": {"bar.position", "bar.orientation"}, "spring": {"bar.position", "bar.orientation"}}},
		{"bouncing-ball.json", map[string][]string{"ball": {"ball.position"}, "table": nil}},
		{"mass-spring-chain.json", map[string][]string{"m2": {"m2.position"}, "s2": {"m1.position", "m2.position"}, "s1": {"m1.position"}}},
		{"thrust-on-spring.json", map[string][]string{"bob": {"bob.position"}, "rod": {"bob.position"}}},
	} {
		st := testStage(t, "../../examples/scenes/"+c.scene)
		needs, err := st.needs()
		if err != nil {
			t.Fatal(err)
		}
		for bi, b := range st.bodies {
			want, ok := c.want[b.name]
			if !ok {
				continue
			}
			if got := componentNames(needs[bi]); !slices.Equal(got, want) {
				t.Errorf("%s: %s needs %v, want %v", c.scene, b.name, got, want)
			}
		}
	}
}

// TestReplayRefused: a history that cannot give a truthful picture is
// refused (exit 1) with what is wrong named, by view and render alike:
// the rigid bar's history as the scene records it (no orientation: the
// bar would be drawn horizontal while it swings), a history of another
// scene (columns the scene does not have), and one of the same nodes
// started elsewhere (another --set). --allow-partial draws anyway, marks
// the nodes whose drawing is incomplete and says so; --record-drawing on
// cosim run records what the drawing needs, and cosim run says so when a
// history lacks it.
func TestReplayRefused(t *testing.T) {
	dir := t.TempDir()
	bar := "../../examples/scenes/rigid-body-spring.json"
	ball := "../../examples/scenes/bouncing-ball.json"
	rb := filepath.Join(dir, "rb.csv")
	code, _, errs := cosim(t, "run", "-q", bar, "-o", rb)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	mustContain(t, "cosim run's hint", errs, "this history lacks bar.position[2], bar.orientation", "--record-drawing")
	png := filepath.Join(dir, "x.png")
	html := filepath.Join(dir, "x.html")
	refuse := func(what string, want []string, args ...string) {
		t.Helper()
		code, _, errs := cosim(t, args...)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1 (%s)", what, code, errs)
		}
		mustContain(t, what, errs, append(want, "cannot be replayed", "--allow-partial")...)
		for _, f := range []string{png, html} {
			if _, err := os.Stat(f); err == nil {
				t.Errorf("%s: %s written", what, f)
				os.Remove(f)
			}
		}
	}
	for _, cmd := range [][]string{{"render", "-q", bar, "--history", rb, "--at", "2", "-o", png}, {"view", "-q", bar, "--history", rb, "-o", html}} {
		refuse("no orientation", []string{"does not record bar.position[2], bar.orientation, which the drawings of bar, spring need"}, cmd...)
	}
	hb := filepath.Join(dir, "ball.csv")
	if code, _, errs := cosim(t, "run", "-q", ball, "-o", hb, "--record-drawing"); code != 0 {
		t.Fatalf("run: %s", errs)
	} else if strings.Contains(errs, "lacks") {
		t.Errorf("--record-drawing: still a hint: %s", errs)
	}
	refuse("another scene", []string{"records columns ball.position, ball.velocity, which " + bar + " does not have: it is the history of another scene"},
		"view", "-q", bar, "--history", hb, "-o", html)
	h5 := filepath.Join(dir, "ball5.csv")
	if code, _, errs := cosim(t, "run", "-q", ball, "-o", h5, "--set", "ball.initial_position=5"); code != 0 {
		t.Fatalf("run: %s", errs)
	}
	refuse("another start", []string{"at t = 0 it records ball.position = 5 where the scene starts at 10", "--set"},
		"render", "-q", ball, "--history", h5, "--at", "1", "-o", png)
	// The same --set replays it.
	if code, _, errs := cosim(t, "render", "-q", ball, "--history", h5, "--at", "1", "-o", png, "--set", "ball.initial_position=5"); code != 0 {
		t.Errorf("with the run's --set: exit %d: %s", code, errs)
	}

	// --allow-partial: drawn, marked, said.
	code, _, errs = cosim(t, "view", "-q", bar, "--history", rb, "-o", html, "--allow-partial")
	if code != 0 {
		t.Fatalf("--allow-partial: exit %d: %s", code, errs)
	}
	mustContain(t, "--allow-partial's note", errs, "does not record bar.position[2], bar.orientation", "marked")
	b, _ := os.ReadFile(html)
	d := pageData(t, string(b))
	if !strings.Contains(d.Bodies[0].Unknown, "bar.orientation") || !strings.Contains(d.Bodies[1].Unknown, "bar.orientation") {
		t.Errorf("bodies %+v: the bar and the spring should be marked", d.Bodies)
	}

	// --record-drawing: replayed as recorded; the bar's orientation at
	// the last frame is the run's (tolerance: the page's 7 digits).
	rb2 := filepath.Join(dir, "rb2.csv")
	if code, _, errs := cosim(t, "run", "-q", bar, "-o", rb2, "--record-drawing"); code != 0 {
		t.Fatalf("run --record-drawing: %s", errs)
	}
	code, _, errs = cosim(t, "view", "-q", bar, "--history", rb2, "-o", html)
	if code != 0 || errs != "" {
		t.Fatalf("replay of a --record-drawing history: exit %d: %s", code, errs)
	}
	b, _ = os.ReadFile(html)
	d = pageData(t, string(b))
	sc, _ := loadScene(bar, nil)
	res, err := sc.Simulate(context.Background(), nodes.Registry(), &scene.Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	q, _ := res.Sim.Value("bar.orientation")
	got := decodePrim(d.Frames[len(d.Frames)-1].B[0][0]).Rot
	for i := range 4 {
		if !numtest.Within(got[i], q[i], 1e-6) {
			t.Errorf("orientation at the end drawn %v, simulated %v", got, q)
			break
		}
	}
	if d.Bodies[0].Unknown != "" {
		t.Errorf("a complete replay marks %q", d.Bodies[0].Unknown)
	}
}

// TestReplayError: the refusal wraps errReplay.
func TestReplayError(t *testing.T) {
	r := &replay{history: "h.csv", scene: "s.json", foreign: []string{"x.y"}}
	if err := r.err(false); !errors.Is(err, errReplay) {
		t.Errorf("%v does not wrap errReplay", err)
	}
	if err := r.err(true); err != nil {
		t.Errorf("allowed partial replay: %v", err)
	}
}

// replayError is the refusal of history h (named name) for the scene
// file, as cosim view and render word it.
func replayError(t *testing.T, scenePath, name string, h *graph.History) string {
	t.Helper()
	st := testStage(t, scenePath)
	r, err := checkReplay(st, h, name, strings.TrimPrefix(scenePath, "../../"))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.err(false); err != nil {
		return err.Error()
	}
	t.Fatalf("%s replays with %s", name, scenePath)
	return ""
}

// TestReplayErrorsDocumented: docs/errors.md quotes the refusals of
// cosim view and render --history as the code words them (the histories
// of three examples: the rigid bar as its scene records it, the
// ball's history given to the bar's scene, the ball started at 5 m).
func TestReplayErrorsDocumented(t *testing.T) {
	run := func(path string, set map[string]any, fields ...string) *graph.History {
		sc, err := loadScene(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(fields) > 0 {
			sc.Record.Fields = fields
		}
		sc.Run.End, sc.Run.Steps = 0.01, 0
		sim, err := sc.Compile(nodes.Registry(), set)
		if err != nil {
			t.Fatal(err)
		}
		set0 := sc.Settings()
		res, err := sim.Run(context.Background(), set0)
		if err != nil {
			t.Fatal(err)
		}
		return res.History
	}
	bar, ball := "../../examples/scenes/rigid-body-spring.json", "../../examples/scenes/bouncing-ball.json"
	msgs := []string{
		replayError(t, bar, "rb.csv", run(bar, nil)),
		replayError(t, bar, "ball.csv", run(ball, nil)),
		replayError(t, ball, "ball5.csv", run(ball, map[string]any{"ball.initial_position": 5.0})),
	}
	doc, err := os.ReadFile("../../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if !strings.Contains(string(doc), m) {
			t.Errorf("docs/errors.md does not quote this refusal as the code words it now:\n%s", m)
		}
	}
}
