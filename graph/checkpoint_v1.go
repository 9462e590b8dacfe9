package graph

import (
	"errors"
	"fmt"

	"github.com/cosimgo/cosim/integrators"
)

// This file freezes the schema of version-1 checkpoint files, which
// cosim wrote (until format version 2) by marshalling the Go types
// MethodCheckpoint, integrators.Method, integrators.Settings and
// integrators.Checkpoint (the types of the time: the method struct, the
// one settings struct and the stepper state, now integrators.StepperState)
// without JSON tags: their keys were the Go field names of the time. The types below spell those keys out, so that a
// rename in integrators does not break reading old files, and
// upgrade converts a version-1 body to the version-2 schema. Never edit
// these types except to accept more of what version-1 writers wrote.

type checkpointFileV1 struct {
	Version    int               `json:"version"`
	T0         float64           `json:"t0"`
	Dt         float64           `json:"dt"`
	N          int               `json:"n"`
	Steps      int               `json:"steps"`
	Nodes      []nodeFile        `json:"nodes"` // the same keys in both versions
	Integrator *integratorFileV1 `json:"integrator,omitempty"`
	Coupling   *couplingFile     `json:"coupling,omitempty"` // the same keys in both versions
}

type integratorFileV1 struct {
	Method   methodFileV1    `json:"method"`
	Adaptive bool            `json:"adaptive,omitempty"`
	Settings *settingsFileV1 `json:"settings,omitempty"`
	State    stepperFileV1   `json:"state"`
}

type methodFileV1 struct {
	Name  string      `json:"Name"`
	Order int         `json:"Order"`
	Kind  int         `json:"Kind"`
	Alpha alphaFileV1 `json:"Alpha"`
}

// The names, in the version-2 schema, of the values the enumerations
// integrators.Kind, LinearSolver, Preconditioner and Forcing had in
// version 1.
var (
	methodKindsV1     = map[int]string{0: "explicit", 1: "implicit", 2: "structural"}
	linearSolversV1   = map[int]string{0: "", 1: "dense", 2: "gmres", 3: "banded"}
	preconditionersV1 = map[int]string{0: "", 1: "ilu0", 2: "none"}
	forcingsV1        = map[int]string{0: "", 1: "constant"}
)

// enumV1 is the version-2 name of a version-1 enumeration value.
func enumV1(v int, names map[int]string, what string) (string, error) {
	n, ok := names[v]
	if !ok {
		return "", fmt.Errorf("unknown %s %d", what, v)
	}
	return n, nil
}

type alphaFileV1 struct {
	AlphaM float64 `json:"AlphaM"`
	AlphaF float64 `json:"AlphaF"`
	Beta   float64 `json:"Beta"`
	Gamma  float64 `json:"Gamma"`
	RhoInf float64 `json:"RhoInf"`
}

type settingsFileV1 struct {
	RTol          float64   `json:"RTol"`
	ATol          float64   `json:"ATol"`
	InitialStep   float64   `json:"InitialStep"`
	MinStep       float64   `json:"MinStep"`
	MaxStep       float64   `json:"MaxStep"`
	MaxSteps      int       `json:"MaxSteps"`
	FixedStep     float64   `json:"FixedStep"`
	Output        []float64 `json:"Output"` // always null: not part of the trajectory
	EventTol      float64   `json:"EventTol"`
	ZenoLimit     int       `json:"ZenoLimit"`
	ZenoSpacing   float64   `json:"ZenoSpacing"`
	NewtonTol     float64   `json:"NewtonTol"`
	NewtonMaxIter int       `json:"NewtonMaxIter"`
	// Written by version-1 writers from the linear-solver settings on
	// (integers: the enumerations' values of the time).
	LinearSolver   int     `json:"LinearSolver"`
	Preconditioner int     `json:"Preconditioner"`
	KrylovTol      float64 `json:"KrylovTol"`
	KrylovRestart  int     `json:"KrylovRestart"`
	KrylovMaxIter  int     `json:"KrylovMaxIter"`
	Forcing        int     `json:"Forcing"`
	MatrixFree     bool    `json:"MatrixFree"`
	JacobianMaxAge int     `json:"JacobianMaxAge"`

	Positions  []int   `json:"Positions"`
	Velocities []int   `json:"Velocities"`
	IDs        []int64 `json:"IDs"`
}

type stepperFileV1 struct {
	Method       string               `json:"Method"`
	Alpha        alphaFileV1          `json:"Alpha"`
	IDs          []int64              `json:"IDs"`
	Dim          int                  `json:"Dim"`
	Clock        clockFileV1          `json:"Clock"`
	T            float64              `json:"T"`
	Y            []float64            `json:"Y"`
	F            []float64            `json:"F"`
	A            []float64            `json:"A"`
	ZDot         []float64            `json:"ZDot"`
	H            float64              `json:"H"`
	ErrPrev      float64              `json:"ErrPrev"`
	LastRejected bool                 `json:"LastRejected"`
	G            []float64            `json:"G"`
	Disarmed     []bool               `json:"Disarmed"`
	ZenoCount    int                  `json:"ZenoCount"`
	LastEventT   float64              `json:"LastEventT"`
	Stats        statsFileV1          `json:"Stats"`
	Jac          *jacobianPointFileV1 `json:"Jac,omitempty"`
}

