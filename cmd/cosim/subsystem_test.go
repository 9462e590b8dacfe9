package main

import (
	"strings"
	"testing"
)

const vehicle = "../../examples/scenes/four-corner-vehicle.json"

// cosim graph draws each subsystem as a cluster holding its nodes, named
// by their paths, with edges between paths.
func TestGraphDrawsSubsystemsAsClusters(t *testing.T) {
	code, out, errs := cosim(t, "graph", vehicle)
	if code != 0 {
		t.Fatalf("cosim graph: %s", errs)
	}
	for _, want := range []string{
		"subgraph \"cluster_front_left\" {\n\t\tlabel=\"front_left (subsystem)\"",
		"\t\t\"front_left.wheel\" [label=\"front_left.wheel\\nmasspoint\"",
		`"ground" -> "rear_right.tire" [style=dashed`,
		`"bump_front_left" -> "front_left.wheel" [label="value → force (+)"]`,
		`"front_left.wheel" -> "front_left.suspension" [label="position → m0_position`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("DOT lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = cosim(t, "graph", "--format", "svg", vehicle)
	if code != 0 || !strings.Contains(out, "front_left.suspension") {
		t.Errorf("cosim graph --format svg: %d %s", code, errs)
	}
	// Each corner is framed in each of its three columns (wheel; tire
	// and suspension; body), labelled with its path.
	if n := strings.Count(out, `fill="#555">front_left</text>`); n != 3 {
		t.Errorf("SVG frames front_left %d times, want 3 (one per column)", n)
	}
}

// cosim describe on a part prints its ports, with the inner fields they
// stand for, and the metadata derived from its nodes.
func TestDescribeScenePorts(t *testing.T) {
	code, out, errs := cosim(t, "describe", "../../examples/scenes/parts/quarter-car.json")
	if code != 0 {
		t.Fatalf("cosim describe: %s", errs)
	}
	for _, want := range []string{
		"a scene of 4 nodes, used as a node of type \"subsystem\"",
		"declared order: spatial none, temporal 1 (the lowest of its nodes', from wheel)",
		"known anomalies: COSIM-ANO-002 (tire), COSIM-ANO-003 (tire), COSIM-ANO-002 (suspension), COSIM-ANO-003 (suspension)",
		"Input ports",
		"  load  (3,)   N      body.force",
		"  travel  (3,)   m      suspension.displacement",
		"  stiffness  vector  [0, 20000, 0]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("describe lacks %q:\n%s", want, out)
		}
	}
	if code, _, errs := cosim(t, "describe", "--json", "../../examples/scenes/parts/quarter-car.json"); code != 2 || !strings.Contains(errs, "a scene's ports are printed as text") {
		t.Errorf("describe --json of a scene: exit %d, %s", code, errs)
	}
}

// --set reaches inside subsystems by path, and a bad value names the flag.
func TestSetInsideSubsystem(t *testing.T) {
	code, out, errs := cosim(t, "run", vehicle, "--set", "front_right.suspension.damping=[0,300,0]", "--set", "run.end=0.01")
	if code != 0 {
		t.Fatalf("cosim run: %s", errs)
	}
	if !strings.Contains(out, "20 steps to t = 0.01") {
		t.Errorf("summary: %s", out)
	}
	code, _, errs = cosim(t, "run", vehicle, "--set", "rear_left.stiffness=[1,1]")
	if code == 0 || !strings.Contains(errs, `--set rear_left.stiffness: springdamper: parameter "stiffness" = [1, 1] has 2 values, want 3`) {
		t.Errorf("bad value inside a subsystem: exit %d, %s", code, errs)
	}
}

// Sweeps vary a promoted parameter and sensitivities differentiate with
// respect to an inner parameter by its path. The reference for the
// sweep is the scene itself: the 400 kg row must equal a plain run of
// the unmodified scene, whose front left body mass is 400 kg.
func TestSweepAndSensitivityInsideSubsystem(t *testing.T) {
	code, out, errs := cosim(t, "sweep", vehicle, "--vary", "front_left.body_mass=300:500:3", "-y", "front_left.body.position[1]", "--set", "run.end=1.5")
	if code != 0 {
		t.Fatalf("cosim sweep: %s", errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[2], "1,3,400,1.5,") {
		t.Fatalf("sweep output:\n%s", out)
	}
	mid := strings.Split(lines[2], ",")[4]
	code, plain, errs := cosim(t, "run", vehicle, "--set", "run.end=1.5", "--set", `record.fields=["front_left.body.position[1]"]`, "-o", "-", "-q")
	if code != 0 {
		t.Fatalf("cosim run: %s", errs)
	}
	rows := strings.Split(strings.TrimSpace(plain), "\n")
	if last := rows[len(rows)-1]; !strings.HasSuffix(last, ","+mid) {
		t.Errorf("sweep at 400 kg ends at %s; the plain run's last row is %s", mid, last)
	}
	code, out, errs = cosim(t, "sensitivity", vehicle, "--monolithic", "--wrt", "front_left.suspension.stiffness[1]", "-y", "front_left.body.position", "--set", "run.end=1.2")
	if code != 0 || !strings.Contains(out, "∂/∂front_left.suspension.stiffness[1]") || !strings.Contains(out, "front_left.body.position[1]") {
		t.Errorf("sensitivity by path: exit %d\n%s%s", code, out, errs)
	}
}
