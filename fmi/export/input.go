package export

import (
	"github.com/cosimgo/cosim/node"
)

// inputType is the node type of an FMU input inside the exported scene's
// graph: a stateless source whose output is the value the FMU's master
// set, wired into every node input the FMU input drives. It is not in any
// registry: only a running exported FMU adds it to its graph.
const inputType = "fmu-input"

// inputNode holds one FMU input's value. The master sets it between
// steps (FMI holds an input constant over a communication step), so the
// graph reads a value that never changes while it steps.
type inputNode struct {
	node.Stateless
	spec  *node.Spec
	value []float64
}

func newInputNode(shape node.Shape, units string, start []float64) *inputNode {
	n := &inputNode{value: append([]float64(nil), start...)}
	n.spec = node.NewSpec(node.Spec{
		Type:    inputType,
		Package: "github.com/cosimgo/cosim/fmi/export",
		Outputs: []node.Field{{Name: "value", Shape: shape, Units: units, Description: "The value the FMU's master set"}},
		Meta: node.Metadata{
			AlgorithmID: "COSIM-FMU-EXPORT-INPUT",
			Version:     "1.0.0",
			Stability:   node.Stable,
			Summary:     "An input of an exported FMU: the value its master sets, held over each communication step.",
			Equations:   []string{"y(t) = u_k, \\quad t_k \\le t < t_{k+1}"},
			Assumptions: []string{"The master sets the value between steps only"},
			Limitations: []string{"Piecewise constant: no interpolation of the input within a step"},
		},
	})
	return n
}

func (n *inputNode) Spec() *node.Spec { return n.spec }

// Outputs writes the value set last.
func (n *inputNode) Outputs(t float64, x []float64, in node.Inputs, dst []float64) error {
	copy(dst, n.value)
	return nil
}
