package main

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// pageData extracts the page data (the JSON block "cosim-data") from a
// page cosim view wrote.
func pageData(t *testing.T, page string) viewData {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script id="cosim-data" type="application/json">(\{.*?\})</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no cosim-data block in the page")
	}
	var d viewData
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func (v *nums) UnmarshalJSON(b []byte) error {
	var f []float64
	err := json.Unmarshal(b, &f)
	*v = f
	return err
}

// decodePrim reads a primitive encoded by encodePrim.
func decodePrim(v nums) node.Primitive {
	p := node.Primitive{Kind: node.PrimKind(v[0])}
	copy(p.P[:], v[1:4])
	r := v[4:]
	switch p.Kind {
	case node.Sphere:
		p.Size = [3]float64{r[0], r[0], r[0]}
		r = r[1:]
	case node.Box:
		copy(p.Size[:], r[:3])
		copy(p.Rot[:], r[3:7])
		r = r[7:]
	case node.Plane:
		p.Size = [3]float64{r[0], 0, r[1]}
		copy(p.Rot[:], r[2:6])
		r = r[6:]
	case node.Coil:
		copy(p.Q[:], r[:3])
		p.Size = [3]float64{r[3], r[3], r[3]}
		p.Windings = int(r[4])
		r = r[5:]
	default:
		copy(p.Q[:], r[:3])
		p.Size = [3]float64{r[3], r[3], r[3]}
		r = r[4:]
	}
	copy(p.Color[:], r)
	return p
}

// TestEncodePrim: every kind survives encodePrim and decodePrim.
func TestEncodePrim(t *testing.T) {
	for _, p := range []node.Primitive{
		{Kind: node.Sphere, P: [3]float64{1, 2, 3}, Size: [3]float64{0.5, 0.5, 0.5}, Color: [4]float64{0.1, 0.2, 0.3, 1}},
		{Kind: node.Box, P: [3]float64{1, 2, 3}, Size: [3]float64{0.5, 0.25, 2}, Rot: [4]float64{0.5, 0.5, 0.5, 0.5}, Color: [4]float64{0.1, 0.2, 0.3, 1}},
		{Kind: node.Plane, P: [3]float64{1, 2, 3}, Size: [3]float64{4, 0, 5}, Rot: [4]float64{1, 0, 0, 0}, Color: [4]float64{0.6, 0.6, 0.6, 1}},
		{Kind: node.Coil, P: [3]float64{1, 2, 3}, Q: [3]float64{4, 5, 6}, Size: [3]float64{0.1, 0.1, 0.1}, Windings: 8, Color: [4]float64{0, 0, 1, 1}},
		{Kind: node.Line, P: [3]float64{1, 2, 3}, Q: [3]float64{4, 5, 6}, Size: [3]float64{0.1, 0.1, 0.1}, Color: [4]float64{0, 0, 1, 1}},
		{Kind: node.Cylinder, P: [3]float64{1, 2, 3}, Q: [3]float64{4, 5, 6}, Size: [3]float64{0.1, 0.1, 0.1}, Color: [4]float64{0, 0, 1, 1}},
	} {
		if got := decodePrim(encodePrim(p)); got != p {
			t.Errorf("%v: %+v → %+v", p.Kind, p, got)
		}
	}
}

