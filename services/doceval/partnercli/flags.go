package partnercli

import (
	"context"
	"iter"
	"net/http"
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/doceval/doceval/gen/client"
)

// operationsAnnotation names the operationIds of openapi/openapi.yaml a command calls,
// so a test can tell that every operation of the API has a command.
const operationsAnnotation = "doceval/operations"

// calls records the operations cmd calls and returns cmd.
func calls(cmd *cobra.Command, operationIDs ...string) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[operationsAnnotation] = strings.Join(operationIDs, ",")
	return cmd
}

// exactArgs requires n positionals; the error repeats the usage line
// ("doceval submissions get SUBMISSION_ID [flags]").
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("usage: %s", cmd.UseLine())
		}
		return nil
	}
}

// uuidArgs requires one positional per name, each a UUID, so a command's RunE can
// take them with uuidAt.
func uuidArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := exactArgs(len(names))(cmd, args); err != nil {
			return err
		}
		_, err := parseUUIDs(args, names...)
		return err
	}
}

// uuidAt is positional i, which uuidArgs checked.
func uuidAt(args []string, i int) uuid.UUID { return uuid.MustParse(args[i]) }

// maxArgs allows up to n positionals.
func maxArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return usagef("usage: %s", cmd.UseLine())
		}
		return nil
	}
}

func parseUUID(what, s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, usagef("%s %q is not a UUID", what, s)
	}
	return id, nil
}

// parseUUIDs parses positionals named in order, e.g. ("submission id", "upload id").
func parseUUIDs(args []string, names ...string) ([]uuid.UUID, error) {
	ids := make([]uuid.UUID, len(names))
	for i, name := range names {
		id, err := parseUUID(name, args[i])
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	return ids, nil
}

// idempotencyFlag adds --idempotency-key to a POST command. Without it the SDK picks a
// key itself where it retries; with it a script can repeat the whole command safely.
func idempotencyFlag(cmd *cobra.Command, key *string) {
	cmd.Flags().StringVar(key, "idempotency-key", "", "Idempotency-Key header: the same key and body within 24 h replays the first answer")
}

// withKey sends the Idempotency-Key header when key is set.
func withKey(key string) client.RequestEditorFn {
	return func(_ context.Context, req *http.Request) error {
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		return nil
	}
}

// optional is nil for "", so an unset flag leaves a parameter out.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// listFlags are --limit and --all of every list command.
type listFlags struct {
	limit int
	all   bool
}

func (l *listFlags) register(cmd *cobra.Command) {
	cmd.Flags().IntVar(&l.limit, "limit", 50, "print at most this many (0: all)")
	cmd.Flags().BoolVar(&l.all, "all", false, "follow the cursors and print every item")
}

// max is how many items to print; 0 means all.
func (l *listFlags) max() (int, error) {
	if l.limit < 0 {
		return 0, usagef("--limit must not be negative")
	}
	if l.all {
		return 0, nil
	}
	return l.limit, nil
}

// pageSize asks for no bigger pages than the limit needs (the API clamps at 100).
func pageSize(limit int) *int {
	if limit <= 0 || limit >= 100 {
		return nil
	}
	return &limit
}

// collect drains one of the SDK's list iterators, stopping after limit items (0: all).
// The iterator fetches pages on demand, so stopping early also stops the paging.
func collect[T any](items iter.Seq2[*T, error], limit int) ([]*T, error) {
	out := []*T{} // an empty list prints as [], not null
	for item, err := range items {
		if err != nil {
			return nil, err
		}
		out = append(out, item)
		if limit > 0 && len(out) >= limit {
			break
		}
	}
	return out, nil
}

// splitList splits a comma-separated flag value, dropping blanks.
func splitList(v string) []string {
	var out []string
	for part := range strings.SplitSeq(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// completeValues completes a flag from a fixed set of values.
func completeValues(cmd *cobra.Command, flag string, values ...string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
