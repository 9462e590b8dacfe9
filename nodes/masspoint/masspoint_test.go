package masspoint

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

func mustNew(t testing.TB, p Params) *Node {
	t.Helper()
	n, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// step runs n Update steps of size dt from the initial state with the
// given inputs and returns the final state.
func step(t testing.TB, nd *Node, in node.Inputs, dt float64, steps int) []float64 {
	t.Helper()
	x := make([]float64, stateSize)
	nd.InitialState(x)
	dst := make([]float64, stateSize)
	for k := range steps {
		if err := nd.Update(float64(k)*dt, dt, x, in, dst); err != nil {
			t.Fatal(err)
		}
		x, dst = dst, x
	}
	return x
}

func TestDefaults(t *testing.T) {
	n, err := FromMap(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := node.NewRegistry(Type()); err != nil {
		t.Fatal(err)
	}
	got := n.(*Node).Params()
	if got.Float("mass") != 1 || got.Floats("gravity")[2] != 0 {
		t.Errorf("defaults = %v, want mass 1 and zero gravity", got)
	}
	m := mustNew(t, DefaultParams())
	if m.Spec() != n.Spec() {
		t.Error("Spec is not built once")
	}
	// Params returns a copy.
	got.Floats("gravity")[0] = 42
	if m2 := n.(*Node).Params(); m2.Floats("gravity")[0] != 0 {
		t.Error("Params exposes the node's own slices")
	}
}

func TestParamErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name  string
		given map[string]any
		param string
	}{
		{"zero mass", map[string]any{"mass": 0.0}, "mass"},
		{"negative mass", map[string]any{"mass": -1.0}, "mass"},
		{"NaN mass", map[string]any{"mass": nan}, "mass"},
		{"Inf mass", map[string]any{"mass": inf}, "mass"},
		{"mass wrong type", map[string]any{"mass": "1"}, "mass"},
		{"gravity NaN", map[string]any{"gravity": []float64{0, nan, 0}}, "gravity"},
		{"gravity -Inf", map[string]any{"gravity": []float64{0, 0, -inf}}, "gravity"},
		{"gravity short", map[string]any{"gravity": []float64{0, -9.81}}, "gravity"},
		{"initial_position NaN", map[string]any{"initial_position": []float64{nan, 0, 0}}, "initial_position"},
		{"initial_position long", map[string]any{"initial_position": []float64{0, 0, 0, 0}}, "initial_position"},
		{"initial_velocity Inf", map[string]any{"initial_velocity": []float64{inf, 0, 0}}, "initial_velocity"},
		{"initial_velocity wrong type", map[string]any{"initial_velocity": "fast"}, "initial_velocity"},
		{"unknown", map[string]any{"mas": 1.0}, "mas"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromMap(tt.given)
			checkParamError(t, err, tt.param)
			// SetParams rejects the same value and changes nothing.
			n := mustNew(t, DefaultParams())
			before := n.Params()
			checkParamError(t, n.SetParams(tt.given), tt.param)
			if after := n.Params(); after.Float("mass") != before.Float("mass") {
				t.Error("a failed SetParams changed the node")
			}
		})
	}
	// The typed constructor validates through the same path.
	for _, p := range []Params{{Mass: 0}, {Mass: nan}, {Mass: 1, Gravity: [3]float64{0, 0, inf}}} {
		_, err := New(p)
		if err == nil {
			t.Errorf("New(%+v) succeeded", p)
		}
		var pe *node.ParamError
		if !errors.As(err, &pe) || pe.Node != TypeName {
			t.Errorf("New(%+v): %v, want a *node.ParamError naming %s", p, err, TypeName)
		}
	}
}

func checkParamError(t *testing.T, err error, param string) {
	t.Helper()
	var pe *node.ParamError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a *node.ParamError", err)
	}
	if pe.Node != TypeName || pe.Param != param {
		t.Errorf("error names %s.%s, want %s.%s", pe.Node, pe.Param, TypeName, param)
	}
	if param != "mas" && (pe.Value == nil || pe.Valid == "") {
		t.Errorf("error %q does not give the value and the valid range", err)
	}
	if !strings.Contains(err.Error(), param) {
		t.Errorf("message %q does not name %q", err, param)
	}
}

