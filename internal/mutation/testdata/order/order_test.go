package order

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// logName appends name to the file COSIM_ORDER_LOG names.
func logName(name string) {
	f, err := os.OpenFile(os.Getenv("COSIM_ORDER_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	fmt.Fprintln(f, name)
}

// TestSlowCatch is first in source order and the slowest.
func TestSlowCatch(t *testing.T) {
	logName("TestSlowCatch")
	time.Sleep(time.Second)
	if Add(2, 3) != 5 || Scale(4) != 4 {
		t.Fatal("wrong")
	}
}

func TestFastCatch(t *testing.T) {
	logName("TestFastCatch")
	if Add(2, 3) != 5 || Scale(4) != 4 {
		t.Fatal("wrong")
	}
}

// ExampleAdd runs after the tests in one process, even after a failed
// test with -test.failfast; it is slower than TestFastCatch.
func ExampleAdd() {
	logName("ExampleAdd")
	time.Sleep(300 * time.Millisecond)
	fmt.Println(Add(2, 3), Scale(4))
	// Output: 5 4
}
