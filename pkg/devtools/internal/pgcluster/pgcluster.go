// Package pgcluster runs a private PostgreSQL cluster from the machine's PostgreSQL
// binaries: initdb into a directory, start it on a free loopback port with its socket in
// the cluster's own directory, stop it. make run and make test use it so that nothing
// needs a server at a standard port. When the binaries are missing and the process runs
// as root, Debian's postgresql package is installed with apt-get; PostgreSQL refuses to
// run as root, so as root the server runs as the postgres user.
package pgcluster

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Options configure Start.
type Options struct {
	// Dir holds the cluster: data/ (PGDATA), the socket, the server log. An existing
	// cluster in Dir is reused.
	Dir string
	// Port to listen on; 0 picks a free one.
	Port int
	// Log receives progress and, when start-up fails, the tail of the server log.
	Log io.Writer
	// Ephemeral trades durability for speed (fsync, synchronous_commit and
	// full_page_writes off): for test clusters thrown away afterwards.
	Ephemeral bool
}

// Cluster is a running private PostgreSQL server.
type Cluster struct {
	Dir  string
	Port int

	bin     string
	runAs   *user.User // nil: the current user
	log     io.Writer
	stopped sync.Once
	stopErr error
}

const superuser = "postgres"

// Start initializes Dir when it holds no cluster yet and starts the server.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	bin, err := Binaries(ctx, o.Log)
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, Port: o.Port, bin: bin, log: o.Log}
	if os.Geteuid() == 0 {
		if c.runAs, err = ensureUser(ctx, superuser, o.Log); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if c.runAs != nil && !c.reachable(ctx, dir) {
		// The checkout lives where the postgres user cannot go (say /root): keep the
		// cluster in a directory of its own, named after the requested one so a second
		// run finds it again.
		alt := filepath.Join("/var/lib/doceval", fmt.Sprintf("pg-%x", sha256.Sum256([]byte(dir)))[:19])
		fmt.Fprintf(o.Log, "pgcluster: the postgres user cannot reach %s; keeping the cluster in %s\n", dir, alt)
		dir, c.Dir = alt, alt
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	}
	if err := c.chown(dir); err != nil {
		return nil, err
	}
	data := c.dataDir()
	if _, err := os.Stat(filepath.Join(data, "PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(o.Log, "pgcluster: initdb %s\n", data)
		if out, err := c.run(ctx, "initdb", "-D", data, "-U", superuser, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-instructions"); err != nil {
			return nil, fmt.Errorf("initdb: %w\n%s", err, out)
		}
	} else if err != nil {
		return nil, err
	}
	if c.Port == 0 {
		if c.Port, err = freePort(); err != nil {
			return nil, err
		}
	}
	// A cluster left running by a killed parent still holds its pid file: stop it first.
	if _, err := os.Stat(filepath.Join(data, "postmaster.pid")); err == nil {
		c.run(ctx, "pg_ctl", "-D", data, "-m", "fast", "-w", "stop") //nolint:errcheck // best effort
	}
	socket, err := c.socketDir()
	if err != nil {
		return nil, err
	}
	settings := []string{
		"-c listen_addresses=127.0.0.1",
		"-p " + strconv.Itoa(c.Port),
		"-k " + socket,
		"-c max_connections=200",
	}
	if o.Ephemeral {
		settings = append(settings, "-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off")
	}
	logFile := filepath.Join(dir, "server.log")
	out, err := c.run(ctx, "pg_ctl", "-D", data, "-l", logFile, "-w", "-t", "60", "-o", strings.Join(settings, " "), "start")
	if err != nil {
		return nil, fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, tail(logFile, 20))
	}
	fmt.Fprintf(o.Log, "pgcluster: PostgreSQL running on 127.0.0.1:%d (data %s)\n", c.Port, data)
	return c, nil
}

// URL is a connection URL for database db as the superuser (trust authentication on
// loopback only).
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", superuser, c.Port, db)
}

// URLAs is a connection URL for database db as user (trust authentication: no
// password).
func (c *Cluster) URLAs(user, db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", user, c.Port, db)
}

// EnsureLogin makes login a login role that is a member of group (which must exist),
// unless it is already.
func (c *Cluster) EnsureLogin(ctx context.Context, login, group string) error {
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = $1)", login).Scan(&exists); err != nil {
		return err
	}
	id := pgx.Identifier{login}.Sanitize()
	if !exists {
		if _, err := conn.Exec(ctx, "CREATE ROLE "+id+" LOGIN"); err != nil {
			return err
		}
	}
	_, err = conn.Exec(ctx, "GRANT "+pgx.Identifier{group}.Sanitize()+" TO "+id)
	return err
}

// CreateDatabase creates db unless it exists.
func (c *Cluster) CreateDatabase(ctx context.Context, db string) error {
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", db).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{db}.Sanitize())
	return err
}

