package deploy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// composeFile is the part of the Compose specification the file uses; decoding is
// strict, so a misspelt key fails the test instead of being ignored by docker compose.
type composeFile struct {
	Name     string         `yaml:"name"`
	Doceval  map[string]any `yaml:"x-doceval"`
	Services map[string]struct {
		Image       string `yaml:"image"`
		Build       *struct{ Context, Dockerfile string }
		Command     []string          `yaml:"command"`
		User        string            `yaml:"user"`
		ReadOnly    bool              `yaml:"read_only"`
		CapDrop     []string          `yaml:"cap_drop"`
		SecurityOpt []string          `yaml:"security_opt"`
		PidsLimit   int               `yaml:"pids_limit"`
		Environment map[string]string `yaml:"environment"`
		DependsOn   map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
		Volumes         []string `yaml:"volumes"`
		Restart         string   `yaml:"restart"`
		StopGracePeriod string   `yaml:"stop_grace_period"`
		Ports           []string `yaml:"ports"`
		Tmpfs           []string `yaml:"tmpfs"`
		Networks        []string `yaml:"networks"`
		Healthcheck     *struct {
			Test     []string `yaml:"test"`
			Interval string   `yaml:"interval"`
			Retries  int      `yaml:"retries"`
		} `yaml:"healthcheck"`
	} `yaml:"services"`
	Volumes  map[string]any `yaml:"volumes"`
	Networks map[string]*struct {
		Internal bool `yaml:"internal"`
	} `yaml:"networks"`
}

