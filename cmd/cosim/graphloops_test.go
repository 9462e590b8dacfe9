package main

import (
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const amplifierLoop = "../../examples/scenes/amplifier-loop.json"

// cosim graph marks the amplifier's algebraic loop: a comment and a
// legend line naming its members and tear variables, its members
// outlined in the loop's colour, the three edges closing it coloured and
// the one carrying the tear variable (amp_in.out, which Build tears)
// dashed and labelled; edges outside the loop (pid → amp_in, amp → mass)
// and nodes outside it (pid, mass) are drawn as before. The SVG drawing
// carries the same marks.
func TestGraphMarksAlgebraicLoops(t *testing.T) {
	code, out, errs := cosim(t, "graph", amplifierLoop)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	const red = `"#d62728"`
	legend := "algebraic loop 1 (red): amp_in, amp, feedback; tear variables amp_in.out[0], amp_in.out[1], amp_in.out[2]"
	mustContain(t, "dot", out,
		"\t// "+legend+"\n",
		`\n`+legend+`", labelloc=t`,
		`"amp_in" [label="amp_in\nsum", shape=ellipse, color=`+red+`, penwidth=2];`,
		`"amp" [label="amp\ngain", shape=ellipse, color=`+red+`, penwidth=2];`,
		`"feedback" [label="feedback\ngain", shape=ellipse, color=`+red+`, penwidth=2];`,
		`"amp_in" -> "amp" [label="out → in (+) (tear)", color=`+red+`, fontcolor=`+red+`, penwidth=2, style=dashed];`,
		`"amp" -> "feedback" [label="out → in (+)", color=`+red+`, fontcolor=`+red+`, penwidth=2];`,
		`"feedback" -> "amp_in" [label="out → in2 (+)", color=`+red+`, fontcolor=`+red+`, penwidth=2];`,
		`"pid" -> "amp_in" [label="out → in1 (+)"];`,
		`"amp" -> "mass" [label="out → force (+)"];`,
		`"pid" [label="pid\npid", shape=box, style=rounded];`,
		`"mass" [label="mass\nmasspoint", shape=box, style=rounded];`)
	if n := strings.Count(out, "#d62728"); n != 3+3*2 {
		t.Errorf("the loop's colour appears %d times, want 9 (three members, three edges with colour and font colour)", n)
	}
	if n := strings.Count(out, "(tear)"); n != 1 {
		t.Errorf("%d tear edges, want 1", n)
	}

	code, out, errs = cosim(t, "graph", "--format", "svg", amplifierLoop)
	if code != 0 {
		t.Fatalf("--format svg: exit %d: %s", code, errs)
	}
	if err := wellFormed(out); err != nil {
		t.Fatalf("not well-formed XML: %v", err)
	}
	mustContain(t, "svg", out,
		`fill="#d62728">`+legend+`</text>`,
		`stroke="#d62728" stroke-width="2.2" stroke-dasharray="7,4"`,
		`fill="#d62728">out → in (+) (tear)</text>`,
		`fill="#fbf5e8" stroke="#d62728" stroke-width="2.5"/>`)
	if n := strings.Count(out, `stroke="#d62728" stroke-width="2.2"`); n != 3 {
		t.Errorf("%d coloured edges in the SVG, want 3", n)
	}
	if n := strings.Count(out, `stroke="#d62728" stroke-width="2.5"`); n != 3 {
		t.Errorf("%d coloured nodes in the SVG, want 3", n)
	}
}

// A graph without algebraic loops (the spring-damper mini scene, the
// mass-spring chain: every cycle goes through a state) is drawn with no
// loop mark: no legend, no comment, no colour, no tear edge.
func TestGraphWithoutLoopsHasNoLoopMarks(t *testing.T) {
	for _, scene := range []string{springScene, "../../examples/scenes/mass-spring-chain.json", vehicle} {
		for _, format := range []string{"dot", "svg"} {
			code, out, errs := cosim(t, "graph", "--format", format, scene)
			if code != 0 {
				t.Fatalf("%s %s: exit %d: %s", scene, format, code, errs)
			}
			for _, bad := range []string{"algebraic loop", "(tear)", "penwidth", "#d62728", "stroke-width=\"2.2\"", "not analysed"} {
				if strings.Contains(out, bad) {
					t.Errorf("%s %s: the drawing has %q, but the graph has no loop", scene, format, bad)
				}
			}
		}
	}
}

// A scene that refuses loops cannot be built, but it is still drawn:
// the loop Build refuses is marked with its members, and the legend
// says the scene refuses it (there are no tear variables).
func TestGraphRefusedLoop(t *testing.T) {
	raw, err := os.ReadFile(amplifierLoop)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	refused := filepath.Join(dir, "refused.json")
	text := strings.Replace(string(raw), `"run": {`, `"loops": {"refuse": true},`+"\n  \"run\": {", 1)
	if err := os.WriteFile(refused, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := cosim(t, "graph", refused)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, "dot", out, "// algebraic loop 1 (red): amp_in, amp, feedback; refused by the scene (loops.refuse)",
		`"feedback" -> "amp_in" [label="out → in2 (+)", color="#d62728"`)
	if strings.Contains(out, "(tear)") {
		t.Errorf("a refused loop has no tear variables, yet an edge is marked (tear):\n%s", out)
	}
}

func wellFormed(s string) error {
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		if _, err := d.Token(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}
