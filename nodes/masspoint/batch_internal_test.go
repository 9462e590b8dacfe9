package masspoint

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/cosimgo/cosim/node"
)

// The batch reads one row of parameters when its members' laws of motion
// are equal, whatever their initial conditions (a chain of equal masses
// at different places), and one row per member once a SetParams makes
// one law differ. What the kernels compute is held to the members'
// methods by TestBatchKernelEqualLawThenTuned; this pins the layout, on
// which a long chain's memory traffic depends (80 bytes of parameters
// per mass and evaluation when every row is read).
func TestBatchUniformLaw(t *testing.T) {
	members := make([]node.Node, 4)
	for i := range members {
		m, err := New(Params{Mass: 2, Gravity: [3]float64{0, 0, -1}, InitialPosition: [3]float64{float64(i), 0, 0}, InitialVelocity: [3]float64{0, float64(-i), 0}})
		if err != nil {
			t.Fatal(err)
		}
		members[i] = m
	}
	b := members[0].(*Node).NewBatch(members).(*batch)
	if _, stride := b.laws.Walk(0, 4); !b.laws.Uniform() || stride != 0 {
		t.Fatalf("equal laws, different initial conditions: uniform %v, row stride %d; want true, 0", b.laws.Uniform(), stride)
	}
	// An initial condition changed alone leaves the law shared.
	if err := members[1].(*Node).SetParams(map[string]any{"initial_position": []float64{9, 9, 9}}); err != nil {
		t.Fatal(err)
	}
	if !b.laws.Uniform() {
		t.Fatal("a SetParams of initial_position alone made the batch non-uniform")
	}
	if err := members[3].(*Node).SetParams(map[string]any{"mass": 5.0}); err != nil {
		t.Fatal(err)
	}
	if _, stride := b.laws.Walk(0, 4); b.laws.Uniform() || stride == 0 || b.laws.At(3).mass != 5 || b.laws.At(0).mass != 2 {
		t.Fatalf("after member 3's mass changed: uniform %v, row stride %d, masses %v, %v; want false, > 0, 2, 5",
			b.laws.Uniform(), stride, b.laws.At(0).mass, b.laws.At(3).mass)
	}
}

// The kernels test what they write by summing it (summed) and, when the
// total is not finite, row by row (zeroed): finite new states whose sum
// overflows pass, and a NaN or ±Inf anywhere fails, in Update (both force
// forms) and Derivatives. The states are built so that each written value
// is known: with zero force and gravity, Update writes v and x + dt·v,
// Derivatives v and 0.
func TestBatchDstCheckOverflow(t *testing.T) {
	const rows, big = 3, 1e308 // three rows of 1e308: every sum of two overflows
	members := make([]node.Node, rows)
	for i := range members {
		m, err := New(Params{Mass: 1})
		if err != nil {
			t.Fatal(err)
		}
		members[i] = m
	}
	b := members[0].(*Node).NewBatch(members).(*batch)
	run := func(x []float64, pair, derivs bool) error {
		a := &node.BatchArgs{Dt: 0.5, Lo: 0, Hi: rows}
		a.X = node.Strided{Buf: x, Stride: stateSize}
		a.In = []node.Strided{{Buf: make([]float64, 3*rows), Stride: 3}}
		if pair {
			a.In2 = []node.Strided{{Buf: make([]float64, 3*rows), Stride: 3}}
		}
		a.Dst = node.Strided{Buf: make([]float64, stateSize*rows), Stride: stateSize}
		if derivs {
			return b.Derivatives(a)
		}
		return b.Update(a)
	}
	for _, c := range []struct {
		name         string
		pair, derivs bool
	}{{"update", false, false}, {"update pair", true, false}, {"derivatives", false, true}} {
		x := make([]float64, stateSize*rows)
		for i := range x {
			x[i] = big // positions 1e308 and velocities 1e308: x + dt·v = 1.5e308, finite
		}
		if err := run(x, c.pair, c.derivs); err != nil {
			t.Errorf("%s: finite new values whose sum overflows: %v; want no error", c.name, err)
		}
		x[stateSize+4] = math.NaN() // row 1's velocity y
		if err := run(x, c.pair, c.derivs); !errors.Is(err, node.ErrNonFinite) {
			t.Errorf("%s: a NaN velocity: error %v; want node.ErrNonFinite", c.name, err)
		}
		x[stateSize+4] = 1
		x[2*stateSize] = math.Inf(-1) // row 2's position x: Update writes −Inf, Derivatives does not read it
		err := run(x, c.pair, c.derivs)
		if c.derivs && err != nil {
			t.Errorf("%s: an infinite position, which dx/dt does not read: %v; want no error", c.name, err)
		}
		if !c.derivs && !errors.Is(err, node.ErrNonFinite) {
			t.Errorf("%s: an infinite position: error %v; want node.ErrNonFinite", c.name, err)
		}
	}
}

