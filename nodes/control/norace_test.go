//go:build !race

package control_test

// raceEnabled: see race_test.go.
const raceEnabled = false
