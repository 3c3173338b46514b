// Command doceval-devstack is the engine room of the Makefile:
//
//	doceval-devstack run                    # make run: the whole stack, state under .data/
//	doceval-devstack with-postgres -- CMD   # make test: CMD with TEST_DATABASE_URL set
//	doceval-devstack bench-table < OUT      # make bench: go test -bench output as a table
//	doceval-devstack packages [-n 40] [-parallel 2]
//	                                        # against make run (. .data/dev.env first): 40
//	                                        # applicant packages, upload → ready per file
//	doceval-devstack release [-dry-run] [-skip-checks] vX.Y.Z | -next
//	                                        # make release: version, tidy, check, tag the
//	                                        # released modules (-next: the next minor)
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/doceval/doceval/pkg/devtools/devstack"
	"github.com/doceval/doceval/pkg/httpx"
	"github.com/doceval/doceval/pkg/logging"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "run":
		err := devstack.Run(ctx, devstack.RunOptions{
			DataDir:     env("DOCEVAL_DATA_DIR", ".data"),
			HTTPAddr:    env("DOCEVAL_HTTP_ADDR", "127.0.0.1:8080"),
			ConsoleAddr: env("DOCEVAL_CONSOLE_ADDR", devstack.DefaultConsoleAddr),
			DatabaseURL: os.Getenv("DATABASE_URL"),
			NatsURL:     os.Getenv("NATS_URL"),
			Log:         logging.New(os.Stderr, level(), "", httpx.RequestIDFromContext),
			Out:         os.Stdout,
		})
		if err != nil && ctx.Err() == nil {
			fmt.Fprintln(os.Stderr, "doceval-devstack run:", err)
			os.Exit(1)
		}
	case "with-postgres":
		args := os.Args[2:]
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
		code, err := devstack.WithPostgres(ctx, args, os.Stderr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "doceval-devstack with-postgres:", err)
		}
		os.Exit(code)
	case "bench-table":
		if err := devstack.BenchTable(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "doceval-devstack bench-table:", err)
			os.Exit(1)
		}
	case "packages":
		fs := flag.NewFlagSet("packages", flag.ExitOnError)
		n := fs.Int("n", 40, "applicant packages to send")
		parallel := fs.Int("parallel", 2, "packages sent at a time")
		seed := fs.Int64("seed", 1, "corpus seed: the same seed sends the same files")
		fs.Parse(os.Args[2:]) //nolint:errcheck // ExitOnError
		err := devstack.PackageRun(ctx, devstack.PackageRunOptions{
			BaseURL: env("DOCEVAL_BASE_URL", "http://127.0.0.1:8080"), APIKey: os.Getenv("DOCEVAL_API_KEY"),
			Packages: *n, Parallel: *parallel, MinFiles: 6, MaxFiles: 8, Seed: *seed, Out: os.Stdout,
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "doceval-devstack packages:", err)
			os.Exit(1)
		}
	case "release":
		fs := flag.NewFlagSet("release", flag.ExitOnError)
		dryRun := fs.Bool("dry-run", true, "release a copy of the working tree and leave the repository as it was")
		skipChecks := fs.Bool("skip-checks", false, "leave out the tests a release runs")
		next := fs.Bool("next", false, "release the next minor version")
		fs.Parse(os.Args[2:]) //nolint:errcheck // ExitOnError
		repo, err := os.Getwd()
		if err != nil {
			fmt.Fprintln(os.Stderr, "doceval-devstack release:", err)
			os.Exit(1)
		}
		version := fs.Arg(0)
		if *next {
			if version, err = devstack.NextMinorVersion(repo); err != nil {
				fmt.Fprintln(os.Stderr, "doceval-devstack release:", err)
				os.Exit(1)
			}
		}
		if version == "" || fs.NArg() > 1 || (*next && fs.NArg() > 0) {
			usage()
		}
		err = devstack.Release(ctx, devstack.ReleaseOptions{Repo: repo, Version: version, DryRun: *dryRun, SkipChecks: *skipChecks, Out: os.Stdout})
		if err != nil {
			fmt.Fprintln(os.Stderr, "doceval-devstack", err)
			os.Exit(1)
		}
	default:
		usage()
	}
}

func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func level() slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(env("DOCEVAL_LOG_LEVEL", "info"))); err != nil {
		return slog.LevelInfo
	}
	return l
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: doceval-devstack run | with-postgres -- CMD [ARGS] | bench-table < go-test-bench-output | packages [-n N] [-parallel P] [-seed S] | release [-dry-run=false] [-skip-checks] vX.Y.Z|-next")
	os.Exit(2)
}
