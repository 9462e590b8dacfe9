package graph_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes/masspoint"
)

func massPointSim(t *testing.T, mass float64) *graph.Sim {
	t.Helper()
	p := masspoint.DefaultParams()
	p.Mass = mass
	m, err := masspoint.New(p)
	if err != nil {
		t.Fatal(err)
	}
	g := graph.New()
	g.Add("m", m)
	s, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A checkpoint holds a node's parameters as the JSON values its file
// holds (NodeCheckpoint.Params): the mass as the number 2.5, the gravity
// as a list of three numbers, not as their printed text.
func TestCheckpointParamsAreJSONValues(t *testing.T) {
	c := massPointSim(t, 2.5).Checkpoint()
	ps := c.Nodes[0].Params
	if v, ok := ps["mass"].(float64); !ok || v != 2.5 {
		t.Errorf("mass parameter %#v, want the number 2.5", ps["mass"])
	}
	if v, ok := ps["gravity"].([]any); !ok || len(v) != 3 || v[0] != 0.0 {
		t.Errorf("gravity parameter %#v, want a list of 3 numbers", ps["gravity"])
	}
}

// A checkpoint with parameters the node does not have lists them in the
// MismatchError in name order, whatever the maps' iteration order: the
// same checkpoint gives the same message every time (repeated 20 times,
// so that an unsorted listing, in Go's random map order, shows).
func TestMismatchListsParametersInOrder(t *testing.T) {
	s := massPointSim(t, 1)
	extra := []string{"zeta", "alpha", "mu", "beta", "omega", "kappa"}
	var want []string
	keys := append(slices.Clone(extra), "mass", "gravity", "initial_position", "initial_velocity")
	slices.Sort(keys)
	for _, k := range keys {
		if slices.Contains(extra, k) {
			want = append(want, fmt.Sprintf("node m: the checkpoint has parameter %s, which the node does not", k))
		}
	}
	for range 20 {
		c := s.Checkpoint()
		for _, k := range extra {
			c.Nodes[0].Params[k] = 1.0
		}
		var me *graph.MismatchError
		if err := s.Restore(c); !errors.As(err, &me) {
			t.Fatalf("Restore: %v, want a *MismatchError", err)
		}
		if !slices.Equal(me.Differences, want) {
			t.Fatalf("differences\n%s\nwant\n%s", strings.Join(me.Differences, "\n"), strings.Join(want, "\n"))
		}
	}
}

// checkpointBytes is a file of the checkpoint format with the given body,
// its length and checksum right.
func checkpointBytes(body string) []byte {
	sum := sha256.Sum256([]byte(body))
	return []byte(fmt.Sprintf("cosim-checkpoint %d %d sha256:%s\n%s", graph.CheckpointVersion, len(body), hex.EncodeToString(sum[:]), body))
}

// The body is decoded strictly: one JSON value and nothing after it, even
// when the length and checksum cover the extra data.
func TestCheckpointBodyWithTwoValues(t *testing.T) {
	var buf bytes.Buffer
	if err := massPointSim(t, 1).Checkpoint().Encode(&buf); err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(buf.String(), "\n")
	if _, err := graph.DecodeCheckpoint(bytes.NewReader(checkpointBytes(body))); err != nil {
		t.Fatalf("the re-headed body itself: %v", err)
	}
	_, err := graph.DecodeCheckpoint(bytes.NewReader(checkpointBytes(body + " {}")))
	if !errors.Is(err, graph.ErrCorruptCheckpoint) || !strings.Contains(err.Error(), "data after the JSON value") {
		t.Errorf("two JSON values: %v, want ErrCorruptCheckpoint naming the data after the JSON value", err)
	}
}

// A header announcing a body of 0 bytes is well formed (0 is within
// [0, MaxCheckpointBytes]); the empty body, intact by its checksum, is
// then refused because it is not a checkpoint's JSON, not for its length.
func TestCheckpointEmptyBody(t *testing.T) {
	_, err := graph.DecodeCheckpoint(bytes.NewReader(checkpointBytes("")))
	if !errors.Is(err, graph.ErrCorruptCheckpoint) || !strings.Contains(err.Error(), "checkpoint: body: ") || strings.Contains(err.Error(), "length") {
		t.Errorf("empty body: %v, want ErrCorruptCheckpoint about the body's content", err)
	}
}
