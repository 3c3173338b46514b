// Package partnercli is the partner command line tool `doceval`: every operation of the
// API as a command, built on cobra (help, examples and shell completion come with it) over
// the Go SDK (pkg/sdk), printing tables for people and the API's JSON for scripts.
//
// Everything goes through Run, which takes its arguments, streams and environment as
// parameters, so tests drive the whole CLI in-process.
package partnercli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

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

// Streams are what one run reads and writes. A nil Stdin reads as empty.
type Streams struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// app is one invocation's state, shared by every command.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	env            Env
	global         globalFlags
	sdkClient      *sdk.Client
}

// globalFlags are accepted before or after the command: `doceval --json submissions
// list` and `doceval submissions list --json` agree.
type globalFlags struct {
	apiKey  string
	baseURL string
	profile string
	json    bool
	quiet   bool
}

// Run executes the command line args (without the program name) and returns the
// process exit code.
func Run(ctx context.Context, args []string, streams Streams, env Env) int {
	if env == nil {
		env = func(string) string { return "" }
	}
	if streams.Stdin == nil {
		streams.Stdin = strings.NewReader("")
	}
	a := &app{stdin: streams.Stdin, stdout: streams.Stdout, stderr: streams.Stderr, env: env}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(streams.Stdin)
	root.SetOut(streams.Stdout)
	root.SetErr(streams.Stderr)
	return a.report(root.ExecuteContext(ctx))
}

// rootCommand builds the whole command tree. Each resource's file adds its group.
func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "doceval",
		Short: "The doceval API from the command line",
		Long: `doceval drives the doceval API: templates, the catalog (checks, data fields, document
types), submissions, uploads, evaluations, events and webhook endpoints, plus
'listen' to receive events on a laptop and 'api' for any request.

Credentials come from, in this order: --api-key / --base-url, DOCEVAL_API_KEY /
DOCEVAL_BASE_URL, then the profile (--profile, DOCEVAL_PROFILE, else "default") that
'doceval login' stored in the config file.

Output is a table; --json prints the API's JSON and -q only the ids, for scripts.`,
		Example: `  doceval login --base-url https://api.doceval.example
  doceval submissions create --external-id crm-4712
  doceval files upload SUBMISSION_ID payslip.pdf --wait
  doceval evaluations start SUBMISSION_ID --wait
  doceval listen --forward-to http://127.0.0.1:3000/webhooks`,
		Args:              cobra.ArbitraryArgs,
		RunE:              a.groupRunE,
		SilenceErrors:     true,
		SilenceUsage:      true,
		PersistentPreRunE: a.prepare,
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.global.apiKey, "api-key", "", "API key (default $DOCEVAL_API_KEY, then the profile's)")
	pf.StringVar(&a.global.baseURL, "base-url", "", "API base URL (default $DOCEVAL_BASE_URL, then the profile's)")
	pf.StringVar(&a.global.profile, "profile", "", `profile in the config file (default $DOCEVAL_PROFILE, else "default")`)
	pf.BoolVar(&a.global.json, "json", false, "print the API's JSON instead of a table")
	pf.BoolVarP(&a.global.quiet, "quiet", "q", false, "print only ids, one per line")
	// Groups run (to refuse a missing or unknown subcommand), but their usage shows
	// only "doceval GROUP [command]".
	root.SetUsageTemplate(strings.Replace(root.UsageTemplate(),
		"{{if .Runnable}}", "{{if and .Runnable (not .HasAvailableSubCommands)}}", 1))
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usagef("%s: %v", cmd.CommandPath(), err)
	})
	root.AddCommand(
		a.templatesCommand(),
		a.checksCommand(), a.dataFieldsCommand(), a.documentTypesCommand(),
		a.submissionsCommand(),
		a.filesCommand(),
		a.evaluationsCommand(),
		a.eventsCommand(),
		a.webhooksCommand(),
		a.triggerCommand(),
		a.listenCommand(),
		a.apiCommand(),
		a.loginCommand(),
		a.profilesCommand(),
		a.versionCommand(),
	)
	return root
}

// prepare checks the global flags and builds the client for commands that call the
// API (those annotated by calls), so their RunE starts with a.sdkClient ready.
func (a *app) prepare(cmd *cobra.Command, _ []string) error {
	if a.global.json && a.global.quiet {
		return usagef("--json and --quiet exclude each other")
	}
	if cmd.Annotations[operationsAnnotation] == "" {
		return nil
	}
	_, err := a.client()
	return err
}

// group returns a command that only holds subcommands. Run bare or with an unknown
// subcommand it is a usage error (exit 2) naming the subcommands; --help is not.
func (a *app) group(use, short, long string, aliases ...string) *cobra.Command {
	return &cobra.Command{
		Use:     use,
		Short:   short,
		Long:    long,
		Aliases: aliases,
		Args:    cobra.ArbitraryArgs,
		RunE:    a.groupRunE,
	}
}

func (a *app) groupRunE(cmd *cobra.Command, args []string) error {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	list := strings.Join(names, ", ")
	if len(args) == 0 {
		if !cmd.HasParent() {
			return usagef("missing command (one of: %s); run `doceval --help`", list)
		}
		return usagef("%s needs a subcommand: %s", cmd.CommandPath(), list)
	}
	msg := fmt.Sprintf("unknown subcommand %q of %s (one of: %s)", args[0], cmd.CommandPath(), list)
	if !cmd.HasParent() {
		msg = fmt.Sprintf("unknown command %q (run `doceval --help`)", args[0])
	}
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return &usageError{msg: msg}
}

// report prints err for a person and maps it to the exit code.
func (a *app) report(err error) int {
	if err == nil {
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

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
