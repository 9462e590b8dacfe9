package batchtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const scalingDoc = "../../docs/scaling.md"

// docBlocks returns the fenced code blocks of docs/scaling.md under the
// "## " heading title, with their info strings, in order.
func docBlocks(t *testing.T, title string) (langs, blocks []string) {
	t.Helper()
	data, err := os.ReadFile(scalingDoc)
	if err != nil {
		t.Fatal(err)
	}
	in, fence := false, false
	var b strings.Builder
	for line := range strings.Lines(string(data)) {
		switch {
		case fence && strings.TrimSpace(line) == "```":
			blocks = append(blocks, b.String())
			b.Reset()
			fence = false
		case fence:
			b.WriteString(line)
		case strings.HasPrefix(line, "## "):
			in = strings.TrimSpace(line[3:]) == title
		case in && strings.HasPrefix(line, "```"):
			fence = true
			langs = append(langs, strings.TrimSpace(line[3:]))
		}
	}
	if len(blocks) == 0 {
		t.Fatalf("%s has no code block under ## %s", scalingDoc, title)
	}
	return langs, blocks
}

// slurmScript returns the Slurm script and the submit commands of
// docs/scaling.md: the first two sh blocks under "## Slurm: a job array".
func slurmScript(t *testing.T) (script, submit string) {
	t.Helper()
	langs, blocks := docBlocks(t, "Slurm: a job array")
	if len(blocks) < 2 || langs[0] != "sh" || langs[1] != "sh" || !strings.HasPrefix(blocks[0], "#!/bin/bash\n") {
		t.Fatalf("## Slurm: a job array should start with the script (#!/bin/bash) and the submit commands, in sh blocks; it has %q", langs)
	}
	return blocks[0], blocks[1]
}

// shellWords splits a command as sh does for the words used in the
// page: backslash-newline joins lines, quotes group and are removed,
// $VAR and ${VAR} are kept as written. It fails on what it does not know
// rather than guess.
func shellWords(t *testing.T, cmd string) []string {
	t.Helper()
	cmd = strings.ReplaceAll(cmd, "\\\n", " ")
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '"' || c == '\'':
			end := strings.IndexByte(cmd[i+1:], c)
			if end < 0 {
				t.Fatalf("unterminated quote in %q", cmd)
			}
			w.WriteString(cmd[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case strings.IndexByte(";&|<>`\\", c) >= 0:
			t.Fatalf("%q: %q is beyond this test's shell reader", cmd, c)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// cosimCommand returns the words of the script's cosim command.
func cosimCommand(t *testing.T, script string) []string {
	t.Helper()
	i := strings.Index(script, "\ncosim ")
	if i < 0 {
		t.Fatalf("the script runs no cosim command:\n%s", script)
	}
	cmd := script[i+1:]
	for j := 0; j < len(cmd); j++ {
		if cmd[j] == '\n' && (j == 0 || cmd[j-1] != '\\') {
			cmd = cmd[:j]
			break
		}
	}
	return shellWords(t, cmd)
}

// flagValue returns the value of the flag in a command's words, and
// whether it is there once.
func flagValue(words []string, flag string) (string, bool) {
	v, n := "", 0
	for i, w := range words {
		if w == flag && i+1 < len(words) {
			v, n = words[i+1], n+1
		}
	}
	return v, n == 1
}

// sbatchOption returns the value of an #SBATCH --name=value line.
func sbatchOption(t *testing.T, script, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^#SBATCH --` + regexp.QuoteMeta(name) + `=(\S+)`).FindStringSubmatch(script)
	if m == nil {
		t.Fatalf("the script has no #SBATCH --%s=", name)
	}
	return m[1]
}

// The batch/v1 Job fields docs/scaling.md relies on, named and typed as
// in the Kubernetes API (k8s.io/api/batch/v1 and core/v1). Decoding
// rejects unknown fields, so a misspelt or misplaced field fails.
type job struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		CompletionMode string `json:"completionMode"` // NonIndexed (default) or Indexed
		Completions    *int32 `json:"completions"`
		Parallelism    *int32 `json:"parallelism"`
		BackoffLimit   *int32 `json:"backoffLimit"`
		Template       struct {
			Spec podSpec `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

type podSpec struct {
	RestartPolicy string      `json:"restartPolicy"` // Never or OnFailure for a Job
	Containers    []container `json:"containers"`
	Volumes       []struct {
		Name      string `json:"name"`
		ConfigMap *struct {
			Name string `json:"name"`
		} `json:"configMap"`
		PersistentVolumeClaim *struct {
			ClaimName string `json:"claimName"`
		} `json:"persistentVolumeClaim"`
	} `json:"volumes"`
}

type container struct {
	Name      string   `json:"name"`
	Image     string   `json:"image"`
	Command   []string `json:"command"`
	Args      []string `json:"args"`
	Resources struct {
		Requests map[string]quantity `json:"requests"`
	} `json:"resources"`
	VolumeMounts []struct {
		Name      string `json:"name"`
		MountPath string `json:"mountPath"`
	} `json:"volumeMounts"`
}

// quantity is a resource.Quantity: a string such as "2", "500m" or
// "512Mi" (the API also takes a bare number).
type quantity string

var quantityRE = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$`)

func (q *quantity) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("quantity %s is neither a string nor a number", b)
		}
		s = n.String()
	}
	if !quantityRE.MatchString(s) {
		return fmt.Errorf("quantity %q does not match the Kubernetes quantity syntax", s)
	}
	*q = quantity(s)
	return nil
}

