package console

import (
	"time"

	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/extract"
	"github.com/doceval/doceval/pkg/extractor"
)

// Config is the console service's configuration.
type Config struct {
	config.Common
	Settings
}

// Settings are the console's own settings (the dev stack reads only these).
type Settings struct {
	HTTPAddr string `env:"DOCEVAL_HTTP_ADDR" envDefault:":8080"`
	// PublicURL is where staff reach the console (https://console.example.com): the
	// OpenID Connect redirect URL is built from it.
	PublicURL string `env:"DOCEVAL_CONSOLE_PUBLIC_URL"`
	// InsecureCookies drops the Secure flag for a console served over plain http on a
	// developer's machine (the dev stack sets it unless PublicURL is https); never in
	// production.
	InsecureCookies bool `env:"DOCEVAL_CONSOLE_INSECURE_COOKIES" envDefault:"false"`
	// TrustedProxies are the reverse proxies (CIDRs or addresses, comma-separated) whose
	// X-Forwarded-For is believed: sign-in throttling and the audit log then see the
	// client's address instead of the proxy's. Empty (the default): the peer address is
	// the client's. Name only the proxies themselves: a client whose own address is
	// trusted can put any address in X-Forwarded-For and be counted as a new source on
	// every attempt, escaping the sign-in throttling.
	TrustedProxies string `env:"DOCEVAL_CONSOLE_TRUSTED_PROXIES" envDefault:""`
	// SessionIdle ends a session unused for this long; SessionMax ends any session this
	// long after sign-in.
	SessionIdle time.Duration `env:"DOCEVAL_CONSOLE_SESSION_IDLE" envDefault:"30m"`
	SessionMax  time.Duration `env:"DOCEVAL_CONSOLE_SESSION_MAX" envDefault:"12h"`
	// LoginMaxFailures failed sign-ins (wrong passwords or second-factor codes) for one
	// e-mail from one source address within LoginWindow lock further attempts for that
	// e-mail from that source until the window has passed; 4× as many from one source
	// for any e-mails (password spraying) lock that source out. Another source is not
	// locked: a stranger cannot lock an operator out. An IPv6 source counts as its /64.
	// Wrong second-factor codes are also counted per account from all sources: past
	// 2×LoginMaxFailures of them within LoginWindow, codes for it are refused (only
	// someone with the password gets to enter one). A right password followed by a
	// code is not a failure, whether the code comes or not.
	LoginMaxFailures int           `env:"DOCEVAL_CONSOLE_LOGIN_MAX_FAILURES" envDefault:"5"`
	LoginWindow      time.Duration `env:"DOCEVAL_CONSOLE_LOGIN_WINDOW" envDefault:"15m"`
	// HashConcurrency bounds the password checks running at once (argon2id takes 64 MiB
	// each); a sign-in that finds no free slot within HashWait is answered 429 "try
	// again".
	HashConcurrency int           `env:"DOCEVAL_CONSOLE_HASH_CONCURRENCY" envDefault:"4"`
	HashWait        time.Duration `env:"DOCEVAL_CONSOLE_HASH_WAIT" envDefault:"2s"`
	// SecretKey is the key ring that seals the staff's TOTP secrets at rest (secretbox,
	// NEW,OLD during a rotation, then `doceval-admin secrets reencrypt`). It is the
	// console's own, never the api's DOCEVAL_SECRET_KEY: the console reads
	// webhook_endpoints, whose signing secrets that ring seals.
	SecretKey string `env:"DOCEVAL_CONSOLE_SECRET_KEY"`
	// RequireMFA makes every password account without a second factor enrol one (TOTP)
	// right after signing in, before it reaches any other page. Accounts bound to single
	// sign-on are exempt: they sign in through the provider only, whose factors apply.
	RequireMFA bool `env:"DOCEVAL_CONSOLE_REQUIRE_MFA" envDefault:"false"`
	// MFAIssuer names the console in authenticator apps.
	MFAIssuer string `env:"DOCEVAL_CONSOLE_MFA_ISSUER" envDefault:"doceval"`
	// Single sign-on through any OpenID Connect provider; off unless OIDCIssuer is set.
	// A staff account must exist (doceval-admin operators create) with the e-mail the
	// provider asserts as verified; the identity is bound to it at the first sign-in.
	OIDCIssuer       string `env:"DOCEVAL_CONSOLE_OIDC_ISSUER"`
	OIDCClientID     string `env:"DOCEVAL_CONSOLE_OIDC_CLIENT_ID"`
	OIDCClientSecret string `env:"DOCEVAL_CONSOLE_OIDC_CLIENT_SECRET"`
	OIDCScopes       string `env:"DOCEVAL_CONSOLE_OIDC_SCOPES" envDefault:"openid email profile"`
	// OIDCButton is the sign-in button's label ("Sign in with …").
	OIDCButton string `env:"DOCEVAL_CONSOLE_OIDC_BUTTON" envDefault:"Single sign-on"`
	// RenderDPI is the resolution PDF pages are rendered at for the document viewer;
	// rendered pages are cached next to the upload in the blob store.
	RenderDPI int `env:"DOCEVAL_CONSOLE_RENDER_DPI" envDefault:"110"`
	// ToolMaxMemory bounds the address space of the page renderer (pdftoppm).
	ToolMaxMemory int64 `env:"DOCEVAL_TOOL_MAX_MEMORY" envDefault:"2147483648"`
	// Extractor is where pages are rendered: the extractor service, or this process.
	Extractor extractor.Config
	// ParserIsolation is where the page renderer runs: "sandbox" (bubblewrap; the
	// console refuses to start where it cannot be made) or "unconfined" (development,
	// or where something else confines it). See extract.Limits.
	ParserIsolation extract.Confinement `env:"DOCEVAL_PARSER_ISOLATION" envDefault:"sandbox"`
}
