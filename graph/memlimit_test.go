package graph_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/graph"
)

// peakEnv makes the test binary, run by TestRecordBytesCoversPeak, record
// the rows it names and print its peak resident memory.
const peakEnv = "COSIM_RECORD_PEAK"

// vmHWM is the peak resident memory of this process (/proc/self/status),
// in bytes; 0 when it cannot be read.
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n << 10
		}
	}
	return 0
}

// The recorder's estimate (graph.RecordBytes) is not below the memory a
// recording really takes: the peak resident memory of a process that
// records rows of 2 and of 10 values, less its peak before the run. The
// estimate once counted only the live values (48 bytes a row of 2) where
// the process peaked at 2 to 2.7 times that, and a run the limit let
// through died of memory after computing. The upper bound (3 times)
// keeps the estimate from refusing runs that fit.
func TestRecordBytesCoversPeak(t *testing.T) {
	if spec := os.Getenv(peakEnv); spec != "" {
		recordForPeak(spec)
		return
	}
	if raceEnabled || testing.Short() || vmHWM() == 0 {
		t.Skip("needs /proc, no race detector (its shadow memory), not -short")
	}
	for _, c := range []struct{ rows, width int }{{2_000_000, 2}, {500_000, 10}} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestRecordBytesCoversPeak$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d,%d", peakEnv, c.rows, c.width))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var before, after int64
		if _, err := fmt.Sscanf(lastLine(string(out), "peak"), "peak %d %d", &before, &after); err != nil {
			t.Fatalf("%v in %s", err, out)
		}
		used := float64(after - before)
		est := graph.RecordBytes(c.rows+1, c.width)
		t.Logf("%d rows of %d values: peak %.0f MiB, estimate %.0f MiB (%.2f×)", c.rows, c.width, used/(1<<20), est/(1<<20), est/used)
		if est < used || est > 3*used {
			t.Errorf("%d rows of %d values: estimate %.0f bytes, measured %.0f", c.rows, c.width, est, used)
		}
	}
}

func lastLine(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// recordForPeak runs a chain of masses for rows steps recording width
// values, and prints the peak resident memory before and after.
func recordForPeak(spec string) {
	var rows, width int
	fmt.Sscanf(spec, "%d,%d", &rows, &width)
	sim, err := chain(width).Build()
	if err != nil {
		panic(err)
	}
	var rec []string
	for i := 1; i <= width; i++ {
		rec = append(rec, fmt.Sprintf("m%d.x", i))
	}
	before := vmHWM()
	res, err := sim.Run(context.Background(), graph.Settings{Dt: 1e-4, Steps: rows, Record: rec, Mode: graph.CoSimulation{Workers: 1}, RecordLimit: 1 << 40})
	if err != nil {
		panic(err)
	}
	fmt.Printf("peak %d %d (%d rows)\n", before, vmHWM(), len(res.History.Rows))
}
