package main

import (
	"math"
	"slices"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/numtest"
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

// tickRanges are axis ranges the tick tests try: short and long time
// axes, ranges across zero, tiny and huge magnitudes.
var tickRanges = [][2]float64{
	{0, 10}, {0, 9.996}, {0, 2}, {0, 6}, {0, 0.005}, {-0.37, 1.93}, {-4.2, 4.1}, {0.95, 1.1},
	{-1.2e-6, 3e-7}, {1e5, 3.5e5}, {-0.001, 0.0003}, {123.4, 125.9}, {-62.6, 4.001},
}

// TestNiceTicks: every axis gets 4 to 9 labelled ticks, equally spaced by
// 1, 2, 2.5 or 5 times a power of ten, inside its range, with zero among
// them when the range crosses zero, and labels that tell them apart.
func TestNiceTicks(t *testing.T) {
	for _, r := range tickRanges {
		vals, labels, minor := niceTicks(r[0], r[1])
		if len(vals) < 4 || len(vals) > 9 {
			t.Errorf("%v: %d ticks %v", r, len(vals), labels)
			continue
		}
		step := vals[1] - vals[0]
		m := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9))
		if !(near(m, 1) || near(m, 2) || near(m, 2.5) || near(m, 5)) {
			t.Errorf("%v: step %v is not 1, 2, 2.5 or 5 × 10^k", r, step)
		}
		seen := map[string]bool{}
		for i, v := range vals {
			if v < r[0]-1e-9*step || v > r[1]+1e-9*step {
				t.Errorf("%v: tick %v outside", r, v)
			}
			if i > 0 && !numtest.Within(v-vals[i-1], step, 1e-9*step) {
				t.Errorf("%v: ticks %v not equally spaced", r, vals)
			}
			if seen[labels[i]] {
				t.Errorf("%v: two ticks read %q", r, labels[i])
			}
			seen[labels[i]] = true
		}
		if r[0] < 0 && r[1] > 0 && !seen["0"] && !slices.Contains(vals, 0) {
			t.Errorf("%v: no tick at zero: %v", r, labels)
		}
		if !(minor > 0 && minor < step) {
			t.Errorf("%v: minor step %v", r, minor)
		}
	}
}

// TestPanelTicks: a panel's axes use the nice ticks, with unlabelled
// minor ticks between the labelled ones.
func TestPanelTicks(t *testing.T) {
	h := &graph.History{Columns: []string{"a", "b"}, Times: []float64{0, 1, 2}, Rows: [][]float64{{-1, 5}, {0.5, 6}, {2, 7}}}
	plots, _, err := buildPanels(h, []panel{{cols: []string{"a"}}, {cols: []string{"b"}}}, "t")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plots {
		if _, ok := p.Y.Tick.Marker.(niceTicker); !ok {
			t.Errorf("y ticks are %T", p.Y.Tick.Marker)
		}
		if _, ok := p.X.Tick.Marker.(niceTicker); !ok {
			t.Errorf("x ticks are %T", p.X.Tick.Marker)
		}
	}
	labelled, minor := 0, 0
	for _, tk := range (niceTicker{}).Ticks(0, 2) {
		if tk.Label != "" {
			labelled++
		} else {
			minor++
		}
	}
	if labelled < 4 || minor == 0 {
		t.Errorf("the time axis 0–2 s has %d labelled and %d minor ticks", labelled, minor)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
