// Command cosim lists, describes and runs cosim node graphs.
//
// Usage:
//
//	cosim nodes [--json]             list every registered node type
//	cosim describe TYPE [--json]     a node type's metadata, state, parameters, inputs, outputs
//	cosim describe FILE.fmu [--json] [--interface I]
//	                                 an FMU's variables, units, capabilities and default experiment, and its node
//	cosim demo [-o FILE] [--print]   run the embedded bouncing-ball scene (or print it)
//	cosim run SCENE [-o FILE] [--plot FIG] [--set NODE.PARAM=VALUE]… [--progress MODE] [--checkpoint-every D] [--resume FILE]
//	                                 run a scene file, summarize it, write its history and plot
//	cosim plot HISTORY [-y COLUMN]… [-o FIG] [--scene SCENE] [--force]
//	                                 draw a recorded history against time (--scene: one panel per unit)
//	cosim view SCENE [-o FILE.html] [--serve ADDR] [--history FILE]
//	                                 the scene in 3D in a self-contained page (play, slider, plots)
//	cosim render SCENE -o FILE.gif|FILE.png|FILE.mp4 [--fps N] [--size WxH] [--camera YAW,PITCH] [--at T]
//	                                 the scene drawn into an animated GIF, a PNG or a video (ffmpeg)
//	cosim check SCENE [--dt DT] [--json]
//	                                 the coupling schemes' spectral radii at run.dt and largest stable dt
//	cosim graph SCENE [--format dot|svg]
//	                                 the scene's graph in Graphviz DOT, or an SVG drawn without Graphviz
//	cosim sweep SCENE --vary NODE.PARAM=START:STOP:COUNT… [-j N] [--shard I/N] [--keep-going]
//	                                 run a parameter grid in parallel, one row per run
//	cosim sweep merge [--keep-going] SHARD.csv…
//	                                 join the tables of sharded sweeps (of one sweep: its fingerprint)
//	cosim sensitivity SCENE --wrt NODE.PARAM… [--json] [-o FILE]
//	                                 ∂(fields)/∂(parameters), exact through located events
//	cosim fit SCENE --data FILE.csv --free NODE.PARAM[=START][:LO:HI]… [--noise FIELD=SIGMA]… [-o FITTED.json]
//	                                 fit parameters to measured data; not converged: exit 1, no -o
//	cosim export SCENE -o MODEL.fmu  the scene as an FMI 3.0 co-simulation FMU
//	cosim anomalies [--json] [--status open|resolved|wont-fix]
//	                                 the registry of known anomalies
//	cosim guide [-o DIR] [TYPE…]     write node guides into DIR (default: the module's docs/nodes; "-" for stdout)
//
// Run "cosim help COMMAND" for a command's flags, and "cosim help fmi"
// for importing FMUs.
//
// Files: every output (history, figure, sweep table, checkpoint, page,
// image) is written to a temporary file in the target directory
// (.NAME.cosim-tmp-HOST-PID-…) and renamed into place, so readers see the
// old file or the whole new one; a device, FIFO or other non-regular
// file (-o /dev/null) is written in place, never removed or replaced. An
// existing file is replaced, but no output may be an input of the same
// command or another of its outputs (compared after resolving links, and
// by inode; paths.go). The next cosim writing into a directory removes
// the temporary files of killed cosim processes of its host. Output
// paths, formats and plotted fields are checked before a simulation
// starts, and a run that fails before it records leaves an existing file
// untouched. Every input is read under a size limit enforced as it is
// read (limits.go; docs/errors.md lists them), with one number syntax
// (internal/textio.ParseNumber).
//
// Signals: during run and sweep, the first SIGINT or SIGTERM stops at the
// end of the current step (the context of the run is cancelled), writes
// what was done (the history so far, the finished sweep rows, a
// checkpoint with --checkpoint-every) and exits 130 or 143; a second
// signal exits at once.
//
// Progress is driven by the graph's observer hook (graph.Observer): a bar
// on a terminal, a log line every --progress-every otherwise.
//
// Invariants: a command either succeeds and exits 0, or prints an error
// naming what was wrong (the file, node, field or flag) and exits
// non-zero; it never leaves a partial output file in place of a whole
// one (see Files above). Every command is the function run(args, stdout,
// stderr), which the tests call directly.
//
// Concurrency: commands run on the main goroutine. sweep -j N runs N
// simulations at once, each on its own graph (a graph is never shared
// between goroutines), and writes rows in run order; view --serve serves
// each connection on its own goroutine from a page built once; signal
// handling and the progress bar each have one goroutine that reads the
// run's observer state under its lock.
package main
