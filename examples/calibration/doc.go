// Command calibration fits a ball's elasticity and gravity to a recorded
// bounce: the positions in bounce.csv (90 samples over 2 s, three
// contacts, 3 mm of measurement noise) against the scene ball.json, whose
// elasticity 0.5 and gravity −8 m/s² are the starting guesses. It prints
// the estimates with their standard errors and draws the data and the
// fitted trajectory into calibration.png (or the file given with -o; the
// README shows it as docs/assets/calibration.png).
//
// The gradients are exact through the contacts (graph.Sim.Sensitivities,
// saltation jumps at the located events), so BFGS converges in a few
// iterations where differences of fixed-step runs would not
// (MADD-ANO-021).
//
// Run it from the module root: go run ./examples/calibration
// (go run ./examples/calibration -generate rewrites bounce.csv from the
// seeded "true" ball: elasticity 0.75, gravity −9.81 m/s²).
//
// Invariants: the data file is generated from a seeded model, so the fit
// is reproducible bit for bit. Concurrency: it runs on one goroutine.
package main
