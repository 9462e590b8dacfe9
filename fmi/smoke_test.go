package fmi_test

import (
	"context"
	"testing"

	"github.com/cosimgo/cosim/fmi"
	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/internal/fmitest"
)

func TestSmoke(t *testing.T) {
	for _, v := range []int{2, 3} {
		r := fmitest.Reference(t, "BouncingBall", v)
		for _, k := range []fmi.Interface{fmi.CoSimulation, fmi.ModelExchange} {
			n, err := fmi.Load(r.Zip, fmi.Options{Interface: k})
			if err != nil {
				t.Fatal(err)
			}
			g := graph.New()
			g.Add("bb", n)
			s, err := g.Build()
			if err != nil {
				t.Fatal(err)
			}
			set := graph.Settings{Dt: 0.01, Steps: 300, Record: []string{"bb.h", "bb.v"}, Every: 50}
			if k == fmi.ModelExchange {
				set = graph.Settings{Adaptive: true, End: 3, Dt: 0.5, Record: []string{"bb.h", "bb.v"}}
			}
			res, err := s.Run(context.Background(), set)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("v%d %s: %v", v, k, res.History)
			n.(interface{ Close() error }).Close()
		}
	}
}
