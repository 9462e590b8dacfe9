//go:build !race

package verification

// raceEnabled: see race_test.go.
const raceEnabled = false
