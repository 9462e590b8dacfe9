package graph

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/node"
)

// CheckpointVersion is the version of the checkpoint file format that
// Encode writes (docs/checkpoint-format.md). DecodeCheckpoint also reads
// every older version (MinCheckpointVersion and after), converting it.
const CheckpointVersion = 2

// MinCheckpointVersion is the oldest checkpoint file format
// DecodeCheckpoint reads.
const MinCheckpointVersion = 1

// MaxCheckpointBytes bounds the size of a checkpoint file that
// ReadCheckpoint accepts, so a hostile file cannot exhaust memory.
const MaxCheckpointBytes = 1 << 30

// Checkpoint is a complete snapshot of a simulation: every node's state,
// its parameters and layout (to reject restoring into a graph that does
// not match), the clock, the monolithic integrator's own memory when the
// last run was monolithic, and the coupling strategy's cross-step memory
// when it was a Run with CoSimulation.Coupling. It is plain data: save it
// with WriteFile and read it back with ReadCheckpoint.
//
// These Go types are the in-memory form only: the file format is a
// separate, explicitly tagged schema (docs/checkpoint-format.md) that
// Encode and DecodeCheckpoint convert to and from, so renaming a field
// here or in package integrators does not change the files. Version is
// CheckpointVersion for a checkpoint of this build and for one decoded
// from any file version (older files are converted).
type Checkpoint struct {
	Version int
	T0      float64 // time of step 0 of the current base
	Dt      float64 // step of the current base
	N       int     // steps since T0
	Steps   int     // steps since Build
	Nodes   []NodeCheckpoint
	// Integrator is the monolithic stepper's memory (carried derivatives,
	// algorithmic acceleration; for Integrate the adaptive controller,
	// FSAL stage and event state), with its method, parameters and
	// settings, when the last run was RunMonolithic or Integrate and
	// nothing has changed the state since; nil otherwise.
	Integrator *MethodCheckpoint
	// Coupling is the cross-step memory of the last Run with
	// CoSimulation.Coupling (the strategy; each iterated group's predictor
	// history and accelerator memory), when nothing has changed the state
	// since; nil otherwise. A Sim restored from it continues only under
	// the same strategy and step (Sim.ResetCoupling drops it).
	Coupling *CouplingCheckpoint
	// Run is the mode and method of the run the checkpoint was taken in
	// or after ("co-simulation <strategy>", "monolithic <method>",
	// "adaptive <method>"); "" when the Sim had not run (or the file is
	// older). A Sim restored from it continues only with a run of the same
	// mode and strategy or method (Sim.ResetCoupling and
	// Sim.ResetIntegrator lift that).
	Run string
	// Err, when not nil, is why the checkpoint is incomplete: a node
	// whose model keeps hidden state (node.HiddenState, an imported FMU)
	// could not save it. Encode, WriteFile and Sim.Restore return it. It
	// is not part of the file.
	Err error
}

// NodeCheckpoint is one node's part of a Checkpoint.
type NodeCheckpoint struct {
	Name   string
	Type   string
	Layout []FieldSize
	Params map[string]any // node.Tunable nodes; functions left out
	State  []float64
	// Hidden is a node.HiddenState node's snapshot of its own state.
	Hidden []byte
}

// FieldSize names a state field and its number of values.
type FieldSize struct {
	Name string
	Size int
}

// MethodCheckpoint is a monolithic integrator's method (with its
// parameters and options), the driver options it ran with and its
// memory. A restored Sim continues it only with the same method,
// parameters, options and driver options.
type MethodCheckpoint struct {
	// Method is the method of the run, with its options: an
	// integrators.AdaptiveMethod with its tolerances for an adaptive run.
	Method integrators.Method
	// Adaptive marks the memory of an adaptive driver (step-size
	// controller, the method's memory, events) rather than of a
	// RunMonolithic stepper.
	Adaptive bool
	// Options are the driver options of the run (Output left out: the
	// file format does not hold it); nil means the defaults, as in
	// checkpoints written before they were recorded.
	Options *integrators.DriverOptions
	State   integrators.StepperState
}

