// Package benchmarks holds cosim's standard performance workloads, their
// hand-written baselines and their correctness checks. The Go benchmarks
// (go test -bench . ./benchmarks/) and the report command
// (go run ./benchmarks/report, which writes REPORT.md and cost-vs-n.png)
// run them; README.md says how and records the profile.
//
// # Workloads
//
// W1 chain-N: N point masses (masspoint, 1 kg) in a line, joined by N+1
// Cartesian spring-dampers (springdamper, k = 1000 N/m and c = 1 N·s/m on
// every world axis) with ground markers at both ends. The springs have zero
// length and both walls sit at the origin, so the chain is in equilibrium
// with every mass at the origin and the x coordinate of mass i is its
// displacement u_i: no coordinate of size N is subtracted from another,
// and the error measure stays free of cancellation at N = 100 000. (A
// Cartesian spring acts along the world axes between its markers, not
// along the line joining them, so coincident rest points are a legitimate
// linear chain.) The chain starts at rest in its first mode,
// u_i = 0.01·sin(πi/(N+1)), and runs 1000 steps of 1 ms.
//
// Exact solution. With K = k·tridiag(−1, 2, −1) and C = c·tridiag(−1, 2,
// −1) the modes φ_j,i = sin(jπi/(N+1)) diagonalise both: λ_j =
// 4·sin²(jπ/(2(N+1))), q̈_j + (cλ_j/m)·q̇_j + (kλ_j/m)·q_j = 0. So
// ω_j = 2·√(k/m)·sin(jπ/(2(N+1))), σ_j = cλ_j/(2m) = ζ_j·ω_j with the
// damping ratio ζ_j = c·ω_j/(2k), and from rest
// q_j(t) = q_j(0)·e^{−σt}·(cos ω_d t + (σ/ω_d)·sin ω_d t), ω_d =
// √(ω² − σ²) ([Chain.Exact]). Every run reports its error against it
// ([Chain.Measure]): relative to the amplitude, relative to how far the
// chain has moved (mode 1 of 100 000 masses moves only 5e-9 m in 1 s),
// and in velocity.
//
// W1b: the same chain with every mode excited, a_j = 0.01/j, for the
// adaptive Dormand–Prince driver through the graph (Sim.Integrate) against
// the same driver hand-written over flat arrays.
//
// W2 bounce: a ball dropped from 10 m onto a table, e = 0.9, 10 s:
// event-localized adaptive integration (Sim.Integrate) against fixed-step
// co-simulation (Sim.Run), impact-time errors against the analytic
// impacts.
//
// W3 two-mass: the cost per step of Newmark and generalized-alpha ρ∞ = 0.5
// on the MADDENING two-mass guide's two-mass problem, with right-hand sides and Newton
// iterations counted. The accuracy table belongs to
// benchmarks/structuralmodes.
//
// W4 stiff chain ([StiffChain]): the W1 chain with k = 1e7 N/m and
// c = 10 N·s/m on every axis, first mode, dt = 1 ms (ω_max·dt ≈ 6.3:
// explicit methods are unstable), integrated monolithically by backward
// Euler and generalized-alpha with dense LU (small N) and GMRES with
// block-Jacobi or ILU(0) up to N = 100 000 (600 000 states), against the
// same damped modal solution. Its peers ([W4Peers], the C programs of
// benchmarks/peers) solve the same problem with PETSc's TS (GMRES with
// ILU(0) or point-block Jacobi) and SUNDIALS' ARKODE (band LU), with
// cosim's Newton test and Jacobian reuse, so that the report compares
// cosim with them in the same run. go run ./benchmarks/report -w4
// measures it alone; go run ./benchmarks/stiffscene writes its 20 000-mass
// scene, examples/scenes/stiff-chain-20000.json.
//
// W4 adaptive ([RunStiffAdaptive]): W4 from rest to 21 ms with error
// control at RTol 1e-6, ATol 1e-9, by the adaptive implicit methods
// (integrators.BDF, ESDIRK43) through graph.Sim.Run, against CVODE's
// BDF with its band solver (benchmarks/peers/cvode_w4.c, the same state
// layout and an analytic band Jacobian), counting right-hand sides and
// Jacobians alike. go run ./benchmarks/report -w4a measures it alone.
//
// W5 corners ([Corners]): 100 wheel-suspension corners (a 40 kg wheel on
// a tire spring to the ground, a 400 kg body on a suspension
// spring-damper), 1000 semi-implicit Euler steps of 1 ms, built once as
// 100 graph.Subsystem values ([Corner]) and once as the same 400 nodes
// wired flat by hand. Build flattens subsystems, so the two must step in
// the same time and end in the same bits; the ratio is the cost of
// composing. go run ./benchmarks/report -w5 measures it alone.
//
// W6 control ([PIDLoops], [ControlFamily]): 1000 PID position loops,
// each the PID mass-spring scene (examples/scenes/pid-mass-spring.json:
// a 1 kg mass on a spring-damper to the ground, a reference stepping to
// 1 m at 0.5 s) with a sensor lag on the measured position and a
// saturating actuator, three components each; and, per control block
// type, 1000 blocks fed by sine sources with a lag reading each output.
// Each graph is built twice, the control blocks with their batch kernels
// and wrapped in [PerNode] so that the graph steps them one by one; the
// two end in the same bits, and the ratio of their step times is what
// the kernels save. go run ./benchmarks/report -w6 measures it alone.
//
// # Baselines
//
// [HandSIE], [HandRK4] and [HandDP] are the chain coded directly over one
// flat []float64 with the graph's state layout: the same floating-point
// operations in the same order as the nodes, without interfaces, input
// buffers or checks. They agree with the graph to round-off (tested), so a
// ratio of their times is the framework's cost.
//
// # Concurrency
//
// Every constructor returns a new graph, so workloads may be built and run
// from several goroutines at once; one graph is run by one goroutine at a
// time, and the worker count of a run is the benchmark's choice (one
// unless the name says otherwise), so a ratio never mixes parallel speed-up
// with framework cost.
package benchmarks
