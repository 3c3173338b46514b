package partnercli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/doceval/doceval/pkg/sdk"
)

// apiCommand sends any request with the profile's credentials: the way to reach an
// operation this CLI does not know yet.
func (a *app) apiCommand() *cobra.Command {
	var (
		data, key      string
		query, headers []string
		include        bool
		requestTimeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "api METHOD PATH",
		Short: "Send any request to the API with your credentials",
		Long: `Sends METHOD PATH (relative to the base URL, e.g. /v1/templates) with the profile's key and
prints the answer's body (indented when JSON). A non-2xx answer prints its body too and
exits 1. --data is the JSON body: literal, @FILE or - (stdin).`,
		Example: `  doceval api GET /v1/templates --query limit=5
  doceval api POST /v1/webhook_endpoints --data '{"url":"https://crm.example/hooks"}'
  doceval api PATCH /v1/submissions/0190a1b2-… --data @metadata.json
  echo '{"display_name":"Copy"}' | doceval api POST /v1/templates/personal_loan/duplicate --data -`,
		Args: exactArgs(2),
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) == 0 {
				return []string{"GET", "POST", "PUT", "PATCH", "DELETE"}, cobra.ShellCompDirectiveNoFileComp
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			method := strings.ToUpper(args[0])
			creds, err := a.credentials()
			if err != nil {
				return err
			}
			target, err := apiURL(creds.baseURL, args[1], query)
			if err != nil {
				return err
			}
			var reqBody io.Reader
			if data != "" {
				raw, err := a.readData(data)
				if err != nil {
					return err
				}
				reqBody = bytes.NewReader(raw)
			}
			req, err := http.NewRequestWithContext(cmd.Context(), method, target, reqBody)
			if err != nil {
				return usagef("api: %v", err)
			}
			req.Header.Set("Authorization", "Bearer "+creds.apiKey)
			req.Header.Set("User-Agent", userAgent())
			req.Header.Set("Accept", jsonContentType)
			if reqBody != nil {
				req.Header.Set("Content-Type", jsonContentType)
			}
			if key != "" {
				req.Header.Set("Idempotency-Key", key)
			}
			for _, h := range headers {
				name, value, ok := strings.Cut(h, ":")
				if !ok {
					return usagef("api: --header %q is not NAME: VALUE", h)
				}
				req.Header.Set(strings.TrimSpace(name), strings.TrimSpace(value))
			}
			res, err := (&http.Client{Timeout: requestTimeout}).Do(req)
			if err != nil {
				return err
			}
			defer res.Body.Close()
			body, err := io.ReadAll(res.Body)
			if err != nil {
				return fmt.Errorf("read the answer: %w", err)
			}
			if include {
				a.printHead(res)
			}
			a.printBody(body)
			return sdk.ParseError(res, body)
		},
	}
	f := cmd.Flags()
	dataFlag(cmd, &data)
	f.StringArrayVar(&query, "query", nil, "a query parameter NAME=VALUE, repeatable")
	f.StringArrayVarP(&headers, "header", "H", nil, "a request header NAME: VALUE, repeatable")
	f.BoolVarP(&include, "include", "i", false, "print the status line and headers before the body")
	f.StringVar(&key, "idempotency-key", "", "Idempotency-Key header of a POST")
	f.DurationVar(&requestTimeout, "timeout", 2*time.Minute, "give up after this long")
	return cmd
}

// apiURL joins the base URL, the path and the query parameters.
func apiURL(base, path string, query []string) (string, error) {
	u, err := url.Parse(strings.TrimRight(base, "/") + "/" + strings.TrimLeft(path, "/"))
	if err != nil {
		return "", usagef("api: %v", err)
	}
	q := u.Query()
	for _, kv := range query {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return "", usagef("api: --query %q is not NAME=VALUE", kv)
		}
		q.Add(k, v)
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func (a *app) printHead(res *http.Response) {
	fmt.Fprintf(a.stdout, "%s %s\n", res.Proto, res.Status)
	names := make([]string, 0, len(res.Header))
	for name := range res.Header {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, v := range res.Header[name] {
			fmt.Fprintf(a.stdout, "%s: %s\n", name, v)
		}
	}
	fmt.Fprintln(a.stdout)
}

// printBody prints JSON indented and anything else as it came.
func (a *app) printBody(body []byte) {
	if len(body) == 0 {
		return
	}
	var out bytes.Buffer
	if json.Indent(&out, body, "", "  ") == nil {
		out.WriteByte('\n')
		_, _ = a.stdout.Write(out.Bytes())
		return
	}
	_, _ = a.stdout.Write(body)
}
