// Package textio reads the text files users give cosim — lookup tables,
// fit data, sweep tables and lists, recorded histories — with one number
// syntax and a size limit enforced while reading.
//
// # Overview
//
// [ParseNumber] is the one number syntax of every CSV cell and numeric
// flag: a decimal number as JSON writes it, with an optional leading "+",
// a leading or trailing "." and an exponent ("1", "-2.5", "+.5", "3.",
// "6.02e23"), or one of the words NaN, Inf, +Inf, -Inf (any case), which
// callers accept or refuse as their format says. Everything else is
// refused with the reason: strconv.ParseFloat's Go-literal extras, digit
// separators ("1_0", which it reads as 10) and hexadecimal ("0x10",
// "0x1p-2"), as well as the empty string, spaces and overflow to ±Inf.
//
// [LimitReader] wraps a reader so that reading more than a limit fails
// with a [*TooLargeError] naming what was read and the limit, as the bytes
// arrive: a file that never ends (/dev/zero, a runaway pipe) costs at most
// the limit. [Open] opens a file through it.
//
// # Invariants
//
//   - ParseNumber(s) accepts s exactly when s matches the grammar above,
//     and then returns what strconv.ParseFloat(s, 64) returns.
//   - A LimitReader returns at most limit bytes; the first read beyond
//     them fails, whatever the underlying reader (file, pipe, device).
//
// # Concurrency
//
// ParseNumber is a pure function. A LimitReader, like the reader it
// wraps, is for one goroutine at a time.
package textio
