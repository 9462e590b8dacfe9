package coupling_test

import (
	"strings"
	"testing"

	"github.com/cosimgo/cosim/coupling"
)

// MaxIter and rates have documented upper limits, named in the error
// (without them, max_iter 1e9 with atol 1e-300, or rates 2e8, made one
// step unbounded).
func TestIterationAndRateLimits(t *testing.T) {
	cases := []struct {
		s    coupling.Strategy
		want string
	}{
		{coupling.Strategy{Scheme: coupling.Iterative, Iteration: coupling.Iteration{MaxIter: 1e9, ATol: 1e-300}},
			"MaxIter = 1000000000 is more than the limit MaxIterLimit = 10000"},
		{coupling.Strategy{Rates: map[string]int{"b": 2e8}},
			`rate of "b" is 200000000, more than the limit MaxRate = 1000000`},
	}
	for _, c := range cases {
		err := c.s.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: Validate() = %v, want an error containing %q", c.s, err, c.want)
		}
	}
	for _, ok := range []coupling.Strategy{
		{Scheme: coupling.Iterative, Iteration: coupling.Iteration{MaxIter: coupling.MaxIterLimit}},
		{Rates: map[string]int{"b": coupling.MaxRate}},
	} {
		if err := ok.Validate(); err != nil {
			t.Errorf("%v at the limit: %v", ok, err)
		}
	}
	// The text form goes through the same check.
	s, err := coupling.ParseStrategy("iterative,maxiter=1000000000")
	if err == nil {
		err = s.Validate()
	}
	if err == nil || !strings.Contains(err.Error(), "MaxIterLimit") {
		t.Errorf("ParseStrategy maxiter=1e9: %v, want the limit named", err)
	}
}
