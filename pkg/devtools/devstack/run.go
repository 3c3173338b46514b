package devstack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"github.com/doceval/doceval/pkg/apiserver"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/catalog"
	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/console"
	"github.com/doceval/doceval/pkg/devtools/internal/pgcluster"
	"github.com/doceval/doceval/pkg/devtools/natsembed"
	"github.com/doceval/doceval/pkg/dispatch"
	"github.com/doceval/doceval/pkg/evaluator"
	"github.com/doceval/doceval/pkg/ingest"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/service"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/samplepdf"
)

// RunOptions configure make run.
type RunOptions struct {
	DataDir  string // .data
	HTTPAddr string // DOCEVAL_HTTP_ADDR, default 127.0.0.1:8080
	// ConsoleAddr is the staff console's address (DOCEVAL_CONSOLE_ADDR, default
	// 127.0.0.1:8081; a free port when that one is taken); "" means a free port.
	ConsoleAddr string
	DatabaseURL string // DATABASE_URL: an external server instead of the private cluster
	NatsURL     string // NATS_URL: an external server instead of the embedded one
	Log         *slog.Logger
	Out         *os.File // where the banner goes
}

// devClient is the dev API client kept across restarts in .data/dev-client.json.
type devClient struct {
	APIClientID uuid.UUID `json:"api_client_id"`
	APIKey      string    `json:"api_key"`
}