// Time is the checkpoint's simulation time.
func (c *Checkpoint) Time() float64 { return c.T0 + float64(c.N)*c.Dt }

// Checkpoint snapshots the simulation. It copies everything it keeps.
// A node whose model keeps hidden state (node.HiddenState) adds its
// snapshot; when one cannot (an FMU that cannot serialize its state), the
// checkpoint records the error, naming the node, in Checkpoint.Err, and
// writing or restoring the checkpoint returns it.
func (s *Sim) Checkpoint() *Checkpoint {
	c := &Checkpoint{Version: CheckpointVersion, T0: s.t0, Dt: s.dt, N: s.n, Steps: s.steps}
	for _, cn := range s.nodes {
		nc := NodeCheckpoint{Name: cn.name, Type: cn.spec.Type, State: append([]float64{}, s.state[cn.x0:cn.x1]...)}
		l := cn.spec.StateLayout
		for i := 0; i < l.Len(); i++ {
			nc.Layout = append(nc.Layout, FieldSize{l.Field(i).Name, l.Field(i).Shape.Len()})
		}
		nc.Params = paramsOf(cn.n)
		nc.Hidden, c.Err = saveHidden(cn.name, cn.n, c.Err)
		c.Nodes = append(c.Nodes, nc)
	}
	if s.monoCurrent() {
		if st, ok := s.mono.checkpoint(); ok {
			c.Integrator = &MethodCheckpoint{Method: s.mono.method, Adaptive: s.mono.adaptive,
				Options: cloneOptions(s.mono.opts), State: st}
		}
	}
	c.Coupling = s.couplingCheckpoint()
	c.Run = s.lastRun
	return c
}

// paramsOf returns a node's parameters as canonical JSON values (what a
// checkpoint file holds), leaving out functions.
func paramsOf(n node.Node) map[string]any {
	tn, ok := node.As[node.Tunable](n)
	if !ok {
		return nil
	}
	out := map[string]any{}
	for k, v := range tn.Params() {
		if p, ok := n.Spec().Param(k); ok && p.Kind == node.Function {
			continue
		}
		out[k] = canonical(v)
	}
	return out
}