var dns1123Label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// The Kubernetes Indexed Job of docs/scaling.md is a valid batch/v1 Job
// (for the fields it uses) and runs the same cosim sweep as the Slurm
// script: same scene, grid, outputs and flags, one shard per completion
// index, -j equal to the CPUs requested.
func TestIndexedJobManifest(t *testing.T) {
	langs, blocks := docBlocks(t, "Kubernetes: an Indexed Job")
	k := slices.Index(langs, "yaml")
	if k < 0 {
		t.Fatalf("no yaml block under ## Kubernetes: an Indexed Job")
	}
	tree, err := parseYAML(blocks[k])
	if err != nil {
		t.Fatalf("the manifest: %v", err)
	}
	raw, _ := json.Marshal(tree)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var j job
	if err := dec.Decode(&j); err != nil {
		t.Fatalf("the manifest is not a batch/v1 Job of the fields we rely on: %v\n%s", err, raw)
	}

	s := j.Spec
	if j.APIVersion != "batch/v1" || j.Kind != "Job" {
		t.Errorf("apiVersion %q kind %q, want batch/v1 Job", j.APIVersion, j.Kind)
	}
	if n := j.Metadata.Name; !dns1123Label.MatchString(n) || len(n) > 63 {
		t.Errorf("metadata.name %q: an Indexed Job's name must be a DNS-1123 label of at most 63 characters", n)
	}
	if s.CompletionMode != "Indexed" {
		t.Errorf("completionMode %q: only Indexed sets JOB_COMPLETION_INDEX", s.CompletionMode)
	}
	if s.Completions == nil || *s.Completions < 1 {
		t.Fatalf("completions %v: an Indexed Job needs completions >= 1", s.Completions)
	}
	if s.Parallelism == nil || *s.Parallelism < 1 || *s.Parallelism > *s.Completions {
		t.Errorf("parallelism %v: want 1 … completions (%d)", s.Parallelism, *s.Completions)
	}
	if s.BackoffLimit == nil || *s.BackoffLimit < 0 {
		t.Errorf("backoffLimit %v: want >= 0", s.BackoffLimit)
	}
	ps := s.Template.Spec
	if ps.RestartPolicy != "Never" && ps.RestartPolicy != "OnFailure" {
		t.Errorf("restartPolicy %q: a Job's pods take Never or OnFailure", ps.RestartPolicy)
	}
	volumes := map[string]bool{}
	for _, v := range ps.Volumes {
		if !dns1123Label.MatchString(v.Name) || volumes[v.Name] {
			t.Errorf("volume name %q: want a unique DNS-1123 label", v.Name)
		}
		volumes[v.Name] = true
		if (v.ConfigMap == nil) == (v.PersistentVolumeClaim == nil) {
			t.Errorf("volume %q needs exactly one source", v.Name)
		}
	}
	if len(ps.Containers) != 1 {
		t.Fatalf("%d containers, want the one that runs the shard", len(ps.Containers))
	}
	c := ps.Containers[0]
	if !dns1123Label.MatchString(c.Name) || c.Image == "" {
		t.Errorf("container name %q image %q", c.Name, c.Image)
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		if !volumes[m.Name] || !strings.HasPrefix(m.MountPath, "/") {
			t.Errorf("volumeMount %q at %q: want a declared volume at an absolute path", m.Name, m.MountPath)
		}
		mounts[m.Name] = m.MountPath
	}
	if !slices.Equal(c.Command, []string{"/bin/sh", "-c"}) || len(c.Args) != 1 {
		t.Fatalf("command %q args %q: want /bin/sh -c and one script", c.Command, c.Args)
	}
	if strings.Contains(c.Args[0], "$(") {
		t.Errorf("args use $(…), which Kubernetes expands itself before the shell runs: write ${VAR} for the shell")
	}

	// The same command line as the Slurm script, but for the engine's
	// variables, paths and -j.
	script, _ := slurmScript(t)
	kw, sw := shellWords(t, c.Args[0]), cosimCommand(t, script)
	cpu, err := strconv.Atoi(string(c.Resources.Requests["cpu"]))
	if err != nil {
		t.Errorf("requests.cpu %q: want a whole number of CPUs for -j", c.Resources.Requests["cpu"])
	}
	if v, ok := flagValue(kw, "-j"); !ok || v != strconv.Itoa(cpu) {
		t.Errorf("the Job runs -j %q, want the %d CPUs it requests", v, cpu)
	}
	if v, ok := flagValue(sw, "-j"); !ok || v != "$SLURM_CPUS_PER_TASK" {
		t.Errorf("the Slurm script runs -j %q, want $SLURM_CPUS_PER_TASK", v)
	}
	if v, _ := flagValue(kw, "--shards"); v != strconv.Itoa(int(*s.Completions)) {
		t.Errorf("the Job runs --shards %q with completions %d", v, *s.Completions)
	}
	if v, _ := flagValue(sw, "--shards"); sbatchOption(t, script, "array") != "0-"+strconv.Itoa(mustAtoi(t, v)-1) {
		t.Errorf("the Slurm script runs --shards %s with --array=%s, want --array=0-%d", v, sbatchOption(t, script, "array"), mustAtoi(t, v)-1)
	}
	if v, _ := flagValue(kw, "-o"); !strings.HasPrefix(v, mounts["results"]+"/") || !strings.Contains(v, "${JOB_COMPLETION_INDEX}") {
		t.Errorf("the Job writes -o %q, want a file on the results volume named by ${JOB_COMPLETION_INDEX}", v)
	}
	if len(kw) < 3 || !strings.HasPrefix(kw[2], mounts["scenes"]+"/") {
		t.Errorf("the Job's scene %q is not on the scenes volume (%q)", kw[min(2, len(kw)-1)], mounts["scenes"])
	}
	norm := func(words []string, root, index string) []string {
		out := slices.Clone(words)
		for i, w := range out {
			switch {
			case i > 0 && (out[i-1] == "-j"):
				out[i] = "J"
			case i > 0 && out[i-1] == "-o":
				out[i] = strings.ReplaceAll(strings.TrimPrefix(w, root), index, "${INDEX}")
			case i == 2:
				out[i] = strings.TrimPrefix(w, root)
			}
		}
		return out
	}
	if k, s := norm(kw, "/", "${JOB_COMPLETION_INDEX}"), norm(sw, "", "${SLURM_ARRAY_TASK_ID}"); !slices.Equal(k, s) {
		t.Errorf("the Job and the Slurm script run different sweeps:\nJob:   %q\nSlurm: %q", k, s)
	}
	if _, err := os.Stat(filepath.Join("../../examples/scenes", filepath.Base(kw[2]))); err != nil || kw[0] != "cosim" || kw[1] != "sweep" {
		t.Errorf("the Job runs %q: want cosim sweep of a scene of examples/scenes (%v)", kw[:3], err)
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q is not an integer", s)
	}
	return n
}
