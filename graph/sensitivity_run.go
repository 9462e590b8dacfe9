package graph

import (
	"context"
	"fmt"
	"math"

	"github.com/cosimgo/cosim/integrators"
)

// The loops of Sim.Sensitivities: the adaptive Dormand–Prince driver with
// dense output and the fixed-step methods with events located by
// re-stepping, and the recorder that turns [y, S] into rows.

// sensRecorder appends rows to a Sensitivity.
type sensRecorder struct {
	a    *sensSys
	refs []pathRef
	res  *Sensitivity
}

// row records (t, Y).
func (r *sensRecorder) row(t float64, Y []float64) error {
	a := r.a
	n, np := a.n, a.np
	vals := make([]float64, len(r.refs))
	ds := make([]float64, len(r.refs)*np)
	var outs []int
	for k, ref := range r.refs {
		if ref.fromY {
			outs = append(outs, k)
			continue
		}
		vals[k] = Y[ref.off]
		for j := 0; j < np; j++ {
			ds[k*np+j] = Y[n+j*n+ref.off]
		}
	}
	if len(outs) > 0 {
		o := make([]float64, len(outs))
		at := func(t float64, y, out []float64) error {
			return a.at(t, y, func(*int32) error {
				for q, k := range outs {
					out[q] = a.s.outputs[r.refs[k].off]
				}
				return nil
			})
		}
		if err := at(t, Y[:n], o); err != nil {
			return err
		}
		for q, k := range outs {
			vals[k] = o[q]
		}
		// Along S: y(p_j ± h) ≈ y ± h·S_j, differenced with the parameter.
		col := make([]float64, len(outs))
		err := a.withFrozenLoops(t, Y[:n], func() error {
			for j := 0; j < np; j++ {
				if err := a.diff(paramDir(j, Y[n+j*n:n+(j+1)*n]), t, Y[:n], at, col); err != nil {
					return err
				}
				for q, k := range outs {
					ds[k*np+j] = col[q]
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	r.res.Times = append(r.res.Times, t)
	r.res.Values = append(r.res.Values, vals)
	r.res.D = append(r.res.D, ds)
	return nil
}

// runAdaptive steps the augmented system with adaptive Dormand–Prince and
// event localization.
func (a *sensSys) runAdaptive(ctx context.Context, t0 float64, Y0 []float64, opts *SensitivityOptions, mode MonolithicAdaptive, rec *sensRecorder) error {
	rec.res.Method = integrators.MethodDormandPrince + " (adaptive)"
	var set integrators.DriverOptions
	if mode.Options != nil {
		set = *mode.Options
	}
	dp := mode.Method.(integrators.DormandPrince) // sensitivityMode checked it
	out := opts.Output
	for i, t := range out {
		if math.IsNaN(t) || t < t0 || t > opts.End || (i > 0 && t < out[i-1]) {
			return fmt.Errorf("graph: Sensitivities: Output[%d] = %v not ascending within [%v, %v]", i, t, t0, opts.End)
		}
	}
	ad, err := integrators.NewAdaptive(dp, a, &set)
	if err != nil {
		return err
	}
	if err := ad.Init(t0, Y0); err != nil {
		return a.s.monoError(err)
	}
	defer func() { rec.res.Work = ad.Work() }()
	k := 0
	if out == nil {
		if err := rec.row(t0, Y0); err != nil {
			return err
		}
	}
	for k < len(out) && out[k] == t0 {
		if err := rec.row(t0, Y0); err != nil {
			return err
		}
		k++
	}
	buf := make([]float64, a.Dim())
	maxSteps := set.MaxSteps
	if maxSteps <= 0 {
		maxSteps = 10_000_000
	}
	for steps := 0; ; steps++ {
		t, _ := ad.State()
		if !(t < opts.End) {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if steps >= maxSteps {
			return fmt.Errorf("graph: Sensitivities: %d steps before t=%v reached End %v", steps, t, opts.End)
		}
		rep, err := ad.Step(opts.End)
		if err != nil {
			return a.s.monoError(err)
		}
		for k < len(out) && out[k] <= rep.T1 {
			ad.Dense(out[k], buf)
			if err := rec.row(out[k], buf); err != nil {
				return err
			}
			k++
		}
		if out == nil {
			if rep.Event >= 0 {
				ad.Dense(rep.T1, buf)
				if err := rec.row(rep.T1, buf); err != nil {
					return err
				}
			}
			t1, y := ad.State()
			if err := rec.row(t1, y); err != nil {
				return err
			}
		}
		t1, y1 := ad.State()
		stop, err := a.m.sensCompleted(t1, y1[:a.n])
		if err != nil {
			return err
		}
		if stop || rep.Event >= 0 && rep.Action == integrators.EventStop {
			break
		}
	}
	return nil
}

// runFixed steps the augmented system with a fixed-step method.
func (a *sensSys) runFixed(ctx context.Context, t0 float64, Y0 []float64, opts *SensitivityOptions, mode Monolithic, rec *sensRecorder) error {
	rec.res.Method = mode.Method.Name()
	steps := int(math.Round((opts.End - t0) / opts.Dt))
	if steps < 1 {
		return fmt.Errorf("graph: Sensitivities: End %v is less than one step %v after %v", opts.End, opts.Dt, t0)
	}
	st, err := integrators.NewStepper(mode.Method, a, mode.Options)
	if err != nil {
		return err
	}
	if err := st.Init(t0, Y0); err != nil {
		return a.s.monoError(err)
	}
	defer func() { rec.res.Work = st.Work() }()
	if err := rec.row(t0, Y0); err != nil {
		return err
	}
	every := max(opts.RecordEvery, 1)
	for k := 1; k <= steps; k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := st.Step(opts.Dt); err != nil {
			return a.s.monoError(err)
		}
		tk, y := st.State()
		stop, err := a.m.sensCompleted(tk, y[:a.n])
		if err != nil {
			return err
		}
		if k%every == 0 || k == steps || stop {
			if err := rec.row(t0+float64(k)*opts.Dt, y); err != nil {
				return err
			}
		}
		if stop {
			break
		}
	}
	return nil
}
