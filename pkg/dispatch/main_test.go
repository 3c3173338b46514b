package dispatch_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/dispatch"
	"github.com/doceval/doceval/pkg/service"
)

// dispatcherProcessEnv makes the test binary run as doceval-dispatcher, configured from
// the environment like the real one, so a test can kill it with SIGKILL.
const dispatcherProcessEnv = "DOCEVAL_TEST_RUN_DISPATCHER"

func TestMain(m *testing.M) {
	if os.Getenv(dispatcherProcessEnv) == "1" {
		os.Exit(runDispatcherProcess())
	}
	os.Exit(m.Run())
}

func runDispatcherProcess() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	type settings struct {
		config.Common
		dispatch.Config
	}
	cfg, err := config.Load[settings]()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	worker, err := dispatch.Build(cfg.Config, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := service.RunWorker(ctx, "dispatcher", cfg.Common, log, worker); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
