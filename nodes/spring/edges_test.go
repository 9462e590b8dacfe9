package spring_test

import (
	"errors"
	"math"
	"testing"

	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes/masspoint"
	"github.com/cosimgo/cosim/nodes/spring"
)

// min_length is the length below which the markers count as coincident
// ("less than min_length" is the error, New and Outputs alike): markers
// exactly min_length apart are not coincident. A wall at the origin and a
// mass at (0, 0, 0.5) m with min_length 0.5 m: the length √(0.5²) = 0.5
// is exact, so the spring builds, and Outputs at that length computes
// (tension k·(ℓ − ℓ₀) = 10·0.5 = 5 N) where a length one step below
// 0.5 fails with ErrCoincident naming "length". The markers lie along z
// alone, so the build-time distance must sum all three axes' squares.
func TestMinLengthIsInclusive(t *testing.T) {
	m, err := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{0, 0, 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := spring.New(spring.Params{Stiffness: 10, MinLength: 0.5}, node.GroundAt([3]float64{}), node.At(m, [3]float64{}))
	if err != nil {
		t.Fatalf("markers exactly min_length apart: %v", err)
	}
	spec := s.Spec()
	in := spec.DefaultInputs()
	pos := spec.InputOffset("m1_position")
	in.Values[pos+2] = 0.5
	y := make([]float64, spec.OutputLayout.Size())
	if err := s.Outputs(0, nil, in, y); err != nil {
		t.Fatalf("Outputs exactly min_length apart: %v", err)
	}
	if got := y[spec.OutputOffset("tension")]; got != 5 {
		t.Errorf("tension = %v N, want 5 N", got)
	}
	in.Values[pos+2] = math.Nextafter(0.5, 0)
	if err := s.Outputs(0, nil, in, y); !errors.Is(err, spring.ErrCoincident) {
		t.Errorf("Outputs just below min_length: %v, want ErrCoincident", err)
	}
	// Along z alone at the start, 1 m apart: no error.
	m2, err := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{0, 0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := spring.New(spring.Params{Stiffness: 10, MinLength: 0.5}, node.GroundAt([3]float64{}), node.At(m2, [3]float64{})); err != nil {
		t.Errorf("markers 1 m apart along z: %v", err)
	}
}

// OutputsJacobian writes the whole matrix whatever dst held (a solver
// reuses its buffer): into a dst full of NaN it gives the same matrix as
// into zeros. And it panics when dst is shorter than ny × nu, as
// documented, even when dst's capacity would hold the matrix: writing
// past len(dst) would fill memory the caller did not hand over.
func TestOutputsJacobianDst(t *testing.T) {
	m, err := masspoint.New(masspoint.Params{Mass: 1, InitialPosition: [3]float64{1, 2, 2}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := spring.New(spring.Params{Stiffness: 10, Damping: 2, RestLength: 1, MinLength: 1e-9}, node.GroundAt([3]float64{}), node.At(m, [3]float64{}))
	if err != nil {
		t.Fatal(err)
	}
	spec := s.Spec()
	in := spec.DefaultInputs()
	copy(in.Values[spec.InputOffset("m1_position"):], []float64{1, 2, 2, 0.5, -1, 0.25})
	ny, nu := spec.OutputLayout.Size(), spec.InputLayout.Size()
	zero, dirty := make([]float64, ny*nu), make([]float64, ny*nu)
	for i := range dirty {
		dirty[i] = math.NaN()
	}
	if err := s.OutputsJacobian(0, nil, in, zero); err != nil {
		t.Fatal(err)
	}
	if err := s.OutputsJacobian(0, nil, in, dirty); err != nil {
		t.Fatal(err)
	}
	for i := range zero {
		if math.Float64bits(dirty[i]) != math.Float64bits(zero[i]) {
			t.Errorf("∂%s/∂%s = %v into a NaN-filled dst, %v into zeros", spec.OutputLayout.Component(i/nu), spec.InputLayout.Component(i%nu), dirty[i], zero[i])
		}
	}
	short := make([]float64, ny*nu-1, 2*ny*nu)
	defer func() {
		if recover() == nil {
			t.Errorf("OutputsJacobian with len(dst) = %d < %d did not panic", len(short), ny*nu)
		}
	}()
	_ = s.OutputsJacobian(0, nil, in, short)
}
