package partnercli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/sdk"
)

// loginCommand stores a key per profile. The key is read from stdin, never from the
// command line, so it stays out of shell history and process lists.
func (a *app) loginCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "login",
		Short: "Store an API key (read from stdin) and base URL in a profile",
		Long: `Reads the API key from stdin (typed without echo on a terminal, as is from a pipe),
checks it with one cheap call and stores it with the base URL in the profile
(--profile, $DOCEVAL_PROFILE, else "default") of the config file:
$XDG_CONFIG_HOME/doceval/config.json, else ~/.config/doceval/config.json (mode 0600,
directory 0700; $DOCEVAL_CONFIG names another file). The base URL is --base-url, else
$DOCEVAL_BASE_URL, else the profile's current one.`,
		Example: `  doceval login --base-url https://api.doceval.example
  doceval login --profile staging --base-url https://staging.doceval.example < staging.key
  pass show doceval/prod | doceval login --profile prod --base-url https://api.doceval.example`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			name := a.profileName()
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			current := cfg.Profiles[name]
			if current == nil {
				current = &profile{}
			}
			base := firstNonEmpty(a.global.baseURL, a.env("DOCEVAL_BASE_URL"), current.BaseURL)
			if base == "" {
				return usagef("login: no base URL: pass --base-url")
			}
			key := a.global.apiKey
			if key == "" {
				if key, err = a.readKey(cmd.Context(), name); err != nil {
					return err
				}
			}
			if key == "" {
				return usagef("login: no API key on stdin")
			}
			creds := credentials{profile: name, apiKey: key, baseURL: base}
			if err := a.verifyKey(cmd.Context(), creds); err != nil {
				return err
			}
			if err := a.updateConfig(func(cfg *configFile) error {
				p := cfg.profileOf(name)
				p.APIKey, p.BaseURL = key, base
				return nil
			}); err != nil {
				return err
			}
			path, _ := a.configPath()
			fmt.Fprintf(a.stderr, "Logged in to %s as profile %q (stored in %s).\n", base, name, path)
			return nil
		},
	}
}

// readKey reads the key: on a terminal after a prompt, without echo (golang.org/x/term,
// so on Windows' console too); from a pipe or a file, the first line as is.
func (a *app) readKey(ctx context.Context, profileName string) (string, error) {
	f, ok := a.stdin.(*os.File)
	if !ok || !isTerminalFile(f) {
		return readFirstLine(a.stdin)
	}
	fd := int(f.Fd())
	state, err := term.GetState(fd)
	if err != nil {
		return "", fmt.Errorf("read the API key: %w", err)
	}
	fmt.Fprintf(a.stderr, "API key for profile %q (input hidden): ", profileName)
	defer fmt.Fprintln(a.stderr)
	type line struct {
		s   string
		err error
	}
	read := make(chan line, 1)
	go func() {
		b, err := term.ReadPassword(fd)
		read <- line{strings.TrimSpace(string(b)), err}
	}()
	// Ctrl-C must give the terminal its echo back, not leave the prompt waiting.
	select {
	case l := <-read:
		if l.err != nil && !errors.Is(l.err, io.EOF) {
			return "", fmt.Errorf("read the API key: %w", l.err)
		}
		return l.s, nil
	case <-ctx.Done():
		_ = term.Restore(fd, state)
		return "", ctx.Err()
	}
}

func readFirstLine(r io.Reader) (string, error) {
	s, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read the API key: %w", err)
	}
	return strings.TrimSpace(s), nil
}

// verifyKey makes one cheap call. A key without the permission it needs is still a
// valid key (403 permission_denied); a wrong one is not stored.
func (a *app) verifyKey(ctx context.Context, creds credentials) error {
	c, err := newSDKClient(creds)
	if err != nil {
		return err
	}
	one := 1
	_, err = collect(c.ListTemplates(ctx, &client.ListTemplatesParams{Limit: &one}), 1)
	if sdk.Code(err) == "permission_denied" {
		fmt.Fprintln(a.stderr, "warning: the key is valid but may not read templates (permission_denied)")
		return nil
	}
	if err != nil {
		fmt.Fprintln(a.stderr, "doceval: the key was not accepted; nothing stored")
		return err
	}
	return nil
}

// profilesCommand lists the profiles of the config file, keys masked.
func (a *app) profilesCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "profiles",
		Short:   "List the profiles of the config file (keys masked)",
		Example: "  doceval profiles\n  doceval profiles -q",
		Args:    exactArgs(0),
		RunE: func(*cobra.Command, []string) error {
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			type row struct {
				Name      string `json:"name"`
				BaseURL   string `json:"base_url"`
				APIKey    string `json:"api_key"`
				Selected  bool   `json:"selected"`
				Listening bool   `json:"has_listen_position"`
			}
			var rows []*row
			for _, name := range cfg.names() {
				p := cfg.Profiles[name]
				rows = append(rows, &row{Name: name, BaseURL: p.BaseURL, APIKey: maskKey(p.APIKey),
					Selected: name == a.profileName(), Listening: p.Listen != nil && p.Listen.After != nil})
			}
			return emitList(a, rows, columns[row]{
				id:     func(r *row) string { return r.Name },
				header: []string{"PROFILE", "BASE URL", "API KEY", "SELECTED", "LISTEN POSITION"},
				row:    func(r *row) []any { return []any{r.Name, r.BaseURL, r.APIKey, r.Selected, r.Listening} },
			})
		},
	}
}

// maskKey keeps the prefix and the last four characters, enough to tell keys apart.
func maskKey(k string) string {
	if len(k) <= 12 {
		return strings.Repeat("*", len(k))
	}
	return k[:4] + "…" + k[len(k)-4:]
}