// TestViewPage: cosim view writes one self-contained page (no network
// reference, the renderer inline) whose frames draw the scene as its run
// computed it. Reference values: the rigid bar's position and the
// spring's displacement output of an independent scene.Simulate of the
// same file, at the last frame; the three coils of the Cartesian spring
// add up to the displacement (Exudyn's drawing runs along x, y, z from
// m0 to m1). Tolerance 1e-6 relative: the page stores 7 significant
// digits.
func TestViewPage(t *testing.T) {
	path := "../../examples/scenes/rigid-body-spring.json"
	file := filepath.Join(t.TempDir(), "bar.html")
	code, out, errs := cosim(t, "view", "-q", path, "-o", file, "--frames", "100")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, "summary", out, "101 frames of 2 bodies (bar, spring)")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, bad := range []string{"<script src", "http://", "https://", "<link"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page is not self-contained: it has %q", bad)
		}
	}
	mustContain(t, "page", page, "cosimView", `id="slider"`, `id="play"`, `id="speed"`)
	d := pageData(t, page)
	if len(d.Frames) != 101 || d.Frames[0].T != 0 || !numtest.Within(d.Frames[100].T, 6, 1e-12) {
		t.Fatalf("%d frames from %v to %v, want 101 from 0 to 6", len(d.Frames), d.Frames[0].T, d.Frames[len(d.Frames)-1].T)
	}
	if want := []string{"bar.position[0]", "bar.position[1]", "bar.angular_velocity[2]", "spring.distance"}; strings.Join(d.Series.Columns, ",") != strings.Join(want, ",") {
		t.Errorf("plotted %v, want the scene's recorded %v", d.Series.Columns, want)
	}
	if strings.Join(d.Series.Units, ",") != "m,m,rad/s,m" {
		t.Errorf("units %v", d.Series.Units)
	}

	sc, err := loadScene(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sc.Simulate(context.Background(), nodes.Registry(), &scene.Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	pos, _ := res.Sim.Value("bar.position")
	disp, _ := res.Sim.Value("spring.displacement")
	last := d.Frames[100]
	bar := decodePrim(last.B[0][0])
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }
	for i := range 3 {
		if !near(bar.P[i], pos[i]) {
			t.Errorf("bar centre[%d] = %v, simulated %v", i, bar.P[i], pos[i])
		}
	}
	springs := last.B[1]
	// The ground marker, then the coil from the ground point to the bar's
	// attachment, and the damper inside it (housing from the ground,
	// piston rod from the bar): the spring is damped.
	if len(springs) != 4 {
		t.Fatalf("spring drawn as %d primitives, want 4", len(springs))
	}
	if g := decodePrim(springs[0]); g.Kind != node.Box || g.P != [3]float64{} {
		t.Errorf("ground marker %+v", g)
	}
	s := decodePrim(springs[1])
	if s.Kind != node.Coil || s.Windings != 8 {
		t.Errorf("spring %+v, want a coil of 8 windings", s)
	}
	for i := range 3 {
		if !numtest.Within(s.Q[i]-s.P[i], disp[i], 2e-6) {
			t.Errorf("the coil spans %v along %d, the spring's displacement is %v", s.Q[i]-s.P[i], i, disp[i])
		}
	}
	if h, r := decodePrim(springs[2]), decodePrim(springs[3]); h.Kind != node.Cylinder || r.Kind != node.Cylinder || h.P != s.P || r.P != s.Q {
		t.Errorf("damper %+v, %+v: want a housing from the ground and a rod from the bar", h, r)
	}
}

