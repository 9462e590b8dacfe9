// Command mutation runs mutation testing over cosim's numerical core and
// keeps the result honest: it is how we check that the tests catch what
// they claim to.
//
// Usage, from the repository root:
//
//	go run ./internal/mutation                    # every package: node, integrators, coupling, nodes, nodes/*, graph (last)
//	go run ./internal/mutation -pkgs integrators  # some packages (comma-separated directories)
//	go run ./internal/mutation -changed -budget 25m   # what CI runs: stale packages that fit the budget
//	go run ./internal/mutation -report            # re-render docs/mutation.md from the recorded results
//	go run ./internal/mutation -import graph=g.json   # record a gremlins -o JSON made by hand
//	go run ./internal/mutation -v -pkgs nodes/table   # print every mutant's outcome
//	go run ./internal/mutation -pkgs graph -files sim.go,build.go   # some files; merged into the recorded result
//	go run ./internal/mutation -pkgs graph -only amplifier.go:415,growth.go:88:12   # try some mutants, record nothing
//	go run ./internal/mutation -pkgs graph -recheck -files growth.go   # run the untriaged survivors again after adding tests
//	go run ./internal/mutation -stamp             # add source hashes to the records git history says are current
//
// For each package it runs cosim's own mutation engine, one package at
// a time and one test process at a time, as the shared 2-core machines
// require. The engine makes exactly the mutants gremlins v0.6.0
// (github.com/go-gremlins/gremlins) makes with its default mutators, and
// judges them as it does, but builds the package once instead of once
// per mutant:
//
//   - Mutants (enumerate.go): an ast.Inspect walk of every non-test .go
//     file of the package (not its subdirectories) finds the operators
//     gremlins mutates: + - * / % (ARITHMETIC_BASE: + to -, - to +, * to
//     /, / to *, % to *), < <= > >= (CONDITIONALS_BOUNDARY: < to <= and
//     so on), == != < <= > >= (CONDITIONALS_NEGATION: == to !=, < to >=
//     and so on), ++ -- (INCREMENT_DECREMENT), and unary - (and binary
//     -: gremlins maps the token) to + (INVERT_NEGATIVES), unary + to -
//     (ARITHMETIC_BASE). A minus thus makes two mutants with the same
//     code: the engine runs the first and gives the second its outcome.
//     &&, ||, bitwise operators, shifts and assignment operators are
//     mutated by gremlins' non-default mutators only, and not here.
//   - Not covered: gremlins runs a mutant only where the package's
//     coverage profile has a block, that is inside a function body; a
//     mutant outside every function body (a package-level constant or
//     variable initializer) is NOT COVERED, as in gremlins. A mutant in
//     a function body is NOT COVERED when no test of the package reaches
//     it, which the engine records per operator rather than per coverage
//     block: an operator in a block that runs but is itself skipped (the
//     right side of a short-circuit && or ||) is not covered here where
//     gremlins runs it, and a case condition of a switch without an
//     expression, which coverage never marks, is run here.
//   - Not viable: a + on strings (its - mutant does not compile; gremlins
//     counts the failed build as killed), an operator in a constant
//     declared inside a function (a constant cannot select its value at
//     run time; gremlins rebuilds and runs it), and anything whose
//     instrumentation does not compile: the compiler's message is
//     recorded in the result's not_viable_reasons, the mutants of that
//     region withdrawn and the build retried. None of these counts in the
//     efficacy.
//   - Mutant schemata (instrument.go): every mutant is compiled into one
//     test binary. Each mutated operator becomes a call of a small
//     generic helper (x + y becomes _mutAdd(id, x, y), x < y
//     _mutLss(boundaryID, negationID, x, y), x == y _mutNot(id, x == y)),
//     whose arguments evaluate the operands once and in their source
//     order, and which returns the original or the mutated result
//     depending on the mutant selected when the binary starts (the
//     environment variable COSIM_MUTANT). A constant expression becomes a
//     closure returning, converted to its type, the original constant or
//     the one with one operator mutated, each still folded and checked by
//     the compiler; x++ becomes if/else on the mutant (in a for, if or
//     switch header, x = _mutInc(id, x)). The rewritten files and a
//     generated file holding the helpers (zz_cosim_mutants.go) reach the
//     compiler through go test -c -overlay: the source tree is never
//     written. Lines keep their numbers.
//   - Test selection (engine.go): each top-level test, example and fuzz
//     target of the package is run once, un-mutated, with
//     COSIM_MUTANT_HITS naming a file to which the binary appends every
//     mutant it reaches; its time is recorded. Each mutant then runs
//     only the tests that reach it, cheapest first (by their un-mutated
//     time), in batches, each a process of its own (-test.run '^(A|B)$'
//     -test.failfast -test.cpu=1), stopping at the first batch that
//     fails: consecutive tests share a batch until its time reaches
//     that of the batches before it (at least 100 ms), so a survivor
//     pays a few process starts and a caught mutant dies in about its
//     cheapest failing test; an example or fuzz target is a batch of
//     its own, because -test.failfast does not stop the examples that
//     follow a failed test (a slow example made caught mutants time
//     out). Each batch has a deadline of timeoutCoefficient (10) times
//     its tests' un-mutated time plus timeoutFloor (10 s). A failing
//     test (or a panic, or a crash) kills the mutant; all passing lets
//     it live; a batch past its deadline times it out. The verdict is
//     gremlins' (which runs the package's tests in one process with
//     -failfast): a mutant is killed when some test reaching it fails,
//     and lives when every one passes; only the order, and so which
//     failing test is seen first, differs, and a deadline applies to a
//     batch rather than to all the tests.
//     A test that fails in its un-mutated run (one needing a second
//     running thread, which -test.cpu=1 does not give it, or timing the
//     instrumented code) cannot tell a mutant from the original: it is
//     left out, named in the result (left_out_tests) and in the report,
//     and a mutant only it reaches counts as not covered.
//   - Journal (journal.go): every outcome is appended, as it is judged,
//     to a journal in the user's cache directory (cosim-mutation/),
//     named by the SHA-256 of the instrumented test binary and of the
//     package's other files (its testdata), so that a run stopped part
//     way (graph's thousands of mutants on a loaded machine take hours)
//     loses none of its work: the same command, on the same code, tests
//     and data, takes the journaled outcomes and runs only the other
//     mutants; any change starts afresh. The tests are recorded again
//     (their selection is not journaled), and the result's elapsed time
//     adds the journaled mutants' time to the last run's. The journal is
//     removed when the result is written.
//
// TestMutantRunOrder checks the order on testdata/order: a mutant every
// test catches dies in the cheapest test alone, though a slower one
// comes first in the source and an example would follow it; a mutant no
// test catches runs each test and the example once.
// TestJournalResume stops a run of it after one mutant and checks that
// the next run takes that outcome, runs only the rest and gives the
// uninterrupted result.
// TestSchemata checks every mutant of testdata/tricky (nil comparisons,
// untyped and typed constants, shifts, operands with side effects, ++
// on map entries, named types, generics, NaN) against the same mutation
// made in the source; TestEnumerationMatchesGremlins checks the mutant
// list of nodes/table, nodes/constant and nodes/spring against gremlins'
// own (testdata/gremlins: gremlins v0.6.0 unleash -o JSON, full runs of
// the first two without --test-cpu, a --dry-run of spring). The next
// section compares the outcomes.
//
// # Agreement with gremlins
//
// Measured on the shared machine, gremlins v0.6.0 unleash --workers 1
// --timeout-coefficient 30 (without --test-cpu, see below) against the
// engine, same source:
//
//   - nodes/table: 18 mutants in both, same files, positions and
//     mutators. Gremlins: 18 killed; 239 s. Engine: 11 killed,
//     7 not viable: + on string constants, whose - gremlins fails to
//     build and counts as killed, one of them in a constant declared in
//     a function; 7 s. Every mutant both run: same outcome.
//   - nodes/constant: 9 mutants in both, same list. Gremlins: 5 killed,
//     2 lived, 1 timed out, 1 killed by a failed build (+ on strings);
//     130 s. Engine: the same 5 killed, the same 2 lived, the
//     timed-out one lived (gremlins' deadline includes the rebuild,
//     which the loaded machine stretched past it: the mutant indexes
//     o.Off-(a.Lo+k)*o.Stride, equal to the original when o.Off = 0 and
//     a.Lo+k = 0, as in the only test that reaches it), the string +
//     not viable; 11 s.
//   - nodes/spring: gremlins' --dry-run lists 308 mutants, 8 not
//     covered; the engine enumerates the same 308.
//
// # Files
//
//   - internal/mutation/testdata/results/PKG.json: the recorded result of
//     the last run of each package (counts, elapsed time, every
//     surviving mutant with its source line, and the SHA-256 of each
//     non-test source file it mutated). Written by a run.
//   - internal/mutation/equivalent.txt: the triage of survivors that no
//     test can kill because the mutant behaves like the original (an
//     equivalent mutant), one per line: "path/file.go:line:col MUTATOR
//     reason". Every other survivor is to be killed with a test.
//   - docs/mutation.md: the generated report (efficacy per package,
//     every survivor and its triage). Written by a run and by -report.
//
// # Checking new tests against survivors
//
// -only runs the mutants at some positions and prints their outcomes,
// recording nothing: the quick way to see whether a new test kills a
// survivor. -recheck then updates a package's record without mutating
// it afresh: it runs every untriaged survivor of the record again (not
// those listed in equivalent.txt) and moves the ones now killed (or
// timed out) to those counts, keeping every other outcome of the
// record. That is sound for what it is for, tests added to kill
// survivors, which cannot revive a mutant the record has killed; it is
// refused for a file whose source changed since its record, and the
// record names the files rechecked (shown in the report) until a run
// mutates them afresh. TestRecheck checks it on testdata/order.
//
// # Efficacy and thresholds
//
// Efficacy is killed / (killed + lived), as gremlins defines it. The
// report also gives the efficacy with the equivalent mutants set aside,
// killed / (killed + lived − equivalent), which is held to the
// package's threshold: 95 % for integrators and the node packages
// (nodes, nodes/*), 90 % for the others. Mutants that time out are
// listed separately and count in neither.
//
// A package below its threshold is held to a ratchet: the run fails
// (exit status 1) when its adjusted efficacy is below that of its last
// complete record made by the engine, so a change may not add surviving
// mutants to a package whose survivors are still being killed. A
// package's first measured record (no record before it, a partial one,
// or a void gremlins one) sets that level and does not fail; the report
// marks every package below its threshold "no" and lists its survivors,
// which stay work to do (kill them with tests, or triage an equivalent
// mutant in equivalent.txt).
//
// # Records made by gremlins
//
// Results whose tool is "gremlins v0.6.0" were made by gremlins run with
// --test-cpu 1, which passes go test the single argument "-cpu 1": go
// test refuses it ("FAIL . [setup failed]", exit status 1), so every
// covered mutant of those runs was reported killed whatever the tests
// did, and none ever lived. -changed treats such a record as stale, and
// the engine's records replace them.
//
// # CI
//
// With -changed the command selects the packages whose recorded result
// is stale. A result records the SHA-256 of every non-test .go file of
// its package as the run mutated it (sources): it is stale when a file's
// hash differs, or a file was added or removed (the reason names the
// file), whatever git says, so a re-run that writes a byte-identical
// result leaves it current. A run on some files (-files) replaces the
// hashes of those files only, so a package whose other files changed
// stays stale. A result without hashes (recorded before they existed)
// falls back to git history: stale when a non-test .go file of the
// package changed in a commit after the one that last wrote its result
// file, or in the working tree (git log / git diff); -stamp writes the
// hashes into such records that this rule says are current (a -files
// run on one hashes the files git says did not change).
// A package without a recorded result, or without git
// history to tell, is not run: its first run is made by hand. With
// -budget it then keeps, in the order above, those whose recorded run
// time fits the remaining budget, and names the ones it skipped with the
// command to run them; they stay a command for the author. The recorded
// times come from the shared development machines (one build, the
// per-test recording, then a few short test processes per mutant); a
// package whose tests grew since its record takes longer than recorded.
// .ci/run states the budget it uses and why (CI has 90 minutes in all).
//
// # Reading order
//
// main.go (flags, package selection, results, the report), stale.go
// (source hashes, which records are stale, -stamp), then enumerate.go
// (the mutants), instrument.go (the schemata rewrite and the generated
// helpers), engine.go (build, recording, batches, runs) and journal.go
// (the outcomes of an interrupted run).
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
// The command runs one process at a time (go list, the build, one test
// binary) and nothing else concurrently.
package main
