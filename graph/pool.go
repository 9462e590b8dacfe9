package graph

import "sync"

// pool is a set of worker goroutines that live for one Run, so that a
// step hands out work without starting goroutines or allocating. The
// caller's goroutine takes the first chunk of every phase itself.
type pool struct {
	workers int
	wg      sync.WaitGroup
	work    chan job
	done    chan struct{}
	errs    []error // per chunk, read after every chunk is done
}

type job struct {
	s     *Sim
	phase int
	tasks []int32
	t, dt float64
	chunk int
}

func startPool(workers int) *pool {
	p := &pool{workers: workers, work: make(chan job), done: make(chan struct{}, workers), errs: make([]error, workers)}
	for w := 1; w < workers; w++ {
		p.wg.Go(func() {
			for j := range p.work {
				p.errs[j.chunk] = j.s.evalNodes(j.phase, j.tasks, j.t, j.dt)
				p.done <- struct{}{}
			}
		})
	}
	return p
}

// do splits tasks into contiguous chunks, one per worker, and returns the
// error of the first chunk (in task order) that failed.
func (p *pool) do(s *Sim, phase int, tasks []int32, t, dt float64) error {
	n := len(tasks)
	w := p.workers
	bounds := func(c int) (int, int) { return c * n / w, (c + 1) * n / w }
	for c := 1; c < w; c++ {
		lo, hi := bounds(c)
		p.work <- job{s: s, phase: phase, tasks: tasks[lo:hi], t: t, dt: dt, chunk: c}
	}
	lo, hi := bounds(0)
	p.errs[0] = s.evalNodes(phase, tasks[lo:hi], t, dt)
	for c := 1; c < w; c++ {
		<-p.done
	}
	for _, err := range p.errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *pool) stop() {
	close(p.work)
	p.wg.Wait()
}
