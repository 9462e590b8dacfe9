package main

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cosimgo/cosim/graph"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

// A replay is what checkReplay finds about drawing a recorded history
// with a scene (cosim view and render --history): a picture drawn from a
// history that lacks a rotating body's orientation, or that belongs to
// another scene, would be wrong while looking right, so these are errors
// unless the user asks for a partial replay.
type replay struct {
	history, scene string
	// foreign are the history's columns the scene has no field for.
	foreign []string
	// missing[i] are the components the drawing of st.bodies[i] needs
	// that the history does not record.
	missing [][]component
	names   []string // st.bodies' names
	// unknown[i] describes missing[i] for the picture ("" when none).
	unknown []string
	// start lists state components whose first recorded value (at the
	// scene's start time) differs from the scene's initial state.
	start []string
}

// errReplay is the error of a history that cannot be drawn truthfully;
// errors.Is finds it.
var errReplay = errors.New("cannot be replayed")

// checkReplay compares history h with the scene st draws, at the scene's
// initial state: the history's columns must all be fields of the scene,
// it must record every state component a drawn node's picture depends on
// (stage.needs), and when it starts at t = 0 its state columns must hold
// the scene's initial state. The sim is left at its initial state.
func checkReplay(st *stage, h *graph.History, historyPath, scenePath string) (*replay, error) {
	r := &replay{history: historyPath, scene: scenePath}
	for _, c := range h.Columns {
		if _, err := st.sim.Value(c); err != nil {
			r.foreign = append(r.foreign, c)
		}
	}
	needs, err := st.needs()
	if err != nil {
		return nil, err
	}
	idx := columnIndex(h.Columns)
	r.missing = make([][]component, len(st.bodies))
	r.unknown = make([]string, len(st.bodies))
	for bi, b := range st.bodies {
		r.names = append(r.names, b.name)
		for _, c := range needs[bi] {
			if _, ok := componentColumn(c.Field, c.K, c.N, idx); !ok {
				r.missing[bi] = append(r.missing[bi], c)
			}
		}
		if len(r.missing[bi]) > 0 {
			r.unknown[bi] = componentList(r.missing[bi]) + " not recorded: drawn at the initial state"
		}
	}
	if len(h.Times) > 0 && h.Times[0] == 0 {
		for _, f := range st.stateFields {
			v := mustValue(st.sim, f)
			for k := range v {
				j, ok := componentColumn(f, k, len(v), idx)
				if !ok {
					continue
				}
				// 1e-9 relative: histories are written with every digit
				// (strconv 'g', -1), so a copy of this scene's start agrees
				// to the last bit; another start differs by far more.
				if got := h.Rows[0][j]; math.Abs(got-v[k]) > 1e-9*math.Max(1, math.Abs(v[k])) {
					r.start = append(r.start, fmt.Sprintf("%s = %s where the scene starts at %s", component{f, k, len(v)}, fmtNum(got), fmtNum(v[k])))
				}
			}
		}
	}
	return r, nil
}

func fmtNum(x float64) string { return fmt.Sprintf("%.10g", x) }

// problems lists what is wrong, one sentence each.
func (r *replay) problems() []string {
	var out []string
	if len(r.foreign) > 0 {
		out = append(out, fmt.Sprintf("it records %s, which %s does not have: it is the history of another scene", plural(len(r.foreign), "a column", "columns")+" "+listSome(r.foreign), r.scene))
	}
	var all []component
	var who []string
	for bi, m := range r.missing {
		if len(m) > 0 {
			who = append(who, r.names[bi])
		}
		for _, c := range m {
			if !slices.Contains(all, c) {
				all = append(all, c)
			}
		}
	}
	if len(all) > 0 {
		whose := "the drawing of " + who[0] + " needs"
		if len(who) > 1 {
			whose = "the drawings of " + listSome(who) + " need"
		}
		out = append(out, fmt.Sprintf("it does not record %s, which %s", componentList(all), whose))
	}
	if len(r.start) > 0 {
		out = append(out, fmt.Sprintf("at t = 0 it records %s: it is the history of another scene, or of a run with other --set flags (give the same --set flags here)", listSome(r.start)))
	}
	return out
}

