package calibrate

// SetMaxDataBytes lowers ReadCSV's byte limit for a test and returns the
// function that restores it.
func SetMaxDataBytes(n int64) (restore func()) {
	old := maxDataBytes
	maxDataBytes = n
	return func() { maxDataBytes = old }
}
