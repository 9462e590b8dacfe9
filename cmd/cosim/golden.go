package main

// The golden images: every example scene drawn by cosim render at a fixed
// camera and time, 640 × 400. docs/viewer.md shows them; "go generate
// ./cmd/cosim" redraws them, and TestGoldenImages draws each again and
// fails, within a tolerance, when one is stale or the renderer changed
// what it draws. They are drawn by the Go renderer (internal/raster), a
// pure function of the scene, so they do not depend on a GPU.
//
//go:generate go run . render -q ../../examples/scenes/bouncing-ball.json -o ../../docs/assets/scenes/bouncing-ball.png --at 1.2 --size 640x400 --camera 35,20
//go:generate go run . render -q ../../examples/scenes/bouncing-ball-events.json -o ../../docs/assets/scenes/bouncing-ball-events.png --at 3 --size 640x400 --camera 35,20
//go:generate go run . render -q ../../examples/scenes/spring-damper.json -o ../../docs/assets/scenes/spring-damper.png --at 0.02 --size 640x400 --camera 35,20
//go:generate go run . render -q ../../examples/scenes/mass-spring-chain.json -o ../../docs/assets/scenes/mass-spring-chain.png --at 2 --size 640x400 --camera 35,20
//go:generate go run . render -q ../../examples/scenes/two-mass-modes.json -o ../../docs/assets/scenes/two-mass-modes.png --at 2 --size 640x400 --camera 35,20
//go:generate go run . render -q ../../examples/scenes/rigid-body-spring.json -o ../../docs/assets/scenes/rigid-body-spring.png --at 2 --size 640x400 --camera 0,10
//go:generate go run . render -q ../../examples/scenes/thrust-on-spring.json -o ../../docs/assets/scenes/thrust-on-spring.png --at 3.05 --size 640x400 --camera 20,15
//go:generate go run . render -q ../../examples/scenes/pid-mass-spring.json -o ../../docs/assets/scenes/pid-mass-spring.png --at 1 --size 640x400 --camera 35,20
//go:generate go run . render -q ../../examples/scenes/cruise-control.json -o ../../docs/assets/scenes/cruise-control.png --at 10 --size 640x400 --camera 35,20
//go:generate go run . render -q ../../examples/scenes/amplifier-loop.json -o ../../docs/assets/scenes/amplifier-loop.png --at 1 --size 640x400 --camera 35,20
//go:generate go run . render -q ../../examples/scenes/four-corner-vehicle.json -o ../../docs/assets/scenes/four-corner-vehicle.png --at 1.1 --size 640x400 --camera 35,20
//go:generate go run . render -q ../../examples/scenes/stiff-chain-20000.json -o ../../docs/assets/scenes/stiff-chain-20000.png --size 640x400 --camera 35,20
