package graph

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// fakeFiles serves /proc and /sys files from a map.
func fakeFiles(files map[string]string) sysFiles {
	return func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, fs.ErrNotExist
	}
}

// The default limit is half of the least bound: MemAvailable, RLIMIT_AS
// less the address space in use, the free memory of the cgroup or of an
// ancestor (v1 and v2), and 4 GiB when nothing can be read.
func TestDefaultRecordLimitSources(t *testing.T) {
	meminfo := "MemTotal:       24000000 kB\nMemAvailable:    8000000 kB\n"
	status := "Name:\tcosim\nVmSize:\t 1200000 kB\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		as    uint64
		want  int64
		from  string
	}{
		{"nothing readable", nil, 0, 4 << 30, "4 GiB"},
		{"MemAvailable", map[string]string{"/proc/meminfo": meminfo}, 0, 8000000 << 10 / 2, "MemAvailable"},
		{"RLIMIT_AS less VmSize", map[string]string{"/proc/meminfo": meminfo, "/proc/self/status": status}, 2000000000, (2000000000 - 1200000<<10) / 2, "RLIMIT_AS"},
		{"cgroup v2 ancestor", map[string]string{
			"/proc/meminfo":                     meminfo,
			"/proc/self/cgroup":                 "0::/a/b\n",
			"/sys/fs/cgroup/a/b/memory.max":     "max\n",
			"/sys/fs/cgroup/a/b/memory.current": "100\n",
			"/sys/fs/cgroup/a/memory.max":       "3000000000\n",
			"/sys/fs/cgroup/a/memory.current":   "1000000000\n",
			"/sys/fs/cgroup/memory.max":         "max\n",
			"/sys/fs/cgroup/memory.current":     "5\n",
		}, 0, 1000000000, "the cgroup memory limit"},
		{"cgroup v1, unlimited then limited", map[string]string{
			"/proc/meminfo":     meminfo,
			"/proc/self/cgroup": "4:memory:/job\n0::/\n",
			"/sys/fs/cgroup/memory/job/memory.limit_in_bytes": "9223372036854771712\n",
			"/sys/fs/cgroup/memory/job/memory.usage_in_bytes": "7\n",
			"/sys/fs/cgroup/memory/memory.limit_in_bytes":     "1073741824\n",
			"/sys/fs/cgroup/memory/memory.usage_in_bytes":     "0\n",
		}, 0, 1 << 29, "the cgroup memory limit"},
	} {
		got, from := defaultRecordLimit(fakeFiles(c.files), c.as)
		if got != c.want || !strings.Contains(from, c.from) {
			t.Errorf("%s: %d (%s), want %d (%s)", c.name, got, from, c.want, c.from)
		}
	}
	if _, err := fakeFiles(nil)("/x"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
}

// The refusal names the limit's source, so that a user knows which bound
// to raise.
func TestRecordBudgetNamesSource(t *testing.T) {
	err := checkRecordBudget(1<<40, 2, 0)
	if err == nil || !strings.Contains(err.Error(), "the default Settings.RecordLimit: ") {
		t.Errorf("%v", err)
	}
	err = checkRecordBudget(1000, 2, 1000)
	if err == nil || !strings.Contains(err.Error(), "more than the limit of 1000 B (Settings.RecordLimit)") {
		t.Errorf("%v", err)
	}
}