// The single-host compose file runs every service from its own image, non-root on a
// read-only root, after the migration, against PostgreSQL and JetStream that are
// healthy first, sharing the blob volume.
func TestCompose(t *testing.T) {
	b, err := os.ReadFile("docker-compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("docker-compose.yaml: %v", err)
	}
	if pg := c.Services["postgres"]; pg.Healthcheck == nil || !strings.HasPrefix(pg.Image, "postgres:") {
		t.Errorf("postgres: %+v", pg)
	}
	if n := c.Services["nats"]; n.Healthcheck == nil || !slices.Contains(n.Command, "--jetstream") {
		t.Errorf("nats without JetStream or health check: %+v", n)
	}
	if m := c.Services["migrate"]; !slices.Equal(m.Command, []string{"migrate"}) || m.DependsOn["postgres"].Condition != "service_healthy" {
		t.Errorf("migrate: %+v", m)
	}
	for _, s := range []string{"api", "ingest", "evaluator", "dispatcher", "console", "migrate"} {
		svc, ok := c.Services[s]
		if !ok {
			t.Errorf("no %s service", s)
			continue
		}
		image := s
		if s == "migrate" {
			image = "admin"
		}
		if svc.Build == nil || svc.Build.Dockerfile != "deploy/docker/"+image+".Dockerfile" {
			t.Errorf("%s: build %+v", s, svc.Build)
		} else if _, err := os.Stat(filepath.Join("..", svc.Build.Dockerfile)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
		if s == "migrate" {
			continue
		}
		if !svc.ReadOnly || svc.User != "65532:65532" {
			t.Errorf("%s: read_only %v, user %q", s, svc.ReadOnly, svc.User)
		}
		for _, k := range []string{"DATABASE_URL", "NATS_URL", "DOCEVAL_BLOB_URL"} {
			if svc.Environment[k] == "" {
				t.Errorf("%s: no %s", s, k)
			}
		}
		// Each key ring only where it is read, as a file from its own volume: the
		// console seals TOTP secrets with its own and never gets the api's, which opens
		// the webhook secrets it can read.
		for k, ring := range map[string]struct {
			volume  string
			readers []string
		}{"DOCEVAL_SECRET_KEY": {"secret-key", []string{"api", "dispatcher"}}, "DOCEVAL_CONSOLE_SECRET_KEY": {"console-secret-key", []string{"console"}}} {
			want := slices.Contains(ring.readers, s)
			if got := svc.Environment[k+"_FILE"] == "/run/doceval/secret.key"; got != want {
				t.Errorf("%s: has %s_FILE %v, want %v", s, k, got, want)
			}
			if got := slices.Contains(svc.Volumes, ring.volume+":/run/doceval:ro"); got != want {
				t.Errorf("%s: mounts %s %v, want %v", s, ring.volume, got, want)
			}
			if svc.Environment[k] != "" {
				t.Errorf("%s: %s in the environment, not from its volume", s, k)
			}
		}
		if svc.DependsOn["keys"].Condition != "service_completed_successfully" {
			t.Errorf("%s: starts before its keys exist", s)
		}
		// Each service as its own login user (made by db-users), never the owner.
		if !strings.HasPrefix(svc.Environment["DATABASE_URL"], "postgres://doceval_"+s+"_login:") {
			t.Errorf("%s: connects as %s, not its own login user", s, svc.Environment["DATABASE_URL"])
		}
		if svc.DependsOn["db-users"].Condition != "service_completed_successfully" {
			t.Errorf("%s: starts before its login user exists", s)
		}
		if svc.DependsOn["migrate"].Condition != "service_completed_successfully" || svc.DependsOn["nats"].Condition != "service_healthy" {
			t.Errorf("%s: depends_on %+v", s, svc.DependsOn)
		}
		if !slices.Contains(svc.Volumes, "blobs:/var/lib/doceval/blobs") {
			t.Errorf("%s: does not share the blob volume: %v", s, svc.Volumes)
		}
	}
	// docker compose up alone works: the keys are made once into their volumes, and
	// the first up prints an API key (later ups print none).
	if k := c.Services["keys"]; !slices.Contains(k.Volumes, "secret-key:/keys/api") || !slices.Contains(k.Volumes, "console-secret-key:/keys/console") {
		t.Errorf("keys: volumes %v", k.Volumes)
	}
	if b := c.Services["bootstrap"]; !slices.Equal(b.Command, []string{"clients", "create", "--name", "compose", "--if-absent"}) ||
		b.Image != c.Services["migrate"].Image || b.DependsOn["migrate"].Condition != "service_completed_successfully" {
		t.Errorf("bootstrap: %+v", b)
	}
	for _, v := range []string{"pgdata", "natsdata", "blobs", "secret-key", "console-secret-key"} {
		if _, ok := c.Volumes[v]; !ok {
			t.Errorf("no volume %s", v)
		}
	}

	// The extractor: its own image, non-root on a read-only root, without credentials
	// or the blob volume, on an internal network that only ingest and the console
	// share, which send it their documents.
	x := c.Services["extractor"]
	if x.Build == nil || x.Build.Dockerfile != "deploy/docker/extractor.Dockerfile" || !x.ReadOnly || x.User != "65532:65532" {
		t.Errorf("extractor: %+v", x)
	}
	// No capabilities, no setuid way up (the image has su and mount), a bounded process
	// count: the container is the tools' only boundary.
	if !slices.Equal(x.CapDrop, []string{"ALL"}) || !slices.Contains(x.SecurityOpt, "no-new-privileges:true") || x.PidsLimit <= 0 {
		t.Errorf("extractor: cap_drop %v, security_opt %v, pids_limit %d", x.CapDrop, x.SecurityOpt, x.PidsLimit)
	}
	for k := range x.Environment {
		if k != "DOCEVAL_PARSER_ISOLATION" {
			t.Errorf("extractor: environment %s (it gets no settings beyond the parsers' isolation)", k)
		}
	}
	if len(x.Volumes) != 0 || len(x.DependsOn) != 0 {
		t.Errorf("extractor: volumes %v, depends on %v", x.Volumes, x.DependsOn)
	}
	if !slices.Equal(x.Networks, []string{"parsers"}) || c.Networks["parsers"] == nil || !c.Networks["parsers"].Internal {
		t.Errorf("extractor: networks %v, parsers %+v", x.Networks, c.Networks["parsers"])
	}
	for name, svc := range c.Services {
		onParsers := slices.Contains(svc.Networks, "parsers")
		if want := name == "ingest" || name == "console" || name == "extractor"; onParsers != want {
			t.Errorf("%s: on the parsers' network %v, want %v", name, onParsers, want)
		}
		if name == "ingest" || name == "console" {
			if svc.Environment["DOCEVAL_EXTRACTOR_URL"] != "http://extractor:8080" || !slices.Contains(svc.Networks, "default") {
				t.Errorf("%s: DOCEVAL_EXTRACTOR_URL %q, networks %v", name, svc.Environment["DOCEVAL_EXTRACTOR_URL"], svc.Networks)
			}
		}
	}
}
