package partnercli

import (
	"github.com/doceval/doceval/pkg/sdk"
)

// credentials are the key and base URL a command calls the API with.
type credentials struct {
	profile string
	apiKey  string
	baseURL string
}

// credentials resolves each of the key and the base URL from the flag, else the
// environment, else the selected profile of the config file.
func (a *app) credentials() (credentials, error) {
	c := credentials{
		profile: a.profileName(),
		apiKey:  firstNonEmpty(a.global.apiKey, a.env("DOCEVAL_API_KEY")),
		baseURL: firstNonEmpty(a.global.baseURL, a.env("DOCEVAL_BASE_URL")),
	}
	if c.apiKey == "" || c.baseURL == "" {
		// The config file is read only when needed: a broken one does not stop a
		// command that has everything from flags or the environment.
		cfg, err := a.loadConfig()
		if err != nil {
			return c, err
		}
		if p := cfg.Profiles[c.profile]; p != nil {
			c.apiKey = firstNonEmpty(c.apiKey, p.APIKey)
			c.baseURL = firstNonEmpty(c.baseURL, p.BaseURL)
		}
	}
	login := "doceval login"
	if c.profile != defaultProfile {
		login += " --profile " + c.profile
	}
	if c.apiKey == "" {
		return c, usagef("no API key: run `%s`, set DOCEVAL_API_KEY or pass --api-key", login)
	}
	if c.baseURL == "" {
		return c, usagef("no API base URL: run `%s --base-url URL`, set DOCEVAL_BASE_URL or pass --base-url", login)
	}
	return c, nil
}

// client builds the SDK client on first use, so commands that need no API (help,
// completion, listen --direct) run without a key.
func (a *app) client() (*sdk.Client, error) {
	if a.sdkClient != nil {
		return a.sdkClient, nil
	}
	creds, err := a.credentials()
	if err != nil {
		return nil, err
	}
	c, err := newSDKClient(creds)
	if err != nil {
		return nil, err
	}
	a.sdkClient = c
	return c, nil
}

func newSDKClient(creds credentials) (*sdk.Client, error) {
	c, err := sdk.New(creds.baseURL, creds.apiKey, sdk.WithUserAgent(userAgent()))
	if err != nil {
		return nil, usagef("%v", err)
	}
	return c, nil
}

// userAgent names the CLI and its version in front of the SDK's own token.
func userAgent() string { return "doceval-cli/" + version() }
