//go:build race

package scene_test

// raceEnabled: the race detector slows the 20 000-mass example scene
// past TestExamples' per-scene timeout; it runs without -race.
const raceEnabled = true
