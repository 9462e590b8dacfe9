// Package integrators holds the time integrators of cosim: fixed-step
// explicit and implicit methods for first-order systems, error-controlled
// adaptive drivers with dense output and event localization — the
// explicit Dormand–Prince 5(4) pair and, for stiff systems, the L-stable
// ESDIRK pairs of Kennedy and Carpenter and the variable-order BDF of
// CVODE — and the Newmark family (Newmark, generalized-alpha) for
// constant-mass mechanics.
//
// The package imports nothing of cosim. Graphs and nodes use it by
// satisfying its small, index-based interfaces structurally.
//
// # Reading order
//
// system.go is what a model provides (System and its optional
// capabilities); method.go what a method is (Method, the built-in
// methods' types and options, NewStepper) and stepper.go what it gives
// (Stepper, Checkpointer, StepperState); registry.go maps names to
// methods; options.go resolves options into the conf every driver
// reads. The fixed-step methods: explicit.go (forward Euler to
// Dormand–Prince as a fixed-step method), implicit.go (backward Euler,
// trapezoid), the Newmark family in alpha.go (the step) with
// alpha_linear.go, alpha_secondorder.go and alpha_firstorder.go, and
// fixedevents.go, which stops them on time events and locates events
// for any of them by re-stepping.
// Their Newton iteration's linear algebra is newton.go over linear.go's
// choices: dense LU, banded.go, gmres.go with precond.go, on csr.go's
// sparse matrices. The adaptive drivers: adaptive.go (AdaptiveMethod,
// Driver, Integrate and the one Run loop), dopri.go with dopri_events.go
// and integrate.go (Dormand–Prince), esdirk_tableau.go and esdirk.go,
// bdf_nordsieck.go, bdf.go and bdf_fixed.go (BDF); what the implicit
// ones share is implicit_adaptive.go (options) and stagesolve.go (the
// Newton iteration with Jacobian and factorization reuse over every
// linear solver); denseevents.go locates events on any dense output;
// locate.go is the one root finder (Illinois) every event-locating
// driver uses, instant.go the event instant (every event due at one time,
// in rounds) they share; timeevents.go the TimeEventSystem. status.go and
// outcome.go are what a run reports.
//
// # Overview
//
// A model is a System (y' = f(t, y): Dim and Func) or a SecondOrder
// (q̈ = a(t, q, v, z), z' = g(t, q, v, z): Dims and Accel). Optional
// capabilities sit beside them and are found by type assertion:
//
//   - Jacobian: df/dy for the implicit methods (finite differences otherwise).
//   - JacobianRows, SparseJacobian: df/dy row by row, or on a fixed sparse
//     pattern, for the sparse solvers (Linear solvers for large systems).
//   - Blocked: a partition of the state into blocks, for block-Jacobi.
//   - Partitioned: which components are positions and which their
//     velocities (y[pos[i]]' = y[vel[i]]); needed by semi-implicit Euler and
//     by Newmark/generalized-alpha applied to a first-order System (or give
//     DriverOptions.Positions and DriverOptions.Velocities).
//   - SparseJacobian, Blocked: df/dy on a fixed sparse pattern, and the
//     blocks of the state (a graph's nodes), for the sparse, banded and
//     Krylov linear solvers.
//   - EventSystem: event functions g_i(t, y), their crossing directions and
//     reset maps, handled by every adaptive driver and by every
//     fixed-step method (see Events).
//   - TimeEventSystem: times known in advance at which f is not smooth
//     (NextTimeEvent); every driver ends a step (a fixed-step method a
//     sub-step) exactly on each, with its last stages at the left limit,
//     and restarts there.
//   - EventNamer: names of the events, for messages.
//   - AccelJacobian: ∂a/∂q and ∂a/∂v for Newmark/generalized-alpha.
//
// SystemFunc and SecondOrderFunc adapt plain functions, like
// http.HandlerFunc.
//
// # Methods
//
// A Method (an interface, like gonum's optimize.Method) is a value that
// knows its stable name, its declared order and how to make a Stepper for
// a System. The built-in methods are types whose fields are their own
// options, every zero value meaning a documented default (but ρ∞, a
// parameter: GeneralizedAlpha{} is ρ∞ = 0; ByName gives DefaultRhoInf):
//
//	ForwardEuler{}, SemiImplicitEuler{}, Heun{}, RK4{}      no options
//	DormandPrince{RTol, ATol, InitialStep, MinStep, MaxStep, FixedStep}
//	BackwardEuler{Newton, Linear}, ImplicitTrapezoid{Newton, Linear}
//	Newmark{Beta, Gamma, Newton, Linear}
//	GeneralizedAlpha{RhoInf, Newton, Linear}
//	ESDIRK43{RTol, ATol, InitialStep, MinStep, MaxStep, NewtonCoef, Newton, Linear}
//	ESDIRK32{…the same}
//	BDF{RTol, ATol, InitialStep, MinStep, MaxStep, MaxOrder, NewtonCoef, Newton, Linear}
//	NewmarkFamily{Alpha, Newton, Linear}                    not in the registry
//
// so an option cannot be given to a method that does not have it (an
// explicit method has no Newton field). Options every method shares —
// event tolerances, the system's position/velocity pairs and IDs, the
// adaptive driver's output times and step budget — are DriverOptions.
// NewStepper is the driver of every method:
//
//	st, err := integrators.NewStepper(integrators.BackwardEuler{
//		Newton: integrators.NewtonOptions{Tol: 1e-12},
//	}, sys, nil) // nil *DriverOptions: documented defaults
//	st.Init(0, y0)
//	for i := 0; i < n; i++ {
//		if err := st.Step(dt); err != nil { ... } // *StepError, state unchanged
//	}
//	t, y := st.State()
//
// A DriverOptions field that a driver does not use (Output and MaxSteps
// for a fixed-step stepper), or a DormandPrince controller field given to
// its fixed-step stepper, is an error wrapping ErrNotApplicable, never
// ignored. Optional interfaces describe what some methods also are:
// NewtonMethod (its Solver options can be read and replaced, for scene
// loaders and checkpoints) and SecondOrderMethod (the Newmark family, with
// Params and NewSecondOrder).
//
// Every method has a stable name (MethodRK4 = "rk4", ...) that node
// metadata uses to name its discretization. The registry maps names back
// to methods: ByName (any case; an unknown name's error lists the valid
// ones and suggests the nearest) returns a method with its default
// options, Names lists them and Methods returns the built-in ones. Scene
// files and the cosim command line choose methods through it and set the
// options on the value they get.
//
// # Methods of your own
//
// A method defined outside this package implements Method (Name, Order,
// New returning a Stepper), as a caller of gonum's optimize brings its
// own optimize.Method; NewStepper, graph.Sim.RunMonolithic and
// verification.MonolithicStudy accept it like a built-in one. NewStepper
// checks its name (not a built-in one) and order and its Stepper's
// identity, refuses the adaptive-only DriverOptions for it, and locates
// events for it as for the built-in methods. A Stepper that carries
// memory between steps should implement Checkpointer, or a resumed run
// restarts it from its state alone. Register adds it to the names ByName
// and Names know, so that a scene file or the cosim command line can name
// it and a graph checkpoint of a run with it can be read back. The
// registry is the one mutable package state: Register is safe for
// concurrent use, and registrations last as long as the process.
//
// An AdaptiveMethod (DormandPrince, ESDIRK43, ESDIRK32, BDF) also has an
// error-controlled Driver (NewDriver; Adaptive, from NewAdaptive, is
// Dormand–Prince's): Integrate runs one to an end time with output at
// requested times and events, and graph runs take any AdaptiveMethod
// in the mode graph.MonolithicAdaptive. StepControl is the options their step
// control shares (RTol, ATol, InitialStep, MinStep, MaxStep), read and
// set with Control and WithControl. A SecondOrderStepper runs Newmark or
// generalized-alpha on a SecondOrder with an explicit Memory, as
// described below.
//
// # Method table
//
// Costs are per step; "eval" is one call of Func or Accel, "solve" one
// dense LU factorization and solve (gonum mat.LU) of size Dim (or nq+nz).
//
//	name                 order  stability                               cost per step
//	forward-euler        1      |1+λdt| ≤ 1; grows oscillator energy    1 eval
//	semi-implicit-euler  1      symplectic; oscillators for ω·dt < 2    1 eval
//	heun                 2      explicit RK2 (real axis [−2, 0])        2 evals
//	rk4                  4      real [−2.79, 0], imaginary |ω·dt| ≤ 2√2 4 evals
//	dormand-prince       5      real ≈ [−3.3, 0]                        6 evals (FSAL; 7 on the first step)
//	backward-euler       1      L-stable, damps stiff modes             per Newton iteration: 1 eval, 1 Jacobian, 1 solve
//	implicit-trapezoid   2      A-stable, |R(∞)| = 1 (no damping)       as backward Euler, + 1 eval at the new point
//	newmark              2      β=¼, γ=½: unconditionally stable,       per Newton iteration: 1 eval (2 if nz > 0),
//	                            no numerical damping                    1 Jacobian, 1 solve
//	                     (1 if γ≠½; unconditionally stable for 2β ≥ γ ≥ ½, γ < ½ rejected)
//	generalized-alpha    2      unconditionally stable (linear),        as Newmark
//	                            spectral radius → ρ∞ as ω·dt → ∞
//	esdirk43             4      L-stable, stiffly accurate; embedded    5 implicit stages: per Newton iteration 1 eval
//	                            3rd-order estimate                      and 1 solve, the matrix I − h/4·J shared
//	esdirk32             3      L-stable, stiffly accurate; embedded    3 implicit stages, as esdirk43
//	                            2nd-order estimate
//	bdf                  1–5    orders 1, 2 L-stable, 3–5 A(α)-stable   per Newton iteration 1 eval, 1 solve; the Jacobian
//	                            (α = 86°, 73°, 51°)                     and factorization reused across steps
//
// Semi-implicit Euler on a Partitioned System is, precisely,
//
//	w_{n+1} = w_n + dt·f_w(t_n, y_n)      for every velocity and "other" component w
//	x_{n+1} = x_n + dt·v_{n+1}            for every position x = y[pos[i]], v = y[vel[i]]
//
// (the update of the cosim ball node: v += g·dt; x += v·dt). Func is
// evaluated once, at (t_n, y_n); its position rates must equal the
// velocities (checked, ErrNotPartitioned).
//
// Dormand–Prince as a Stepper ("dormand-prince" from ByName) takes the
// 5th-order solution with the caller's step. Integrate and Adaptive add
// the embedded 4th-order error estimate with the RMS norm of
// err_i/(ATol + RTol·max(|y_i|, |y_new,i|)), the PI controller of Hairer's
// DOPRI5 (safety 0.9, factor in [0.2, 10], β = 0.04, no growth right after
// a rejection), MinStep/MaxStep, and the standard 4th-order continuous
// extension for dense output (Adaptive.Dense, DriverOptions.Output). Each
// trial costs 6 evaluations; a run adds 2 at the start (first stage and
// the initial-step guess, skipped with DormandPrince.InitialStep), and 1 after
// every event. With DormandPrince.InitialStep given, the step sequence is
// DOPRI5's: on the Arenstorf orbit (RTol = ATol = 1e-7, InitialStep
// 1e-4) both take 217 accepted and 21 rejected steps
// (TestDopri5CountsArenstorf). The automatic initial step differs from
// DOPRI5's HINIT in using RMS rather than unscaled norms and in capping
// the first guess by the end time (TestDopri5CountsAutomaticStart).
//
// The implicit methods solve their stage equation by Newton's method from
// the old state (the old acceleration for the Newmark family), with the
// analytic Jacobian when the System has one and forward differences (Dim
// extra evaluations) otherwise, forming and factorizing the Jacobian on
// every iteration. The iteration stops when max|Δx| ≤ NewtonOptions.Tol·(1 +
// max|x|); on a linear problem that takes two iterations (the second
// confirms). Not converging within NewtonOptions.MaxIter, a residual growing at
// three consecutive iterations (divergence), or a singular Jacobian,
// fails the step with NewtonFailure, naming the step, time and last
// residual norm. Work counts iterations, Jacobians, factorizations and
// solves.
//
// # Adaptive implicit methods
//
// ESDIRK43 and ESDIRK32 are the implicit tableaux of Kennedy &
// Carpenter's ARK4(3)6L[2]SA and ARK3(2)4L[2]SA (Applied Numerical
// Mathematics 44, 139–181, 2003): singly diagonally implicit with an
// explicit first stage, stiffly accurate (the last stage is the
// solution) and L-stable, with embedded estimates of order 3 and 2. A
// step solves its implicit stages z − ψ − γh·f(t, z) = 0 in turn with one
// Newton matrix I − γh·J; the error estimate h·Σ(b_i − b̂_i)·k_i is held
// to the RMS norm of ATol + RTol·max(|y_n|, |y_{n+1}|) by a PI controller
// (exponents 0.7/k and 0.4/k, k = p̂ + 1), which keeps the step when the
// proposed change is within [1, 1.2] (sparing a factorization). Their
// dense output is the cubic Hermite interpolant of the step's end values
// and slopes (third order).
//
// BDF is the variable-order, variable-step backward differentiation
// formula in Nordsieck form with fixed leading coefficient (Jackson &
// Sacks-Davis 1980), with CVODE's step and order heuristics (Hindmarsh
// et al., ACM TOMS 31, 363–396, 2005): the corrector–predictor difference
// Δ estimates the local error (tq₂·Δ, in the RMS norm of the weights
// 1/(RTol·|y_n| + ATol)); after every step the factors that would make
// the estimated errors of orders q − 1, q and q + 1 about 1/6, 1/6 and
// 1/10 of the tolerance are compared, considering an order change only
// after q + 1 steps at the same order, and a step increase below 1.5× is
// not taken; a failed error test cuts the step (to 1/10 at most, and
// after three failures drops to order 1). It starts at order 1 with
// CVODE's initial step (from an estimate of ‖y″‖) and restarts at order
// 1 after an event's reset or at a time event. On W4 and the classic
// stiff problems it takes CVODE's steps within a few per cent
// (TestBDFMatchesCVODE, verification's COSIM-VER-403, and the adaptive
// W4 section of benchmarks/REPORT.md).
//
// Both solve their implicit equations by a simplified Newton iteration
// on the correction to a predictor (so that a correction far below the
// rounding of the state keeps its precision), stopped when the update
// times the estimated convergence rate is at most NewtonCoef (0.1) of the
// error test's tolerance, with at most 3 iterations; a slower iteration
// is retried once with a fresh Jacobian and matrix, then with a quarter
// of the step. The Jacobian is reused across steps (up to
// LinearOptions.JacobianMaxAge, 50 here) and the factored matrix while γh
// changes by at most 30 % (a dense or banded solve with the old γh
// scales its correction by 2/(1 + γh/γh_old)); GMRES applies the matrix
// at the current γh, solves the system scaled by the error weights to
// 0.05 of the Newton tolerance, and keeps its preconditioner while a
// solve takes at most 5 iterations. Every linear solver of the fixed-step
// implicit methods is available, on the same sparse Newton matrix: J is
// assembled from the System's Jacobian rows (or a dense J's non-zeros)
// into the matrix's structure, its true non-zeros and the diagonal, and
// its values are kept, so that I − γh·J for a new γh is one pass over
// them. A step the Newton iteration cannot
// complete even at the smallest step (16 ulp of t, or MinStep) ends the
// run with NewtonFailure (LinearFailure when the linear solver failed),
// naming the method, the time, the step size, the last residual and why;
// an error test that fails at the smallest step ends it with
// StepTooSmall. No step is accepted without passing both.
//
// Their fixed-step Steppers (New, graph.Sim.RunMonolithic) take the
// caller's step with the same Newton iteration stopped by NewtonOptions.Tol:
// ESDIRK the fourth- or third-order solution, BDF the order MaxOrder
// after MaxOrder − 1 starting steps of ESDIRK43. Both drivers and
// steppers implement ErrorEstimator (the local error estimate of the last
// step) and Checkpointer: a checkpoint holds the multistep history and
// where the reused Jacobian was evaluated (ImplicitState,
// StepperState.Jac), and a restored run re-evaluates and re-factors there
// and steps on bit for bit.
//
// # Linear solvers for large systems
//
// LinearOptions.Solver chooses how each Newton iteration is solved:
// dense LU as above, restarted GMRES(m) (Saad, Iterative Methods for
// Sparse Linear Systems, §9.3.2) with right preconditioning — block-Jacobi
// over the System's Blocked partition (a graph's nodes) or ILU(0) of the
// sparse Newton matrix — as an inexact Newton method with
// Eisenstat–Walker forcing terms (LinearOptions.Forcing), or a banded LU.
// LinearAuto, the default, is dense up to AutoDenseMax unknowns.
//
// With GMRES or the banded LU the Newton matrix (I − dt·θ·J, or the
// Newmark family's (1−αm)·I − (1−αf)·(β·dt²·J_q + γ·dt·J_v) over the
// accelerations) is assembled sparsely, never densely, from the System's
// Jacobian rows: JacobianRows (a graph's System has it), or SparseJacobian
// read through its fixed pattern. The matrix stores only the entries that
// are not zero (and the diagonal), with 32-bit column indices: 12 bytes
// an entry, its pattern re-derived at every assembly, so a System that
// declares a coarser pattern than its true non-zeros (a graph takes each
// node's local blocks as dense) costs only its true non-zeros in memory
// and in every product. ILU(0) factors that pattern (as PETSc's ILU(0) of
// a matrix assembled without zeros), its U diagonal stored inverted;
// block-Jacobi stores its blocks inverted (as PETSc's point-block Jacobi);
// the banded LU takes its bandwidths from the stored entries. The matrix
// and its preconditioner are reused across iterations and steps while
// Newton converges fast (LinearOptions.JacobianMaxAge); checkpoints record
// where it was assembled so that restoring is still bit-identical. With
// MatrixFree the product A·v is a directional difference of the residual
// instead, so the Jacobian is only needed for the preconditioner. Without
// Jacobian rows the preconditioner is built from a dense Jacobian (n²
// memory); use MatrixFree with PrecondNone for large Systems that have
// none.
//
// GMRES keeps two work vectors and a Krylov basis that grows to the
// longest restart cycle run so far (at most m+1 vectors, allocated the
// first time a cycle reaches them). Its first iteration works on the
// right-hand side itself, and a solve that converges in that one
// iteration (a good preconditioner) is applied by the Newton update as
// scale·vector, without forming the basis vector, the solution or a
// second preconditioner application. GMRES stagnation, breakdown or its
// iteration limit, and a singular preconditioner block, fail the step
// with LinearFailure (unless GMRES reduced the residual by the largest
// forcing term, 0.9, which is still an inexact Newton step). A Jacobian
// row that breaks the JacobianRows contract fails it with Failure, naming
// the row. Work.LinearIters counts GMRES iterations; Factorize counts
// preconditioner set-ups as well.
//
// # Newmark and generalized-alpha
//
// Both balance forces at weighted states (old-state weights, Chung &
// Hulbert): (1−αm)·a_{n+1} + αm·a_n = a(t_w, q_w, v_w, z_w) with
// x_w = (1−αf)·x_{n+1} + αf·x_n, and the Newmark updates
// q_{n+1} = q_n + dt·v_n + dt²·((½−β)·a_n + β·a_{n+1}),
// v_{n+1} = v_n + dt·((1−γ)·a_n + γ·a_{n+1}). Newmark is αm = αf = 0; the
// average-acceleration rule β = ¼, γ = ½ has discrete frequency
// 2/dt·atan(ω·dt/2). Generalized-alpha with ρ∞ ∈ [0, 1] uses
// αm = (2ρ∞−1)/(ρ∞+1), αf = ρ∞/(ρ∞+1), γ = ½−αm+αf, β = ¼(1−αm+αf)²; ρ∞ = 1
// is Newmark for linear forces and ρ∞ = 0 annihilates the highest
// frequencies. Extra quantities z use the endpoint trapezoid
// z_{n+1} = z_n + dt/2·(g_n + g_{n+1}), solved together with a_{n+1};
// the carried g_{n+1} comes from a final evaluation at the new endpoint.
//
// The acceleration a_n carried between steps is the algorithmic
// acceleration, not the physical a(t_n, q_n, v_n, z_n); carrying it is
// what makes the scheme second order (resetting it every step drops the
// damped variants to first order). An empty Memory starts from the
// physical acceleration (one extra evaluation). A SecondOrderStepper's
// Advance takes the accepted State and Memory and returns the next ones
// in Outcome.Memory.Latest, which also records the method, its
// parameters (RhoInf, Beta, Gamma, AlphaM, AlphaF), the layout (nq, nz)
// and the caller's DriverOptions.IDs. A Memory whose time, parameters or
// layout differ from the call's is rejected with a *StateMismatchError naming
// the field. A shorter step keeps the carried acceleration (it does not
// depend on dt); note that with ρ∞ < 1 generalized-alpha is only first
// order if the step changes persistently, since a_n approximates the
// acceleration at t_n + (αm−αf)·dt. These runners (SecondOrderStepper)
// have no error estimator, dense output or event localization.
//
// # Events
//
// After every accepted step of an adaptive driver (Dormand–Prince, ESDIRK,
// BDF) the event functions are evaluated at its end. An event i crosses
// when g_i changes sign in its direction (falling: from g > 0 to g ≤ 0;
// rising: from g < 0 to g ≥ 0; 0: either) between the start and the end
// of the step. Its time is located on the dense output by the Illinois
// method with bisection safeguards, to within DriverOptions.EventTol on
// the far side of the root (a root exactly on the step's end is located
// there). The earliest located time is the event instant te, and every
// event whose function has crossed at te is due there: the step
// is truncated at te and the instant applied (below); integration then
// continues from the state after it, or stops, as the resets' EventActions
// say. An event function that is zero at the start of a step (it just
// fired, or the run started on its surface) is unarmed: its reference
// sign is taken 64·EventTol after the start, so it can fire again once it
// has left the surface, even within the same long step. Two crossings of
// an armed g_i within one step are not seen: bound MaxStep by the
// shortest excursion you need to resolve. A step that an instant
// truncated bounds the next one: at most the controller's largest growth
// (Dormand–Prince 10, ESDIRK 5) times the truncated step (BDF restarts at
// order 1 with CVODE's initial step after every instant), so that the
// steps after a reset follow the new trajectory's time scale rather than
// grow with the previous trial step: a ball bouncing to rest is resolved
// bounce by bounce whatever the end time (TestEventsAtHugeEndTimes).
//
// Simultaneous events. Events fire together at te exactly when their
// functions have all crossed there: those whose roots lie between the
// earliest root and te (at most EventTol apart). An event whose root lies
// after te, however close, has not crossed and fires at its own root, in
// an instant of its own: applied at te, its reset would find its function
// still on its near side, armed again, and would run a second time at
// its root for the same crossing (a counter counted twice, an impulse
// given twice). So every crossing's reset runs exactly once, no event
// time moves earlier than its root, and nothing is remembered between
// instants that could hide a later, genuine crossing (a bouncing ball
// bounces every time, and the Zeno guard counts every instant). This is
// the rule of CVODE's rootfinding (Hindmarsh et al., SUNDIALS CVODE
// guide, "Rootfinding"): it returns the right end of the final bracket
// and flags exactly the components that changed sign in it.
//
// The event instant. The resets of the events due at te are applied in
// event index order, each to the state the previous one returned (dst
// holds a copy of that state on entry): round 0. Then the event
// functions are evaluated at te at the new state, and an event fires in
// the next round when its value crossed in its direction from its
// reference — its value before the round; for an event that has fired at
// this instant (or was zero), its value after the round in which it came
// to lie strictly on its near side again, so that its own reset does not
// fire it twice. The rounds repeat until no event fires; a reset
// returning EventStop ends the run at te after its round; EventDisarm
// disarms its event. An iteration still firing after EventCount +
// ZenoLimit rounds ends the run with ZenoDetected, naming the events
// still firing (their EventNamer names, a graph's "node.event"). The
// StepReport (Fired, in order) and the Outcome (one EventRecord per
// reset, with its round and the states around it) list every reset;
// Dense at te gives the state before the first.
//
// Events due at the start. An event function that is exactly zero at
// the start t0 of a run and arrives there from its near side — its value
// at t0 − 64·EventTol on the state extrapolated back along f,
// y0 − 64·EventTol·f(t0, y0), is strictly on its near side — is due at
// t0: the run starts on its crossing, and the first Step after Init
// applies the instant there (an adaptive driver's first Step then
// reports the instant alone, T0 = T1 = t0, H = 0), as FMI's event update
// at initialization and Simulink's samples at t0 do. A time event at t0
// (a sampled block's instant) is one; a ball lying on the floor (g = 0,
// not moving) or leaving it (moving up) is not. Other event functions
// zero at t0 are unarmed, as above.
//
// Time events (TimeEventSystem) are times known in advance at which f is
// not smooth. Every driver ends a step exactly on each: the adaptive
// drivers (and Dormand–Prince's fixed-step mode) shorten the step that
// would reach it, the fixed-step methods split the caller's step there
// (below); the stages of the step that ends on a time event are taken at
// its left limit (the largest float below it), and the next step starts
// from a fresh evaluation of f at its right limit. The event functions
// are evaluated at the time event as at any step end, so an event whose
// function reaches zero there (a sampled block's "sample" event) is
// located exactly on it.
//
// The fixed-step methods (NewStepper on a System with events or time
// events) handle the same events with the same rules (directions,
// unarmed starts, instants, rounds, events due at the start, EventTol,
// the Zeno guard). A step t_n → t_n + dt with time events inside is
// split into sub-steps that end on them; a sub-step shorter than the
// event tolerance is not taken (the times are one instant). After each
// sub-step the event functions are evaluated at its end; when one
// crossed, the instant is located by re-stepping: the method takes one
// step of length τ from the sub-step's start for trial values of τ
// chosen by the Illinois method, until the bracket is narrower than
// EventTol. There is no interpolant to locate on (the fixed-step methods
// have none of their own, and a Hermite one is not the method's
// trajectory), while a re-step gives the state the method itself
// computes at the located time, with its order. The instant is applied
// there and the rest of the step is integrated from the state after it
// (which may fire again); the step ends on the step-count clock at
// t_n + dt. A step without time events over which nothing crossed is the
// method's own step bit for bit, at the cost of one evaluation of the
// event functions; one with an event costs about ten to forty re-steps
// (none when the event function is exactly zero at the sub-step's end).
// The memory of a method (trapezoid's carried f, Dormand–Prince's FSAL
// stage, the Newmark family's algorithmic acceleration, BDF's history)
// is rebuilt from the state at the re-steps, after an instant and at a
// time event, as after Init; for the Newmark family that means the
// physical acceleration, the only consistent choice after a velocity
// jump. With EventStop the step ends at the instant, and Step returns a
// *StepError with Status StoppedByEvent and the state after it.
//
// Zeno behaviour (events accumulating in finite time) is guarded twice:
// a model declares the end of it with EventDisarm (for example a ball
// whose rebound speed falls below a threshold comes to rest and its
// contact event is disarmed; its Func must then keep it at rest), and
// the integrator stops with ZenoDetected when ZenoLimit consecutive event
// instants each come closer than ZenoSpacing to the previous one, or
// when an instant's iteration does not settle (above).
//
// # Invariants
//
// Inputs are never modified: y0, State, Memory and StepperState values
// passed in are read and copied. Only the receiver and slices named dst
// are written. User functions must write only their dst arguments and
// must not retain any slice they are given. Outcomes and memories hold
// fresh slices; the y returned by State is owned by the stepper and valid
// until its next Step, Init or Restore.
//
// Fixed-step explicit steps allocate nothing: work vectors are allocated
// by NewStepper. Time is computed from the step count (t = base + n·dt, the count
// restarting when dt changes), not by summing dt.
//
// # Aliasing
//
// dst arguments given to user functions never alias their inputs. A
// caller must not pass slices owned by a stepper (from State) back into
// it as inputs of Init.
//
// # Concurrency and determinism
//
// A Stepper, Adaptive or SecondOrderStepper is not safe for concurrent
// use; distinct ones are, provided the Systems they use are. A Method
// value may be shared: its New does not modify it. Register, ByName,
// Names and Methods are safe for concurrent use (the registry of
// user-defined methods is guarded by a lock; a step never touches it).
// No method uses goroutines, maps or randomness: the same inputs give
// bit-identical results on the same platform. Checkpointer.Checkpoint
// returns a plain struct (StepperState) with the complete integrator
// state, including carried derivatives, accelerations, the step-count
// clock, the PI controller memory and the event state; restoring it into
// a fresh stepper for the same System, method and options and stepping
// on is bit-identical to never having stopped. Restore rejects, with a *StateMismatchError, a checkpoint of
// another method or dimension and one whose time is corrupted: a
// non-finite T or clock, or (for every fixed-step stepper, where time is
// the step count) T ≠ Clock.Base + Clock.N·Clock.DT.
//
// # Errors and status
//
// Programmer errors (wrong slice lengths, a non-positive step, stepping
// before Init) panic with an "integrators:" prefix. User and data errors
// are returned: a failed step returns a *StepError carrying the method,
// the Status, the time, the step and, for non-finite values or partition
// violations, the component index; errors.Is(err, status.Err()) and
// errors.Is(err, cause) both hold. A failed step, or a rejected trial,
// leaves the accepted state, Memory and carried derivatives untouched.
// Integrate and Advance also return an Outcome whose Status (a
// Termination, with String and Err) says how the run ended and whose Work counts accepted and
// rejected steps, evaluations, Jacobians, Newton iterations, LU
// factorizations and solves, and events.
package integrators
