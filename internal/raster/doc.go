// Package raster draws cosim scenes into images without a browser: the
// geometry of node.Drawer nodes (node.Primitive) seen through a
// perspective camera with a depth buffer and lighting, for cosim render's
// PNGs, animated GIFs and videos, and for the golden images that check
// them.
//
// # Overview
//
// A [Scene] holds what every frame of a picture shares: the drawn nodes
// ([Body]: name, whether it is a connector, what a partial replay does
// not know of it), the [Camera] that [Fit] places so the extent of the
// whole run ([Extent]) is in view, and the [Floor] under it with a grid
// of [NiceFloor] spacing. [Scene.Draw] paints one frame: the floor and
// grid, the world axes at the origin, every primitive depth-tested and
// lit (spheres ray-cast per sample, boxes, cylinders and coil tubes as
// triangles), connectors faintly where bodies hide them, then an overlay
// of labels placed so none overlap ([Place]), axis letters, a scale bar
// ([ScaleBar]) and a caption, in gonum/plot's Liberation fonts. Edges are
// antialiased by supersampling. [Frames] draws the frames of an animation
// in parallel; [NewPalette] and [GIF] encode them as a GIF with one
// palette computed once, only the changed rectangle of each frame, and
// LZW compression in parallel.
//
// The browser viewer of cosim view (cmd/cosim/viewer) draws with the same
// camera model, lighting, floor, minimum body size and label rule, so a
// world point lands on the same pixel in both.
//
// # Reading order
//
// camera.go (the camera, extents, fitting), scene.go (scenes, floors,
// label anchors), raster.go (the frame buffer and the primitive
// rasterizers), draw.go (a frame), layout.go (label placement),
// overlay.go (text, labels, triad, scale), gif.go (parallel frames and
// GIF encoding).
//
// # Invariants
//
//   - Drawing is a pure function of its inputs: the same scene and
//     primitives give the same pixels, and a GIF is the same bytes for
//     any number of workers.
//   - The world's vertical axis is y, as in package node's drawing
//     convention.
//   - Small spheres and boxes are drawn at least Scene.MinPixels in
//     radius, enlarged about their centre (which stays where it is).
//
// # Concurrency
//
// A Scene may draw frames concurrently once built (the floor layer it
// caches is built once, under a sync.Once); functions keep no other
// state. A GIF is not safe for concurrent use.
package raster