// Run starts the whole stack and blocks until ctx is done. State lives in DataDir, so a
// second run reuses the database, the streams and the dev key.
func Run(ctx context.Context, o RunOptions) error {
	// The document tools (ingest, the console's viewer) must be confinable as
	// DOCEVAL_PARSER_ISOLATION says before anything starts.
	ingestCfg, err := config.Load[ingest.Config]()
	if err != nil {
		return err
	}
	how, err := ingestCfg.CheckParsers(ctx)
	if err != nil {
		return err
	}
	o.Log.Info("document tools", "confinement", how)
	if err := os.MkdirAll(o.DataDir, 0o755); err != nil {
		return err
	}
	dataDir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return err
	}
	log := o.Log

	// A shell that sourced .data/dev.env carries the previous run's private URLs: those
	// are ours, not external servers, so they do not stop this run from starting its own.
	previous := readEnvFile(filepath.Join(dataDir, "dev.env"))
	if o.DatabaseURL != "" && o.DatabaseURL == previous["DATABASE_URL"] {
		o.DatabaseURL = ""
	}
	if o.NatsURL != "" && o.NatsURL == previous["NATS_URL"] {
		o.NatsURL = ""
	}

	// dbURL is the owner's: migrations and the dev client and admin. Each service
	// connects with serviceURL: as its own role (migration 00018) on the private
	// cluster; with an external DATABASE_URL, every service uses that one URL (a
	// development fallback: the roles are not confined then).
	dbURL := o.DatabaseURL
	serviceURL := func(string) string { return dbURL }
	var cluster *pgcluster.Cluster
	if dbURL == "" {
		cluster, err = pgcluster.Start(ctx, pgcluster.Options{Dir: filepath.Join(dataDir, "postgres"), Log: os.Stderr})
		if err != nil {
			return fmt.Errorf("start PostgreSQL: %w", err)
		}
		defer cluster.Stop(context.WithoutCancel(ctx)) //nolint:errcheck
		if err := cluster.CreateDatabase(ctx, "doceval"); err != nil {
			return err
		}
		dbURL = cluster.URL("doceval")
		serviceURL = func(service string) string { return cluster.URLAs(devLogin(service), "doceval") }
	}
	natsURL := o.NatsURL
	if natsURL == "" {
		srv, err := natsembed.Start(natsembed.Options{StoreDir: filepath.Join(dataDir, "nats")})
		if err != nil {
			return err
		}
		defer srv.Shutdown()
		natsURL = srv.ClientURL()
	}

	pool, err := store.Connect(ctx, dbURL, log)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := catalog.Prepare(ctx, pool); err != nil {
		return err
	}
	if cluster != nil {
		for _, service := range []string{"api", "ingest", "evaluator", "dispatcher", "console", "admin"} {
			if err := cluster.EnsureLogin(ctx, devLogin(service), "doceval_"+service); err != nil {
				return fmt.Errorf("database role of %s: %w", service, err)
			}
		}
	}
	client, err := ensureDevClient(ctx, store.New(pool), filepath.Join(dataDir, "dev-client.json"))
	if err != nil {
		return err
	}
	if err := writeSamples(filepath.Join(dataDir, "samples")); err != nil {
		return err
	}

	admin, err := ensureDevAdmin(ctx, store.New(pool), filepath.Join(dataDir, "dev-admin.json"))
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", o.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen on %s (set DOCEVAL_HTTP_ADDR to use another address): %w", o.HTTPAddr, err)
	}
	baseURL := "http://" + ln.Addr().String()
	consoleLn, err := listenConsole(o.ConsoleAddr)
	if err != nil {
		ln.Close()
		return err
	}
	consoleURL := "http://" + consoleLn.Addr().String()

	// Migrated above, as the owner: the services' roles could not.
	common := config.Common{
		NatsURL: natsURL, LogLevel: slog.LevelInfo, Migrate: false,
		StreamReplicas: 1, OpsAddr: "127.0.0.1:0", ShutdownTimeout: 10 * time.Second, OutboxRelay: true,
		BlobURL: blob.FileURL(filepath.Join(dataDir, "blobs")),
	}
	as := func(c config.Common, service string) config.Common {
		c.DatabaseURL = serviceURL(service)
		return c
	}
	tunables, err := config.Load[apiserver.Tunables]() // the API's own settings from the environment
	if err != nil {
		return err
	}
	if tunables.SecretKey == "" {
		if tunables.SecretKey, err = devSecretKey(filepath.Join(dataDir, "secret.key")); err != nil {
			return err
		}
	}
	if tunables.PublicURL == "" {
		tunables.PublicURL = baseURL // the served contract names this stack
	}
	apiCfg := apiserver.Config{Common: as(common, "api"), Tunables: tunables}
	parent := ctx
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return apiserver.RunOn(ctx, apiCfg, log.With("service", "api"), ln) })
	consoleSettings, err := config.Load[console.Settings]()
	if err != nil {
		return err
	}
	if !strings.HasPrefix(consoleSettings.PublicURL, "https://") {
		consoleSettings.InsecureCookies = true // plain http on this machine
	}
	if consoleSettings.SecretKey == "" {
		// The console's own ring for staff TOTP secrets: never the api's, which opens
		// the webhook signing secrets the console can read.
		if consoleSettings.SecretKey, err = devSecretKey(filepath.Join(dataDir, "console-secret.key")); err != nil {
			return err
		}
	}
	// The api's relay publishes what the console writes to the outbox.
	consoleCommon := as(common, "console")
	consoleCommon.OutboxRelay = false
	g.Go(func() error {
		return console.RunOn(ctx, console.Config{Common: consoleCommon, Settings: consoleSettings}, log.With("service", "console"), consoleLn)
	})
	g.Go(func() error {
		l := log.With("service", "ingest")
		return service.RunWorker(ctx, "ingest", as(common, "ingest"), l, ingest.Build(ingestCfg, l))
	})
	dispatchCfg, err := config.Load[dispatch.Config]()
	if err != nil {
		return err
	}
	dispatchCfg.SecretKey = tunables.SecretKey
	if _, set := os.LookupEnv("DOCEVAL_WEBHOOK_ALLOW_PRIVATE"); !set {
		dispatchCfg.AllowPrivate = true // webhook receivers of a dev machine listen on loopback
	}
	dispatcher, err := dispatch.Build(dispatchCfg, log.With("service", "dispatcher"))
	if err != nil {
		return err
	}
	g.Go(func() error {
		return service.RunWorker(ctx, "dispatcher", as(common, "dispatcher"), log.With("service", "dispatcher"), dispatcher)
	})
	evaluatorCfg, err := config.Load[evaluator.Config]()
	if err != nil {
		return err
	}
	evaluatorWorker, err := evaluator.Build(evaluatorCfg, log.With("service", "evaluator"))
	if err != nil {
		return err
	}
	g.Go(func() error {
		return service.RunWorker(ctx, "evaluator", as(common, "evaluator"), log.With("service", "evaluator"), evaluatorWorker)
	})
	g.Go(func() error {
		if err := waitReady(ctx, baseURL+"/readyz"); err != nil {
			return err
		}
		// The console's /readyz is on its internal ops port; /healthz answers on the
		// public one once it serves, which is after it reached the database.
		if err := waitReady(ctx, consoleURL+"/healthz"); err != nil {
			return err
		}
		env := map[string]string{
			"DOCEVAL_BASE_URL": baseURL, "DOCEVAL_API_KEY": client.APIKey,
			"DATABASE_URL": dbURL, "NATS_URL": natsURL, "DOCEVAL_CONSOLE_URL": consoleURL,
			"DOCEVAL_CONSOLE_EMAIL": admin.Email, "DOCEVAL_CONSOLE_PASSWORD": admin.Password,
		}
		if err := writeEnvFile(filepath.Join(dataDir, "dev.env"), env); err != nil {
			return err
		}
		fmt.Fprintf(o.Out, "\ndoceval is ready\n  base URL: %s\n  API key:  %s\n  console:  %s\n            sign in as %s with password %s\n  env:      %s (source it: . %s)\n  stop:     Ctrl-C\n\n",
			baseURL, client.APIKey, consoleURL, admin.Email, admin.Password, filepath.Join(o.DataDir, "dev.env"), filepath.Join(o.DataDir, "dev.env"))
		return nil
	})
	err = g.Wait()
	if parent.Err() != nil {
		// Stopped by its caller (Ctrl-C, a test's cleanup): a service still starting up
		// (waiting for its streams) gives up with the context's error, which is no fault.
		return nil
	}
	return err
}

