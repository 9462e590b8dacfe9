package main

import (
	"testing"

	"gonum.org/v1/plot"

	"github.com/cosimgo/cosim/graph"
)

// TestAxisLabel: axes name the plotted fields and their units.
func TestAxisLabel(t *testing.T) {
	for _, c := range []struct {
		cols  []string
		units string
		want  string
	}{
		{[]string{"mass.position[0]", "mass.position[1]"}, "m", "mass.position (m)"},
		{[]string{"m1.position[0]", "m2.position[0]", "m3.position[0]"}, "m", "position of m1, m2, m3 (m)"},
		{[]string{"a.x", "b.y"}, "", "a.x, b.y"},
		{[]string{"spring.force[1]"}, "N", "spring.force (N)"},
		{[]string{"aaaaaaaaaaaaaaaa.xxxxxxxxxxxx", "bbbbbbbbbbbbbbbbbb.yyyyyyyyyy", "c.z"}, "1", "aaaaaaaaaaaaaaaa.xxxxxxxxxxxx, bbbbbbbbbbbbbbbbbb.yyyyyyyyyy, … (1)"},
		{nil, "s", "value (s)"},
	} {
		if got := axisLabel(c.cols, c.units); got != c.want {
			t.Errorf("axisLabel(%v, %q) = %q, want %q", c.cols, c.units, got, c.want)
		}
	}
}

// TestZeroOnAxis: a panel whose values cross zero gets a labelled tick at
// zero; one that does not keeps the default ticks.
func TestZeroOnAxis(t *testing.T) {
	ts := zeroTicks{}.Ticks(-0.37, 1.93)
	found := false
	for _, tk := range ts {
		if tk.Value == 0 && tk.Label != "" {
			found = true
		}
	}
	if !found {
		t.Errorf("ticks %v lack a labelled zero", ts)
	}
	h := &graph.History{Columns: []string{"a", "b"}, Times: []float64{0, 1, 2}, Rows: [][]float64{{-1, 5}, {0.5, 6}, {2, 7}}}
	plots, _, err := buildPanels(h, []panel{{cols: []string{"a"}}, {cols: []string{"b"}}}, "t")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := plots[0].Y.Tick.Marker.(zeroTicks); !ok {
		t.Error("the panel crossing zero has no zero tick")
	}
	if _, ok := plots[1].Y.Tick.Marker.(plot.DefaultTicks); !ok {
		t.Errorf("the positive panel's ticks are %T", plots[1].Y.Tick.Marker)
	}
}