// TestFreeFall checks Update against the closed form of the discrete
// scheme: with constant acceleration a, semi-implicit Euler gives
// v_n = v₀ + n·Δt·a and x_n = x₀ + n·Δt·v₀ + Δt²·a·n(n+1)/2 (sum of the
// velocities v_1 … v_n). The tolerance 1e-12 (relative above 1) covers
// rounding over 1000 additions (about 1000·2⁻⁵³ ≈ 1e-13). The same numbers
// also equal the continuous solution plus the scheme's known position
// error ½·a·Δt·t, which ties the discrete form to the physics. Gravity
// has a component on every axis (a tilted frame), each component a
// different value, so that each axis's acceleration is checked to be its
// own component of g.
func TestFreeFall(t *testing.T) {
	p := DefaultParams()
	p.Mass = 2.5
	p.Gravity = [3]float64{1.25, -0.75, -9.81}
	p.InitialPosition = [3]float64{1, -2, 100}
	p.InitialVelocity = [3]float64{0.5, 0, 3}
	nd := mustNew(t, p)
	const dt, steps = 1e-3, 1000
	x := step(t, nd, nd.Spec().DefaultInputs(), dt, steps)
	n := float64(steps)
	tEnd := n * dt
	for i := range 3 {
		a := p.Gravity[i]
		wantV := p.InitialVelocity[i] + n*dt*a
		wantX := p.InitialPosition[i] + n*dt*p.InitialVelocity[i] + dt*dt*a*n*(n+1)/2
		if !numtest.Near(x[offVelocity+i], wantV, 1e-12) || !numtest.Near(x[offPosition+i], wantX, 1e-12) {
			t.Errorf("component %d: x = %v, v = %v, want %v, %v", i, x[offPosition+i], x[offVelocity+i], wantX, wantV)
		}
		continuous := p.InitialPosition[i] + p.InitialVelocity[i]*tEnd + a*tEnd*tEnd/2
		if !numtest.Near(x[offPosition+i]-continuous, a*dt*tEnd/2, 1e-11) {
			t.Errorf("component %d: position error %v, want ½aΔt t = %v", i, x[offPosition+i]-continuous, a*dt*tEnd/2)
		}
	}
}

// TestConstantForce: a constant force F on mass m gives a = F/m; the same
// discrete closed form as TestFreeFall applies. Numbers: F = (2, −3, 0.5) N,
// m = 4 kg, so a = (0.5, −0.75, 0.125) m/s², exact in binary.
func TestConstantForce(t *testing.T) {
	p := DefaultParams()
	p.Mass = 4
	nd := mustNew(t, p)
	in := nd.Spec().DefaultInputs()
	copy(in.Values[offForce:], []float64{2, -3, 0.5})
	const dt, steps = 0.01, 500
	x := step(t, nd, in, dt, steps)
	n := float64(steps)
	for i, a := range []float64{0.5, -0.75, 0.125} {
		wantV := n * dt * a
		wantX := dt * dt * a * n * (n + 1) / 2
		if !numtest.Near(x[offVelocity+i], wantV, 1e-12) || !numtest.Near(x[offPosition+i], wantX, 1e-12) {
			t.Errorf("component %d: x = %v, v = %v, want %v, %v", i, x[offPosition+i], x[offVelocity+i], wantX, wantV)
		}
	}
}

// TestUpdateIsSemiImplicitEuler ties Metadata.Discretization to the code:
// one Update step equals, bit for bit, semi-implicit Euler applied to
// Derivatives (velocity fields first with f(t, x), then Position fields
// with their new rate), written here independently from the spec's roles.
func TestUpdateIsSemiImplicitEuler(t *testing.T) {
	p := DefaultParams()
	p.Mass = 0.3
	p.Gravity = [3]float64{0.1, -9.81, 2}
	p.InitialPosition = [3]float64{0.7, 1.1, -0.4}
	p.InitialVelocity = [3]float64{-1.3, 0.2, 3.3}
	nd := mustNew(t, p)
	if got := nd.Spec().Meta.Discretization; got != "semi-implicit-euler" {
		t.Fatalf("Discretization = %q", got)
	}
	in := nd.Spec().DefaultInputs()
	copy(in.Values, []float64{0.37, -1.9, 12})
	x := make([]float64, stateSize)
	nd.InitialState(x)
	for k := range 50 {
		const dt = 0.013
		got := make([]float64, stateSize)
		if err := nd.Update(float64(k)*dt, dt, x, in, got); err != nil {
			t.Fatal(err)
		}
		want := semiImplicitEuler(t, nd, float64(k)*dt, dt, x, in)
		for j := range got {
			if got[j] != want[j] {
				t.Fatalf("step %d, %s: Update %v, semi-implicit Euler on Derivatives %v", k, nd.Spec().StateLayout.Component(j), got[j], want[j])
			}
		}
		x = got
	}
}

func semiImplicitEuler(t *testing.T, nd *Node, tn, dt float64, x []float64, in node.Inputs) []float64 {
	s := nd.Spec()
	f := make([]float64, len(x))
	if err := nd.Derivatives(tn, x, in, f); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(x))
	for i := range s.StateLayout.Len() {
		fl, off := s.StateLayout.Field(i), s.StateLayout.Offset(i)
		if fl.Role != node.Position {
			for j := range fl.Shape.Len() {
				out[off+j] = x[off+j] + dt*f[off+j]
			}
		}
	}
	for i := range s.StateLayout.Len() {
		fl, off := s.StateLayout.Field(i), s.StateLayout.Offset(i)
		if fl.Role == node.Position {
			r := s.StateFieldOffset(fl.Rate)
			for j := range fl.Shape.Len() {
				out[off+j] = x[off+j] + dt*out[r+j]
			}
		}
	}
	return out
}

