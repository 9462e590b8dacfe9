package verification

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cosimgo/cosim/internal/numtest"
	"github.com/cosimgo/cosim/node"
)

// kernelBench is a family's kernel with arguments laid out as the graph
// lays out a family whose rows are contiguous: state, inputs and outputs
// packed row after row. The state is the members' initial state (unit
// quaternions for rigid bodies), the inputs small random loads.
type kernelBench struct {
	rows int
	b    node.Batch
	args node.BatchArgs
	in   []node.Strided
	out  []node.Strided
}

func newKernelBench(members []node.Node) *kernelBench {
	s := members[0].Spec()
	n := len(members)
	k := &kernelBench{rows: n, b: members[0].(node.Batcher).NewBatch(members)}
	nx, ny := s.StateLayout.Size(), s.OutputLayout.Size()
	x := make([]float64, n*nx)
	for i, m := range members {
		m.InitialState(x[i*nx : (i+1)*nx])
	}
	rng := rand.New(rand.NewPCG(1, 1))
	present := make([]bool, len(s.Inputs))
	for ii, in := range s.Inputs {
		nk := in.Shape.Len()
		buf := make([]float64, n*nk)
		for j := range buf {
			buf[j] = 0.1 * rng.NormFloat64()
		}
		k.in = append(k.in, node.Strided{Buf: buf, Stride: nk})
		present[ii] = true
	}
	y := make([]float64, n*ny)
	for f := range s.OutputLayout.Len() {
		k.out = append(k.out, node.Strided{Buf: y, Off: s.OutputLayout.Offset(f), Stride: ny})
	}
	k.args = node.BatchArgs{
		Dt: 1e-3, X: node.Strided{Buf: x, Stride: nx}, Dst: node.Strided{Buf: make([]float64, n*nx), Stride: nx},
		In: k.in, Out: k.out, Present: present,
	}
	return k
}

// run calls method m over every row in blocks of 128, as the graph does.
func (k *kernelBench) run(m batchMethod) error {
	a := &k.args
	for lo := 0; lo < k.rows; lo += 128 {
		a.Lo, a.Hi = lo, min(lo+128, k.rows)
		var err error
		switch m {
		case mUpdate:
			err = k.b.(node.BatchUpdater).Update(a)
		case mOutputs:
			err = k.b.(node.BatchOutputter).Outputs(a)
		case mDerivs:
			err = k.b.(node.BatchDeriver).Derivatives(a)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// methods lists the methods the kernel has work for.
func (k *kernelBench) methods(s *node.Spec) []batchMethod {
	var ms []batchMethod
	if s.StateLayout.Size() > 0 {
		ms = append(ms, mUpdate)
		if _, ok := k.b.(node.BatchDeriver); ok {
			ms = append(ms, mDerivs)
		}
	}
	if _, ok := k.b.(node.BatchOutputter); ok && s.OutputLayout.Size() > 0 {
		ms = append(ms, mOutputs)
	}
	return ms
}

// familyByName returns the batchFamilies entry called name.
func familyByName(name string) batchFamily {
	for _, f := range batchFamilies() {
		if f.name == name {
			return f
		}
	}
	panic("no family " + name)
}

// TestKernelsAllocateNothing: every kernel method of every family makes
// no allocation per call in steady state (the graph's hot path allocates
// nothing).
func TestKernelsAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for fi, fam := range batchFamilies() {
		members := fam.build(t, rand.New(rand.NewPCG(uint64(fi), 3)), 300)
		k := newKernelBench(members)
		for _, m := range k.methods(members[0].Spec()) {
			var err error
			allocs := numtest.AllocsPerRun(20, func() { err = k.run(m) })
			if err != nil {
				t.Errorf("%s %s: %v", fam.name, m, err)
			}
			if allocs != 0 {
				t.Errorf("%s %s: %v allocations per call over 300 rows, want 0", fam.name, m, allocs)
			}
		}
	}
}

// benchKernel benchmarks the kernel methods of the named families over
// 1024 rows; ns/row is the cost of one row.
func benchKernel(b *testing.B, names ...string) {
	for _, name := range names {
		fam := familyByName(name)
		members := fam.build(b, rand.New(rand.NewPCG(9, 9)), 1024)
		k := newKernelBench(members)
		for _, m := range k.methods(members[0].Spec()) {
			sub := m.String()
			if len(names) > 1 {
				sub = fmt.Sprintf("%s/%s", name, m)
			}
			b.Run(sub, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_ = k.run(m)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(k.rows), "ns/row")
			})
		}
	}
}

func BenchmarkKernelBall(b *testing.B)        { benchKernel(b, "ball") }
func BenchmarkKernelTable(b *testing.B)       { benchKernel(b, "table") }
func BenchmarkKernelConstant(b *testing.B)    { benchKernel(b, "constant") }
func BenchmarkKernelMasspoint(b *testing.B)   { benchKernel(b, "masspoint") }
func BenchmarkKernelRigidbody2d(b *testing.B) { benchKernel(b, "rigidbody2d") }
func BenchmarkKernelRigidbody(b *testing.B) {
	benchKernel(b, "rigidbody/free", "rigidbody/hinge", "rigidbody/fixed", "rigidbody/gimbal")
}
func BenchmarkKernelSpringdamper(b *testing.B) {
	benchKernel(b, "springdamper/point-point", "springdamper/ground-point", "springdamper/rigid-rigid",
		"springdamper/point-point-userforce", "springdamper/ball-point")
}
func BenchmarkKernelSine(b *testing.B)   { benchKernel(b, "sine/1", "sine/3") }
func BenchmarkKernelStep(b *testing.B)   { benchKernel(b, "step/1", "step/3") }
func BenchmarkKernelRamp(b *testing.B)   { benchKernel(b, "ramp/1", "ramp/3") }
func BenchmarkKernelPulse(b *testing.B)  { benchKernel(b, "pulse/1", "pulse/3") }
func BenchmarkKernelLookup(b *testing.B) { benchKernel(b, "lookup/1", "lookup/3") }
func BenchmarkKernelSpring(b *testing.B) {
	benchKernel(b, "spring/point-point", "spring/ground-point", "spring/point-rigid", "spring/rigid-rigid")
}
