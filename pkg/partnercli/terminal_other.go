//go:build !linux && !darwin

package partnercli

import (
	"errors"
	"os"
)

// isTerminalFile guesses from the file mode where the terminal settings cannot be read.
func isTerminalFile(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// echoOff is not supported here: the key is read as typed.
func echoOff(*os.File) (func(), error) {
	return nil, errors.New("cannot hide input on this system")
}
