package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// sourceFiles lists the non-test .go files of package dir (not its
// subdirectories), whatever their build constraints, sorted.
func sourceFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		n := e.Name()
		if !e.IsDir() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}

// hashSources returns the SHA-256 (hex) of the named files of package
// dir, keyed by their slash path from the repository root (as
// Result.Files): every non-test .go file when names is empty.
func hashSources(dir string, names []string) (map[string]string, error) {
	if len(names) == 0 {
		var err error
		if names, err = sourceFiles(dir); err != nil {
			return nil, err
		}
	}
	hs := make(map[string]string, len(names))
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		hs[dir+"/"+n] = hex.EncodeToString(sum[:])
	}
	return hs, nil
}

// isStale reports whether package dir's recorded result no longer
// describes its source, and why. A record with source hashes is stale
// when a non-test .go file's hash differs from the recorded one, or a
// file was added or removed; a record without them (made before they
// existed) falls back to git history (staleByGit).
func isStale(dir string) (bool, string) {
	r, err := readResult(dir)
	switch {
	case os.IsNotExist(err):
		// Its run time is unknown: a first run is made by hand.
		return false, "no recorded result: run go run ./internal/mutation -pkgs " + dir + " by hand first"
	case err != nil:
		return false, "cannot tell: " + err.Error()
	case r.Tool != engineTool:
		// gremlins' records are void: every test run failed (doc.go).
		return true, "recorded by " + r.Tool + ", whose runs never reached the tests"
	case r.Partial:
		// Its recorded time is that of some files only.
		return false, "the recorded result is partial: complete it with go run ./internal/mutation -pkgs " + dir + " by hand"
	case len(r.Sources) > 0:
		return staleByHash(dir, r.Sources)
	}
	stale, why, _ := staleByGit(dir)
	return stale, why
}

// staleByHash compares the non-test .go files of package dir with the
// recorded hashes: the first file changed, added or removed (in name
// order) makes the record stale.
func staleByHash(dir string, recorded map[string]string) (bool, string) {
	now, err := hashSources(dir, nil)
	if err != nil {
		return false, "cannot tell: " + err.Error()
	}
	var names []string
	for f := range recorded {
		names = append(names, f)
	}
	for f := range now {
		if _, ok := recorded[f]; !ok {
			names = append(names, f)
		}
	}
	sort.Strings(names)
	for _, f := range names {
		old, had := recorded[f]
		cur, has := now[f]
		switch {
		case !has:
			return true, f + " removed since the record"
		case !had:
			return true, f + " has no recorded hash (added since the record, or changed before it was hashed)"
		case old != cur:
			return true, f + " changed since the record (its SHA-256 differs)"
		}
	}
	return false, "no source change since the record (SHA-256 of its " + fmt.Sprint(len(now)) + " files)"
}

// staleByGit is the rule for records without source hashes: stale when
// a non-test .go file of package dir changed in a commit after the one
// that last wrote its result file, or in the working tree. known is
// false when git cannot tell (no history, result not committed): the
// record is then not run by -changed (a run by hand decides) and not
// stamped.
func staleByGit(dir string) (stale bool, why string, known bool) {
	rev, changed, err := gitChanged(dir)
	switch {
	case err != nil:
		// Without git history nothing says what changed: leave it to a
		// run by hand rather than spend CI's time on every package.
		return false, "cannot tell without git history: " + err.Error(), false
	case rev == "":
		return true, "result not committed", false
	case len(changed) > 0:
		return true, changed[0] + " changed since " + rev[:min(12, len(rev))], true
	}
	return false, "no source change since " + rev[:min(12, len(rev))], true
}

// gitChanged returns the commit that last wrote package dir's result
// file ("" when none did) and the non-test .go files of the package
// (slash paths from the repository root) that differ between it and the
// working tree.
func gitChanged(dir string) (string, []string, error) {
	rev, err := git("log", "-1", "--format=%H", "--", resultPath(dir))
	if err != nil || rev == "" {
		return "", nil, err
	}
	names, err := git("diff", "--name-only", rev, "--", dir)
	if err != nil {
		return "", nil, err
	}
	var changed []string
	for _, n := range strings.Fields(names) {
		if filepath.Dir(n) == dir && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			changed = append(changed, n)
		}
	}
	return rev, changed, nil
}

func git(args ...string) (string, error) {
	var stderr bytes.Buffer
	cmd := exec.Command("git", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// stampUnchanged adds to r (a record without source hashes for some
// files) the hashes of package dir's non-test .go files that git
// history says did not change since the record was committed, and
// returns the files it left without a hash (changed since the record),
// which keep the record stale. Files r already has a hash of are kept.
func stampUnchanged(r *Result) ([]string, error) {
	rev, changed, err := gitChanged(r.Package)
	if err != nil {
		return nil, err
	}
	if rev == "" {
		return nil, fmt.Errorf("%s is not committed: git cannot say which files it describes", resultPath(r.Package))
	}
	now, err := hashSources(r.Package, nil)
	if err != nil {
		return nil, err
	}
	if r.Sources == nil {
		r.Sources = map[string]string{}
	}
	var left []string
	for f, h := range now {
		if _, ok := r.Sources[f]; ok {
			continue
		}
		if contains(changed, f) {
			left = append(left, f)
			continue
		}
		r.Sources[f] = h
	}
	sort.Strings(left)
	return left, nil
}

// stamp writes source hashes into the records of pkgs that have none
// and that git history says are current (-stamp), so that from then on
// their staleness is judged by their source alone. A record that git
// says is stale, or cannot judge, is left as it is and named.
func stamp(pkgs []string, out io.Writer) error {
	for _, p := range pkgs {
		r, err := readResult(p)
		switch {
		case os.IsNotExist(err):
			fmt.Fprintf(out, "%s: no recorded result\n", p)
			continue
		case err != nil:
			return err
		case r.Tool != engineTool:
			fmt.Fprintf(out, "%s: not stamped: recorded by %s (void)\n", p, r.Tool)
			continue
		case r.Partial:
			fmt.Fprintf(out, "%s: not stamped: the recorded result is partial\n", p)
			continue
		case len(r.Sources) > 0:
			stale, why := staleByHash(p, r.Sources)
			fmt.Fprintf(out, "%s: already stamped (stale %v: %s)\n", p, stale, why)
			continue
		}
		stale, why, known := staleByGit(p)
		if stale || !known {
			fmt.Fprintf(out, "%s: not stamped: %s\n", p, why)
			continue
		}
		if r.Sources, err = hashSources(p, nil); err != nil {
			return err
		}
		if err := writeResult(r); err != nil {
			return err
		}
		fmt.Fprintf(out, "%s: stamped with the SHA-256 of its %d files (%s)\n", p, len(r.Sources), why)
	}
	return nil
}
