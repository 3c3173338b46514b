// Package partnercli is the partner command line tool `doceval`: a thin layer over the
// Go SDK (pkg/sdk) that prints tables for people and the API's JSON for scripts.
//
// Everything goes through Run, which takes its arguments, output streams and
// environment as parameters, so tests drive the whole CLI in-process.
package partnercli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/doceval/doceval/pkg/sdk"
)

// Exit codes: scripts tell a rejected command line from a failed call.
const (
	ExitOK    = 0
	ExitError = 1 // the API or the network refused
	ExitUsage = 2 // the command line is wrong
)

// Env looks up an environment variable; os.Getenv in production, a map in tests.
type Env func(key string) string

// app is one invocation's state, shared by every command.
type app struct {
	stdout, stderr io.Writer
	env            Env
	opts           *globalOptions
	sdkClient      *sdk.Client
}

// command runs one subcommand with the arguments after its name.
type command func(ctx context.Context, a *app, args []string) error

// group is a command group such as "submissions", with its subcommands by name.
type group struct {
	summary string
	cmds    map[string]command
}

// groups is filled by each command group's file, so adding a group touches one file.
var groups = map[string]group{}

// Run executes the command line args (without the program name) and returns the
// process exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, env Env) int {
	if env == nil {
		env = func(string) string { return "" }
	}
	a := &app{stdout: stdout, stderr: stderr, env: env, opts: &globalOptions{}}
	err := a.dispatch(ctx, args)
	return a.report(err)
}

func (a *app) dispatch(ctx context.Context, args []string) error {
	fs := a.newFlagSet("doceval")
	rest, err := parseFlags(fs, args, true)
	if err != nil {
		return err
	}
	if len(rest) == 0 || rest[0] == "help" {
		a.printUsage()
		if len(rest) == 0 {
			return usagef("missing command")
		}
		return nil
	}
	if rest[0] == "listen" {
		return runListen(ctx, a, rest[1:])
	}
	g, ok := groups[rest[0]]
	if !ok {
		return usagef("unknown command %q (run `doceval help`)", rest[0])
	}
	if len(rest) < 2 {
		return usagef("%s needs a subcommand: %s", rest[0], strings.Join(names(g.cmds), ", "))
	}
	cmd, ok := g.cmds[rest[1]]
	if !ok {
		return usagef("unknown subcommand %q of %s (one of: %s)", rest[1], rest[0], strings.Join(names(g.cmds), ", "))
	}
	return cmd(ctx, a, rest[2:])
}

func (a *app) printUsage() {
	fmt.Fprintln(a.stderr, "usage: doceval [--api-key KEY] [--base-url URL] [--json] COMMAND SUBCOMMAND [flags] [args]")
	fmt.Fprintln(a.stderr, "\nThe key and URL default to DOCEVAL_API_KEY and DOCEVAL_BASE_URL.\n\ncommands:")
	for _, name := range names(groups) {
		g := groups[name]
		fmt.Fprintf(a.stderr, "  %-12s %s (%s)\n", name, g.summary, strings.Join(names(g.cmds), ", "))
	}
	fmt.Fprintf(a.stderr, "  %-12s %s\n", "listen", "receive webhook deliveries locally, verify and forward them")
}

// report prints err for a person and maps it to the exit code.
func (a *app) report(err error) int {
	if err == nil {
		return ExitOK
	}
	var help *helpRequested
	if errors.As(err, &help) {
		fmt.Fprint(a.stderr, help.text)
		return ExitOK
	}
	var usage *usageError
	if errors.As(err, &usage) {
		fmt.Fprintf(a.stderr, "doceval: %s\n", usage.msg)
		return ExitUsage
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		fmt.Fprintf(a.stderr, "doceval: API error %d %s: %s\n", apiErr.StatusCode, orDash(apiErr.Code), apiErr.Message)
		if apiErr.Param != "" {
			fmt.Fprintf(a.stderr, "  param:      %s\n", apiErr.Param)
		}
		if apiErr.RequestID != "" {
			// Support needs the request id to find the call in the logs.
			fmt.Fprintf(a.stderr, "  request id: %s\n", apiErr.RequestID)
		}
		return ExitError
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(a.stderr, "doceval: interrupted")
		return ExitError
	}
	fmt.Fprintf(a.stderr, "doceval: %v\n", err)
	return ExitError
}

// usageError is a wrong command line; it exits with ExitUsage.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// helpRequested is -h or --help: the flags are printed and the run succeeds.
type helpRequested struct{ text string }

func (e *helpRequested) Error() string { return e.text }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

func names[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
