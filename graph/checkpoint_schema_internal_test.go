package graph

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/coupling"
	"github.com/cosimgo/cosim/integrators"
	"github.com/google/go-cmp/cmp"
)

// fill sets every field of the struct v points to a non-zero value
// derived from seed, recursing into structs, so that a field the schema
// forgets shows up as a difference after a round trip.
func fill(t *testing.T, v reflect.Value, seed *int, path string) {
	t.Helper()
	*seed++
	n := *seed
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(t, v.Field(i), seed, path+"."+v.Type().Field(i).Name)
			}
		}
	case reflect.Float64, reflect.Float32:
		v.SetFloat(float64(n) + 0.25)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.String:
		v.SetString("s" + strings.Repeat("x", n%3))
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(t, p.Elem(), seed, path)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := 0; i < 2; i++ {
			fill(t, s.Index(i), seed, path+"[i]")
		}
		v.Set(s)
	default:
		t.Fatalf("%s has kind %s, which this test cannot fill: teach it, and the checkpoint schema (checkpoint_schema.go), the new field", path, v.Kind())
	}
}

// Every option of every built-in method, every field of
// integrators.DriverOptions (but Output), integrators.StepperState (with
// its Stats and JacobianPoint), and of the coupling memory, survives
// Encode and DecodeCheckpoint: a field added to those types without a key
// in the checkpoint schema fails here, naming it. Every value of the
// solver options' enumerations has a name in the file.
func TestCheckpointSchemaCoversSettings(t *testing.T) {
	seed := 0
	var opts integrators.DriverOptions
	fill(t, reflect.ValueOf(&opts).Elem(), &seed, "integrators.DriverOptions")
	opts.Output = nil // not part of the trajectory: not saved
	var st integrators.StepperState
	fill(t, reflect.ValueOf(&st).Elem(), &seed, "integrators.StepperState")
	var acc coupling.AccelState
	fill(t, reflect.ValueOf(&acc).Elem(), &seed, "coupling.AccelState")
	for _, m := range integrators.Methods() {
		// Every option of the method takes a non-zero value (its
		// parameters too, except ρ∞ whose α weights are derived).
		v := reflect.New(reflect.TypeOf(m)).Elem()
		v.Set(reflect.ValueOf(m))
		fill(t, v, &seed, "integrators."+v.Type().Name())
		m = v.Interface().(integrators.Method)
		if nm, ok := m.(integrators.NewtonMethod); ok {
			n, l := nm.Solver()
			// Enumerations take a valid non-zero value each.
			l.Solver, l.Preconditioner, l.Forcing = integrators.LinearGMRES, integrators.PrecondILU0, integrators.ForcingConstant
			m = nm.WithSolver(n, l)
		}
		if ga, ok := m.(integrators.GeneralizedAlpha); ok {
			ga.RhoInf = 0.8
			m = ga
		}
		if nm, ok := m.(integrators.Newmark); ok {
			nm.Gamma = 0.5 // the declared order follows γ
			m = nm
		}
		c := &Checkpoint{Version: CheckpointVersion, T0: 0.5, Dt: 0.25, N: 3, Steps: 7,
			Nodes: []NodeCheckpoint{{Name: "m", Type: "mass", Layout: []FieldSize{{"x", 1}, {"v", 2}},
				Params: map[string]any{"mass": 2.5, "tags": []any{"a", "b"}}, State: []float64{1, 2, 3}, Hidden: []byte{0, 1, 255}}},
			Integrator: &MethodCheckpoint{Method: m, Adaptive: true, Options: &opts, State: st},
			Coupling: &CouplingCheckpoint{Strategy: "iterative:iqn-ils", Groups: []GroupCheckpoint{
				{Name: "g", Prev: []float64{4, 5}, Accel: acc}, {Name: "h", Accel: coupling.AccelState{Accel: coupling.Aitken, Omega: 0.5}}}},
		}
		var buf bytes.Buffer
		if err := c.Encode(&buf); err != nil {
			t.Fatal(err)
		}
		got, err := DecodeCheckpoint(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(c, got); d != "" {
			t.Errorf("%s: the checkpoint changed through the file (-written +read):\n%s", m.Name(), d)
		}
	}
	for _, ls := range []integrators.LinearSolver{integrators.LinearAuto, integrators.LinearDense, integrators.LinearGMRES, integrators.LinearBanded} {
		for _, pc := range []integrators.Preconditioner{integrators.PrecondBlockJacobi, integrators.PrecondILU0, integrators.PrecondNone} {
			for _, fc := range []integrators.Forcing{integrators.ForcingEisenstatWalker, integrators.ForcingConstant} {
				in := integrators.BackwardEuler{Linear: integrators.LinearOptions{Solver: ls, Preconditioner: pc, Forcing: fc}}
				mf, f, err := methodToFile(in, nil)
				if err != nil {
					t.Fatal(err)
				}
				out, _, err := methodFromFile(mf, f)
				if err != nil || out != in {
					t.Errorf("%v %v %v read back as %+v, %v", ls, pc, fc, out, err)
				}
			}
		}
	}
	if _, _, err := methodToFile(integrators.BackwardEuler{Linear: integrators.LinearOptions{Solver: 99}}, nil); err == nil {
		t.Error("an unknown linear solver was written")
	}
	// A method is given only the options it has.
	if _, _, err := methodFromFile(methodFile{Name: integrators.MethodRK4, Order: 4, Kind: "explicit"}, &settingsFile{NewtonTol: 1e-8}); err == nil || !strings.Contains(err.Error(), "do not apply") {
		t.Errorf("Newton settings for rk4: %v", err)
	}
	if _, _, err := methodFromFile(methodFile{Name: integrators.MethodBackwardEuler, Order: 1, Kind: "implicit"}, &settingsFile{RTol: 1e-8}); err == nil || !strings.Contains(err.Error(), "Dormand–Prince's") {
		t.Errorf("RTol for backward-euler: %v", err)
	}
	// nil and empty lists stay what they were.
	for _, ids := range [][]int64{nil, {}} {
		c := &Checkpoint{Version: CheckpointVersion, Integrator: &MethodCheckpoint{Method: integrators.Methods()[0],
			Options: &integrators.DriverOptions{Positions: []int{}, IDs: ids}, State: integrators.StepperState{IDs: ids, Y: []float64{}}}}
		var buf bytes.Buffer
		if err := c.Encode(&buf); err != nil {
			t.Fatal(err)
		}
		got, err := DecodeCheckpoint(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(c, got); d != "" {
			t.Errorf("IDs %#v: (-written +read):\n%s", ids, d)
		}
	}
}

// jsonKeys collects the JSON keys of the schema types reachable from t.
func jsonKeys(t reflect.Type, keys map[string]string, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		keys[name] = t.Name() + "." + f.Name
		jsonKeys(f.Type, keys, seen)
	}
}

// docs/checkpoint-format.md names every key of the current schema, as
// `key`, and every key of the frozen version-1 schema.
func TestCheckpointFormatDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/checkpoint-format.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, root := range []any{checkpointFile{}, checkpointFileV1{}} {
		keys := map[string]string{}
		jsonKeys(reflect.TypeOf(root), keys, map[reflect.Type]bool{})
		for k, where := range keys {
			if !bytes.Contains(doc, []byte("`"+k+"`")) {
				t.Errorf("docs/checkpoint-format.md does not document the key `%s` (%s)", k, where)
			}
		}
	}
}
