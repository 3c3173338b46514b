package partnercli

import (
	"errors"
	"flag"
	"io"
	"strings"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/sdk"
)

// globalOptions are accepted before the command and by every subcommand, so
// `doceval --json submissions list` and `doceval submissions list --json` agree.
type globalOptions struct {
	apiKey  string
	baseURL string
	json    bool
}

// newFlagSet returns a flag set carrying the global options; errors are returned, not
// printed-and-exited, so Run decides the exit code.
func (a *app) newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&a.opts.apiKey, "api-key", a.opts.apiKey, "API key (default $DOCEVAL_API_KEY)")
	fs.StringVar(&a.opts.baseURL, "base-url", a.opts.baseURL, "API base URL (default $DOCEVAL_BASE_URL)")
	fs.BoolVar(&a.opts.json, "json", a.opts.json, "print the API's JSON instead of a table")
	return fs
}

// parseFlags parses args with fs. The top level stops at the first positional (the
// command); subcommands accept flags after positionals too (`get ID --json`), which
// the flag package alone does not.
func parseFlags(fs *flag.FlagSet, args []string, stopAtPositional bool) ([]string, error) {
	var positionals []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, &helpRequested{text: fs.Name() + " flags:\n" + defaults(fs)}
			}
			return nil, usagef("%s: %v", fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 || stopAtPositional {
			return append(positionals, args...), nil
		}
		if args[0] == "--" {
			return append(positionals, args[1:]...), nil
		}
		positionals = append(positionals, args[0])
		args = args[1:]
	}
}

func defaults(fs *flag.FlagSet) string {
	var b strings.Builder
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	return b.String()
}

// positionals parses a subcommand's flags and requires exactly the named positionals.
func positionals(fs *flag.FlagSet, args []string, names ...string) ([]string, error) {
	rest, err := parseFlags(fs, args, false)
	if err != nil {
		return nil, err
	}
	if len(rest) != len(names) {
		return nil, usagef("usage: %s %s [flags]", fs.Name(), strings.ToUpper(strings.Join(names, " ")))
	}
	return rest, nil
}

// idArgument parses a subcommand's flags and its one positional, a UUID named name
// ("submission_id": printed as SUBMISSION_ID in the usage, "submission id" in errors).
func idArgument(fs *flag.FlagSet, args []string, name string) (uuid.UUID, error) {
	pos, err := positionals(fs, args, name)
	if err != nil {
		return uuid.Nil, err
	}
	return parseUUID(strings.ReplaceAll(name, "_", " "), pos[0])
}

func parseUUID(what, s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, usagef("%s %q is not a UUID", what, s)
	}
	return id, nil
}

// clientForID parses a command whose one argument is the id of what it acts on, then
// builds the client (the single-id commands: get, cancel, delete, rotate).
func (a *app) clientForID(fs *flag.FlagSet, args []string, name string) (*sdk.Client, uuid.UUID, error) {
	id, err := idArgument(fs, args, name)
	if err != nil {
		return nil, uuid.Nil, err
	}
	c, err := a.client()
	return c, id, err
}

// client builds the SDK client on first use, so commands that need no API (listen,
// help) run without a key.
func (a *app) client() (*sdk.Client, error) {
	if a.sdkClient != nil {
		return a.sdkClient, nil
	}
	key := firstNonEmpty(a.opts.apiKey, a.env("DOCEVAL_API_KEY"))
	base := firstNonEmpty(a.opts.baseURL, a.env("DOCEVAL_BASE_URL"))
	if key == "" {
		return nil, usagef("no API key: set DOCEVAL_API_KEY or pass --api-key")
	}
	if base == "" {
		return nil, usagef("no API base URL: set DOCEVAL_BASE_URL or pass --base-url")
	}
	c, err := sdk.New(base, key, sdk.WithUserAgent("doceval-cli/"+sdk.Version))
	if err != nil {
		return nil, usagef("%v", err)
	}
	a.sdkClient = c
	return c, nil
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