// canonical round-trips v through JSON so that values compare alike
// whether they come from a node ([]float64, int) or a file ([]any, float64).
func canonical(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// MismatchError says exactly how a checkpoint differs from the graph it
// is restored into.
type MismatchError struct {
	Differences []string
}

func (e *MismatchError) Error() string {
	return "graph: checkpoint does not match this graph:\n\t" + strings.Join(e.Differences, "\n\t")
}

// Restore replaces the simulation's state, clock, (for a monolithic
// checkpoint) integrator memory and (for a coupled one) coupling memory
// with c's, so that continuing gives results bit-identical to the run that
// was checkpointed. Coupling memory is continued only by a Run with the
// same CoSimulation.Coupling and Dt: another strategy or step is an error
// naming the difference (Sim.ResetCoupling drops the memory). The node
// set, types, state layouts and parameters must match the graph's; otherwise nothing
// changes and a *MismatchError lists every difference.
func (s *Sim) Restore(c *Checkpoint) error {
	if c == nil {
		return errors.New("graph: Restore: the checkpoint is nil; read one with ReadCheckpoint or take one with Sim.Checkpoint")
	}
	if c.Err != nil {
		return c.Err
	}
	var diffs []string
	if c.Version != CheckpointVersion {
		diffs = append(diffs, fmt.Sprintf("format version %d, this cosim reads %d", c.Version, CheckpointVersion))
	}
	if len(c.Nodes) != len(s.nodes) {
		diffs = append(diffs, fmt.Sprintf("%d nodes in the checkpoint, %d in the graph", len(c.Nodes), len(s.nodes)))
	}
	for i := 0; i < min(len(c.Nodes), len(s.nodes)); i++ {
		nc, cn := c.Nodes[i], &s.nodes[i]
		where := fmt.Sprintf("node %d", i)
		if nc.Name != cn.name {
			diffs = append(diffs, fmt.Sprintf("%s is %q in the checkpoint, %q in the graph", where, nc.Name, cn.name))
			continue
		}
		where = "node " + cn.name
		if nc.Type != cn.spec.Type {
			diffs = append(diffs, fmt.Sprintf("%s has type %s in the checkpoint, %s in the graph", where, nc.Type, cn.spec.Type))
			continue
		}
		l := cn.spec.StateLayout
		var want []FieldSize
		for k := 0; k < l.Len(); k++ {
			want = append(want, FieldSize{l.Field(k).Name, l.Field(k).Shape.Len()})
		}
		if !sameLayout(cn.spec, cn.name, want, nc.Layout) {
			diffs = append(diffs, fmt.Sprintf("%s: state layout %v in the checkpoint, %v in the graph", where, nc.Layout, want))
		} else if len(nc.State) != int(cn.x1)-int(cn.x0) {
			diffs = append(diffs, fmt.Sprintf("%s: %d state values in the checkpoint, %d in the layout", where, len(nc.State), cn.x1-cn.x0))
		}
		for j, v := range nc.State {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				diffs = append(diffs, fmt.Sprintf("%s: state value %s is not finite", where, l.Component(j)))
				break
			}
		}
		diffs = append(diffs, hiddenDiff(where, cn.n, nc.Hidden)...)
		have := paramsOf(cn.n)
		for _, k := range sortedKeys(have, nc.Params) {
			a, inG := have[k]
			b, inC := nc.Params[k]
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(canonical(b))
			switch {
			case !inC && isDefaultParam(cn.spec, k, ja):
				// A parameter the node gained after the checkpoint was
				// written (cosim view's show, draw_size and color): the
				// run continues with the default it then had implicitly.
			case !inC:
				diffs = append(diffs, fmt.Sprintf("%s: parameter %s is not in the checkpoint", where, k))
			case !inG:
				diffs = append(diffs, fmt.Sprintf("%s: the checkpoint has parameter %s, which the node does not", where, k))
			case !bytes.Equal(ja, jb):
				diffs = append(diffs, fmt.Sprintf("%s: parameter %s is %s in the checkpoint, %s in the graph", where, k, jb, ja))
			}
		}
	}
	if math.IsNaN(c.Time()) || math.IsInf(c.Time(), 0) || c.N < 0 || c.Steps < 0 || c.Dt < 0 {
		diffs = append(diffs, fmt.Sprintf("clock t0=%v dt=%v n=%d steps=%d is invalid", c.T0, c.Dt, c.N, c.Steps))
	}
	var mono *monoState
	if c.Integrator != nil && len(diffs) == 0 {
		m, err := s.restoreMono(c)
		if err != nil {
			diffs = append(diffs, "integrator: "+err.Error())
		}
		mono = m
	}
	var cplan *coupledPlan
	if c.Coupling != nil && len(diffs) == 0 {
		var cd []string
		cplan, cd = s.restoreCoupling(c.Coupling)
		diffs = append(diffs, cd...)
	}
	if len(diffs) > 0 {
		return &MismatchError{Differences: diffs}
	}
	if err := s.restoreHidden(c); err != nil {
		return err
	}
	for i, nc := range c.Nodes {
		copy(s.state[s.nodes[i].x0:s.nodes[i].x1], nc.State)
	}
	s.t0, s.dt, s.n, s.steps, s.outputsFresh = c.T0, c.Dt, c.N, c.Steps, false
	s.mono = mono
	s.lastPlan = cplan
	s.lastRun, s.resumeRun = c.Run, c.Run
	if cplan != nil {
		s.stampPlan(cplan)
	}
	return nil
}

