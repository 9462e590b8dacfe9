// Package raster draws cosim scenes into images without a browser: the
// geometry of node.Drawer nodes (node.Primitive) seen through a
// perspective camera, painted back to front, for cosim render's animated
// GIFs and PNGs.
//
// # Overview
//
// [Fit] places a [Camera] so that every moving primitive of a run is in
// view (the browser viewer of cosim view fits its camera the same way),
// and [Draw] paints one frame into an *image.RGBA: spheres as shaded
// discs, boxes as their visible faces shaded by a fixed light, planes as
// quadrilaterals behind what stands on them, coils as the polyline of
// node.CoilPoints and lines as 2-pixel strokes, sorted by depth (the
// painter's algorithm), with a small x/y/z axis triad and an optional
// caption in a built-in pixel font.
//
// # Invariants
//
//   - Drawing is a pure function of its inputs: the same primitives,
//     camera and size give the same pixels, so committed images can be
//     checked for staleness byte for byte.
//   - The world's vertical axis is y, as in package node's drawing
//     convention.
//   - Nothing is read or written outside the image given.
//
// # Concurrency
//
// Functions keep no state; distinct images may be drawn concurrently.
package raster