// TestDerivativesHonoursSetParams: after SetParams, Derivatives reads the
// overridden mass and gravity: with F = (1, 2, 3) N, m = 2 kg and
// g = (0, 0, −10), dv/dt = (0.5, 1, −8.5) exactly.
func TestDerivativesHonoursSetParams(t *testing.T) {
	nd := mustNew(t, DefaultParams())
	if err := nd.SetParams(map[string]any{"mass": 2, "gravity": []any{0, 0, -10.0}}); err != nil {
		t.Fatal(err)
	}
	in := nd.Spec().DefaultInputs()
	copy(in.Values, []float64{1, 2, 3})
	x := []float64{0, 0, 0, 4, 5, 6}
	dst := make([]float64, 6)
	if err := nd.Derivatives(0, x, in, dst); err != nil {
		t.Fatal(err)
	}
	want := []float64{4, 5, 6, 0.5, 1, -8.5}
	for i := range want {
		if dst[i] != want[i] {
			t.Errorf("dx/dt = %v, want %v", dst, want)
			break
		}
	}
	// Update reads the same overrides: one step from rest with dt = 1.
	up := make([]float64, 6)
	if err := nd.Update(0, 1, []float64{0, 0, 0, 0, 0, 0}, in, up); err != nil {
		t.Fatal(err)
	}
	if up[3] != 0.5 || up[5] != -8.5 || up[2] != -8.5 {
		t.Errorf("Update after SetParams = %v", up)
	}
	// A failed SetParams changes nothing, even the valid part.
	if err := nd.SetParams(map[string]any{"mass": 3.0, "gravity": []float64{math.NaN(), 0, 0}}); err == nil {
		t.Fatal("invalid gravity accepted")
	}
	if nd.Params().Float("mass") != 2 {
		t.Error("a failed SetParams changed mass")
	}
}

func TestUpdateRejectsNonFiniteDt(t *testing.T) {
	nd := mustNew(t, DefaultParams())
	x, dst := make([]float64, 6), make([]float64, 6)
	for _, dt := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		err := nd.Update(0, dt, x, nd.Spec().DefaultInputs(), dst)
		if !errors.Is(err, node.ErrNonFinite) {
			t.Errorf("dt = %v: err = %v, want node.ErrNonFinite", dt, err)
		}
	}
}

// TestMarker: a point body ignores local; its Jacobian is [I 0], checked
// against central differences of MarkerKinematics (exact for a linear map,
// so the tolerance 1e-9 only absorbs the difference quotient's rounding).
func TestMarker(t *testing.T) {
	nd := mustNew(t, DefaultParams())
	var mk node.Marker = nd
	if got := mk.MarkerFields(); len(got) != 2 || got[0] != "position" || got[1] != "velocity" {
		t.Errorf("MarkerFields = %v", got)
	}
	if got := mk.MarkerLoads(); len(got) != 1 || got[0] != "force" {
		t.Errorf("MarkerLoads = %v", got)
	}
	x := []float64{1, 2, 3, 4, 5, 6}
	var pos, vel [3]float64
	mk.MarkerKinematics(x, [3]float64{7, 8, 9}, &pos, &vel)
	if pos != [3]float64{1, 2, 3} || vel != [3]float64{4, 5, 6} {
		t.Errorf("MarkerKinematics = %v, %v", pos, vel)
	}
	dst := make([]float64, 3)
	mk.MarkerLoad(x, [3]float64{7, 8, 9}, [3]float64{-1, 0.5, 2}, dst)
	if dst[0] != -1 || dst[1] != 0.5 || dst[2] != 2 {
		t.Errorf("MarkerLoad = %v", dst)
	}
	jac := make([]float64, 18)
	for i := range jac {
		jac[i] = math.NaN() // every entry must be written
	}
	mk.MarkerJacobian(x, [3]float64{7, 8, 9}, jac)
	const h = 1e-6
	for j := range 6 {
		xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
		xp[j] += h
		xm[j] -= h
		var pp, pm, v [3]float64
		mk.MarkerKinematics(xp, [3]float64{}, &pp, &v)
		mk.MarkerKinematics(xm, [3]float64{}, &pm, &v)
		for i := range 3 {
			if fd := (pp[i] - pm[i]) / (2 * h); !numtest.Near(jac[i*6+j], fd, 1e-9) {
				t.Errorf("J[%d][%d] = %v, finite difference %v", i, j, jac[i*6+j], fd)
			}
		}
	}
}

func BenchmarkUpdate(b *testing.B) {
	nd := mustNew(b, DefaultParams())
	in := nd.Spec().DefaultInputs()
	x, dst := make([]float64, stateSize), make([]float64, stateSize)
	b.ReportAllocs()
	for b.Loop() {
		if err := nd.Update(0, 1e-3, x, in, dst); err != nil {
			b.Fatal(err)
		}
		x, dst = dst, x
	}
}
