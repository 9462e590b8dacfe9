package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/cosimgo/cosim/fmi/export"
	"github.com/cosimgo/cosim/internal/textio"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == export.ServeCommand {
		os.Exit(serveFMU(os.Args[2:]))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type command struct {
	name, args, summary string
	run                 func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"nodes", "[--json]", "list every registered node type", cmdNodes},
		{"describe", "TYPE|FILE.fmu [--json]", "show a node type's metadata, state, parameters, inputs and outputs, or an FMU's variables and the node it makes", cmdDescribe},
		{"demo", "[-o FILE] [--print]", "run the embedded bouncing-ball scene and summarize it; --print writes the scene to start your own", cmdDemo},
		{"run", runArgs, "run a scene file: summary, history (CSV or JSON lines) and plot", cmdRun},
		{"plot", plotArgs, "draw columns of a recorded history against time (PNG, SVG, PDF)", cmdPlot},
		{"view", viewArgs, "draw a scene in 3D in a self-contained HTML page (or serve it live with --serve)", cmdView},
		{"render", renderArgs, "draw a scene into an animated GIF, a PNG of one time, or an MP4/WebM video (needs ffmpeg)", cmdRender},
		{"check", checkArgs, "the coupled stability of a scene's co-simulation: spectral radius and largest stable dt of each coupling scheme", cmdCheck},
		{"graph", graphArgs, "write a scene's graph in Graphviz DOT (pipe into dot -Tsvg)", cmdGraph},
		{"fit", fitArgs, "fit scene parameters to measured data (least squares, exact gradients through contacts)", cmdFit},
		{"sensitivity", sensitivityArgs, "∂(fields)/∂(parameters) along a monolithic run, exact through located events", cmdSensitivity},
		{"sweep", sweepArgs, "run a parameter grid or list in parallel, one row per run; shard it across array jobs", cmdSweep},
		{"export", exportArgs, "write a scene as an FMI 3.0 co-simulation FMU (its fmu section: inputs, outputs, parameters)", cmdExport},
		{"anomalies", "[--json] [--status S]", "list the known anomalies (open, resolved, wont-fix)", cmdAnomalies},
		{"guide", "[-o DIR] [TYPE…]", "write node guides (Markdown) into DIR, default the cosim module's docs/nodes; -o - for stdout", cmdGuide},
	}
}

// errFlagReported is a flag parsing error the flag package has already
// printed, with the command's usage.
var errFlagReported = errors.New("bad flag")

// errUsage marks errors whose message is a usage problem: exit code 2.
var errUsage = errors.New("usage")

type usageError struct{ msg string }

func (e usageError) Error() string   { return e.msg }
func (e usageError) Is(t error) bool { return t == errUsage }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" && len(args) == 1 {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "version" {
		printVersion(stdout)
		return 0
	}
	name := args[0]
	if name == "help" {
		if text, ok := helpTopics()[args[1]]; ok {
			fmt.Fprint(stdout, text)
			return 0
		}
		name, args = args[1], []string{args[1], "-h"}
	}
	for _, c := range commands() {
		if c.name == name {
			err := c.run(args[1:], stdout, stderr)
			var intr *interrupted
			switch {
			case err == nil, errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, errFlagReported):
				return 2
			case errors.As(err, &intr):
				fmt.Fprintf(stderr, "cosim %s: %v\n", c.name, err)
				return intr.exitCode()
			case errors.Is(err, errUsage):
				fmt.Fprintf(stderr, "cosim %s: %v\nusage: cosim %s %s\n", c.name, err, c.name, c.args)
				return 2
			default:
				fmt.Fprintf(stderr, "cosim %s: %v\n", c.name, err)
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "cosim: unknown command %q; run \"cosim help\" for the list\n", name)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "cosim runs and describes node-graph co-simulations.\n\nUsage:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  cosim %s %s\n      %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintln(w, "  cosim --version\n      print the version of cosim")
	fmt.Fprintln(w, "\nStart with \"cosim demo\", then \"cosim run examples/scenes/spring-damper.json --plot fig.png\";")
	fmt.Fprintln(w, "scene files are described in docs/scenes.md. Run \"cosim help COMMAND\" or \"cosim COMMAND -h\" for a command's flags,")
	fmt.Fprintln(w, "and \"cosim help fmi\" for importing FMI 2.0 and 3.0 FMUs (docs/fmi.md).")
}

// newFlags returns a flag set that reports errors instead of exiting and
// prints its usage to stderr.
func newFlags(name, args string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: cosim %s %s\n", name, args)
		printFlags(stderr, fs)
	}
	return fs
}

// printFlags lists a command's flags as flag.PrintDefaults does, but in
// the form the README and the usage lines write them: "-o" for a
// one-letter flag, "--print" for a longer one (the flag package accepts
// either).
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		line := "  " + dash + f.Name
		typ, usage := flag.UnquoteUsage(f)
		if typ != "" {
			line += " " + typ
		}
		if len(line) <= 4 {
			line += "\t"
		} else {
			line += "\n    \t"
		}
		line += strings.ReplaceAll(usage, "\n", "\n    \t")
		switch f.DefValue {
		case "", "0", "false", "0s":
		default:
			line += fmt.Sprintf(" (default %s)", quoteDefault(f))
		}
		fmt.Fprintln(w, line)
	})
}

// quoteDefault writes a string flag's default quoted, as flag does.
func quoteDefault(f *flag.Flag) string {
	if typ, _ := flag.UnquoteUsage(f); typ == "string" {
		return fmt.Sprintf("%q", f.DefValue)
	}
	return f.DefValue
}

// parseInterspersed parses flags that may come before or after positional
// arguments ("describe ball --json" and "describe --json ball").
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errFlagReported // the flag package printed it with the usage
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// number is a float64 flag read with the one number syntax of every
// input (textio.ParseNumber): a decimal number, never digit separators
// ("1_0") or hexadecimal ("0x1p-2"), which the flag package's Float64
// would accept.
type number struct{ p *float64 }

func (n number) String() string {
	if n.p == nil {
		return "0"
	}
	return strconv.FormatFloat(*n.p, 'g', -1, 64)
}

func (n number) Set(s string) error {
	x, err := textio.ParseNumber(s)
	if err != nil {
		return err
	}
	*n.p = x
	return nil
}

// numberVar defines a number flag with the default value, as
// flag.Float64Var does.
func numberVar(fs *flag.FlagSet, p *float64, name string, value float64, usage string) {
	*p = value
	fs.Var(number{p}, name, usage)
}
