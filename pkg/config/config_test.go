package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/doceval/doceval/pkg/config"
)

type service struct {
	config.Common
	Secrets secrets
}

type secrets struct {
	SecretKey string `env:"DOCEVAL_TEST_SECRET_KEY"`
	Other     string `env:"DOCEVAL_TEST_OTHER" envDefault:"default"`
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "value")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A setting given as NAME_FILE is read from the file (a mounted secret), less its
// trailing newline; NAME itself wins over it; a missing file is a configuration error.
func TestLoadReadsSettingsFromFiles(t *testing.T) {
	t.Setenv("DOCEVAL_TEST_SECRET_KEY_FILE", writeFile(t, "c2VjcmV0\n"))
	cfg, err := config.Load[secrets]()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SecretKey != "c2VjcmV0" || cfg.Other != "default" {
		t.Fatalf("got %+v", cfg)
	}

	// In a service's nested settings, as in its own.
	t.Setenv("DATABASE_URL_FILE", writeFile(t, "postgres://db/doceval\n"))
	t.Setenv("NATS_URL", "nats://nats")
	svc, err := config.Load[service]()
	if err != nil || svc.DatabaseURL != "postgres://db/doceval" || svc.Secrets.SecretKey != "c2VjcmV0" {
		t.Fatalf("nested: %+v, %v", svc, err)
	}

	t.Setenv("DOCEVAL_TEST_SECRET_KEY", "from-env")
	if cfg, err = config.Load[secrets](); err != nil || cfg.SecretKey != "from-env" {
		t.Fatalf("NAME beside NAME_FILE: %+v, %v", cfg, err)
	}

	os.Unsetenv("DOCEVAL_TEST_SECRET_KEY")
	t.Setenv("DOCEVAL_TEST_SECRET_KEY_FILE", filepath.Join(t.TempDir(), "missing"))
	if _, err = config.Load[secrets](); err == nil || !strings.Contains(err.Error(), "DOCEVAL_TEST_SECRET_KEY_FILE") {
		t.Fatalf("a missing file: %v", err)
	}
}
