package batchtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// parseYAML reads the subset of YAML that Kubernetes manifests use into
// JSON-like values (map[string]any, []any, string, int64, bool, nil):
// block mappings and sequences by indentation, flow mappings {k: v} and
// sequences [a, b], quoted and plain scalars, folded (>, >-) and literal
// (|, |-) block scalars, and # comments. Anything else (tabs, anchors,
// tags, several documents, duplicate keys) is an error, never a guess:
// the module keeps no YAML dependency, and this is only for checking the
// manifest of docs/scaling.md.
func parseYAML(text string) (any, error) {
	var lines []yline
	for n, raw := range strings.Split(text, "\n") {
		if strings.Contains(raw, "\t") {
			return nil, fmt.Errorf("line %d: tab in indentation or text", n+1)
		}
		body := strings.TrimLeft(raw, " ")
		lines = append(lines, yline{n + 1, len(raw) - len(body), body, raw})
	}
	p := &yparser{lines: lines}
	p.skipBlank()
	if p.i == len(p.lines) {
		return nil, errors.New("empty document")
	}
	v, err := p.block(p.lines[p.i].indent)
	if err != nil {
		return nil, err
	}
	p.skipBlank()
	if p.i < len(p.lines) {
		l := p.lines[p.i]
		return nil, fmt.Errorf("line %d: unexpected %q (bad indentation?)", l.n, l.text)
	}
	return v, nil
}

type yline struct {
	n, indent int
	text, raw string
}

type yparser struct {
	lines []yline
	i     int
}

// skipBlank skips blank and comment-only lines.
func (p *yparser) skipBlank() {
	for p.i < len(p.lines) {
		t := p.lines[p.i].text
		if t != "" && !strings.HasPrefix(t, "#") {
			return
		}
		p.i++
	}
}

// block reads the mapping or sequence whose lines start at indent.
func (p *yparser) block(indent int) (any, error) {
	l := p.lines[p.i]
	if l.indent != indent {
		return nil, fmt.Errorf("line %d: indentation %d, want %d", l.n, l.indent, indent)
	}
	if l.text == "-" || strings.HasPrefix(l.text, "- ") {
		return p.sequence(indent)
	}
	return p.mapping(indent)
}

func (p *yparser) sequence(indent int) (any, error) {
	var out []any
	for p.skipBlank(); p.i < len(p.lines); p.skipBlank() {
		l := p.lines[p.i]
		if l.indent != indent || !(l.text == "-" || strings.HasPrefix(l.text, "- ")) {
			break
		}
		item := strings.TrimLeft(strings.TrimPrefix(l.text, "-"), " ")
		col := indent + (len(l.text) - len(item))
		switch {
		case item == "" || strings.HasPrefix(item, "#"):
			p.i++
			p.skipBlank()
			if p.i == len(p.lines) || p.lines[p.i].indent <= indent {
				return nil, fmt.Errorf("line %d: empty sequence item", l.n)
			}
			v, err := p.block(p.lines[p.i].indent)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		case isKeyLine(item):
			// "- key: value" opens a mapping whose keys sit at col.
			p.lines[p.i] = yline{l.n, col, item, l.raw}
			v, err := p.mapping(col)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		default:
			v, err := p.value(item, indent, l.n)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
	}
	return out, nil
}

var keyRE = regexp.MustCompile(`^[A-Za-z0-9_$./-]+:( |$)`)

func isKeyLine(s string) bool { return keyRE.MatchString(s) }

func (p *yparser) mapping(indent int) (any, error) {
	out := map[string]any{}
	for p.skipBlank(); p.i < len(p.lines); p.skipBlank() {
		l := p.lines[p.i]
		if l.indent < indent {
			break
		}
		if l.indent > indent {
			return nil, fmt.Errorf("line %d: indentation %d inside a mapping at %d", l.n, l.indent, indent)
		}
		if !isKeyLine(l.text) {
			if strings.HasPrefix(l.text, "- ") || l.text == "-" {
				break // a sequence at the parent's indentation ends this mapping
			}
			return nil, fmt.Errorf("line %d: %q is not key: value", l.n, l.text)
		}
		key, rest, _ := strings.Cut(l.text, ":")
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("line %d: key %q given twice", l.n, key)
		}
		rest = strings.TrimLeft(rest, " ")
		if rest == "" || strings.HasPrefix(rest, "#") {
			p.i++
			p.skipBlank()
			if p.i == len(p.lines) {
				out[key] = nil
				break
			}
			next := p.lines[p.i]
			// A sequence may sit at the key's own indentation.
			seqHere := next.indent == indent && (next.text == "-" || strings.HasPrefix(next.text, "- "))
			if next.indent <= indent && !seqHere {
				out[key] = nil
				continue
			}
			v, err := p.block(next.indent)
			if err != nil {
				return nil, err
			}
			out[key] = v
			continue
		}
		v, err := p.value(rest, indent, l.n)
		if err != nil {
			return nil, err
		}
		out[key] = v
	}
	return out, nil
}

