package springdamper

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cosimgo/cosim/node"
)

// Signatures: a connector's Spec, its marker layout and its batch key
// depend only on whether it has a user force function and on what its
// two bodies expose to it (type, marker fields and loads, with their
// shapes, units, roles and descriptions). Connectors of one signature
// share one immutable *sig, so that a chain of 100 000 connectors builds
// three specs, not 100 000 (Build's cost; benchmarks.BenchmarkBuild).
//
// Both caches hold immutable values behind a mutex and are keyed by
// content, never by a body's identity: a body type whose instances build
// their own spec (the ball) still maps to one bodySig per distinct
// content, so the caches grow with the number of distinct signatures a
// program uses, not with the number of connectors.

// bodySig is what one body marker contributes to a connector's
// signature, interned by content.
type bodySig struct {
	typ    string
	fields []string     // the body's MarkerFields
	loads  []string     // its MarkerLoads
	defs   []node.Field // per marker field, the body's state field or output
	ins    []node.Input // per load, the body's input
}

// markerSig is the per-marker part of a signature: offsets in the
// connector's inputs and outputs and the precomputed names of its edges.
type markerSig struct {
	in0, in1 int      // the body's marker fields, concatenated, in Inputs.Values
	velCols  []bool   // per component of the marker fields: a Velocity-role field
	fields   []string // the body's MarkerFields
	loads    []string // the body's MarkerLoads
	y0, y1   int      // the marker's load outputs (y0 == y1: not pushable)
	inNames  []string // per field, the connector's input "m<k>_<field>"
	outNames []string // per load, the connector's output "m<k>_<load>"
}

// sig is a connector signature: everything connectors with the same user
// function presence and the same bodies (by content) share.
type sig struct {
	spec *node.Spec
	// hasPE: the connector has a potential energy output (it has no user
	// force function).
	hasPE bool
	mk    [2]markerSig
	// keys is BatchKey by marker kind: keys[a][b] with a (b) 1 when
	// marker 0 (1) is a kindPoint marker, 0 otherwise.
	keys [2][2]string
	// links are the links to the bodies (Node.Attachments): per body
	// marker k, its fields into m<k>_<field>, then its loads from
	// m<k>_<load>.
	links []node.Link
}

type sigKey struct {
	hasPE bool
	body  [2]*bodySig // nil: ground
}

var sigs struct {
	sync.Mutex
	body map[string]*bodySig
	conn map[sigKey]*sig
}

// lastBody remembers the last body resolved, so that a chain of
// connectors on bodies of one spec skips the content key: a body spec is
// immutable, so the same spec with the same marker fields and loads has
// the same bodySig.
var lastBody atomic.Pointer[bodyHit]

type bodyHit struct {
	spec          *node.Spec
	fields, loads []string
	sig           *bodySig
}

// bodySigOf resolves marker k's body against its spec; the errors are
// those of an invalid marker body, made by endErr.
func bodySigOf(k int, bs *node.Spec, m node.Marker, endErr func(k int, format string, args ...any) error) (*bodySig, error) {
	fields, loads := m.MarkerFields(), m.MarkerLoads()
	if h := lastBody.Load(); h != nil && h.spec == bs && slices.Equal(h.fields, fields) && slices.Equal(h.loads, loads) {
		return h.sig, nil
	}
	b := &bodySig{typ: bs.Type, fields: slices.Clone(fields), loads: slices.Clone(loads)}
	for _, fn := range fields {
		f, ok := bodyField(bs, fn)
		if !ok {
			return nil, endErr(k, "marker %d: body %s names marker field %q, which is not a state field or output of it: %w", k, bs.Type, fn, ErrMarkerFields)
		}
		b.defs = append(b.defs, f)
	}
	for _, ln := range loads {
		i := indexInput(bs.Inputs, ln)
		if i < 0 {
			return nil, endErr(k, "marker %d: body %s names marker load %q, which is not an input of it: %w", k, bs.Type, ln, ErrMarkerFields)
		}
		b.ins = append(b.ins, bs.Inputs[i])
	}
	key := b.key()
	sigs.Lock()
	if old, ok := sigs.body[key]; ok {
		b = old
	} else {
		if sigs.body == nil {
			sigs.body = map[string]*bodySig{}
		}
		sigs.body[key] = b
	}
	sigs.Unlock()
	lastBody.Store(&bodyHit{spec: bs, fields: b.fields, loads: b.loads, sig: b})
	return b, nil
}

