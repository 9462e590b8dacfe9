package graph

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
)

// The Go memory limit (debug.SetMemoryLimit, GOMEMLIMIT) is a bound when
// it is set, that is positive and below MaxInt64 (the runtime's "no
// limit"): 1 GiB beside 8 GB available gives half of 1 GiB; a limit of 0
// is not a bound (it would refuse every recording).
func TestMutGoMemoryLimitSource(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	files := fakeFiles(map[string]string{"/proc/meminfo": "MemAvailable:    8000000 kB\n"})
	debug.SetMemoryLimit(1 << 30)
	got, from := defaultRecordLimit(files, 0)
	debug.SetMemoryLimit(old)
	if got != 1<<29 || !strings.Contains(from, "GOMEMLIMIT") {
		t.Errorf("GOMEMLIMIT of 1 GiB: %d (%s), want %d from GOMEMLIMIT", got, from, 1<<29)
	}
	debug.SetMemoryLimit(0)
	got, from = defaultRecordLimit(files, 0)
	debug.SetMemoryLimit(old)
	if got != 8000000<<10/2 || !strings.Contains(from, "MemAvailable") {
		t.Errorf("GOMEMLIMIT of 0: %d (%s), want half of MemAvailable", got, from)
	}
}

// Bounds that are not bounds: an RLIMIT_AS of MaxInt64 or more (the
// caller passes RLIM_INFINITY as 0, but a limit that large bounds
// nothing), a /proc/meminfo without MemAvailable (kernels before 3.14:
// statusKiB reads 0). With nothing else readable the 4 GiB fallback
// stands. Two equal bounds are named by the first in the file comment's
// order (here the cgroup before MemAvailable).
func TestMutMemorySourcesEdges(t *testing.T) {
	if got, from := defaultRecordLimit(fakeFiles(nil), math.MaxInt64); got != fallbackRecordLimit {
		t.Errorf("RLIMIT_AS = MaxInt64: %d (%s), want the 4 GiB fallback", got, from)
	}
	noAvail := fakeFiles(map[string]string{"/proc/meminfo": "MemTotal:       24000000 kB\nMemFree:   100 kB\n"})
	if got, from := defaultRecordLimit(noAvail, 0); got != fallbackRecordLimit {
		t.Errorf("meminfo without MemAvailable: %d (%s), want the 4 GiB fallback", got, from)
	}
	tie := fakeFiles(map[string]string{
		"/proc/meminfo":                 "MemAvailable:    1000000 kB\n",
		"/proc/self/cgroup":             "0::/\n",
		"/sys/fs/cgroup/memory.max":     fmt.Sprint(1000000<<10+5, "\n"),
		"/sys/fs/cgroup/memory.current": "5\n",
	})
	if got, from := defaultRecordLimit(tie, 0); got != 1000000<<10/2 || !strings.Contains(from, "cgroup") {
		t.Errorf("equal cgroup and MemAvailable bounds: %d (%s), want half of 1000000 KiB from the cgroup", got, from)
	}
}

// rlimitEnv makes the test binary, run by TestMutProcessRlimitAS, set
// its RLIMIT_AS and print processMemoryLimit's answer.
const rlimitEnv = "COSIM_MUT_RLIMIT_AS"

// processMemoryLimit reads the process's RLIMIT_AS: a child process whose
// address-space limit is its mapped size plus 512 MiB gets at most half
// of what is left under it, and, where the other bounds (the machine's
// available memory, the cgroup, GOMEMLIMIT) leave more, the limit is
// RLIMIT_AS's.
func TestMutProcessRlimitAS(t *testing.T) {
	const room = 512 << 20
	if os.Getenv(rlimitEnv) != "" {
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			fmt.Println("no status")
			return
		}
		other, _ := defaultRecordLimit(os.ReadFile, 0)
		size := uint64(statusKiB(string(b), "VmSize")) << 10
		rl := syscall.Rlimit{Cur: size + room, Max: size + room}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &rl); err != nil {
			fmt.Println("setrlimit:", err)
			return
		}
		limit, from := processMemoryLimit()
		fmt.Printf("limit %d %d %s\n", limit, other, from)
		return
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc")
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestMutProcessRlimitAS$")
	cmd.Env = append(os.Environ(), rlimitEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var limit, other int64
	line := ""
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "limit ") {
			fmt.Sscanf(l, "limit %d %d", &limit, &other)
			line = l
		}
	}
	if line == "" || limit <= 0 || limit > room/2 {
		t.Fatalf("child under RLIMIT_AS = VmSize + 512 MiB: %q, want a limit of at most 256 MiB\n%s", line, out)
	}
	if other > room/2 && !strings.Contains(line, "RLIMIT_AS") {
		t.Errorf("child: %q, want the limit from RLIMIT_AS (the other bounds give %d)", line, other)
	}
}
