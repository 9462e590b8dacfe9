package integrators

// The linear-solver side of the Newmark family's Newton iteration: the
// matrix-free product, the sparse Newton matrix assembled from a
// first-order SparseJacobian, and the dense one.

// initLinear sets up the linear solver once the Jacobian sources are
// known: pattern and blockOf as for newNewtonLinear.
func (c *alphaCore) initLinear(pattern *CSR, blockOf []int, name func(int) string) {
	c.nl = newNewtonLinear(&c.c, c.nq+c.nz, pattern, blockOf, c.jv)
	c.nl.name = name
	c.ls = c.nl.dense
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
// over the unknowns [a, z] from a first-order System's SparseJacobian J:
//
//	∂R_a/∂a = (1−αm)·I − (1−αf)·(β·dt²·J_vq + γ·dt·J_vv)   at the weighted state
//	∂R_a/∂z = −(1−αf)·J_vz
//	∂R_z/∂a = −dt/2·(β·dt²·J_zq + γ·dt·J_zv)             at the endpoint
//	∂R_z/∂z = I − dt/2·J_zz
//
// (rows v: velocity components, whose rate is the acceleration; rows z:
// other components; columns q, v, z likewise). Rows of the position
// components (q' = v) are not used.
type alphaSparse struct {
	pt     JacobianPoint // where A was last assembled
	ad     *partAdapter
	sj     SparseJacobian
	jw, je []float64 // J at the weighted state, at the endpoint (nz > 0)
	dst    []int     // entry of A for each entry of J, or -1
	kind   []uint8   // 3·(row is z) + column type (0 q, 1 v, 2 z)
	diag   []int
}

func newAlphaSparse(ad *partAdapter, sj SparseJacobian) (*alphaSparse, *CSR, error) {
	n, nq, nz := ad.n, len(ad.pos), len(ad.other)
	rp, col := sj.JacobianPattern()
	if err := checkPattern(n, rp, col); err != nil {
		return nil, nil, err
	}
	rowU, colU := make([]int, n), make([]int, n)
	colT := make([]uint8, n)
	for i := range rowU {
		rowU[i] = -1
	}
	for i, k := range ad.pos {
		colU[k], colT[k] = i, 0
	}
	for i, k := range ad.vel {
		rowU[k], colU[k], colT[k] = i, i, 1
	}
	for i, k := range ad.other {
		rowU[k], colU[k], colT[k] = nq+i, nq+i, 2
	}
	pb := newPatternBuilder(nq + nz)
	for i := 0; i < nq+nz; i++ {
		pb.add(i, i)
	}
	for r := 0; r < n; r++ {
		if rowU[r] < 0 {
			continue
		}
		for k := rp[r]; k < rp[r+1]; k++ {
			pb.add(rowU[r], colU[col[k]])
		}
	}
	A := pb.build()
	m := &alphaSparse{ad: ad, sj: sj, jw: make([]float64, len(col)), dst: make([]int, len(col)), kind: make([]uint8, len(col)), diag: make([]int, nq+nz),
		pt: JacobianPoint{Y: make([]float64, n)}}
	if nz > 0 {
		m.je = make([]float64, len(col))
		m.pt.YE = make([]float64, n)
	}
	for i := range m.diag {
		m.diag[i] = A.find(i, i)
	}
	for r := 0; r < n; r++ {
		for k := rp[r]; k < rp[r+1]; k++ {
			if rowU[r] < 0 {
				m.dst[k] = -1
				continue
			}
			m.dst[k] = A.find(rowU[r], colU[col[k]])
			m.kind[k] = colT[col[k]]
			if rowU[r] >= nq {
				m.kind[k] += 3
			}
		}
	}
	return m, A, nil
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
	if err := m.sj.SparseJacobian(m.pt.T, m.pt.Y, m.jw); err != nil {
		return &StepError{Method: c.name, Status: Failure, T: m.pt.T, Dt: dt, Index: -1, Err: err}
	}
	if c.nz > 0 {
		t1 = m.pt.TE
		if err := m.sj.SparseJacobian(t1, m.pt.YE, m.je); err != nil {
			return &StepError{Method: c.name, Status: Failure, T: t1, Dt: dt, Index: -1, Err: err}
		}
	}
	wf, he := 1-p.AlphaF, 0.5*dt
	coef := [6]float64{-wf * p.Beta * dt * dt, -wf * p.Gamma * dt, -wf, -he * p.Beta * dt * dt, -he * p.Gamma * dt, -he}
	A := c.nl.A
	clear(A.Val)
	for k, d := range m.dst {
		if d < 0 {
			continue
		}
		kd := m.kind[k]
		v := m.jw[k]
		if kd >= 3 {
			v = m.je[k]
		}
		A.Val[d] += coef[kd] * v
	}
	for i, d := range m.diag {
		if i < c.nq {
			A.Val[d] += 1 - p.AlphaM
		} else {
			A.Val[d]++
		}
	}
	if k := firstNonFinite(A.Val); k >= 0 {
		return &StepError{Method: c.name, Status: NonFinite, T: t1, Dt: dt, Index: rowOf(A.RowPtr, k)}
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
