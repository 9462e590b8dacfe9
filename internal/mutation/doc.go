// Command mutation runs mutation testing over cosim's numerical core and
// keeps the result honest: it is how we check that the tests catch what
// they claim to.
//
// Usage, from the repository root:
//
//	go run ./internal/mutation                    # every package: node, integrators, coupling, nodes, nodes/*, graph (last)
//	go run ./internal/mutation -pkgs integrators  # some packages (comma-separated directories)
//	go run ./internal/mutation -changed -budget 2m    # what CI runs: stale packages that fit the budget
//	go run ./internal/mutation -report            # re-render docs/mutation.md from the recorded results
//	go run ./internal/mutation -import graph=g.json   # record a gremlins -o JSON made by hand with the same flags
//	go run ./internal/mutation -pkgs graph -files sim.go,build.go   # some files; merged into the recorded result
//
// For each package it runs gremlins v0.6.0
// (go run github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0 unleash) with
// one worker, one test CPU and a timeout coefficient of 30 (main.go says
// why), one package
// at a time, as the shared 2-core machines require: gremlins mutates
// arithmetic operators, conditionals and their boundaries, ++/-- and
// negations in the package's non-test code and runs the package's own
// tests against each mutant. A mutant is killed when a test fails, lives
// when all pass.
//
// # Files
//
//   - internal/mutation/testdata/results/PKG.json: the recorded result of
//     the last run of each package (counts, elapsed time, and every
//     surviving mutant with its source line). Written by a run.
//   - internal/mutation/equivalent.txt: the triage of survivors that no
//     test can kill because the mutant behaves like the original (an
//     equivalent mutant), one per line: "path/file.go:line:col MUTATOR
//     reason". Every other survivor is to be killed with a test.
//   - docs/mutation.md: the generated report (efficacy per package,
//     every survivor and its triage). Written by a run and by -report.
//
// # Efficacy and thresholds
//
// Gremlins' efficacy is killed / (killed + lived). The report also gives
// the efficacy with the equivalent mutants set aside,
// killed / (killed + lived − equivalent), and the run fails (exit status
// 1) when that is below the package's threshold: 95 % for integrators
// and the node packages (nodes, nodes/*), 90 % for the others. Mutants
// that time out count as killed by gremlins' rules only in its own
// totals; they are listed separately here.
//
// # CI
//
// With -changed the command selects the packages whose recorded result
// is stale: a non-test .go file of the package changed in a commit after
// the one that last wrote its result file, or in the working tree (git
// log / git diff). A package without a recorded result, or without git
// history to tell, is not run: its first run is made by hand. With
// -budget it then keeps, in the order above, those whose recorded run
// time fits the remaining budget, and names the ones it skipped with the
// command to run them; they stay a command for the author. The recorded
// times come from the shared development machines; a package whose tests
// grew since its record takes longer than recorded. .ci/run states the
// budget it uses and why (CI has 90 minutes in all).
//
// # Invariants
//
// The report is a pure function of the result files and equivalent.txt,
// and a test (TestReportUpToDate) fails when docs/mutation.md is stale;
// another fails when an equivalent.txt entry has no reason or names no
// recorded survivor.
//
// # Concurrency
//
// The command runs one gremlins process at a time and nothing else
// concurrently.
package main