// devLogin is the login user of a service's database role on the private cluster.
func devLogin(service string) string { return "doceval_" + service + "_login" }

// ensureDevClient reuses the saved dev key while it still authenticates, else creates a
// dev client with every permission.
func ensureDevClient(ctx context.Context, st *store.Store, path string) (devClient, error) {
	var saved devClient
	if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &saved) == nil {
		cred, err := st.Authenticate(ctx, auth.HashKey(saved.APIKey))
		if err == nil && !cred.Disabled {
			return saved, nil
		}
	}
	c, _, key, err := st.CreateClient(ctx, "dev", auth.AllPermissions)
	if err != nil {
		return devClient{}, err
	}
	saved = devClient{APIClientID: c.ID, APIKey: key}
	b, _ := json.MarshalIndent(saved, "", "  ")
	return saved, os.WriteFile(path, b, 0o600)
}

// devAdmin is the dev console's first admin account, kept in .data/dev-admin.json.
type devAdmin struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// ensureDevAdmin reuses the saved admin account while its password still signs in,
// else creates it (or gives it a new password).
func ensureDevAdmin(ctx context.Context, st *store.Store, path string) (devAdmin, error) {
	saved := devAdmin{Email: "admin@doceval.localhost"}
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &saved)
	}
	op, err := st.OperatorByEmail(ctx, saved.Email)
	switch {
	case err == nil && !op.Disabled && saved.Password != "" && auth.CheckPassword(op.PasswordHash, saved.Password):
		return saved, nil
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return saved, err
	}
	var hash string
	var herr error
	if saved.Password, hash, herr = auth.NewPasswordHash(20); herr != nil {
		return saved, herr
	}
	actor := st.As(store.Actor{Name: "doceval-devstack"})
	if errors.Is(err, store.ErrNotFound) {
		if _, err := actor.CreateOperator(ctx, store.NewOperator{Email: saved.Email, Role: store.RoleAdmin, PasswordHash: &hash}); err != nil {
			return saved, err
		}
	} else {
		if err := actor.SetOperatorPassword(ctx, op.ID, &hash); err != nil {
			return saved, err
		}
		if op.Disabled {
			if err := actor.SetOperatorDisabled(ctx, op.ID, false); err != nil {
				return saved, err
			}
		}
	}
	b, _ := json.MarshalIndent(saved, "", "  ")
	return saved, os.WriteFile(path, b, 0o600)
}

// listenConsole listens on addr, or on a free port when addr is empty or the default
// port is taken (a second stack on the same machine).
func listenConsole(addr string) (net.Listener, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil && addr == DefaultConsoleAddr {
		return net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return nil, fmt.Errorf("listen on %s (set DOCEVAL_CONSOLE_ADDR to use another address): %w", addr, err)
	}
	return ln, nil
}

// DefaultConsoleAddr is where make run serves the console unless DOCEVAL_CONSOLE_ADDR says otherwise.
const DefaultConsoleAddr = "127.0.0.1:8081"

// devSecretKey is a key of the dev stack's (webhook secrets and replayed responses in
// secret.key, staff TOTP secrets in console-secret.key), kept in .data so what it
// sealed stays readable across restarts.
func devSecretKey(path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil {
		return strings.TrimSpace(string(b)), nil
	}
	key := secretbox.NewKey()
	return key, os.WriteFile(path, []byte(key+"\n"), 0o600)
}

// writeSamples puts a sample payslip under .data/samples for the README's quickstart.
func writeSamples(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	payslip := samplepdf.Text([][]string{{
		"Gehaltsabrechnung Januar 2026",
		"Arbeitgeber: Beispiel GmbH, Koeln",
		"Mitarbeiter: Erika Mustermann",
		"Bruttobezug 4.800,00 EUR",
		"Nettobezug 3.250,00 EUR",
	}})
	return os.WriteFile(filepath.Join(dir, "payslip.pdf"), payslip, 0o644)
}

// readEnvFile reads the KEY='value' lines writeEnvFile writes.
func readEnvFile(path string) map[string]string {
	out := map[string]string{}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		if ok {
			out[k] = strings.ReplaceAll(strings.Trim(v, "'"), `'\''`, "'")
		}
	}
	return out
}

func writeEnvFile(path string, env map[string]string) error {
	var b strings.Builder
	for _, k := range []string{"DOCEVAL_BASE_URL", "DOCEVAL_API_KEY", "DATABASE_URL", "NATS_URL", "DOCEVAL_CONSOLE_URL", "DOCEVAL_CONSOLE_EMAIL", "DOCEVAL_CONSOLE_PASSWORD"} {
		fmt.Fprintf(&b, "export %s='%s'\n", k, strings.ReplaceAll(env[k], "'", `'\''`))
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}

func waitReady(ctx context.Context, url string) error {
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return errors.New("stopped before the API was ready")
		case <-time.After(100 * time.Millisecond):
		}
	}
}
