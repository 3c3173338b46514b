package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// toolProc is one started tool run. It is used for exactly one run (finish) and then
// ends: a sandbox is never given a second input.
type toolProc struct {
	cmd    *exec.Cmd
	name   string
	stdin  *os.File // the write end of the tool's standard input; nil when it reads none
	stdout *os.File // the read end of its standard output
	stderr bytes.Buffer
	done   chan struct{} // closed when the run has ended and been reaped
	err    error         // cmd.Wait's, once done is closed
}

// start starts c. Its process and anything it starts form one process group, killed
// as a whole, that dies with this process; in the sandbox its PID namespace ends with
// bwrap.
func (c toolCommand) start() (*toolProc, error) {
	p := &toolProc{name: c.name, done: make(chan struct{})}
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Env = c.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if c.argv[0] == bwrap {
		cmd.SysProcAttr.Credential = sandboxCredential()
	}
	cmd.WaitDelay = 2 * time.Second
	cmd.Stderr = &limitedBuffer{buf: &p.stderr, max: 64 << 10}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = outW
	var inR *os.File
	if c.stdin {
		if inR, p.stdin, err = os.Pipe(); err != nil {
			outR.Close()
			outW.Close()
			return nil, err
		}
		cmd.Stdin = inR
	}
	err = cmd.Start()
	outW.Close()
	if inR != nil {
		inR.Close()
	}
	if err != nil {
		outR.Close()
		if p.stdin != nil {
			p.stdin.Close()
		}
		return nil, fmt.Errorf("%s: %w", c.name, err) // missing tool: not the file's fault
	}
	p.cmd, p.stdout = cmd, outR
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// ended reports whether the run has ended (before its use: a sandbox that died while
// it waited).
func (p *toolProc) ended() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// kill ends the run's process group; what it left running ends with it.
func (p *toolProc) kill() { _ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) }

// discard ends a run that was never used. One that has ended is not signalled: its
// process group is gone, and its id may by now be another run's.
func (p *toolProc) discard() {
	if !p.ended() {
		p.kill()
	}
	p.stdout.Close()
	if p.stdin != nil {
		p.stdin.Close()
	}
}

// finish runs the tool to its end: input (for a tool that reads standard input) is
// handed to it, and its standard output, at most maxOut bytes, is returned. A
// non-zero exit is an *exitError with the tool's stderr, for the caller to classify;
// ctx ends the run.
func (p *toolProc) finish(ctx context.Context, input io.Reader, maxOut int64) ([]byte, error) {
	defer p.stdout.Close()
	// Whatever the tool left running in its group (a child that closed its output and
	// lived on, where no PID namespace ends with it) is killed when the run ends.
	defer p.kill()
	stop := context.AfterFunc(ctx, p.kill)
	defer stop()
	fed := make(chan error, 1)
	if p.stdin != nil {
		go func() {
			_, err := io.Copy(p.stdin, input)
			p.stdin.Close()
			if errors.Is(err, syscall.EPIPE) {
				err = nil // the tool stopped reading: its exit tells why
			}
			fed <- err
		}()
	} else {
		fed <- nil
	}
	out, readErr := io.ReadAll(io.LimitReader(p.stdout, maxOut+1))
	if int64(len(out)) > maxOut {
		p.kill()
		<-p.done
		<-fed
		return nil, &outputCapError{fail(CodeError, "%s produced more than %d bytes of output", p.name, maxOut)}
	}
	<-p.done
	p.kill() // a writer of its standard input left running outside a PID namespace
	feedErr := <-fed
	if p.err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(p.stderr.String())
		if p.cmd.Args[0] == bwrap && strings.HasPrefix(msg, bwrap+": ") {
			// The sandbox could not be made: not the file's fault.
			return nil, fmt.Errorf("%s: %s", p.name, msg)
		}
		if feedErr != nil {
			return nil, fmt.Errorf("%s: input: %w", p.name, feedErr) // this process's disk
		}
		return nil, &exitError{tool: p.name, stderr: msg, err: p.err}
	}
	if feedErr != nil {
		return nil, fmt.Errorf("%s: input: %w", p.name, feedErr)
	}
	if readErr != nil {
		return nil, readErr
	}
	return out, nil
}
