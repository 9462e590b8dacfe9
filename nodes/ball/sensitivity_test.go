package ball

import (
	"math"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// The parameter columns of the Jacobians are the Spec's parameter order.
func TestParamColumns(t *testing.T) {
	n, _ := New(DefaultParams())
	ps := n.Spec().Params
	for col, name := range map[int]string{colInitialPosition: paramInitialPosition, colInitialVelocity: paramInitialVelocity, colElasticity: paramElasticity, colGravity: paramGravity, colMass: paramMass} {
		if ps[col].Name != name {
			t.Errorf("column %d is %s, want %s", col, ps[col].Name, name)
		}
	}
}

// fdParam differences eval over SetParams of parameter name (central,
// step 1e-6; every map here is linear in its parameters, so the
// differences are exact up to rounding, ~1e-9).
func fdParam(t *testing.T, n *Node, name string, eval func() []float64) []float64 {
	t.Helper()
	v := n.Params()[name].(float64)
	const h = 1e-6
	set := func(x float64) {
		if err := n.SetParams(map[string]any{name: x}); err != nil {
			t.Fatal(err)
		}
	}
	set(v + h)
	fp := eval()
	set(v - h)
	fm := eval()
	set(v)
	out := make([]float64, len(fp))
	for i := range out {
		out[i] = (fp[i] - fm[i]) / (2 * h)
	}
	return out
}

// near: agreement to 1e-8, relative above 1 and absolute below
// (numtest.Near, which fails on NaN and infinite values).
func near(a, b float64) bool { return numtest.Near(a, b, 1e-8) }

// The analytic Jacobians against differences of the methods they
// differentiate: Derivatives and InitialState over SetParams, EventValues
// and Reset over the state, the table input and the parameters. Moving,
// resting and slow-impact (rest rule) states, under a force input (which
// makes ∂f/∂mass non-zero).
func TestSensitivityJacobiansMatchDifferences(t *testing.T) {
	p := DefaultParams()
	p.InitialPosition, p.InitialVelocity, p.Elasticity, p.Gravity = 1.5, -0.5, 0.7, -9.81
	n, _ := New(p)
	np := len(n.Spec().Params)
	names := []string{paramInitialPosition, paramInitialVelocity, paramElasticity, paramGravity, paramMass}
	nu := n.Spec().InputLayout.Size()
	// The table at 0.2, and an upward force of 3 N on the 1 kg ball
	// (net acceleration −6.81, so the resting state still rests).
	in := node.Inputs{Values: make([]float64, nu), Present: make([]bool, len(n.Spec().Inputs))}
	in.Values[n.tableOff], in.Present[n.tableIdx] = 0.2, true
	in.Values[n.forceOff] = 3
	for i := range in.Present {
		in.Present[i] = true
	}
	withTable := func(v float64) node.Inputs {
		c := node.Inputs{Values: append([]float64(nil), in.Values...), Present: in.Present}
		c.Values[n.tableOff] = v
		return c
	}
	for _, x := range [][]float64{{0.7, -3}, {0.2, 0}, {0.2, -1e-4}} {
		dp := make([]float64, 2*np)
		if err := n.DerivativesParamJacobian(0, x, in, dp); err != nil {
			t.Fatal(err)
		}
		ip := make([]float64, 2*np)
		n.InitialStateParamJacobian(ip)
		rx, ru, rp, rt := make([]float64, 4), make([]float64, 2*nu), make([]float64, 2*np), make([]float64, 2)
		if err := n.ResetJacobian(0, 0, x, in, rx, ru, rp, rt); err != nil {
			t.Fatal(err)
		}
		gx, gu, gp := make([]float64, 2), make([]float64, nu), make([]float64, np)
		gt, err := n.EventValuesJacobian(0, 0, x, in, gx, gu, gp)
		if err != nil || gt != 0 {
			t.Fatal(gt, err)
		}
		for c, name := range names {
			f := fdParam(t, n, name, func() []float64 {
				d := make([]float64, 2)
				n.Derivatives(0, x, in, d)
				return d
			})
			x0 := fdParam(t, n, name, func() []float64 { d := make([]float64, 2); n.InitialState(d); return d })
			r := fdParam(t, n, name, func() []float64 { d := append([]float64(nil), x...); n.Reset(0, 0, x, in, d); return d })
			for row := range 2 {
				if !near(dp[row*np+c], f[row]) || !near(ip[row*np+c], x0[row]) || !near(rp[row*np+c], r[row]) {
					t.Errorf("x=%v ∂/∂%s row %d: f %v/%v, x0 %v/%v, R %v/%v", x, name, row, dp[row*np+c], f[row], ip[row*np+c], x0[row], rp[row*np+c], r[row])
				}
			}
			if gp[c] != 0 {
				t.Errorf("∂g/∂%s = %v", name, gp[c])
			}
		}
		// State and input derivatives of Reset and EventValues.
		const h = 1e-7
		for j := range 3 {
			xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
			up, um := in.Values[n.tableOff], in.Values[n.tableOff]
			if j < 2 {
				xp[j] += h
				xm[j] -= h
			} else {
				up += h
				um -= h
			}
			rP, rM := append([]float64(nil), xp...), append([]float64(nil), xm...)
			n.Reset(0, 0, xp, withTable(up), rP)
			n.Reset(0, 0, xm, withTable(um), rM)
			gP, gM := make([]float64, 1), make([]float64, 1)
			n.EventValues(0, xp, withTable(up), gP)
			n.EventValues(0, xm, withTable(um), gM)
			wantG := (gP[0] - gM[0]) / (2 * h)
			gotG := gu[n.tableOff]
			if j < 2 {
				gotG = gx[j]
			}
			if !near(gotG, wantG) {
				t.Errorf("x=%v ∂g/∂#%d = %v, differences %v", x, j, gotG, wantG)
			}
			if math.Abs(x[1]) < RestSpeed+2*h {
				continue // the rest rule's threshold is within a step
			}
			for row := range 2 {
				want := (rP[row] - rM[row]) / (2 * h)
				got := ru[row*nu+n.tableOff]
				if j < 2 {
					got = rx[row*2+j]
				}
				if !near(got, want) {
					t.Errorf("x=%v ∂R_%d/∂#%d = %v, differences %v", x, row, j, got, want)
				}
			}
		}
	}
}

// Without a table the event is the constant +1: zero derivatives; the
// reset Jacobian is an error as Reset is.
func TestSensitivityJacobiansWithoutTable(t *testing.T) {
	n, _ := New(DefaultParams())
	in := node.Inputs{Values: make([]float64, n.Spec().InputLayout.Size()), Present: make([]bool, len(n.Spec().Inputs))}
	in.Present[n.Spec().InputLayout.Index(inputForce)] = true
	gx, gu := []float64{9, 9}, []float64{9, 9}
	if _, err := n.EventValuesJacobian(0, 0, []float64{1, 0}, in, gx, gu, nil); err != nil || gx[0] != 0 || gu[0] != 0 || gu[1] != 0 {
		t.Errorf("%v %v %v", gx, gu, err)
	}
	if err := n.ResetJacobian(0, 0, []float64{1, 0}, in, nil, nil, nil, nil); err == nil {
		t.Error("ResetJacobian without a table")
	}
}
