package integrators

// The linear-solver side of the Newmark family's Newton iteration: the
// matrix-free product, the sparse Newton matrix assembled from a
// first-order System's Jacobian rows, and the dense one.

// initLinear sets up the linear solver once the Jacobian sources are
// known: sparse and blockOf as for newNewtonLinear.
func (c *alphaCore) initLinear(sparse bool, blockOf []int, name func(int) string) {
	c.nl = newNewtonLinear(&c.c, c.nq+c.nz, sparse, blockOf, c.jv)
	c.nl.name = name
	c.ls = c.nl.dense
	if c.sp != nil {
		c.sp.a = c.nl.A
	}
}

// jv is the matrix-free product A·v ≈ (R(x + h·v) − R(x))/h at the
// current iterate (LinearOptions.MatrixFree); R(x) is in r0.
func (c *alphaCore) jv(v, dst []float64) error {
	h := fdDirection(c.x, v)
	if h == 0 {
		clear(dst)
		return nil
	}
	for i, x := range c.x {
		c.xp[i] = x + h*v[i]
	}
	if err := c.residual(c.t0, c.t1, c.dt, c.q0, c.v0, c.z0, c.a0, c.g0, c.xp, c.rp); err != nil {
		return err
	}
	for i := range dst {
		dst[i] = (c.rp[i] - c.r0[i]) / h
	}
	return nil
}

// alphaSparse assembles the sparse Newton matrix of the Newmark family
// over the unknowns [a, z] from the rows of a first-order System's
// Jacobian J (JacobianRows or SparseJacobian):
//
//	∂R_a/∂a = (1−αm)·I − (1−αf)·(β·dt²·J_vq + γ·dt·J_vv)   at the weighted state
//	∂R_a/∂z = −(1−αf)·J_vz
//	∂R_z/∂a = −dt/2·(β·dt²·J_zq + γ·dt·J_zv)             at the endpoint
//	∂R_z/∂z = I − dt/2·J_zz
//
// (rows v: velocity components, whose rate is the acceleration; rows z:
// other components; columns q, v, z likewise). Rows of the position
// components (q' = v) are not used. The a rows come from J at the
// weighted state, the z rows from a second evaluation at the endpoint.
type alphaSparse struct {
	pt    JacobianPoint // where A was last assembled
	ad    *partAdapter
	src   *jacRows
	a     *spMatrix
	rowU  []int32 // the unknown of each row of J (its a or z row), or -1
	colU  []int32 // the unknown of each column of J
	colT  []uint8 // the type of each column of J: 0 q, 1 v, 2 z
	nq    int
	coef  [6]float64 // by column type, + 3 for z rows
	dA    float64    // 1 − αm, the a rows' diagonal
	zpass bool       // this evaluation is for the z rows
	err   error
	emit  func(int, []int32, []float64)
}

func newAlphaSparse(ad *partAdapter, src *jacRows) *alphaSparse {
	n, nq := ad.n, len(ad.pos)
	m := &alphaSparse{ad: ad, src: src, nq: nq, rowU: make([]int32, n), colU: make([]int32, n), colT: make([]uint8, n),
		pt: JacobianPoint{Y: make([]float64, n)}}
	for i := range m.rowU {
		m.rowU[i] = -1
	}
	for i, k := range ad.pos {
		m.colU[k], m.colT[k] = int32(i), 0
	}
	for i, k := range ad.vel {
		m.rowU[k], m.colU[k], m.colT[k] = int32(i), int32(i), 1
	}
	for i, k := range ad.other {
		m.rowU[k], m.colU[k], m.colT[k] = int32(nq+i), int32(nq+i), 2
	}
	if len(ad.other) > 0 {
		m.pt.YE = make([]float64, n)
	}
	m.emit = m.add
	return m
}

// add takes row r of J: the a row it gives (first evaluation) or the z
// row (second).
func (m *alphaSparse) add(r int, cols []int32, vals []float64) {
	if m.err != nil {
		return
	}
	n := len(m.rowU)
	u := -1
	if r >= 0 && r < n {
		u = int(m.rowU[r])
	}
	mine := u >= 0 && (u >= m.nq) == m.zpass // a row of this evaluation's
	if m.err = checkRow(n, r, cols, vals, mine && m.a.wasSeen(u)); m.err == nil && !checkCols(cols, n) {
		m.err = errCols(r, n)
	}
	if m.err != nil || !mine {
		return
	}
	d := m.dA
	if m.zpass {
		d = 1
	}
	if m.err == nil {
		m.err = m.a.addMapped(u, cols, vals, m.colU, m.colT, &m.coef, m.zpass, d)
	}
}

