//go:build unix

package fmi

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestHostProtocolConstants holds the frame kinds and operations of the
// host program (host/fmuhost.c) to this package's: both ends of the pipe
// must number them alike.
func TestHostProtocolConstants(t *testing.T) {
	src, err := os.ReadFile("host/fmuhost.c")
	if err != nil {
		t.Fatal(err)
	}
	c := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^\s*(K_[A-Z]+|OP_[A-Z_]+) = (\d+),`).FindAllStringSubmatch(string(src), -1) {
		n, _ := strconv.Atoi(m[2])
		c[m[1]] = n
	}
	for _, m := range regexp.MustCompile(`(?m)^#define (PROTOCOL_VERSION) (\d+)`).FindAllStringSubmatch(string(src), -1) {
		n, _ := strconv.Atoi(m[2])
		c[m[1]] = n
	}
	want := map[string]int{
		"K_HELLO": kindHello, "K_LOG": kindLog, "K_DONE": kindDone, "K_ERROR": kindError,
		"OP_LOAD": opLoad, "OP_BIND": opBind, "OP_INSTANTIATE": opInstantiate, "OP_INST": opInst, "OP_INIT": opInit,
		"OP_GET": opGet, "OP_SET": opSet, "OP_DO_STEP": opDoStep, "OP_STEP_GET": opStepGet, "OP_SET_TIME": opSetTime,
		"OP_ARRAY": opArray, "OP_UPDATE": opUpdate, "OP_COMPLETED": opCompleted, "OP_DD": opDD, "OP_STATE": opState,
		"OP_SET_STATE": opSetState, "OP_SERIALIZE": opSerialize, "OP_DESERIALIZE": opDeserialize, "OP_FREE": opFree,
		"PROTOCOL_VERSION": hostProtocolVersion,
	}
	if len(c) != len(want) {
		t.Errorf("fmuhost.c defines %d kinds and operations, this package %d: %v", len(c), len(want), c)
	}
	for name, v := range want {
		if got, ok := c[name]; !ok || got != v {
			t.Errorf("%s: fmuhost.c %d (found %v), isolate.go %d", name, got, ok, v)
		}
	}
	if hNum > 64 {
		t.Errorf("%d function slots; the host keeps 64 (MAX_SLOTS)", hNum)
	}
	if numSlots > 8 {
		t.Errorf("%d state slots; the host keeps 8 (NUM_STATES)", numSlots)
	}
}

// TestHostNames: every function an instance may need (needed) has a
// slot, in both FMI versions, so that the isolated transport checks the
// same functions as the in-process one.
func TestHostNames(t *testing.T) {
	for _, major := range []int{2, 3} {
		have := map[string]bool{}
		for _, n := range hostNames(major) {
			have[n] = true
		}
		md := &ModelDescription{Major: major,
			CoSimulation:  &InterfaceInfo{CanGetAndSetFMUState: true, CanSerializeFMUState: true, ProvidesDirectionalDerivatives: true},
			ModelExchange: &InterfaceInfo{CanGetAndSetFMUState: true, CanSerializeFMUState: true, ProvidesDirectionalDerivatives: true}}
		all := varUse{types: map[VarType]bool{}, configuration: major == 3}
		for _, ty := range typeOrder {
			all.types[ty] = true
		}
		for _, k := range []Interface{InterfaceCoSimulation, InterfaceModelExchange} {
			for _, n := range needed(md, k, all) {
				if !have[n] {
					t.Errorf("FMI %d %s: %s has no slot in hostNames", major, k, n)
				}
			}
		}
	}
}
