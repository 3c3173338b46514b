package partnercli

import (
	"os"

	"golang.org/x/term"
)

// isTerminalFile reports whether f is a terminal (not a file, a pipe or /dev/null), on
// every system golang.org/x/term knows, Windows' consoles included.
func isTerminalFile(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