// TestViewFlags: drawing settings reach the page; show and color from
// the scene are honoured; bad flags are usage errors.
func TestViewFlags(t *testing.T) {
	dir := t.TempDir()
	sc := `{"nodes": [{"name": "m", "type": "masspoint", "params": {"initial_position": [1, 0, 0], "color": [0, 1, 0, 1], "draw_size": 0.5}},
	                  {"name": "hidden", "type": "masspoint", "params": {"show": false}}],
	        "connectors": [{"name": "s", "type": "springdamper", "params": {"stiffness": [10, 10, 10], "drawSize": 0.2}, "bodies": ["ground", "m"]}],
	        "run": {"dt": 0.01, "steps": 10}}`
	scenePath := filepath.Join(dir, "s.json")
	if err := os.WriteFile(scenePath, []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "s.html")
	if code, _, errs := cosim(t, "view", "-q", scenePath, "-o", file, "--simplified", "--tiling", "20"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(file)
	d := pageData(t, string(b))
	if d.Settings.Tiling != 20 {
		t.Errorf("tiling %d, want 20", d.Settings.Tiling)
	}
	if len(d.Bodies) != 3 {
		t.Fatalf("bodies %v", d.Bodies)
	}
	f := d.Frames[0]
	if m := decodePrim(f.B[0][0]); m.Color != [4]float64{0, 1, 0, 1} || m.Size[0] != 0.25 {
		t.Errorf("mass drawn %+v, want green, radius 0.25", m)
	}
	if len(f.B[1]) != 0 {
		t.Errorf("the hidden mass is drawn: %v", f.B[1])
	}
	if s := decodePrim(f.B[2][1]); s.Kind != node.Line || s.Size[0] != 0.2 {
		t.Errorf("simplified spring %+v, want a line of size 0.2", s)
	}
	for _, args := range [][]string{
		{"view", scenePath, "--camera", "1"},
		{"view", scenePath, "--camera", "0,95"},
		{"view", scenePath, "--tiling", "2"},
		{"view", scenePath, "--frames", "0"},
		{"view", scenePath, "--serve", "0.0.0.0:0"},
		{"view", scenePath, "--serve", "127.0.0.1:0", "-o", "x.html"},
	} {
		if code, _, errs := cosim(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
	}
}

// TestAdvanceMatchesSimulate: the chunked run --serve streams is the
// scene's run, bit for bit, in co-simulation (Gauss–Seidel coupling) and
// monolithic mode.
func TestAdvanceMatchesSimulate(t *testing.T) {
	for _, f := range []string{"mass-spring-chain.json", "two-mass-modes.json", "spring-damper.json"} {
		t.Run(f, func(t *testing.T) {
			sc, err := loadScene("../../examples/scenes/"+f, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := sc.Simulate(context.Background(), nodes.Registry(), &scene.Options{NoHistory: true})
			if err != nil {
				t.Fatal(err)
			}
			sim, err := sc.Compile(nodes.Registry(), nil)
			if err != nil {
				t.Fatal(err)
			}
			steps, done := sceneSteps(sc), 0
			for done < steps {
				k := min(37, steps-done)
				done += k
				if err := advance(context.Background(), sc, sim, k, float64(done)*sc.Run.Dt); err != nil {
					t.Fatal(err)
				}
			}
			want, got := res.Sim.State(nil), sim.State(nil)
			for i := range want {
				if math.Float64bits(want[i]) != math.Float64bits(got[i]) {
					t.Fatalf("state[%d] = %v in chunks, %v in one run", i, got[i], want[i])
				}
			}
			if sim.Time() != res.Sim.Time() {
				t.Errorf("time %v, want %v", sim.Time(), res.Sim.Time())
			}
		})
	}
}

// TestServeEvents: the live page's /events stream sends every frame as
// Server-Sent Events, then "done"; / serves the page, unknown paths 404.
func TestServeEvents(t *testing.T) {
	sc, err := loadScene("../../examples/scenes/spring-damper.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	lr, err := startLive(ctx, sc, "spring-damper.json", testDrawFlags(40), cameraView{Zoom: 1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(lr)
	defer srv.Close()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	var frames []viewFrame
	var done string
	event := ""
	s := bufio.NewScanner(resp.Body)
	s.Buffer(nil, 1<<24)
	for s.Scan() {
		line := s.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && event == "frame":
			var f viewFrame
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &f); err != nil {
				t.Fatal(err)
			}
			frames = append(frames, f)
		case strings.HasPrefix(line, "data: ") && event == "done":
			done = strings.TrimPrefix(line, "data: ")
		}
	}
	// 2000 steps in frames of ceil(2000/40) = 50 steps: 40 frames and
	// the initial one.
	if len(frames) != 41 || done != "done: t = 2 s" {
		t.Fatalf("%d frames, done %q; want 41 frames and \"done: t = 2 s\"", len(frames), done)
	}
	for i, f := range frames {
		if want := float64(i) * 0.05; !numtest.Within(f.T, want, 1e-12) {
			t.Errorf("frame %d at t = %v, want %v", i, f.T, want)
		}
		if len(f.B) != 2 || len(f.V) != 2 {
			t.Errorf("frame %d: %d bodies, %d values", i, len(f.B), len(f.V))
		}
	}
	// The last frame is the end of the run: the static displacement
	// −5/5000 = −0.001 m of Exudyn's mini example (within 1e-5 m: the
	// damped transient left at 2 s).
	if v := frames[40].V; !numtest.Within(v[0], -0.001, 1e-5) || !numtest.Within(v[1], -5, 1e-2) {
		t.Errorf("spring.displacement[1], force[1] at the end = %v, want −0.001 m and −5 N", v)
	}
	for _, p := range []struct {
		path string
		code int
	}{{"/", 200}, {"/favicon.ico", 204}, {"/nope", 404}} {
		r, err := http.Get(srv.URL + p.path)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != p.code {
			t.Errorf("GET %s: %d, want %d", p.path, r.StatusCode, p.code)
		}
	}
}

func TestLoopbackAddr(t *testing.T) {
	for addr, ok := range map[string]bool{"127.0.0.1:0": true, "localhost:8080": true, "[::1]:9": true, "0.0.0.0:80": false, ":8080": false, "10.1.2.3:80": false, "nonsense": false} {
		if err := loopbackAddr(addr); (err == nil) != ok {
			t.Errorf("loopbackAddr(%q) = %v", addr, err)
		}
	}
}

// TestViewNothingToDraw: a scene without a drawn node is an error that
// says so, for view and render alike.
func TestViewNothingToDraw(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.json")
	sc := `{"nodes": [{"name": "c", "type": "constant", "params": {"value": [1, 2, 3]}}], "run": {"dt": 0.1, "steps": 3}}`
	if err := os.WriteFile(p, []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"view", "-q", p, "-o", filepath.Join(dir, "c.html")}, {"render", "-q", p, "-o", filepath.Join(dir, "c.gif")}} {
		code, _, errs := cosim(t, args...)
		if code != 1 || !strings.Contains(errs, "no node of the scene draws itself") {
			t.Errorf("%v: exit %d, %s", args, code, errs)
		}
	}
}
