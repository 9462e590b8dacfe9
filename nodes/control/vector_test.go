package control_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/nodes/source"
)

// A block of size 3 computes each component as the same block of size 1
// with that component's parameters: the vector layout (state rings,
// limits and gains at offsets k·n + i) mixes no components. Both run in
// one graph from sines of distinct amplitude, frequency and offset per
// component, with limits the signals reach; the outputs must agree bit
// for bit after every step (the same arithmetic on the same numbers;
// the graph's batch kernels are bit-identical to Outputs by contract).
// Without it, every test ran these blocks at size 1 only, where n, 2n
// and n² coincide and a wrong index stays hidden.
func TestVectorBlocksAreComponentwise(t *testing.T) {
	reg := registry(t)
	amp, omega, offset := []float64{1, 2.5, 0.7}, []float64{3, 5, 11}, []float64{0.2, -0.4, 0.1}
	per := func(v []float64, i int) []float64 { return []float64{v[i]} }
	for _, c := range []struct {
		typ    string
		input  string
		params func(i int) map[string]any // i < 0: the vector block
	}{
		{"integrator", "in", func(i int) map[string]any {
			p := map[string]any{"gain": []float64{2, -1, 3}, "initial": []float64{0.1, -0.2, 0.2},
				"limit_output": true, "lower": []float64{-0.3, -0.5, -0.2}, "upper": []float64{0.4, 0.6, 0.25}}
			return split(p, i)
		}},
		{"lag", "in", func(i int) map[string]any {
			return split(map[string]any{"gain": []float64{1, 2, 0.5}, "time_constant": []float64{0.05, 0.2, 0.01}, "initial": []float64{1, -1, 0.5}}, i)
		}},
		{"derivative", "in", func(i int) map[string]any {
			return split(map[string]any{"gain": []float64{1, 2, 0.5}, "time_constant": []float64{0.05, 0.2, 0.01}, "initial_input": []float64{0.3, -0.1, 0.2}}, i)
		}},
		{"ratelimiter", "in", func(i int) map[string]any {
			return split(map[string]any{"rising": []float64{1, 4, 0.5}, "falling": []float64{2, 1, 3}, "time_constant": []float64{0.01, 0.02, 0.005}}, i)
		}},
		{"zoh", "in", func(i int) map[string]any {
			p := split(map[string]any{"initial": []float64{1, 2, 3}}, i)
			p["sample_time"], p["offset"] = 0.05, 0.02
			return p
		}},
		{"unitdelay", "in", func(i int) map[string]any {
			p := split(map[string]any{"initial": []float64{1, 2, 3}}, i)
			p["sample_time"] = 0.04
			return p
		}},
		{"transportdelay", "in", func(i int) map[string]any {
			p := split(map[string]any{"initial": []float64{1, 2, 3}}, i)
			p["delay"], p["samples"] = 0.05, 4
			return p
		}},
		{"pid", "measurement", func(i int) map[string]any {
			return split(map[string]any{"kp": []float64{1, 2, 0.5}, "ki": []float64{0.5, 1, 2}, "kd": []float64{0.1, 0.02, 0.05},
				"tf": []float64{0.02, 0.05, 0.01}, "limit_output": true, "lower": []float64{-0.5, -2, -1}, "upper": []float64{0.5, 1, 2}}, i)
		}},
	} {
		t.Run(c.typ, func(t *testing.T) {
			g := graph.New()
			add := func(name string, i int) {
				a, w, o := amp, omega, offset
				if i >= 0 {
					a, w, o = per(amp, i), per(omega, i), per(offset, i)
				}
				src, err := source.NewSine(source.SineParams{Amplitude: a, Omega: w, Offset: o})
				if err != nil {
					t.Fatal(err)
				}
				p := c.params(i)
				if i < 0 {
					p["size"] = 3
				}
				blk, err := reg.New(c.typ, p)
				if err != nil {
					t.Fatalf("%s %v: %v", c.typ, p, err)
				}
				g.Add("u"+name, src)
				g.Add(name, blk)
				g.Connect("u"+name+".value", name+"."+c.input)
			}
			add("vec", -1)
			for i := range 3 {
				add(fmt.Sprint("c", i), i)
			}
			s, err := g.Build()
			if err != nil {
				t.Fatal(err)
			}
			for step := range 60 {
				if _, err := s.Run(context.Background(), graph.Settings{Dt: 0.01, Steps: 1}); err != nil {
					t.Fatal(err)
				}
				v, err := s.Value("vec.out")
				if err != nil {
					t.Fatal(err)
				}
				for i := range 3 {
					w, err := s.Value(fmt.Sprint("c", i, ".out"))
					if err != nil {
						t.Fatal(err)
					}
					if v[i] != w[0] {
						t.Fatalf("after step %d component %d: size 3 gives %v, size 1 gives %v", step+1, i, v[i], w[0])
					}
				}
			}
		})
	}
}

// split returns p for the vector block (i < 0), or p with every slice
// value replaced by its component i.
func split(p map[string]any, i int) map[string]any {
	out := map[string]any{}
	for k, v := range p {
		if s, ok := v.([]float64); ok && i >= 0 {
			v = []float64{s[i]}
		}
		out[k] = v
	}
	return out
}