// key encodes everything of b that the connector's spec reads.
func (b *bodySig) key() string {
	var s strings.Builder
	s.WriteString(strconv.Quote(b.typ))
	for _, f := range b.defs {
		fmt.Fprintf(&s, "|%q %d %q %d %q", f.Name, int(f.Shape), f.Units, int(f.Role), f.Description)
	}
	s.WriteString("||")
	for i, in := range b.ins {
		fmt.Fprintf(&s, "|%q %d %q", b.loads[i], int(in.Shape), in.Units)
	}
	return s.String()
}

// sigOf returns the shared signature of a connector with (hasPE) or
// without a user force function between bodies b (nil: ground).
func sigOf(hasPE bool, b [2]*bodySig) *sig {
	k := sigKey{hasPE, b}
	sigs.Lock()
	defer sigs.Unlock()
	if s, ok := sigs.conn[k]; ok {
		return s
	}
	s := newSig(hasPE, b)
	if sigs.conn == nil {
		sigs.conn = map[sigKey]*sig{}
	}
	sigs.conn[k] = s
	return s
}

// newSig builds a signature: the connector's spec (inputs and load
// outputs from the bodies) and its marker layout.
func newSig(hasPE bool, b [2]*bodySig) *sig {
	s := &sig{hasPE: hasPE}
	var ins []node.Input
	outs := []node.Field{
		{Name: outDisplacement, Formerly: []string{"Displacement"}, Shape: node.Vec(3), Units: "m", Description: "Relative displacement $\\Delta\\mathbf{p} = \\mathbf{p}_{m1} - \\mathbf{p}_{m0}$, world frame"},
		{Name: outDistance, Formerly: []string{"Distance"}, Units: "m", Description: "Distance $L = |\\Delta\\mathbf{p}|$ between the marker points"},
		{Name: outVelocity, Formerly: []string{"Velocity"}, Shape: node.Vec(3), Units: "m/s", Description: "Relative velocity $\\Delta\\mathbf{v} = \\mathbf{v}_{m1} - \\mathbf{v}_{m0}$, world frame"},
		{Name: outForce, Formerly: []string{"Force"}, Shape: node.Vec(3), Units: "N", Description: "Connector force $\\mathbf{f}_{SD}$, world frame; it acts as $+\\mathbf{f}_{SD}$ on marker 0 and $-\\mathbf{f}_{SD}$ on marker 1"},
	}
	if hasPE {
		outs = append(outs, node.Field{Name: outPotentialEnergy, Formerly: []string{"PotentialEnergy"}, Units: "J", Description: "Elastic energy $V = \\tfrac12\\sum_i k_i(\\Delta p_i - v_{\\mathrm{off},i})^2$; zero when inactive; absent with a user force function"})
	}
	off := 0
	sign := [2]string{"$+\\mathbf{f}_{SD}$", "$-\\mathbf{f}_{SD}$"}
	for k, bk := range b {
		mk := &s.mk[k]
		if bk == nil {
			continue
		}
		mk.fields, mk.loads = bk.fields, bk.loads
		mk.in0 = off
		for i, fn := range bk.fields {
			f := bk.defs[i]
			name := fmt.Sprintf("m%d_%s", k, fn)
			mk.inNames = append(mk.inNames, name)
			ins = append(ins, node.Input{
				Name: name, Shape: f.Shape, Units: f.Units, Combine: node.Replacing,
				Description: fmt.Sprintf("Marker %d: the %s field %q: %s", k, bk.typ, fn, f.Description),
			})
			for range f.Shape.Len() {
				mk.velCols = append(mk.velCols, f.Role == node.Velocity)
			}
			off += f.Shape.Len()
		}
		mk.in1 = off
		for i, ln := range bk.loads {
			in := bk.ins[i]
			name := fmt.Sprintf("m%d_%s", k, ln)
			mk.outNames = append(mk.outNames, name)
			outs = append(outs, node.Field{
				Name: name, Shape: in.Shape, Units: in.Units,
				Description: fmt.Sprintf("Marker %d: the connector's load on the %s input %q (force %s at the marker)", k, bk.typ, ln, sign[k]),
			})
		}
	}
	s.spec = node.NewSpec(node.Spec{
		Type: TypeName, Package: pkgPath, Params: params, Inputs: ins, Outputs: outs,
		Feedthrough: true, Meta: meta,
	})
	for k := range s.mk {
		mk := &s.mk[k]
		if len(mk.loads) == 0 {
			continue
		}
		mk.y0 = s.spec.OutputOffset(mk.outNames[0])
		i := s.spec.OutputLayout.Index(mk.outNames[len(mk.outNames)-1])
		mk.y1 = s.spec.OutputLayout.Offset(i) + s.spec.Outputs[i].Shape.Len()
	}
	for k := range s.mk {
		mk := &s.mk[k]
		for i, f := range mk.fields {
			s.links = append(s.links, node.Link{End: k, BodyField: f, Port: mk.inNames[i]})
		}
		for i, l := range mk.loads {
			s.links = append(s.links, node.Link{End: k, BodyField: l, Port: mk.outNames[i], Load: true})
		}
	}
	for a := range 2 {
		for c := range 2 {
			s.keys[a][c] = s.batchKey(hasPE, b, [2]bool{a == 1, c == 1})
		}
	}
	return s
}

