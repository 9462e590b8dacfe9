package cpuclock

import (
	"runtime"
	"testing"
)

// TestClocksAdvanceWithWork: on Linux both clocks are available and
// advance while the thread computes (the loop below burns 2 ms of the
// thread's CPU, or 10⁷ multiply-adds if the clock stood still);
// elsewhere they report −1. No duration is
// asserted beyond "more than before": timings on a shared machine vary.
func TestClocksAdvanceWithWork(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0, p0 := Thread(), Process()
	if runtime.GOOS != "linux" {
		if t0 != -1 || p0 != -1 {
			t.Errorf("Thread, Process = %v, %v on %s, want −1, −1", t0, p0, runtime.GOOS)
		}
		return
	}
	if t0 < 0 || p0 < 0 {
		t.Fatalf("Thread, Process = %v, %v on Linux: the clocks are unavailable", t0, p0)
	}
	x := 1.0
	for i := 0; i < 1000 && Thread()-t0 < 2e6; i++ {
		for range 10000 {
			x = x*1.0000001 + 1e-9
		}
	}
	if t1, p1 := Thread(), Process(); t1 <= t0 || p1 <= p0 || x == 0 {
		t.Errorf("after work: Thread %v → %v, Process %v → %v: a clock did not advance", t0, t1, p0, p1)
	}
}
