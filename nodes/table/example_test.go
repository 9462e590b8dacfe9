package table_test

import (
	"fmt"

	"github.com/cosimgo/cosim/nodes/table"
)

// A table is a constant source: its output is its parameter.
func Example() {
	tbl, err := table.New(table.Params{Position: 0.25})
	if err != nil {
		panic(err)
	}
	out := make([]float64, tbl.Spec().OutputLayout.Size())
	if err := tbl.Outputs(0, nil, tbl.Spec().DefaultInputs(), out); err != nil {
		panic(err)
	}
	fmt.Println("table at", out[0], "m")

	if err := tbl.SetParams(map[string]any{"position": "high"}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// table at 0.25 m
	// table: parameter "position" = "high" is a string, want a number; valid: any finite number
}