func (s *Sim) restoreMono(c *Checkpoint) (_ *monoState, err error) {
	// A hostile or corrupted file can hold memory of the wrong shape,
	// on which the integrators' Restore may panic: report it instead.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed integrator checkpoint: %v", r)
		}
	}()
	ic := c.Integrator
	sys, err := s.System()
	if err != nil {
		return nil, err
	}
	if ic.Method == nil {
		return nil, errors.New("integrator checkpoint without a method")
	}
	m := &monoState{method: ic.Method, adaptive: ic.Adaptive, opts: cloneOptions(ic.Options), sys: sys, restored: true, runs: 1}
	var cp integrators.Checkpointer
	if ic.Adaptive {
		am, ok := ic.Method.(integrators.AdaptiveMethod)
		if !ok {
			return nil, fmt.Errorf("adaptive method %s has no adaptive driver (not an integrators.AdaptiveMethod)", ic.Method.Name())
		}
		a, err := am.NewDriver(sys, ic.Options)
		if err != nil {
			return nil, err
		}
		m.ad, cp = a, a
	} else {
		st, err := integrators.NewStepper(ic.Method, sys, ic.Options)
		if err != nil {
			return nil, err
		}
		var ok bool
		if cp, ok = st.(integrators.Checkpointer); !ok {
			return nil, fmt.Errorf("method %s cannot restore", ic.Method.Name())
		}
		m.st = st
	}
	if err := cp.Restore(ic.State); err != nil {
		return nil, err
	}
	if t, y := m.state(); t != c.Time() || len(y) != len(s.state) {
		return nil, fmt.Errorf("integrator time %v differs from the checkpoint's %v", t, c.Time())
	}
	return m, nil
}

func sortedKeys(a, b map[string]any) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range []map[string]any{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

const checkpointMagic = "cosim-checkpoint"

// Encode writes c in the checkpoint file format, version
// CheckpointVersion (docs/checkpoint-format.md): a header line
// "cosim-checkpoint <version> <length> sha256:<hex>" and the JSON body of
// that length whose SHA-256 is given. The body follows the format's own
// tagged schema, not c's Go field names. Floats are written in the
// shortest form that reads back exactly, so a restore is bit-identical.
func (c *Checkpoint) Encode(w io.Writer) error {
	f, err := c.toFile()
	if err != nil {
		return fmt.Errorf("graph: checkpoint: %w", err)
	}
	body, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("graph: checkpoint: %w", err)
	}
	sum := sha256.Sum256(body)
	if _, err := fmt.Fprintf(w, "%s %d %d sha256:%s\n", checkpointMagic, CheckpointVersion, len(body), hex.EncodeToString(sum[:])); err != nil {
		return err
	}
	_, err = w.Write(body)
	return err
}

