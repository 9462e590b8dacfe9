package control

import (
	"sync/atomic"

	"github.com/cosimgo/cosim/node"
)

// lti is a linear time-invariant system ẋ = Ax + Bu, y = Cx + Du with n
// states, m inputs and q outputs, matrices row-major. The transfer
// function and state-space blocks realize themselves as one.
//
// An lti is immutable once a block has published it (ltiBlock):
// SetParams realizes a new one, so that a batch kernel's rows, which
// copy the pointer, see the change, and the cached discretization below
// belongs to one set of matrices.
//
// Update uses the zero-order-hold discretization x⁺ = Φx + Γu of the
// step dt, computed on first use of each dt (a matrix exponential) and
// cached: a run with a fixed step computes it once and then allocates
// nothing per step. The cache is one atomic pointer, so concurrent
// Updates (distinct slices, the node contract) are safe; calls with
// alternating steps recompute it, correctly.
type lti struct {
	n, m, q    int
	a, b, c, d []float64
	x0         []float64
	zoh        atomic.Pointer[zohMap]
}

// zohMap is the discretization of one step length.
type zohMap struct {
	dt       float64
	phi, gam []float64
}

// discrete returns Φ and Γ for dt.
func (s *lti) discrete(dt float64) *zohMap {
	if z := s.zoh.Load(); z != nil && z.dt == dt {
		return z
	}
	phi, gam := zohDiscretize(s.a, s.b, s.n, s.m, dt)
	z := &zohMap{dt: dt, phi: phi, gam: gam}
	s.zoh.Store(z)
	return z
}

// step writes x⁺ = Φx + Γu into dst: the exact solution over dt with u
// held.
func (s *lti) step(dt float64, x, u, dst []float64) {
	z := s.discrete(dt)
	affine(z.phi, x[:s.n], z.gam, u[:s.m], dst[:s.n])
}

// derivatives writes ẋ = Ax + Bu into dst.
func (s *lti) derivatives(x, u, dst []float64) { affine(s.a, x[:s.n], s.b, u[:s.m], dst[:s.n]) }

// outputs writes y = Cx + Du into dst.
func (s *lti) outputs(x, u, dst []float64) { affine(s.c, x[:s.n], s.d, u[:s.m], dst[:s.q]) }

// affine writes M x + N u into dst, M being len(dst) × len(x) and N
// len(dst) × len(u), row-major; the terms of a row are added in column
// order, x's before u's.
func affine(m, x, n, u, dst []float64) {
	nx, nu := len(x), len(u)
	for i := range dst {
		v := 0.0
		for j, xj := range x {
			v += m[i*nx+j] * xj
		}
		for j, uj := range u {
			v += n[i*nu+j] * uj
		}
		dst[i] = v
	}
}

// ltiBlock is what the transfer-function and state-space blocks share:
// the published system (node.Published, so that a batch kernel's rows
// see every SetParams).
type ltiBlock struct {
	block
	cur node.Published[*lti]
}

// sys returns the current system; never write it (SetParams publishes a
// new one).
func (b *ltiBlock) sys() *lti { return *b.cur.Get() }

// InitialState writes the initial state into dst.
func (b *ltiBlock) InitialState(dst []float64) {
	s := b.sys()
	copy(dst[:s.n], s.x0)
}

// Update advances the state over dt with the input held: the exact
// zero-order-hold step x⁺ = Φx + Γu.
func (b *ltiBlock) Update(t, dt float64, x []float64, in node.Inputs, dst []float64) error {
	if err := checkDt(b.typ, dt); err != nil {
		return err
	}
	s := b.sys()
	s.step(dt, x, in.Values[:s.m], dst)
	return nil
}

// Derivatives writes ẋ = Ax + Bu into dst.
func (b *ltiBlock) Derivatives(t float64, x []float64, in node.Inputs, dst []float64) error {
	s := b.sys()
	s.derivatives(x, in.Values[:s.m], dst)
	return nil
}

// Outputs writes y = Cx + Du into dst.
func (b *ltiBlock) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	s := b.sys()
	s.outputs(x, in.Values[:s.m], dst)
	return nil
}

// OutputsJacobian writes ∂y/∂u = D into dst.
func (b *ltiBlock) OutputsJacobian(t float64, x []float64, in node.Inputs, dst []float64) error {
	s := b.sys()
	copy(dst[:s.q*s.m], s.d)
	return nil
}

// DerivativesJacobian writes ∂f/∂x = A and ∂f/∂u = B.
func (b *ltiBlock) DerivativesJacobian(t float64, x []float64, in node.Inputs, dstX, dstU []float64) error {
	s := b.sys()
	if dstX != nil {
		copy(dstX, s.a)
	}
	if dstU != nil {
		copy(dstU, s.b)
	}
	return nil
}

// feedthrough reports whether D has a nonzero entry.
func (s *lti) feedthrough() bool {
	for _, v := range s.d {
		if v != 0 {
			return true
		}
	}
	return false
}
