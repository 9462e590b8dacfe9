package graph

// Packed output columns. In the flat output buffer Sim.outputs every
// node's outputs sit together in its Spec's layout, so the few outputs a
// step reads (a connector's two loads, 6 of its 17 values) are spread one
// row apart: a family writes and reads back two cache lines per row for
// 48 bytes of data. compactOutputs moves the output fields that only
// families read into engine.packed, in node order, field by field, so
// that those rows are dense. The per-node path never reads engine.packed:
// it computes every output into Sim.outputs, and Sim.Value and recording
// read Sim.outputs. A batched step therefore computes its outputs itself
// (engine.step), even when Sim.outputs is fresh. Coupled Runs keep the
// views of Sim.outputs (engine.views): their iterated groups and stage
// replays evaluate outputs per node.
//
// A field moves only if its writer family's rows and every reading
// family's rows stay affine in engine.packed (kernels and views address
// rows as base + i·stride); fields that would break that stay in
// Sim.outputs. The placement is found by shrinking the set of moved
// fields until every view is affine, which terminates because fields only
// ever leave.

// compactOutputs chooses the fields kept in engine.packed and rewrites the
// families' output views and input terms that reach them. It runs at the
// end of Build, after compileNeeds.
func (e *engine) compactOutputs() {
	s := e.layout
	// Candidates: fields of a family that some family reads and no loose
	// node reads (loose nodes gather from Sim.outputs).
	type fieldKey struct{ fam, field int }
	cand := map[fieldKey]bool{}
	for k, f := range e.families {
		for fi := range f.need {
			if f.need[fi] && !f.looseRead[fi] {
				cand[fieldKey{k, fi}] = true
			}
		}
	}
	if len(cand) == 0 {
		return
	}
	owner := make([]int32, len(e.buf.outputs)) // the node writing each value of Sim.outputs
	for i := range s.nodes {
		c := &s.nodes[i]
		for o := c.y0; o < c.y1; o++ {
			owner[o] = int32(i)
		}
	}
	packedAt := make([]int, len(e.buf.outputs)) // per Sim.outputs offset: its offset in engine.packed, or −1
	for {
		// Lay out engine.packed in node order from the current candidates.
		for i := range packedAt {
			packedAt[i] = -1
		}
		size := 0
		for i := range s.nodes {
			k := e.famOf[i]
			if k < 0 {
				continue
			}
			c := &s.nodes[i]
			l := c.spec.OutputLayout
			for fi := 0; fi < l.Len(); fi++ {
				if !cand[fieldKey{int(k), fi}] {
					continue
				}
				o := int(c.y0) + l.Offset(fi)
				for q := 0; q < l.Field(fi).Shape.Len(); q++ {
					packedAt[o+q] = size
					size++
				}
			}
		}
		// Drop the candidates whose writer rows or reader rows are not
		// affine in engine.packed; lay out again until nothing is dropped.
		dropped := false
		for k, f := range e.families {
			if f.yn == 0 {
				continue
			}
			for fi := range f.outs {
				if cand[fieldKey{k, fi}] && !affineIn(packedAt, f.outs[fi], len(f.rows)) {
					delete(cand, fieldKey{k, fi})
					dropped = true
				}
			}
		}
		for _, f := range e.families {
			for ii := range f.in {
				for _, t := range f.in[ii].terms {
					if t.buf != bufOutputs {
						continue
					}
					mixed := false
					first := packedAt[t.off] >= 0
					for r := range f.rows {
						if (packedAt[t.off+r*t.stride] >= 0) != first {
							mixed = true
						}
					}
					if first && (mixed || !affineIn(packedAt, t, len(f.rows))) || mixed {
						// Keep every source field of this term in Sim.outputs.
						for r := range f.rows {
							if k, fi := e.outputField(owner, t.off+r*t.stride); k >= 0 && cand[fieldKey{k, fi}] {
								delete(cand, fieldKey{k, fi})
								dropped = true
							}
						}
					}
				}
			}
		}
		if !dropped {
			if size == 0 {
				return
			}
			e.packed = make([]float64, size)
			for _, f := range e.families {
				f.keepFull()
				for fi := range f.outs {
					if v := &f.outs[fi]; v.buf == bufOutputs && packedAt[v.off] >= 0 {
						*v = toPacked(packedAt, *v, len(f.rows))
					}
				}
				for ii := range f.in {
					for ti := range f.in[ii].terms {
						if t := &f.in[ii].terms[ti]; t.buf == bufOutputs && packedAt[t.off] >= 0 {
							*t = toPacked(packedAt, *t, len(f.rows))
							f.in[ii].readsOutput = true
						}
					}
				}
			}
			return
		}
	}
}

// affineIn reports whether rows [0, n) of v, mapped through packedAt, start
// at affine offsets in engine.packed with a non-negative stride and keep each
// row's components contiguous.
func affineIn(packedAt []int, v view, n int) bool {
	p0 := packedAt[v.off]
	if p0 < 0 {
		return false
	}
	stride := 0
	if n > 1 {
		if packedAt[v.off+v.stride] < 0 {
			return false
		}
		stride = packedAt[v.off+v.stride] - p0
	}
	if stride < 0 {
		return false
	}
	for r := 0; r < n; r++ {
		if packedAt[v.off+r*v.stride] != p0+r*stride {
			return false
		}
	}
	return true
}

// toPacked rewrites a view of Sim.outputs as the same rows in engine.packed.
func toPacked(packedAt []int, v view, n int) view {
	p := view{buf: bufPacked, off: packedAt[v.off]}
	if n > 1 {
		p.stride = packedAt[v.off+v.stride] - p.off
	}
	return p
}

// outputField returns the family index and output field of Sim.outputs offset
// o (owner maps offsets to nodes), or −1 when a loose node writes it.
func (e *engine) outputField(owner []int32, o int) (int, int) {
	i := owner[o]
	k := int(e.famOf[i])
	if k < 0 {
		return -1, 0
	}
	c := &e.layout.nodes[i]
	l := c.spec.OutputLayout
	for fi := 0; fi < l.Len(); fi++ {
		if off := int(c.y0) + l.Offset(fi); o >= off && o < off+l.Field(fi).Shape.Len() {
			return k, fi
		}
	}
	return -1, 0
}

// keepFull saves the family's views of Sim.outputs before compactOutputs rewrites
// them: coupled Runs use those (see engine.views).
func (f *family) keepFull() {
	f.outsFull = append([]view(nil), f.outs...)
	f.inFull = make([]famInput, len(f.in))
	for ii, in := range f.in {
		in.terms = append([]view(nil), in.terms...)
		f.inFull[ii] = in
	}
}
