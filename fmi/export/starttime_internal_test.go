package export

import (
	"github.com/cosimgo/cosim/fmi"
	"math"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/nodes"
)

// rampScene is a scene whose output is the time itself: a ramp source of
// slope 1 from t0 = 0 (y = t), exported as the output "y".
const rampScene = `{"name": "Ramp",
 "nodes": [{"name": "r", "type": "ramp", "params": {"slope": [1], "offset": [0]}}],
 "run": {"dt": 0.25, "end": 10},
 "fmu": {"outputs": [{"name": "y", "from": "r.value"}]}}`

// newTestInstance instantiates the scene data in an Instance, its log
// collected in logs.
func newTestInstance(t *testing.T, data string, logs *[]string) *Instance {
	t.Helper()
	dir, m := resourcesOf(t, []byte(data))
	reg := nodes.Registry()
	in := NewInstance(dir, reg, func(s fmi.CallStatus, cat, msg string) { *logs = append(*logs, msg) })
	t.Cleanup(in.Free)
	if s := in.Instantiate(m.Token, "test", false); s != fmi.StatusOK {
		t.Fatalf("Instantiate: %v %v", s, *logs)
	}
	return in
}

// TestStartTime starts the ramp scene at t = 2 (fmi3EnterInitializationMode's
// startTime): the nodes see that time from initialization on (y = t, the
// ramp's closed form: exactly 2, then 2 + k·0.25, all exact in binary),
// the FMU's time variable says so, the steps count from there, and Reset
// returns to 0. A start time that is not finite is refused.
func TestStartTime(t *testing.T) {
	var logs []string
	in := newTestInstance(t, rampScene, &logs)
	get := func(vr uint32) float64 {
		t.Helper()
		out := make([]uint64, 1)
		if s := in.Get(TypeFloat64, []uint32{vr}, out); s != fmi.StatusOK {
			t.Fatalf("Get %d: %v %v", vr, s, logs)
		}
		return math.Float64frombits(out[0])
	}
	if s := in.EnterInitializationMode(false, 0, 2, true, 4); s != fmi.StatusOK {
		t.Fatalf("EnterInitializationMode: %v %v", s, logs)
	}
	if y, tm := get(1), get(0); y != 2 || tm != 2 {
		t.Errorf("in initialization from t = 2: y = %v, time = %v; want 2, 2", y, tm)
	}
	if s := in.ExitInitializationMode(); s != fmi.StatusOK {
		t.Fatalf("ExitInitializationMode: %v %v", s, logs)
	}
	for k := range 8 {
		tk := 2 + 0.25*float64(k)
		if s, last := in.DoStep(tk, 0.25); s != fmi.StatusOK || last != tk+0.25 {
			t.Fatalf("DoStep at %v: %v, last %v %v", tk, s, last, logs)
		}
		if y := get(1); y != tk+0.25 {
			t.Fatalf("after the step from %v: y = %v, want %v", tk, y, tk+0.25)
		}
	}
	if s, _ := in.DoStep(4, 0.25); s != fmi.StatusError || !strings.Contains(logs[len(logs)-1], "goes past the stop time 4") {
		t.Errorf("a step past the stop time: %v %v", s, logs)
	}
	if s := in.Reset(); s != fmi.StatusOK {
		t.Fatal(s)
	}
	if s := in.EnterInitializationMode(false, 0, math.NaN(), false, 0); s != fmi.StatusError || !strings.Contains(logs[len(logs)-1], "startTime = NaN is not finite") {
		t.Errorf("a NaN start time: %v %v", s, logs)
	}
	if s := in.EnterInitializationMode(false, 0, 0, false, 0); s != fmi.StatusOK {
		t.Fatal(s, logs)
	}
	if y := get(1); y != 0 {
		t.Errorf("after Reset, from t = 0: y = %v", y)
	}
}
