package partnercli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// isTerminal tells whether w is a terminal, where progress is redrawn in place. Piped or
// redirected output stays free of carriage returns.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminalFile(f)
}

// progressBar redraws one line on a terminal. It exists only when w is a terminal.
type progressBar struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	drawn bool
}

const barWidth = 30

func newProgressBar(w io.Writer, label string) *progressBar {
	if !isTerminal(w) {
		return nil
	}
	return &progressBar{w: w, label: label}
}

// update is the SDK's progress callback; total is -1 when the size is unknown.
func (p *progressBar) update(sent, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drawn = true
	if total <= 0 {
		fmt.Fprintf(p.w, "\r%s %s", p.label, describeSize(sent))
		return
	}
	filled := int(sent * barWidth / total)
	fmt.Fprintf(p.w, "\r%s [%s%s] %3d%% %s", p.label, strings.Repeat("=", filled), strings.Repeat(" ", barWidth-filled),
		sent*100/total, describeSize(total))
}

// finish ends the line; safe on a nil bar.
func (p *progressBar) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}

// describeSize formats a byte count for the progress bar.
func describeSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d B", n)
	}
}

// statusLine shows the state of something being waited for: on a terminal one line
// redrawn in place, elsewhere (a log, a pipe) one plain line per change.
type statusLine struct {
	w        io.Writer
	terminal bool
	width    int // of the last line drawn, to blank what a shorter one leaves
}

func newStatusLine(w io.Writer) *statusLine {
	return &statusLine{w: w, terminal: isTerminal(w)}
}

func (s *statusLine) show(line string) {
	if !s.terminal {
		fmt.Fprintln(s.w, line)
		return
	}
	pad := ""
	if n := s.width - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	fmt.Fprintf(s.w, "\r%s%s", line, pad)
	s.width = len(line)
}

// finish ends the redrawn line.
func (s *statusLine) finish() {
	if s.terminal && s.width > 0 {
		fmt.Fprintln(s.w)
	}
}