// sparseMatrix assembles the Newton matrix into nl.A at the weighted
// state of the last residual (and its endpoint when nz > 0).
func (c *alphaCore) sparseMatrix(t1, dt float64) error {
	m, ad := c.sp, c.sp.ad
	ad.scatter(c.qw, c.vw, c.zw)
	copy(m.pt.Y, ad.y)
	m.pt.T, m.pt.Dt = c.tw, dt
	if c.nz > 0 {
		c.stats.JacEvals++
		ad.scatter(c.q1, c.v1, c.z1)
		copy(m.pt.YE, ad.y)
		m.pt.TE = t1
	}
	return c.sparseAt()
}

// sparseAt assembles the Newton matrix from the Jacobians at the point
// recorded in c.sp.pt.
func (c *alphaCore) sparseAt() error {
	m, p := c.sp, c.p
	dt, t1 := m.pt.Dt, m.pt.T
	wf, he := 1-p.AlphaF, 0.5*dt
	m.coef = [6]float64{-wf * p.Beta * dt * dt, -wf * p.Gamma * dt, -wf, -he * p.Beta * dt * dt, -he * p.Gamma * dt, -he}
	m.dA = 1 - p.AlphaM
	m.a.reset()
	m.err, m.zpass = nil, false
	if err := m.src.eval(m.pt.T, m.pt.Y, m.emit); err != nil {
		return &StepError{Method: c.name, Status: Failure, T: m.pt.T, Dt: dt, Index: -1, Err: err}
	}
	if c.nz > 0 && m.err == nil {
		t1 = m.pt.TE
		m.zpass = true
		if err := m.src.eval(t1, m.pt.YE, m.emit); err != nil {
			return &StepError{Method: c.name, Status: Failure, T: t1, Dt: dt, Index: -1, Err: err}
		}
	}
	if m.err == nil {
		m.err = m.a.finish(m.dA, c.nq)
	}
	if m.err != nil {
		return &StepError{Method: c.name, Status: Failure, T: t1, Dt: dt, Index: -1, Err: m.err}
	}
	if i := m.a.nonFiniteRow(); i >= 0 {
		return &StepError{Method: c.name, Status: NonFinite, T: t1, Dt: dt, Index: c.rowComponent(i)}
	}
	return nil
}

// denseMatrix writes the Newton matrix ∂R/∂x at x (after residual at x)
// into ls.jd: from the acceleration Jacobian when nz == 0, by forward
// differences of the residual otherwise.
func (c *alphaCore) denseMatrix(dt float64, x []float64) error {
	nq, n, p, ls := c.nq, c.nq+c.nz, c.p, c.ls
	if c.nz == 0 && c.jacFn != nil {
		if err := c.jacFn(c.tw, c.qw, c.vw, c.zw, c.dadq, c.dadv); err != nil {
			return &StepError{Method: c.name, Status: Failure, T: c.tw, Dt: dt, Index: -1, Err: err}
		}
		kq := (1 - p.AlphaF) * p.Beta * dt * dt
		kv := (1 - p.AlphaF) * p.Gamma * dt
		for i := 0; i < nq; i++ {
			for j := 0; j < nq; j++ {
				ls.jd[i*nq+j] = -kq*c.dadq[i*nq+j] - kv*c.dadv[i*nq+j]
			}
			ls.jd[i*nq+i] += 1 - p.AlphaM
		}
		return nil
	}
	copy(c.xp, x)
	for j := 0; j < n; j++ {
		h := fdStep(x[j])
		c.xp[j] = x[j] + h
		h = c.xp[j] - x[j]
		if err := c.residual(c.t0, c.t1, c.dt, c.q0, c.v0, c.z0, c.a0, c.g0, c.xp, c.rp); err != nil {
			return err
		}
		c.xp[j] = x[j]
		for i := 0; i < n; i++ {
			ls.jd[i*n+j] = (c.rp[i] - c.r0[i]) / h
		}
	}
	return nil
}
