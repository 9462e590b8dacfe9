package graph

// JacobianPlanSizes builds the Jacobian plan of m (jacobian.go) and
// returns the lengths of what it keeps besides its per-node records:
// the arena of output rows, the stored (non-run) column sets and every
// work slice. The plan promises these do not grow with the graph for a
// chain: the arena holds the rows of the few output nodes alive at a
// time, the work is sized for the largest node, and a chain's column
// sets are runs, stored as their first column.
func (m *System) JacobianPlanSizes() map[string]int {
	p := m.plan()
	return map[string]int{
		"arena": len(p.arena), "cols": len(p.cols),
		"curCols": len(p.curCols), "srcCols": len(p.srcCols),
		"la": len(p.la), "lb": len(p.lb), "tr": len(p.tr), "trOff": len(p.trOff),
		"fp": len(p.fp), "fm": len(p.fm), "f0": len(p.f0), "xs": len(p.xs), "us": len(p.us),
		"uloc": len(p.uloc), "umark": len(p.umark), "ucol": len(p.ucol), "row": len(p.row),
		"ucnt": len(p.ucnt), "need": cap(p.need), "dir": len(p.dir), "pv": len(p.pv),
	}
}
