package main

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// TestGraphSVG: --format svg writes well-formed SVG without Graphviz,
// with every node, its type, the ground of a connector and the edge
// labels of the DOT output; the usage says Graphviz renders DOT.
func TestGraphSVG(t *testing.T) {
	code, out, errs := cosim(t, "graph", "--format", "svg", "../../examples/scenes/mass-spring-chain.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	d := xml.NewDecoder(strings.NewReader(out))
	var texts []string
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tk.Name.Local
			}
		case xml.CharData:
			if s := strings.TrimSpace(string(tk)); s != "" {
				texts = append(texts, s)
			}
		}
	}
	if root != "svg" {
		t.Errorf("root element %q", root)
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{"m1", "m4", "s1", "s4", "masspoint", "springdamper", "ground", "position → m0_position", "m1_force → force (+)"} {
		if !strings.Contains(all, want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	if code, _, _ := cosim(t, "graph", "--format", "png", "../../examples/scenes/mass-spring-chain.json"); code != 2 {
		t.Errorf("--format png: exit %d, want 2", code)
	}
	_, _, usage := cosim(t, "graph", "-h")
	mustContain(t, "graph usage", usage, "needs Graphviz", "apt-get install graphviz", "--format svg")
}
