package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// interrupted is the error of a command that a signal stopped after it
// saved its work: the command exits with 128 + the signal's number (130
// for SIGINT, 143 for SIGTERM), as a shell reports a killed process.
type interrupted struct {
	sig   os.Signal
	where string // where the run stopped, "t = 1.2 s (step 1200 of 5000)"
}

func (e *interrupted) Error() string {
	return fmt.Sprintf("interrupted by %s: stopped at %s", sigName(e.sig), e.where)
}

// exitCode is 128 + the signal number.
func (e *interrupted) exitCode() int { return exitCodeOf(e.sig) }

func exitCodeOf(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 130
}

func sigName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// signals watches SIGINT and SIGTERM during a command: the first cancels
// the context the command runs under (the run stops at the end of its
// current step and the command saves what it has), the second exits the
// process at once with the signal's status.
//
// With a grace period (watchSignalsGrace) the first signal only asks the
// command to stop (stopRequested), and cancels the context when the
// grace period has passed without the command stopping: `cosim run`
// stops at a step boundary through its Observer, so that the coupling
// strategy's and integrator's memory stay whole and the checkpoint it
// writes continues bit for bit; a cancelled context may interrupt a step
// half-way, which leaves that memory unusable.
type signals struct {
	ch     chan os.Signal
	done   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	got    os.Signal
	cancel context.CancelFunc
	grace  time.Duration
	timer  *time.Timer
}

// watchSignals starts watching; close stops it and restores the default
// handling.
func watchSignals(stderr io.Writer) (context.Context, *signals) {
	return watchSignalsGrace(stderr, 0)
}

// watchSignalsGrace is watchSignals whose first signal cancels the
// context only after grace (at once when grace is 0).
func watchSignalsGrace(stderr io.Writer, grace time.Duration) (context.Context, *signals) {
	ctx, cancel := context.WithCancel(context.Background())
	s := &signals{ch: make(chan os.Signal, 2), done: make(chan struct{}), cancel: cancel, grace: grace}
	signal.Notify(s.ch, os.Interrupt, syscall.SIGTERM)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			select {
			case <-s.done:
				return
			case sig := <-s.ch:
				s.mu.Lock()
				first := s.got == nil
				if first {
					s.got = sig
				}
				s.mu.Unlock()
				if !first {
					fmt.Fprintf(stderr, "\ncosim: %s again: exiting at once\n", sigName(sig))
					os.Exit(exitCodeOf(sig))
				}
				fmt.Fprintf(stderr, "\ncosim: %s: stopping at the end of the current step and saving the work done (again to exit at once)\n", sigName(sig))
				if s.grace > 0 {
					s.mu.Lock()
					s.timer = time.AfterFunc(s.grace, cancel)
					s.mu.Unlock()
				} else {
					cancel()
				}
			}
		}
	}()
	return ctx, s
}

// received is the first signal, or nil.
func (s *signals) received() os.Signal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got
}

// stopRequested says whether a signal asked the command to stop.
func (s *signals) stopRequested() bool { return s != nil && s.received() != nil }

// close stops watching.
func (s *signals) close() {
	signal.Stop(s.ch)
	close(s.done)
	s.wg.Wait()
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
	s.cancel()
}
