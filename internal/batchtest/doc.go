// Package batchtest proves docs/scaling.md against the batch engines it
// describes. It has no code of its own, only tests:
//
//   - TestIndexedJobManifest (always run) decodes the Kubernetes Indexed
//     Job manifest of docs/scaling.md into the batch/v1 Job fields it
//     uses, rejecting any field the struct does not know, checks them
//     against the API's rules, and checks that the Job runs the same
//     cosim sweep command line as the Slurm script of the same page.
//   - TestSlurmArray (build tag slurm: go test -tags slurm ./internal/batchtest/)
//     starts a real single-node Slurm from Debian's slurm-wlm and munge
//     packages, runs the page's Slurm script and submit commands as
//     written, cancels, requeues and reruns array tasks, and checks that
//     cosim sweep merge reports the missing runs, counts runs that ran
//     twice once, and gives the unsharded sweep's table byte for byte.
//
// # Invariants
//
// The scripts and the manifest are read from docs/scaling.md, never
// copied: the page and what the tests run cannot drift apart.
//
// The cluster lives in one temporary directory (munge key and socket,
// slurm.conf, state, spool, logs, the jobs' working directory); its
// daemons run as root in the foreground, each in its own process group,
// listen on 127.0.0.1 at free ports, and are stopped by t.Cleanup
// whatever happens: jobs cancelled, process groups sent SIGTERM then
// SIGKILL, any process left that carries the cluster's SLURM_CONF killed,
// the directory removed. Without root or without the Slurm binaries the
// test skips with the reason, except under CI=true, where it fails.
//
// # Concurrency
//
// Tests in this package do not run in parallel with each other; the
// Slurm test runs one cluster, which nothing else shares.
package batchtest
