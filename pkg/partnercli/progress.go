package partnercli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// progressBar redraws one line on a terminal. It exists only when w is a terminal:
// piped or redirected output stays free of carriage returns.
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

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
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
