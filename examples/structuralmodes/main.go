// Command structuralmodes is the first command of the two-mass consumer
// of MADDENING's generalized-alpha guide: it runs the package driver
// (integrators.GeneralizedAlpha{RhoInf: 0.5}, history carried between Advance
// calls) on two unit masses with modes of 1 and 40 rad/s for 120 steps
// of 0.1 s and prints the fraction of each modal energy retained. The
// resolved slow mode keeps more than 0.999 of its energy; the
// under-resolved fast mode (1.57 samples per period) is damped below
// 1e-15.
//
// Run it from the module root: go run ./examples/structuralmodes
package main

import (
	"fmt"
	"io"
	"log"
	"os"

	"github.com/cosimgo/cosim/integrators"
	"github.com/cosimgo/cosim/internal/twomass"
)

func main() {
	if err := run(os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// energyRetained runs the MADDENING two-mass guide's problem with generalized-alpha at
// ρ∞ = 0.5 and returns the slow and fast modal energy retained at 12 s,
// as fractions of the initial ones.
func energyRetained() (slow, fast float64, err error) {
	p := twomass.Seed()
	tr, err := twomass.Run(p, integrators.GeneralizedAlpha{RhoInf: 0.5}, twomass.SeedDt, twomass.SeedSteps, false)
	if err != nil {
		return 0, 0, err
	}
	slow, fast = p.EnergyRatios(tr.Final())
	return slow, fast, nil
}

func run(w io.Writer) error {
	slow, fast, err := energyRetained()
	if err != nil {
		return err
	}
	if !(slow > 0.999) || !(fast < 1e-15) {
		return fmt.Errorf("structuralmodes: slow energy retained %g (want > 0.999), fast %g (want < 1e-15)", slow, fast)
	}
	_, err = fmt.Fprintf(w, "Slow/fast modal energy retained: [%.6f, %.3g]\n", slow, fast)
	return err
}