// A kernel called on rows [Lo, Hi) of a family with Lo > 0 tests the
// rows it wrote — Hi − Lo of them from row Lo — and no others: rows of
// the destination outside the call (another chunk's, not yet written)
// hold NaN here, and the call still passes when its own finite values
// overflow their sum, and fails when one of its own values is NaN. As in
// TestBatchDstCheckOverflow, zero force and gravity make each written
// value known: Update writes v and x + dt·v = 1.5e308, Derivatives v and
// 0; three values of 1e308 overflow a sum. The rows outside the call keep
// their NaN bits (a kernel writes only the rows of its call,
// node.Strided).
func TestBatchDstCheckRowRange(t *testing.T) {
	const rows, lo, hi, big = 5, 1, 3, 1e308
	members := make([]node.Node, rows)
	for i := range members {
		m, err := New(Params{Mass: 1})
		if err != nil {
			t.Fatal(err)
		}
		members[i] = m
	}
	b := members[0].(*Node).NewBatch(members).(*batch)
	nan := math.NaN()
	run := func(x []float64, pair, derivs bool) ([]float64, error) {
		a := &node.BatchArgs{Dt: 0.5, Lo: lo, Hi: hi}
		a.X = node.Strided{Buf: x, Stride: stateSize}
		a.In = []node.Strided{{Buf: make([]float64, 3*rows), Stride: 3}}
		if pair {
			a.In2 = []node.Strided{{Buf: make([]float64, 3*rows), Stride: 3}}
		}
		dst := make([]float64, stateSize*rows)
		for i := range dst {
			dst[i] = nan
		}
		a.Dst = node.Strided{Buf: dst, Stride: stateSize}
		if derivs {
			return dst, b.Derivatives(a)
		}
		return dst, b.Update(a)
	}
	for _, c := range []struct {
		name         string
		pair, derivs bool
	}{{"update", false, false}, {"update pair", true, false}, {"derivatives", false, true}, {"derivatives pair", true, true}} {
		x := make([]float64, stateSize*rows)
		for i := range x {
			x[i] = big
		}
		dst, err := run(x, c.pair, c.derivs)
		if err != nil {
			t.Errorf("%s, rows [%d, %d): finite new values whose sum overflows, NaN in the rows outside the call: %v; want no error", c.name, lo, hi, err)
		}
		for i, v := range dst {
			if r := i / stateSize; (r < lo || r >= hi) && !math.IsNaN(v) {
				t.Errorf("%s: row %d, outside the call, was written: %v", c.name, r, v)
			}
		}
		x[(hi-1)*stateSize+3] = nan // the last row's velocity x
		if _, err := run(x, c.pair, c.derivs); !errors.Is(err, node.ErrNonFinite) {
			t.Errorf("%s, rows [%d, %d): a NaN velocity in row %d: error %v; want node.ErrNonFinite", c.name, lo, hi, hi-1, err)
		}
	}
}

