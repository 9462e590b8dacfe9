package graph

import (
	"math"
	"path"
	"runtime/debug"
	"strconv"
	"strings"
)

// This file finds how much memory the process can still use, for the
// default Settings.RecordLimit: the Go memory limit (GOMEMLIMIT), the
// address-space rlimit (RLIMIT_AS, minus the address space already
// mapped), the cgroup memory limit of the process and of its parent
// groups (cgroup v2 memory.max, v1 memory.limit_in_bytes, minus the
// usage), and the memory the kernel says is available without swapping
// (/proc/meminfo MemAvailable). Where none can be read (not Linux), a
// fixed 4 GiB stands in.

// memorySource is one bound on the memory the process can still use.
type memorySource struct {
	name  string // "MemAvailable", "RLIMIT_AS", "cgroup memory.max", "GOMEMLIMIT"
	bytes int64
}

// fallbackRecordLimit is the default RecordLimit where no bound on the
// process's memory can be read.
const fallbackRecordLimit = 4 << 30

// sysFiles reads the files of /proc and /sys the bounds come from; tests
// replace it.
type sysFiles func(name string) ([]byte, error)

// memorySources returns the bounds that can be read, in the order of the
// file's comment.
func memorySources(read sysFiles, rlimitAS uint64) []memorySource {
	var out []memorySource
	if m := debug.SetMemoryLimit(-1); m > 0 && m < math.MaxInt64 {
		out = append(out, memorySource{"GOMEMLIMIT", m})
	}
	if rlimitAS > 0 && rlimitAS < math.MaxInt64 {
		used := int64(0)
		if b, err := read("/proc/self/status"); err == nil {
			used = statusKiB(string(b), "VmSize") << 10
		}
		out = append(out, memorySource{"RLIMIT_AS", max(int64(rlimitAS)-used, 0)})
	}
	if free, ok := cgroupFree(read); ok {
		out = append(out, memorySource{"the cgroup memory limit", free})
	}
	if b, err := read("/proc/meminfo"); err == nil {
		if kib := statusKiB(string(b), "MemAvailable"); kib > 0 {
			out = append(out, memorySource{"MemAvailable", kib << 10})
		}
	}
	return out
}

// statusKiB returns the value of "key:   123 kB" in a /proc status or
// meminfo text, in KiB; 0 when absent.
func statusKiB(text, key string) int64 {
	for line := range strings.Lines(text) {
		k, v, ok := strings.Cut(line, ":")
		if !ok || k != key {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			return 0
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		return n
	}
	return 0
}

// cgroupFree returns the memory the process's cgroup and its ancestors
// leave free (the least limit − usage), and false when no limit is set
// or none can be read.
func cgroupFree(read sysFiles) (int64, bool) {
	b, err := read("/proc/self/cgroup")
	if err != nil {
		return 0, false
	}
	free, found := int64(math.MaxInt64), false
	try := func(limitFile, usageFile string) {
		lb, err1 := read(limitFile)
		ub, err2 := read(usageFile)
		if err1 != nil || err2 != nil {
			return
		}
		ls := strings.TrimSpace(string(lb))
		if ls == "max" {
			return
		}
		limit, err1 := strconv.ParseInt(ls, 10, 64)
		usage, err2 := strconv.ParseInt(strings.TrimSpace(string(ub)), 10, 64)
		// cgroup v1 writes "no limit" as a page-rounded MaxInt64.
		if err1 != nil || err2 != nil || limit >= math.MaxInt64/2 {
			return
		}
		free, found = min(free, max(limit-usage, 0)), true
	}
	for line := range strings.Lines(string(b)) {
		// "0::/path" (v2) or "4:memory:/path" (v1).
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		var root, limitName, usageName string
		switch {
		case parts[0] == "0" && parts[1] == "":
			root, limitName, usageName = "/sys/fs/cgroup", "memory.max", "memory.current"
		case strings.Contains(","+parts[1]+",", ",memory,"):
			root, limitName, usageName = "/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes"
		default:
			continue
		}
		// The group and every ancestor up to the root of the mount (a
		// container sees its own group as the root).
		for p := path.Clean("/" + parts[2]); ; p = path.Dir(p) {
			dir := path.Join(root, p)
			try(path.Join(dir, limitName), path.Join(dir, usageName))
			if p == "/" {
				break
			}
		}
	}
	return free, found
}

// defaultRecordLimit is half of the least bound on the memory the process
// can still use, and the bound's name; half, because the rest of the
// process (the graph, formatting the rows, a plot of them) needs memory
// too.
func defaultRecordLimit(read sysFiles, rlimitAS uint64) (int64, string) {
	srcs := memorySources(read, rlimitAS)
	if len(srcs) == 0 {
		return fallbackRecordLimit, "no bound on memory could be read: 4 GiB"
	}
	least := srcs[0]
	for _, s := range srcs[1:] {
		if s.bytes < least.bytes {
			least = s
		}
	}
	return least.bytes / 2, "half of " + least.name + ", " + formatBytes(float64(least.bytes))
}
