package extract

import (
	"sync"
	"time"
)

// Making a sandbox costs milliseconds of namespaces, mounts and process starts: about
// as much as pdftotext's work on a text PDF of twenty pages. A warmPool makes the
// sandboxes of the commands that take their input on standard input (pdftotext and
// pdfinfo on a PDF, see toolCommand.warmable) ahead of need: the tool waits in its
// sandbox, loaded, for the one input it will read.
//
// Each is taken by exactly one run of one file and ends with that run; it is never
// given back. Isolation is that of a sandbox made for the run: such a sandbox binds no
// job directory and its command line names nothing of a file (the same tool, limits,
// environment and arguments for every file), so nothing of a file is in it before
// its input is handed over on standard input, and nothing is left in it after.
//
// This moves the setup off a file's critical path, not off the CPU: a replacement is
// started in the background as a sandbox is taken.
type warmPool struct {
	mu    sync.Mutex
	ready map[string][]*toolProc // by toolCommand.key, oldest first
	// starting counts the sandboxes being made for a command.
	starting map[string]int
	total    int  // ready and starting, over all commands
	stopped  bool // no more are made (see stop)
}

// Bounds of the pool: per command, one for each of two files extracted at once (the
// ingest slots of a replica); a command not run for warmIdle (the fallback to
// pdftotext -layout, another caller's options) has its sandboxes ended.
const (
	warmPerCommand = 2
	maxWarm        = 8
	warmIdle       = 2 * time.Minute
)

func newWarmPool() *warmPool {
	return &warmPool{ready: map[string][]*toolProc{}, starting: map[string]int{}}
}

// warmSandboxes is the process's pool: one machine's sandboxes serve every caller of
// File, as its tools do.
var warmSandboxes = newWarmPool()

// take returns a started run of c: one waiting in the pool, or one started now when
// none is; either way a replacement is made in the background. A sandbox that ended
// while it waited is dropped, never handed to a file.
func (w *warmPool) take(c toolCommand) (*toolProc, error) {
	key := c.key()
	w.mu.Lock()
	var p *toolProc
	for len(w.ready[key]) > 0 && p == nil {
		p, w.ready[key] = w.ready[key][0], w.ready[key][1:]
		w.total--
		if p.ended() {
			p.discard()
			p = nil
		}
	}
	if len(w.ready[key]) == 0 {
		delete(w.ready, key)
	}
	w.fillLocked(c, key)
	w.mu.Unlock()
	if p != nil {
		return p, nil
	}
	return c.start()
}

// fillLocked starts making sandboxes of c in the background until warmPerCommand are
// ready or being made, within maxWarm over all commands.
func (w *warmPool) fillLocked(c toolCommand, key string) {
	for !w.stopped && len(w.ready[key])+w.starting[key] < warmPerCommand && w.total < maxWarm {
		w.starting[key]++
		w.total++
		go w.add(c, key)
	}
}

// add makes one sandbox of c and puts it in the pool, to be ended after warmIdle
// unused.
func (w *warmPool) add(c toolCommand, key string) {
	p, err := c.start()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.starting[key]--; w.starting[key] == 0 {
		delete(w.starting, key)
	}
	if err != nil || w.stopped {
		// A run that needs one starts its own, and reports the error.
		w.total--
		if err == nil {
			p.discard()
		}
		return
	}
	w.ready[key] = append(w.ready[key], p)
	time.AfterFunc(warmIdle, func() { w.expire(key, p) })
}

// expire ends p if it is still waiting in the pool.
func (w *warmPool) expire(key string, p *toolProc) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, q := range w.ready[key] {
		if q == p {
			w.ready[key] = append(w.ready[key][:i:i], w.ready[key][i+1:]...)
			if len(w.ready[key]) == 0 {
				delete(w.ready, key)
			}
			w.total--
			p.discard()
			return
		}
	}
}

// stop ends the sandboxes waiting in the pool and makes no more; a run still takes
// one, started for it.
func (w *warmPool) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	for key, ps := range w.ready {
		for _, p := range ps {
			p.discard()
		}
		w.total -= len(ps)
		delete(w.ready, key)
	}
}
