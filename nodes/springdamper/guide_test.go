package springdamper_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"slices"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/docs"
	"github.com/cosimgo/cosim/node"
	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/nodes/springdamper"
)

// TestGuideSections: the node contributes Exudyn's item-reference
// sections through docs.Sectioner, and the rendered guide has each once,
// where it asked, next to what the generator renders itself:
//
//   - every section's After is a heading of the rendered guide, and no
//     heading appears twice;
//   - the User Function table lists the Go arguments of the parameter's
//     signature, in order, and the return value;
//   - the Visualization Parameters table carries each visualization
//     parameter's default as the parameter list declares it;
//   - the Mini Example section points at ExampleConnect, which is in the
//     guide's Example section with its checked output.
func TestGuideSections(t *testing.T) {
	n, err := springdamper.FromMap(nil)
	if err != nil {
		t.Fatal(err)
	}
	sc, ok := node.As[docs.Sectioner](n)
	if !ok {
		t.Fatal("springdamper.Node does not implement docs.Sectioner")
	}
	secs := sc.GuideSections()
	byTitle := map[string]string{}
	for _, s := range secs {
		byTitle[s.Title] = s.Body
	}
	for _, want := range []string{"Interface Details", "Definition of Quantities", "Connector Forces", "User Function", "Visualization Parameters", "Mini Example"} {
		if byTitle[want] == "" {
			t.Errorf("no %q section", want)
		}
	}

	root, err := docs.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	g, err := docs.NewGuide(nodes.Registry(), springdamper.TypeName, root)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := g.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	guide := b.String()
	var heads []string
	for _, line := range strings.Split(guide, "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			if slices.Contains(heads, h) {
				t.Errorf("heading %q twice", h)
			}
			heads = append(heads, h)
		}
	}
	for _, s := range secs {
		i, j := slices.Index(heads, s.After), slices.Index(heads, s.Title)
		if i < 0 || j < i {
			t.Errorf("section %q (after %q) is not after it: headings %q", s.Title, s.After, heads)
		}
	}

	// The User Function table follows the Go signature.
	var sig string
	for _, p := range n.Spec().Params {
		if p.Kind == node.Function {
			sig = p.Signature
		}
	}
	e, err := parser.ParseExpr(sig)
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, f := range e.(*ast.FuncType).Params.List {
		for _, id := range f.Names {
			args = append(args, id.Name)
		}
	}
	var rows []string
	for _, line := range strings.Split(byTitle["User Function"], "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) < 4 || !strings.HasPrefix(cells[1], "`") {
			continue
		}
		name, _, _ := strings.Cut(strings.Trim(cells[1], "`"), " ")
		rows = append(rows, name)
	}
	want := append(slices.Clone(args), "[3]float64")
	if !slices.Equal(rows, want) {
		t.Errorf("User Function rows %q, want the signature's arguments and return %q", rows, want)
	}

	for _, p := range n.Spec().Params {
		switch p.Name {
		case "show", "draw_size", "color":
			row := "| `" + p.Name + "` |"
			if !strings.Contains(byTitle["Visualization Parameters"], row) || !strings.Contains(byTitle["Visualization Parameters"], "`"+node.FormatValue(p.Default)+"`") {
				t.Errorf("Visualization Parameters lacks %s with default %s", p.Name, node.FormatValue(p.Default))
			}
		}
	}

	if !strings.Contains(byTitle["Mini Example"], "`ExampleConnect`") {
		t.Error("the Mini Example section does not name ExampleConnect")
	}
	found := false
	for _, ex := range g.Examples {
		if ex.Name == "ExampleConnect" {
			found = ex.Checked && strings.Contains(ex.Source, "-0.001000 m")
		}
	}
	if !found {
		t.Error("ExampleConnect, with its checked output, is not among the guide's examples")
	}
}