// value reads the value after "key: " or "- " on line n: a block scalar
// header (whose lines follow, deeper than indent), a flow collection or
// a scalar. It consumes the line (and a block scalar's lines).
func (p *yparser) value(text string, indent, n int) (any, error) {
	p.i++
	if text[0] == '>' || text[0] == '|' {
		return p.blockScalar(text, indent, n)
	}
	fp := &flow{s: text, n: n}
	v, err := fp.value()
	if err != nil {
		return nil, err
	}
	fp.space()
	if fp.pos < len(fp.s) && fp.s[fp.pos] != '#' {
		return nil, fmt.Errorf("line %d: unexpected %q after the value", n, fp.s[fp.pos:])
	}
	return v, nil
}

func (p *yparser) blockScalar(header string, indent, n int) (any, error) {
	style, chomp := header[0], header[1:]
	if i := strings.Index(chomp, " #"); i >= 0 {
		chomp = chomp[:i]
	}
	if chomp != "" && chomp != "-" {
		return nil, fmt.Errorf("line %d: block scalar header %q: only >, >-, | and |- are read", n, header)
	}
	var body []string
	at := -1
	for ; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		if l.text == "" {
			body = append(body, "")
			continue
		}
		if l.indent <= indent {
			break
		}
		if at < 0 {
			at = l.indent
		}
		if l.indent != at {
			return nil, fmt.Errorf("line %d: a block scalar's lines must share one indentation here", l.n)
		}
		body = append(body, l.text)
	}
	for len(body) > 0 && body[len(body)-1] == "" {
		body = body[:len(body)-1]
	}
	if len(body) == 0 {
		return nil, fmt.Errorf("line %d: empty block scalar", n)
	}
	var s string
	if style == '|' {
		s = strings.Join(body, "\n")
	} else {
		// Folding: a line break between two non-empty lines becomes a
		// space; each empty line is a newline.
		var b strings.Builder
		for i, line := range body {
			switch {
			case i == 0:
			case line == "" || body[i-1] == "":
				if line == "" {
					b.WriteByte('\n')
				}
			default:
				b.WriteByte(' ')
			}
			b.WriteString(line)
		}
		s = b.String()
	}
	if chomp == "" {
		s += "\n"
	}
	return s, nil
}

// flow reads flow collections and scalars on one line.
type flow struct {
	s   string
	pos int
	n   int
}

func (f *flow) space() {
	for f.pos < len(f.s) && f.s[f.pos] == ' ' {
		f.pos++
	}
}

func (f *flow) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d, column %d: %s", f.n, f.pos+1, fmt.Sprintf(format, args...))
}

func (f *flow) value() (any, error) {
	f.space()
	if f.pos == len(f.s) {
		return nil, f.errorf("missing value")
	}
	switch c := f.s[f.pos]; c {
	case '{':
		f.pos++
		out := map[string]any{}
		for {
			f.space()
			if f.pos < len(f.s) && f.s[f.pos] == '}' && len(out) == 0 {
				f.pos++
				return out, nil
			}
			k, err := f.scalar(true)
			if err != nil {
				return nil, err
			}
			ks, ok := k.(string)
			if !ok {
				return nil, f.errorf("key %v is not a string", k)
			}
			if f.pos >= len(f.s) || f.s[f.pos] != ':' {
				return nil, f.errorf("want : after key %q", ks)
			}
			f.pos++
			v, err := f.value()
			if err != nil {
				return nil, err
			}
			if _, dup := out[ks]; dup {
				return nil, f.errorf("key %q given twice", ks)
			}
			out[ks] = v
			f.space()
			if f.pos < len(f.s) && f.s[f.pos] == ',' {
				f.pos++
				continue
			}
			if f.pos < len(f.s) && f.s[f.pos] == '}' {
				f.pos++
				return out, nil
			}
			return nil, f.errorf("want , or } in a flow mapping")
		}
	case '[':
		f.pos++
		out := []any{}
		for {
			f.space()
			if f.pos < len(f.s) && f.s[f.pos] == ']' && len(out) == 0 {
				f.pos++
				return out, nil
			}
			v, err := f.value()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			f.space()
			if f.pos < len(f.s) && f.s[f.pos] == ',' {
				f.pos++
				continue
			}
			if f.pos < len(f.s) && f.s[f.pos] == ']' {
				f.pos++
				return out, nil
			}
			return nil, f.errorf("want , or ] in a flow sequence")
		}
	case '&', '*', '!', '%', '@', '`':
		return nil, f.errorf("%q (anchors, aliases, tags, directives) is beyond this reader", c)
	}
	return f.scalar(false)
}