// WriteFile saves c to path atomically: it writes a temporary file in the
// same directory, syncs it and renames it over path, so a crash while
// saving never destroys the previous checkpoint.
func (c *Checkpoint) WriteFile(path string) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("graph: checkpoint: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriter(f)
	if err = c.Encode(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// ErrCorruptCheckpoint is the errors.Is target of every error about a
// truncated, corrupted or malformed checkpoint file.
var ErrCorruptCheckpoint = errors.New("corrupt checkpoint")

// ErrCheckpointVersion is the errors.Is target of the error about a
// well-formed header naming a format version this cosim does not read
// (one written by a newer cosim, or older than MinCheckpointVersion).
var ErrCheckpointVersion = errors.New("unsupported checkpoint format version")

// DecodeCheckpoint reads a checkpoint in the format Encode writes, or in
// any older format version from MinCheckpointVersion on (converted to the
// current in-memory form), verifying the header, the length and the
// checksum before decoding strictly (an unknown key is an error); nothing
// is returned from a file that fails any check.
func DecodeCheckpoint(r io.Reader) (*Checkpoint, error) {
	br := bufio.NewReader(io.LimitReader(r, MaxCheckpointBytes+4096))
	header, err := br.ReadString('\n')
	bad := func(f string, a ...any) (*Checkpoint, error) {
		return nil, fmt.Errorf("graph: checkpoint: %s: %w", fmt.Sprintf(f, a...), ErrCorruptCheckpoint)
	}
	if err != nil {
		return bad("header line: %v (an empty or truncated file?)", err)
	}
	fields := strings.Fields(header)
	if len(fields) != 4 || fields[0] != checkpointMagic || !strings.HasPrefix(fields[3], "sha256:") {
		return bad("header line %q is not \"cosim-checkpoint <version> <length> sha256:<hex>\"", strings.TrimSpace(header))
	}
	version, err := strconv.Atoi(fields[1])
	if err != nil {
		return bad("format version %q is not a number", fields[1])
	}
	n, err := strconv.Atoi(fields[2])
	if err != nil || n < 0 || n > MaxCheckpointBytes {
		return bad("body length %s is invalid or above the limit of %d bytes", fields[2], MaxCheckpointBytes)
	}
	// Read what is there, at most n bytes: a header claiming a huge body
	// does not make us allocate it before the data arrives.
	body, err := io.ReadAll(io.LimitReader(br, int64(n)))
	if err != nil {
		return bad("body: %v", err)
	}
	if len(body) != n {
		return bad("body is truncated: %d of %d bytes", len(body), n)
	}
	if extra, _ := br.Peek(1); len(extra) > 0 {
		return bad("data after the %d-byte body", n)
	}
	sum := sha256.Sum256(body)
	if hex.EncodeToString(sum[:]) != strings.TrimPrefix(fields[3], "sha256:") {
		return bad("checksum mismatch: the body was modified or corrupted")
	}
	// The version is judged on an intact file, so that a damaged header
	// reads as damage, not as another version.
	if version < MinCheckpointVersion || version > CheckpointVersion {
		return nil, fmt.Errorf("graph: checkpoint: format version %d; this cosim reads versions %d to %d: %w", version, MinCheckpointVersion, CheckpointVersion, ErrCheckpointVersion)
	}
	f, err := decodeBody(version, body)
	if err != nil {
		return bad("body: %v", err)
	}
	c, err := f.checkpoint()
	if err != nil {
		return bad("body: %v", err)
	}
	return c, nil
}

// decodeBody decodes a body of the given format version strictly into the
// current schema, converting older versions.
func decodeBody(version int, body []byte) (*checkpointFile, error) {
	strict := func(v any) error {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			return err
		}
		if dec.More() {
			return errors.New("data after the JSON value")
		}
		return nil
	}
	var (
		f      *checkpointFile
		inBody int
		err    error
	)
	switch version {
	case 1:
		var v1 checkpointFileV1
		if err = strict(&v1); err != nil {
			return nil, err
		}
		inBody = v1.Version
		f, err = v1.upgrade()
	default:
		f = new(checkpointFile)
		err = strict(f)
		inBody = f.Version
	}
	if err != nil {
		return nil, err
	}
	if inBody != version {
		return nil, fmt.Errorf("version %d differs from the header's %d", inBody, version)
	}
	return f, nil
}

// ReadCheckpoint reads a checkpoint file written by WriteFile.
func ReadCheckpoint(path string) (*Checkpoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("graph: checkpoint: %w", err)
	}
	defer f.Close()
	return DecodeCheckpoint(f)
}

// isDefaultParam reports whether value (JSON) is parameter name's
// declared default in spec.
func isDefaultParam(spec *node.Spec, name string, value []byte) bool {
	for _, p := range spec.Params {
		if p.Name == name {
			d, err := json.Marshal(canonical(p.Default))
			return err == nil && bytes.Equal(d, value)
		}
	}
	return false
}

// sameLayout reports whether a checkpoint's state layout got is the
// graph's, want: the same fields in the same order with the same sizes,
// where a field may go by a name it had before it was renamed
// (node.Field.Formerly), so that checkpoints written before a rename
// still restore; each former name is logged once as deprecated.
func sameLayout(spec *node.Spec, instance string, want, got []FieldSize) bool {
	if len(want) != len(got) {
		return false
	}
	for k, w := range want {
		g := got[k]
		if g.Size != w.Size {
			return false
		}
		if g.Name == w.Name {
			continue
		}
		if cur, ok := spec.Renamed(g.Name); !ok || cur != w.Name {
			return false
		}
	}
	for k, w := range want {
		if got[k].Name != w.Name {
			spec.WarnRenamed(instance, got[k].Name)
		}
	}
	return true
}