// batchKey is BatchKey for markers of the given kinds (point: a
// kindPoint marker, otherwise kindBody; ground markers are kindGround
// whatever point says).
//
// A connector with one ground marker has the key of its mirror image,
// ground first: the connectors at both walls of a chain (ground–mass and
// mass–ground) have specs of equal layouts — the body's marker fields
// are the inputs, its loads one output field, at the same places — and
// share one family, whose kernel reads which end of each row is the
// ground (batch.mirror).
func (s *sig) batchKey(hasPE bool, b [2]*bodySig, point [2]bool) string {
	var w strings.Builder
	order := [2]int{0, 1}
	if b[0] != nil && b[1] == nil {
		order = [2]int{1, 0}
	}
	for _, k := range order {
		kind := kindGround
		switch {
		case b[k] == nil:
		case point[k]:
			kind = kindPoint
		default:
			kind = kindBody
		}
		w.WriteString(strconv.Itoa(kind))
		if s.mk[k].y1 > s.mk[k].y0 {
			w.WriteByte('p')
		}
		if b[k] != nil {
			w.WriteString(b[k].typ)
			w.WriteString(strings.Join(b[k].fields, ","))
			w.WriteByte(';')
			w.WriteString(strings.Join(b[k].loads, ","))
		}
		w.WriteByte('|')
	}
	if !hasPE {
		w.WriteString("uf")
	}
	return w.String()
}

// groundSig is the markerSig of a ground marker: no fields, no loads.
var groundSig markerSig

// Validated parameters: New validates a Params value once and shares the
// resulting node.Values (never modified in place: SetParams replaces a
// node's map, Params returns a copy) and model with every later
// connector built from an identical Params. Only Params without a user
// force function are remembered: functions cannot be compared.

// paramKey is a Params without its ForceFunc, comparable, with floats by
// their bits (so that −0 and +0, or two NaNs, are never confused).
type paramKey struct {
	k, d, off [3]uint64
	active    bool
	item      int
	show      bool
	drawSize  uint64
	color     [4]uint64
}

func (p *Params) key() paramKey {
	bits3 := func(v [3]float64) [3]uint64 {
		return [3]uint64{math.Float64bits(v[0]), math.Float64bits(v[1]), math.Float64bits(v[2])}
	}
	return paramKey{
		k: bits3(p.Stiffness), d: bits3(p.Damping), off: bits3(p.Offset),
		active: p.Active, item: p.ItemNumber, show: p.Show, drawSize: math.Float64bits(p.DrawSize),
		color: [4]uint64{math.Float64bits(p.Color[0]), math.Float64bits(p.Color[1]), math.Float64bits(p.Color[2]), math.Float64bits(p.Color[3])},
	}
}

type validated struct {
	key  paramKey
	vals node.Values
	m    model
}

var lastParams atomic.Pointer[validated]

// checkParams validates p (node.Resolve) unless p equals the last
// Params validated, and returns its values and model.
func checkParams(p *Params) (node.Values, model, error) {
	if p.ForceFunc != nil {
		vals, err := node.Resolve(TypeName, params, nil, p.values())
		if err != nil {
			return nil, model{}, err
		}
		m, err := newModel(vals)
		return vals, m, err
	}
	key := p.key()
	if v := lastParams.Load(); v != nil && v.key == key {
		return v.vals, v.m, nil
	}
	vals, err := node.Resolve(TypeName, params, nil, p.values())
	if err != nil {
		return nil, model{}, err
	}
	m, err := newModel(vals)
	if err != nil {
		return nil, model{}, err
	}
	lastParams.Store(&validated{key: key, vals: vals, m: m})
	return vals, m, nil
}