type jacobianPointFileV1 struct {
	T   float64   `json:"T"`
	Dt  float64   `json:"Dt"`
	Y   []float64 `json:"Y"`
	TE  float64   `json:"TE"`
	YE  []float64 `json:"YE"`
	Age int       `json:"Age"`
}

type clockFileV1 struct {
	Base float64 `json:"Base"`
	N    int     `json:"N"`
	DT   float64 `json:"DT"`
}

type statsFileV1 struct {
	Steps         int `json:"Steps"`
	Rejected      int `json:"Rejected"`
	FuncEvals     int `json:"FuncEvals"`
	JacEvals      int `json:"JacEvals"`
	NewtonIters   int `json:"NewtonIters"`
	LinearSolves  int `json:"LinearSolves"`
	LinearIters   int `json:"LinearIters"`
	Factorize     int `json:"Factorize"`
	EventEvals    int `json:"EventEvals"`
	EventsHandled int `json:"EventsHandled"`
}

func (a alphaFileV1) upgrade() *alphaFile {
	return alphaToFile(integrators.AlphaParams{AlphaM: a.AlphaM, AlphaF: a.AlphaF, Beta: a.Beta, Gamma: a.Gamma, RhoInf: a.RhoInf})
}

// upgrade converts a version-1 body to the version-2 schema.
func (f *checkpointFileV1) upgrade() (*checkpointFile, error) {
	out := &checkpointFile{Version: 2, T0: f.T0, Dt: f.Dt, N: f.N, Steps: f.Steps, Nodes: f.Nodes, Coupling: f.Coupling}
	fi := f.Integrator
	if fi == nil {
		return out, nil
	}
	kind, ok := methodKindsV1[fi.Method.Kind]
	if !ok {
		return nil, fmt.Errorf("integrator method %q has unknown kind %d", fi.Method.Name, fi.Method.Kind)
	}
	ic := &integratorFile{
		Method:   methodFile{Name: fi.Method.Name, Order: fi.Method.Order, Kind: kind, Alpha: fi.Method.Alpha.upgrade()},
		Adaptive: fi.Adaptive,
	}
	if s := fi.Settings; s != nil {
		ic.Settings = &settingsFile{
			RTol: number(s.RTol), ATol: number(s.ATol),
			InitialStep: number(s.InitialStep), MinStep: number(s.MinStep), MaxStep: number(s.MaxStep),
			MaxSteps: s.MaxSteps, FixedStep: number(s.FixedStep),
			EventTol: number(s.EventTol), ZenoLimit: s.ZenoLimit, ZenoSpacing: number(s.ZenoSpacing),
			NewtonTol: number(s.NewtonTol), NewtonMaxIter: s.NewtonMaxIter,
			KrylovTol: number(s.KrylovTol), KrylovRestart: s.KrylovRestart, KrylovMaxIter: s.KrylovMaxIter,
			MatrixFree: s.MatrixFree, JacobianMaxAge: s.JacobianMaxAge,
			Positions: s.Positions, Velocities: s.Velocities, IDs: s.IDs,
		}
		var err [3]error
		ic.Settings.LinearSolver, err[0] = enumV1(s.LinearSolver, linearSolversV1, "linear solver")
		ic.Settings.Preconditioner, err[1] = enumV1(s.Preconditioner, preconditionersV1, "preconditioner")
		ic.Settings.Forcing, err[2] = enumV1(s.Forcing, forcingsV1, "forcing")
		if e := errors.Join(err[:]...); e != nil {
			return nil, e
		}
	}
	s := fi.State
	st := s.Stats
	ic.State = stepperFile{
		Method: s.Method, Alpha: s.Alpha.upgrade(), IDs: s.IDs, Dim: s.Dim,
		Clock: clockFile{Base: s.Clock.Base, N: s.Clock.N, Dt: s.Clock.DT},
		T:     s.T, Y: s.Y, F: s.F, A: s.A, ZDot: s.ZDot,
		H: number(s.H), ErrPrev: number(s.ErrPrev), LastRejected: s.LastRejected,
		G: s.G, Disarmed: s.Disarmed, ZenoCount: s.ZenoCount, LastEventT: number(s.LastEventT),
		Stats: statsFile{Steps: st.Steps, Rejected: st.Rejected, FuncEvals: st.FuncEvals, JacEvals: st.JacEvals,
			NewtonIters: st.NewtonIters, LinearSolves: st.LinearSolves, LinearIters: st.LinearIters, Factorize: st.Factorize,
			EventEvals: st.EventEvals, EventsHandled: st.EventsHandled},
	}
	if j := s.Jac; j != nil {
		ic.State.Jac = &jacobianPointFile{T: j.T, Dt: j.Dt, Y: j.Y, TE: j.TE, YE: j.YE, Age: j.Age}
	}
	out.Integrator = ic
	return out, nil
}
