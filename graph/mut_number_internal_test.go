package graph

import (
	"encoding/json"
	"math"
	"testing"
)

// A checkpoint number holds ±Inf (JSON has no infinities): both are
// written as the strings "+Inf" and "-Inf" and read back, as the type's
// documentation states (an adaptive controller's bounds may be
// infinite, and a MinStep of −Inf is a valid "no lower bound").
func TestCheckpointNumberInfinities(t *testing.T) {
	for _, c := range []struct {
		v    float64
		text string
	}{{math.Inf(1), `"+Inf"`}, {math.Inf(-1), `"-Inf"`}, {-2.5, `-2.5`}} {
		b, err := json.Marshal(number(c.v))
		if err != nil || string(b) != c.text {
			t.Errorf("Marshal(%v) = %s, %v; want %s", c.v, b, err, c.text)
			continue
		}
		var back number
		if err := json.Unmarshal(b, &back); err != nil || float64(back) != c.v {
			t.Errorf("Unmarshal(%s) = %v, %v; want %v", b, back, err, c.v)
		}
	}
}
