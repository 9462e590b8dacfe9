package tricky

import (
	"fmt"
	"testing"
)

// TestPrint prints Run's output; the test of the mutation engine compares
// it across mutants.
func TestPrint(t *testing.T) {
	fmt.Print(Run())
}