// Plan compiles the calls of a mass whose force arrives as two terms
// (PairInputs: the chain's masses) and nothing else, as its comment
// says; the compiled kernel gives the method's bits and errors. The
// pair call sites get a kernel, and running it on other buffers than
// Plan saw (as a graph does: node.BatchPlanner) writes exactly what
// Update and Derivatives write, rows [1, 4) of 5 with distinct laws,
// states and forces; a non-finite step fails. An Outputs phase (the
// batch has no Outputs method) and a call without a second term get nil,
// the method's path. An empty row range gets nil, or a kernel that does
// nothing: a node.BatchArgs may be empty (TestBatchKernelEmptyRange).
func TestBatchPlan(t *testing.T) {
	const rows, lo, hi = 5, 1, 4
	members := make([]node.Node, rows)
	for i := range members {
		m, err := New(Params{Mass: 0.5 + float64(i), Gravity: [3]float64{0.1 * float64(i), 0, -9.81}})
		if err != nil {
			t.Fatal(err)
		}
		members[i] = m
	}
	b := members[0].(*Node).NewBatch(members).(*batch)
	fill := func(n int, seed float64) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = seed + 0.37*float64(i) - 0.011*float64(i*i)
		}
		return s
	}
	// The state rows at stride 8 after 2 values of padding, the force's
	// terms at strides 3 and 4: each view's Extent differs.
	args := func(lo, hi int, pair bool) *node.BatchArgs {
		a := &node.BatchArgs{Dt: 0.125, Lo: lo, Hi: hi,
			X:   node.Strided{Buf: fill(2+8*rows, 1), Off: 2, Stride: 8},
			In:  []node.Strided{{Buf: fill(3*rows, -2), Stride: 3}},
			Dst: node.Strided{Buf: make([]float64, 1+7*rows), Off: 1, Stride: 7}}
		if pair {
			a.In2 = []node.Strided{{Buf: fill(4*rows+1, 3), Off: 1, Stride: 4}}
		}
		return a
	}
	for _, ph := range []node.BatchPhase{node.PhaseUpdate, node.PhaseDerivatives} {
		method := b.Update
		if ph == node.PhaseDerivatives {
			method = b.Derivatives
		}
		// Plan on a layout whose buffers are then replaced, with Dst's nil.
		pa := args(lo, hi, true)
		pa.Dst.Buf = nil
		k := b.Plan(ph, pa)
		if k == nil {
			t.Fatalf("phase %d: Plan of a call with a paired force = nil; want a compiled kernel", ph)
		}
		want, got := args(lo, hi, true), args(lo, hi, true)
		for i := range got.X.Buf {
			got.X.Buf[i] *= 1.5
			want.X.Buf[i] *= 1.5
		}
		errW, errG := method(want), k(got)
		if errW != nil || errG != nil {
			t.Fatalf("phase %d: method error %v, kernel error %v; want none", ph, errW, errG)
		}
		for i := range want.Dst.Buf {
			if math.Float64bits(want.Dst.Buf[i]) != math.Float64bits(got.Dst.Buf[i]) {
				t.Errorf("phase %d: Dst[%d]: kernel %v, method %v; want the same bits", ph, i, got.Dst.Buf[i], want.Dst.Buf[i])
			}
		}
		if ph == node.PhaseUpdate {
			bad := args(lo, hi, true)
			bad.Dt = math.Inf(1)
			if err := k(bad); !errors.Is(err, node.ErrNonFinite) {
				t.Errorf("compiled Update with dt = +Inf: %v; want node.ErrNonFinite", err)
			}
		}
		if k := b.Plan(ph, args(lo, hi, false)); k != nil {
			t.Errorf("phase %d: Plan of a call with one force term gave a kernel; want nil (the method)", ph)
		}
		noSecond := args(lo, hi, true)
		noSecond.In2[0] = node.Strided{}
		if k := b.Plan(ph, noSecond); k != nil {
			t.Errorf("phase %d: Plan of a call whose force has no second term gave a kernel; want nil (the method)", ph)
		}
		for e := range rows + 1 {
			a := args(e, e, true)
			k := b.Plan(ph, a)
			if k == nil {
				continue
			}
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("panic: %v", r)
					}
				}()
				err = k(a)
			}()
			if err != nil {
				t.Errorf("phase %d: the kernel Plan compiled for the empty rows [%d, %d): %v; want nil or a kernel that returns nil", ph, e, e, err)
			}
			for i, v := range a.Dst.Buf {
				if v != 0 {
					t.Errorf("phase %d: the kernel for the empty rows [%d, %d) wrote Dst[%d] = %v", ph, e, e, i, v)
					break
				}
			}
		}
	}
	if k := b.Plan(node.PhaseOutputs, args(lo, hi, true)); k != nil {
		t.Error("Plan(PhaseOutputs) gave a kernel; the batch has no Outputs method: want nil")
	}
}
