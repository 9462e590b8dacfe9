package scene_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cosimgo/cosim/scene"
)

// TestFMUSection: the "fmu" section (the interface cosim export gives the
// scene's FMU) decodes, saves back unchanged, is ignored by runs, and its
// structural problems are reported together with their paths: a path of
// the wrong form, a node the scene lacks, a component where a whole input
// is needed, a missing target and duplicate variable names (time is the
// FMU's own).
func TestFMUSection(t *testing.T) {
	const good = `{"nodes": [{"name": "m", "type": "masspoint"}], "run": {"dt": 0.1, "steps": 2},
	  "fmu": {"model_name": "Mass", "inputs": [{"name": "F", "to": ["m.force"]}],
	          "outputs": [{"from": "m.position[0]"}, {"name": "v", "from": "m.velocity"}],
	          "parameters": [{"param": "m.mass"}]}}`
	sc, err := scene.Decode(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	f := sc.FMU
	if f.ModelName != "Mass" || f.Inputs[0].VariableName() != "F" || f.Outputs[0].VariableName() != "m.position[0]" || f.Parameters[0].VariableName() != "m.mass" {
		t.Errorf("decoded %+v", f)
	}
	var buf bytes.Buffer
	if err := sc.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := scene.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if back.FMU == nil || len(back.FMU.Outputs) != 2 || back.FMU.Inputs[0].To[0] != "m.force" {
		t.Errorf("saved and read back: %+v", back.FMU)
	}

	const bad = `{"nodes": [{"name": "m", "type": "masspoint"}], "run": {"dt": 0.1, "steps": 2},
	  "fmu": {"inputs": [{"name": "F", "to": ["m.force[1]"]}, {"to": []}, {"name": "x", "to": ["mm.force"]}],
	          "outputs": [{"name": "F", "from": "m"}, {"name": "time", "from": "m.position"}],
	          "parameters": [{"param": "m.mass.x"}]}}`
	_, err = scene.Decode(strings.NewReader(bad))
	for _, want := range []string{
		`fmu.inputs[0].to[0]: "m.force[1]": a component [i] is for outputs; name the whole force`,
		`fmu.inputs[1].to: missing: the node inputs ("node.input") the FMU input drives`,
		`fmu.inputs[1].name: missing`,
		`fmu.inputs[2].to[0]: "mm.force": no node "mm" in the scene (did you mean "m"?)`,
		`fmu.outputs[0].from: "m" is not of the form node.field or node.field[i]`,
		`fmu.outputs[0].name: "F" is already the name of fmu.inputs[0].name`,
		`fmu.outputs[1].name: "time" is already the name of the FMU's independent variable`,
		`fmu.parameters[0].param: "m.mass.x" is not of the form node.field or node.field[i]`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\ndoes not say %q", err, want)
		}
	}
}