// err is the refusal of a replay with problems, or nil when there are
// none or the user allowed a partial replay.
func (r *replay) err(allowPartial bool) error {
	ps := r.problems()
	if len(ps) == 0 || allowPartial {
		return nil
	}
	how := "use the history of a run of this scene with the same --set flags, or add --allow-partial to draw it anyway"
	if slices.ContainsFunc(r.missing, func(m []component) bool { return len(m) > 0 }) {
		how = "record what is missing (cosim run --record-drawing records every field the drawing needs), or add --allow-partial to draw what is known and mark the rest"
	}
	return fmt.Errorf("%s %w with %s: %s; %s", r.history, errReplay, r.scene, strings.Join(ps, "; "), how)
}

// note says what a partial replay leaves out ("" when nothing).
func (r *replay) note() string {
	ps := r.problems()
	if len(ps) == 0 {
		return ""
	}
	s := fmt.Sprintf("%s: %s", r.history, strings.Join(ps, "; "))
	if slices.ContainsFunc(r.unknown, func(u string) bool { return u != "" }) {
		s += "; the nodes whose drawing is incomplete are marked"
	}
	if len(r.foreign) > 0 {
		s += "; the columns of another scene are ignored"
	}
	return s
}

// componentList names components compactly (componentNames), the first
// few of them.
func componentList(cs []component) string { return listSome(componentNames(cs)) }

// componentNames names components as record.fields entries: a field whose
// every component is among them by its name ("bar.orientation"), others
// one by one ("bar.position[2]").
func componentNames(cs []component) []string {
	var out []string
	for i := 0; i < len(cs); {
		j := i
		for j < len(cs) && cs[j].Field == cs[i].Field {
			j++
		}
		if j-i == cs[i].N {
			out = append(out, cs[i].Field)
		} else {
			for _, c := range cs[i:j] {
				out = append(out, c.String())
			}
		}
		i = j
	}
	return out
}

// listSome joins up to eight items, then says how many more.
func listSome(items []string) string {
	const most = 8
	if len(items) <= most {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:most], ", ") + fmt.Sprintf(" and %d more", len(items)-most)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// drawingNeeds returns the state components the drawing of the scene
// needs (stage.needs of every drawn node, each once, in node order), with
// sim the scene compiled.
func drawingNeeds(sc *scene.Scene, sim *graph.Sim) ([]component, error) {
	st, err := newStage(sc, sim, node.DefaultDrawSettings())
	if err != nil {
		return nil, err
	}
	needs, err := st.needs()
	if err != nil {
		return nil, err
	}
	var all []component
	for _, cs := range needs {
		for _, c := range cs {
			if !slices.Contains(all, c) {
				all = append(all, c)
			}
		}
	}
	return all, nil
}

// unrecorded returns the components of cs that the recorded fields
// ("node.field" or "node.field[k]") do not include, as record.fields
// entries: a whole field when none of it is recorded.
func unrecorded(cs []component, recorded []string) []string {
	var miss []component
	for _, c := range cs {
		if !slices.Contains(recorded, c.Field) && !slices.Contains(recorded, c.String()) {
			miss = append(miss, c)
		}
	}
	return componentNames(miss)
}

// addDrawingFields adds to the scene's recorded fields the state fields
// its drawing needs (cosim run --record-drawing), so that cosim view and
// render --history can replay the history; it returns what it added.
func addDrawingFields(path string, sc *scene.Scene) ([]string, error) {
	sim, err := sc.Compile(nodes.Registry(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	needs, err := drawingNeeds(sc, sim)
	if err != nil {
		return nil, err
	}
	add := unrecorded(needs, sc.Record.Fields)
	sc.Record.Fields = append(slices.Clip(sc.Record.Fields), add...)
	return add, nil
}

// replayHint is the line cosim run prints after writing a history that
// cosim view and render --history could not replay: what it lacks and
// the flag that records it ("" when nothing is lacking or nothing is
// drawn).
func replayHint(sc *scene.Scene, sim *graph.Sim) string {
	needs, err := drawingNeeds(sc, sim)
	if err != nil || len(needs) == 0 {
		return ""
	}
	miss := unrecorded(needs, sc.Record.Fields)
	if len(miss) == 0 {
		return ""
	}
	return fmt.Sprintf("cosim: this history lacks %s, which cosim view and render --history need to draw the scene: add --record-drawing to record them", listSome(miss))
}
