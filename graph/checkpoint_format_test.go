package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/integrators"
)

var schemaKey = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// walkKeys calls f with the path of every object key in v, except inside
// node parameters (whose keys are the nodes' parameter names).
func walkKeys(v any, path string, f func(key, path string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			f(k, path)
			if k != "params" {
				walkKeys(x, path+"."+k, f)
			}
		}
	case []any:
		for _, x := range v {
			walkKeys(x, path+"[]", f)
		}
	}
}

// The body's keys are the format's own lower-case names, not Go field
// names: a checkpoint of every kind of memory (a Newmark-family stepper
// with settings, the adaptive driver, an IQN-ILS group) uses only keys
// of the documented schema.
func TestCheckpointKeysAreTheSchemas(t *testing.T) {
	ctx := context.Background()
	var sims []*graph.Sim
	s, _ := chain(3).Build()
	if _, err := s.RunMonolithic(ctx, integrators.GeneralizedAlpha{RhoInf: 0.8, Newton: integrators.NewtonOptions{Tol: 1e-12}}, nil, graph.Settings{Dt: 1e-3, Steps: 3}); err != nil {
		t.Fatal(err)
	}
	sims = append(sims, s)
	s, _ = chain(3).Build()
	if _, err := s.Integrate(ctx, 0.01, integrators.DormandPrince{RTol: 1e-8}, nil); err != nil {
		t.Fatal(err)
	}
	sims = append(sims, s)
	s = strong.sim(t)
	if _, err := s.Run(ctx, graph.Settings{Mode: graph.CoSimulation{Coupling: checkpointStrategies()["iqn-ils reuse"]}, Dt: 0.01, Steps: 3}); err != nil {
		t.Fatal(err)
	}
	sims = append(sims, s)
	for i, s := range sims {
		body := checkpointBody(s)
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatal(err)
		}
		n := 0
		walkKeys(v, "", func(k, path string) {
			n++
			if !schemaKey.MatchString(k) {
				t.Errorf("checkpoint %d: key %q at %s is not a schema key (lower case, underscores): a Go field name leaked into the file", i, k, path)
			}
		})
		if n < 10 {
			t.Errorf("checkpoint %d: only %d keys", i, n)
		}
	}
}

// A well-formed header naming a version this cosim does not read is a
// clear version error, not a corrupt file; version 1 files are read.
func TestCheckpointVersionError(t *testing.T) {
	s, _ := chain(2).Build()
	body := checkpointBody(s)
	for _, v := range []int{0, graph.CheckpointVersion + 1, 99} {
		_, err := graph.DecodeCheckpoint(bytes.NewReader(signedAs(v, body)))
		if !errors.Is(err, graph.ErrCheckpointVersion) || errors.Is(err, graph.ErrCorruptCheckpoint) ||
			!strings.Contains(err.Error(), fmt.Sprintf("format version %d; this cosim reads versions %d to %d", v, graph.MinCheckpointVersion, graph.CheckpointVersion)) {
			t.Errorf("version %d: err = %v", v, err)
		}
	}
	// A version-2 body under a version-1 header is not a version-1 file.
	if _, err := graph.DecodeCheckpoint(bytes.NewReader(signedAs(1, body))); !errors.Is(err, graph.ErrCorruptCheckpoint) {
		t.Errorf("v2 body, v1 header: err = %v", err)
	}
}

func signedAs(version int, body []byte) []byte {
	b := signed(body)
	_, rest, _ := strings.Cut(string(b), " ")
	_, rest, _ = strings.Cut(rest, " ")
	return []byte(fmt.Sprintf("cosim-checkpoint %d %s", version, rest))
}

// An infinite step in the controller's memory is saved ("h": "+Inf") and
// read back; the version-1 format could not encode it. The controller
// itself no longer proposes one (the growth factor after an error
// estimate of zero is capped at 10 since 1/dpFacMax stopped being an
// integer division), so the test sets it in the checkpoint; the coasting
// rocket's run, whose error estimate is zero, is saved and resumed bit
// for bit either way.
func TestCheckpointInfiniteStep(t *testing.T) {
	ctx := context.Background()
	build := func() *graph.Sim {
		r := newRocket(1, -1, 0, true)
		r.level = 0.5
		g := graph.New()
		g.Add("rocket", r)
		s, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ref := build()
	for _, end := range []float64{0.7, 1.2} {
		if _, err := ref.Integrate(ctx, end, integrators.DormandPrince{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	s := build()
	if _, err := s.Integrate(ctx, 0.7, integrators.DormandPrince{}, nil); err != nil {
		t.Fatal(err)
	}
	var inf bytes.Buffer
	ci := s.Checkpoint()
	ci.Integrator.State.H = math.Inf(1)
	if err := ci.Encode(&inf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(inf.String(), `"h":"+Inf"`) {
		t.Fatalf("the checkpoint does not hold the infinite step:\n%s", inf.String())
	}
	if back, err := graph.DecodeCheckpoint(&inf); err != nil || !math.IsInf(back.Integrator.State.H, 1) {
		t.Fatalf("decoded h: %v (%v), want +Inf", back, err)
	}
	var buf bytes.Buffer
	if err := s.Checkpoint().Encode(&buf); err != nil {
		t.Fatal(err)
	}
	c, err := graph.DecodeCheckpoint(&buf)
	if err != nil {
		t.Fatal(err)
	}
	fresh := build()
	if err := fresh.Restore(c); err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.Integrate(ctx, 1.2, integrators.DormandPrince{}, nil); err != nil {
		t.Fatal(err)
	}
	sameBits(t, "resumed", ref.State(nil), fresh.State(nil))
}