// scalar reads a quoted or plain scalar; inKey stops a plain one at ":".
func (f *flow) scalar(inKey bool) (any, error) {
	f.space()
	if f.pos == len(f.s) {
		return nil, f.errorf("missing scalar")
	}
	switch f.s[f.pos] {
	case '"':
		end := f.pos + 1
		for end < len(f.s) && f.s[end] != '"' {
			if f.s[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(f.s) {
			return nil, f.errorf("unterminated double-quoted scalar")
		}
		var s string
		if err := json.Unmarshal([]byte(f.s[f.pos:end+1]), &s); err != nil {
			return nil, f.errorf("double-quoted scalar: %v", err)
		}
		f.pos = end + 1
		return s, nil
	case '\'':
		var b strings.Builder
		for i := f.pos + 1; i < len(f.s); i++ {
			if f.s[i] == '\'' {
				if i+1 < len(f.s) && f.s[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				f.pos = i + 1
				return b.String(), nil
			}
			b.WriteByte(f.s[i])
		}
		return nil, f.errorf("unterminated single-quoted scalar")
	}
	start := f.pos
	for f.pos < len(f.s) {
		c := f.s[f.pos]
		if c == ',' || c == ']' || c == '}' || (c == ':' && (inKey || f.pos+1 == len(f.s) || f.s[f.pos+1] == ' ')) || (c == '#' && f.s[f.pos-1] == ' ') {
			break
		}
		f.pos++
	}
	plain := strings.TrimRight(f.s[start:f.pos], " ")
	if plain == "" {
		return nil, f.errorf("empty plain scalar")
	}
	if !inKey && f.pos < len(f.s) && f.s[f.pos] == ':' {
		return nil, f.errorf("a mapping inside a plain value: quote the value or use a flow mapping")
	}
	switch plain {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null", "~":
		return nil, nil
	}
	if inKey {
		return plain, nil
	}
	if n, err := strconv.ParseInt(plain, 10, 64); err == nil {
		return n, nil
	}
	return plain, nil
}

// The reader gives the values YAML gives for the constructs of the
// manifest, and refuses what it does not read (the references: the YAML
// 1.2 specification's examples of each construct).
func TestParseYAML(t *testing.T) {
	doc := `# a comment
a: 1        # int
b: "2"
c: 512Mi
d: {x: 1, y: [p, "q r"], z: {}}
e:
  - {name: n, path: /p}
  - k: v
    l: 'it''s'
  -
    - nested
f:
- same-indent
g: >-
  one
  two

  three
h: |
  keep
  lines
i: true
j:
k: ~
`
	got, err := parseYAML(doc)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	want := `{"a":1,"b":"2","c":"512Mi","d":{"x":1,"y":["p","q r"],"z":{}},"e":[{"name":"n","path":"/p"},{"k":"v","l":"it's"},["nested"]],"f":["same-indent"],"g":"one two\nthree","h":"keep\nlines\n","i":true,"j":null,"k":null}`
	if string(b) != want {
		t.Errorf("parsed\n%s\nwant\n%s", b, want)
	}
	for _, bad := range []string{
		"a: 1\na: 2\n",
		"a:\n\tb: 1\n",
		"a: &x 1\n",
		"a: {b: 1\n",
		"a: b: c\n",
		"a:\n  b: 1\n c: 2\n",
		"a: >+\n  x\n",
		"- a\nb: 1\n",
	} {
		if v, err := parseYAML(bad); err == nil {
			t.Errorf("%q: no error, read %v", bad, v)
		}
	}
}
