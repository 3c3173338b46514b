package deploy_test

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// binaries builds the api, the three workers and nats-server (from the module's own dependency)
// the way an image does: static, without the race detector.
func binaries(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	pkgs := []string{"../services/api", "../services/ingest", "../services/evaluator", "../services/dispatcher", "github.com/nats-io/nats-server/v2"}
	cmd := exec.Command("go", append([]string{"build", "-o", dir + "/"}, pkgs...)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return dir
}

// freePorts reserves n loopback ports at once (so they differ) and frees them for the
// processes that are told to listen there.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	ports := make([]int, n)
	var ls []net.Listener
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// process is one started program whose output goes to a log file in the test's
// directory; a failing test prints the end of every log.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error // set when done is closed
}

func startProcess(t *testing.T, name, bin string, args, env []string) *process {
	t.Helper()
	p := &process{name: name, log: filepath.Join(t.TempDir(), name+".log"), done: make(chan struct{})}
	out, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env, p.cmd.Stdout, p.cmd.Stderr = env, out, out
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		out.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.kill()
		<-p.done
		if t.Failed() {
			b, _ := os.ReadFile(p.log)
			t.Logf("--- %s log (last 30000 bytes):\n%s", name, tail(b, 30000))
		}
	})
	return p
}

// kill ends the process at once, as a node failure or an OOM kill would.
func (p *process) kill() { _ = p.cmd.Process.Signal(syscall.SIGKILL) }

// stop asks for a graceful shutdown (what Kubernetes sends) and waits for the exit.
func (p *process) stop(timeout time.Duration) error {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-p.done:
		return p.err
	case <-time.After(timeout):
		return fmt.Errorf("%s did not exit within %s of SIGTERM", p.name, timeout)
	}
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// natsCluster starts size nats-server processes with JetStream, routed to each other on
// loopback, and returns them with the client URL list every service is given.
func natsCluster(t *testing.T, bin string, size int) ([]*process, string) {
	t.Helper()
	ports := freePorts(t, 2*size)
	var routes, clients []string
	for i := range size {
		routes = append(routes, "nats://127.0.0.1:"+strconv.Itoa(ports[size+i]))
		clients = append(clients, "nats://127.0.0.1:"+strconv.Itoa(ports[i]))
	}
	nodes := make([]*process, size)
	for i := range size {
		name := fmt.Sprintf("nats-%d", i+1)
		nodes[i] = startProcess(t, name, filepath.Join(bin, "nats-server"), []string{
			"--name", name, "--addr", "127.0.0.1", "--port", strconv.Itoa(ports[i]),
			"--jetstream", "--store_dir", t.TempDir(),
			"--cluster_name", "doceval", "--cluster", routes[i], "--routes", strings.Join(routes, ","),
		}, os.Environ())
	}
	for _, u := range clients {
		waitFor(t, 30*time.Second, "nats "+u, func() error {
			c, err := net.DialTimeout("tcp", strings.TrimPrefix(u, "nats://"), time.Second)
			if err == nil {
				c.Close()
			}
			return err
		})
	}
	return nodes, strings.Join(clients, ",")
}

// waitReady polls a service's /readyz until it answers 200.
func waitReady(t *testing.T, url string) {
	t.Helper()
	waitFor(t, 60*time.Second, url, func() error {
		res, err := http.Get(url + "/readyz")
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", res.StatusCode)
		}
		return nil
	})
}

func waitFor(t *testing.T, timeout time.Duration, what string, f func() error) {
	t.Helper()
	if err := waitUntil(timeout, f); err != nil {
		t.Fatalf("%s not ready after %s: %v", what, timeout, err)
	}
}

// waitUntil polls f until it succeeds or timeout passes, and returns its last error.
func waitUntil(timeout time.Duration, f func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := f()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}
