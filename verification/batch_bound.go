package verification

import (
	"fmt"
	"math"

	"github.com/cosimgo/cosim/node"
)

// boundTrial checks node.BatchStepBounder.StableDt on one draw: against
// the smallest of the members' own StableDtAt (NaN left out, +Inf when
// none is left), bit for bit, in one call and in blocks of 1, 3 and 7
// rows, and that it writes neither X nor the inputs.
func (c *batchCheck) boundTrial(trial int, when string) {
	d := c.newDraw(mOutputs, trial)
	want := math.Inf(1)
	for i, mem := range c.members {
		x := append([]float64{}, d.xs[d.x0+i*d.xStr:d.x0+i*d.xStr+c.nx]...)
		in := c.rowInputs(d, i)
		var v float64
		if err := protect(func() error { v = mem.(node.StepBounder).StableDtAt(d.t, x, in); return nil }); err != nil {
			c.violation("trial %d%s: member %d's own StableDtAt panicked: %v", trial, when, i, err)
			return
		}
		if !math.IsNaN(v) {
			want = min(want, v)
		}
	}
	n := len(c.members)
	for _, blk := range []int{n, 1, 3, 7} {
		how := fmt.Sprintf("blocks of %d", blk)
		if blk == n {
			how = "one call"
		}
		got := math.Inf(1)
		for lo := 0; lo < n; lo += blk {
			hi := min(lo+blk, n)
			a := c.args(d, lo, hi)
			var v float64
			if err := protect(func() error { v = c.bound.StableDt(a); return nil }); err != nil {
				c.violation("trial %d%s, %s: StableDt of rows [%d, %d) panicked: %v", trial, when, how, lo, hi, err)
				return
			}
			got = min(got, v) // a NaN from the kernel stays NaN, and differs
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			c.violation("trial %d%s, %s: StableDt = %v, want %v (the smallest of the members' StableDtAt)", trial, when, how, got, want)
		}
	}
	if !bitsEqual(d.xs, d.xBuf) {
		c.violation("trial %d%s: StableDt wrote X", trial, when)
	}
	for k := range d.inBufs {
		if !bitsEqual(d.inBufs[k], d.inOrig[k]) {
			c.violation("trial %d%s: StableDt wrote input %d", trial, when, k)
		}
	}
}
