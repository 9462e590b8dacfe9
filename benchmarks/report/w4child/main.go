package main

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"

	"github.com/cosimgo/cosim/benchmarks"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("w4child: ")
	if len(os.Args) != 2 {
		log.Fatal("usage: w4child N,method,solver,steps")
	}
	parts := strings.Split(os.Args[1], ",")
	if len(parts) != 4 {
		log.Fatalf("%q: want N,method,solver,steps", os.Args[1])
	}
	n, err1 := strconv.Atoi(parts[0])
	steps, err2 := strconv.Atoi(parts[3])
	if err1 != nil || err2 != nil || n < 1 || steps < 2 {
		log.Fatalf("%q: N must be a positive integer and steps at least 2", os.Args[1])
	}
	r, err := benchmarks.RunW4(n, parts[1], parts[2], steps)
	if err != nil {
		log.Fatal(err)
	}
	js, err := json.Marshal(r)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(js))
}