// Stop shuts the server down (fast mode); calling it again does nothing.
func (c *Cluster) Stop(ctx context.Context) error {
	c.stopped.Do(func() {
		out, err := c.run(ctx, "pg_ctl", "-D", c.dataDir(), "-m", "fast", "-w", "stop")
		if err != nil {
			c.stopErr = fmt.Errorf("pg_ctl stop: %w\n%s", err, out)
		}
	})
	return c.stopErr
}

func (c *Cluster) dataDir() string { return filepath.Join(c.Dir, "data") }

// socketDir is where the Unix socket goes: the cluster directory, or a short directory
// under /tmp when that path is too long for a socket address (about 107 bytes).
func (c *Cluster) socketDir() (string, error) {
	sock := filepath.Join(c.Dir, "run")
	if len(sock)+len("/.s.PGSQL.65535") >= 100 {
		var err error
		if sock, err = os.MkdirTemp("", "pg"); err != nil {
			return "", err
		}
	} else if err := os.MkdirAll(sock, 0o700); err != nil {
		return "", err
	}
	return sock, c.chown(sock)
}

// run runs a PostgreSQL binary, as the postgres user when we are root.
func (c *Cluster) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	path := filepath.Join(c.bin, name)
	var cmd *exec.Cmd
	if c.runAs != nil {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", c.runAs.Username, "--", path}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, path, args...)
	}
	cmd.Dir = c.Dir
	// pg_ctl start leaves the server running with our stdout otherwise: keep output in
	// a buffer and do not let the server inherit it.
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	return buf.Bytes(), err
}

// reachable reports whether the postgres user can enter dir's parent.
func (c *Cluster) reachable(ctx context.Context, dir string) bool {
	return exec.CommandContext(ctx, "runuser", "-u", c.runAs.Username, "--", "test", "-x", filepath.Dir(dir)).Run() == nil
}

func (c *Cluster) chown(path string) error {
	if c.runAs == nil {
		return nil
	}
	uid, _ := strconv.Atoi(c.runAs.Uid)
	gid, _ := strconv.Atoi(c.runAs.Gid)
	return filepath.Walk(path, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

// Binaries finds the directory with initdb and pg_ctl: PATH, then pg_config --bindir,
// then the newest /usr/lib/postgresql/*/bin. When none is found and we run as root, it
// installs Debian's postgresql package.
func Binaries(ctx context.Context, log io.Writer) (string, error) {
	if dir := findBinaries(ctx); dir != "" {
		return dir, nil
	}
	if os.Geteuid() != 0 {
		return "", errors.New("PostgreSQL binaries (initdb, pg_ctl) not found; install the postgresql package or set DATABASE_URL / TEST_DATABASE_URL")
	}
	fmt.Fprintln(log, "pgcluster: PostgreSQL not found; installing it with apt-get")
	if err := aptInstall(ctx, log, "postgresql"); err != nil {
		return "", err
	}
	if dir := findBinaries(ctx); dir != "" {
		return dir, nil
	}
	return "", errors.New("PostgreSQL binaries not found after installing postgresql")
}

func findBinaries(ctx context.Context) string {
	if p, err := exec.LookPath("initdb"); err == nil {
		if dir := filepath.Dir(p); isFile(filepath.Join(dir, "pg_ctl")) {
			return dir
		}
	}
	if out, err := exec.CommandContext(ctx, "pg_config", "--bindir").Output(); err == nil {
		if dir := strings.TrimSpace(string(out)); isFile(filepath.Join(dir, "initdb")) {
			return dir
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, dir := range dirs {
		if isFile(filepath.Join(dir, "initdb")) && isFile(filepath.Join(dir, "pg_ctl")) {
			return dir
		}
	}
	return ""
}

func version(binDir string) float64 {
	v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(binDir)), 64)
	return v
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func aptInstall(ctx context.Context, log io.Writer, pkgs ...string) error {
	for _, args := range [][]string{{"update", "-qq"}, append([]string{"install", "-y", "-qq", "--no-install-recommends"}, pkgs...)} {
		cmd := exec.CommandContext(ctx, "apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("apt-get %s: %w", args[0], err)
		}
	}
	return nil
}

// ensureUser returns the system user name, creating it (as a system user) when the
// postgresql package did not.
func ensureUser(ctx context.Context, name string, log io.Writer) (*user.User, error) {
	if u, err := user.Lookup(name); err == nil {
		return u, nil
	}
	fmt.Fprintf(log, "pgcluster: creating system user %s\n", name)
	out, err := exec.CommandContext(ctx, "useradd", "--system", "--user-group", "--no-create-home", "--shell", "/bin/sh", name).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("useradd %s: %w\n%s", name, err, out)
	}
	return user.Lookup(name)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
